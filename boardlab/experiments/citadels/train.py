"""Fitting Citadels' ``strong`` value (boardlab.agents.citadels.strong): ``boardlab train --game citadels``.

Rounds of self-play at four players under the official rules.  Round 0 is played by ``basic`` in every
seat; each later round by ``strong`` in every seat with the weights the round before produced.  Every
decision gives a sample: the features of the position after the move, for the seat that moved
(:func:`boardlab.agents.citadels.strong.features`, read on the true position -- they read only what the seat sees;
the self-play kernel is :func:`boardlab.agents.citadels.selfplay.selfplay_moments`);
its target is that seat's final score margin over its best rival (its total minus the best other total).
The weights are the ridge solution of the last round's moments, fitted by the shared skeleton
(:class:`boardlab.experiments.train.SelfPlay`: seeds, chunks, sums in chunk order, the fit, the file).
Every feature and target is a small integer, so the moments are exact integer sums in float64; the solve is
numpy's (LAPACK).
"""

from __future__ import annotations

import numpy as np

from boardlab.agents.citadels import strong as S
from boardlab.agents.citadels.registry import parse_agent, strong_row
from boardlab.agents.citadels.selfplay import selfplay_moments
from boardlab.experiments.train import Moments, SelfPlay
from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels.rules import load_rules
from boardlab.sim.citadels.tables import tables_for

PLAYERS = 4
EXPLORE = 0.25  # the share of picks made at random in self-play (boardlab.agents.citadels.selfplay)


def _round_agent(r: int, k: int) -> str:
    """Round 0's rule-based agent, then ``strong`` (which has no k)."""
    return "basic" if r == 0 else "strong"


def _play(rules, agent: str, weights: np.ndarray, seeds: np.ndarray, m: Moments) -> np.ndarray:
    """The games of `seeds` with `agent` in every seat, their pick samples added to `m`; their totals."""
    tb = tables_for(rules, PLAYERS)
    row = parse_agent(agent).row() if agent == "basic" else strong_row(weights)
    seats = np.zeros((len(seeds), PLAYERS), dtype=np.int64)
    scores = np.zeros((len(seeds), PLAYERS, E.SC_LEN), dtype=np.int32)
    selfplay_moments(seeds, *tb.kernel_args(), row[None, :], seats, EXPLORE, scores, m.xtx, m.xty, m.yty, m.count)
    return scores[:, :, E.SC_TOTAL]


TRAINING = SelfPlay(
    name="Citadels",
    command="boardlab train --game citadels",
    what="the strong agent's learned value (4 players, official)",
    play=_play,
    round_agent=_round_agent,
    load_rules=load_rules,
    rules="official",
    players=PLAYERS,
    chunk=250,
    features=tuple(S.FEATURES),
    buckets=None,
    version=S.WEIGHTS_VERSION,
    weights_dir=S.WEIGHTS_DIR,
    default_games=(10_000, 10_000),  # round 0 (basic), round 1 (strong with round 0's weights)
    searches=False,
    settings={"explore": EXPLORE},
    description={
        "fit": "ridge on the last round's pick samples (features after the pick); target: final score margin over"
        " the best rival"
    },
)
TRAINER = TRAINING.trainer()  # boardlab train (boardlab.sim.games.GameDef.trainer)
