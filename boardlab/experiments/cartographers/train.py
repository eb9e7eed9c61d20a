"""Fitting Cartographers' ``strong`` value (boardlab.agents.cartographers.value): ``train --game cartographers``.

Rounds of self-play at four players under ``base-a``.  Round 0 is played by ``planner`` in every seat;
each later round by ``strong`` in every seat with the weights the round before produced.  Every decision
gives a sample for the map it draws on: the features of that map after the move, and the points its
owner still went on to score beyond the planner's value of it (:mod:`boardlab.agents.cartographers.selfplay`).
The samples are summed per bucket (season and half of it) and each bucket's weights are the ridge solution of
the last round's moments, fitted by the shared skeleton (:class:`boardlab.experiments.train.SelfPlay`: seeds,
chunks, sums in chunk order, the fit, the file); a feature that never occurs in a bucket (a card's potentials
where it is never scored again) keeps weight 0.  Every feature and target is a small integer, so the moments are
exact integer sums in float64; the solve is numpy's (LAPACK).
"""

from __future__ import annotations

import numpy as np

from boardlab.agents.cartographers import selfplay
from boardlab.agents.cartographers.registry import parse_agent, rows
from boardlab.agents.cartographers.strong import STRONG_K, WEIGHTS_VERSION, workspace
from boardlab.agents.cartographers.value import BUCKETS, FEATURES, WEIGHTS_DIR
from boardlab.experiments.train import Moments, SelfPlay
from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.rules import load_rules
from boardlab.sim.cartographers.tables import tables_for

PLAYERS = 4


def _round_agent(r: int, k: int) -> str:
    """Round 0's rule-based agent, then ``strong`` at k."""
    return "planner" if r == 0 else f"strong:k={k}"


def _play(rules, agent: str, weights: np.ndarray, seeds: np.ndarray, m: Moments) -> np.ndarray:
    """The games of `seeds` with `agent` in every seat, every decision's sample added to `m`; their totals."""
    tb = tables_for(rules, PLAYERS)
    prms = np.tile(rows([parse_agent(agent)] * PLAYERS), (len(seeds), 1, 1))
    scores = np.zeros((len(seeds), PLAYERS, E.SC_LEN), dtype=np.int32)
    vw = np.ascontiguousarray(weights, dtype=np.float64)
    selfplay.play_selfplay(seeds, prms, tb, vw, workspace(), scores, m.xtx, m.xty, m.yty, m.count)
    return scores[:, :, E.SC_TOTAL]


TRAINING = SelfPlay(
    name="Cartographers",
    command="boardlab train --game cartographers",
    what="the strong agent's learned value (4 players, base-a)",
    play=_play,
    round_agent=_round_agent,
    load_rules=load_rules,
    rules="base-a",
    players=PLAYERS,
    chunk=200,
    features=tuple(FEATURES),
    buckets=BUCKETS,
    version=WEIGHTS_VERSION,
    weights_dir=WEIGHTS_DIR,
    default_games=(10_000, 10_000, 10_000),  # round 0 (planner), rounds 1, 2 (strong with the previous weights)
    default_k=STRONG_K,
    description={
        "fit": "ridge per bucket (2 x season + second half) on the last round's samples; target: points still"
        " to score beyond the planner's value of the map after the move",
        "buckets": BUCKETS,
    },
)
TRAINER = TRAINING.trainer()  # boardlab train (boardlab.sim.games.GameDef.training.trainer)
