"""Fitting the `strong` agent's learned value (boardlab.agents.citywright.value): `citywright train`.

A declaration over the shared skeleton (:class:`boardlab.experiments.train.SelfPlay`).
Design notes: docs/games/citywright/search.md#training-module.
"""

from __future__ import annotations

import numpy as np

from boardlab.agents.citywright import selfplay
from boardlab.agents.citywright.registry import (
    cached_weights,
    official_hash,
    parse_agent,
    preset_hashes,
    rows,
    rules_hash,
)
from boardlab.agents.citywright.strong import STRONG_K, WEIGHTS_VERSION, readonly_weights
from boardlab.agents.citywright.value import FEATURES, N_FEATURES, TURN_BUCKETS, WEIGHTS_DIR
from boardlab.experiments.train import Moments, RuleWeights, SelfPlay, round9
from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.rules import load_rules
from boardlab.sim.citywright.tables import tables_for

PLAYERS = 4


def _round_agent(r: int, k: int) -> str:
    """Round 0's rule-based agent, then ``strong`` at k."""
    return "greedy" if r == 0 else f"strong:k={k}"


def _play(rules, agent: str, weights: np.ndarray, seeds: np.ndarray, m: Moments) -> np.ndarray:
    """The games of `seeds` with `agent` in every seat, every move's sample added to `m`; their totals."""
    tb = tables_for(rules, PLAYERS)
    prms = np.tile(rows([parse_agent(agent)] * PLAYERS), (len(seeds), 1, 1))
    scores = np.zeros((len(seeds), PLAYERS, E.SC_LEN), dtype=np.int32)
    vw = readonly_weights(weights)
    selfplay.play_selfplay(seeds, prms, tb.kernel_args(), vw, scores, m.xtx, m.xty, m.yty, m.count)
    return scores[:, :, E.SC_TOTAL]


def _solve(m: Moments, ridge: float) -> tuple[np.ndarray, np.ndarray]:
    """Ridge weights per turn bucket, rounded, and each bucket's R^2 (boardlab.agents.citywright.selfplay.ridge_fit:
    no BLAS, the same bits on any machine)."""
    w = np.zeros((TURN_BUCKETS, N_FEATURES))
    r2 = np.zeros(TURN_BUCKETS)
    selfplay.ridge_fit(m.xtx, m.xty, m.yty, m.count, ridge, w, r2)
    return round9(w), r2


TRAINING = SelfPlay(
    name="Citywright",
    command="citywright train",
    what="the strong agent's learned value (4 players, v1.1 or --rules)",
    play=_play,
    round_agent=_round_agent,
    load_rules=load_rules,
    rules="v1.1",
    players=PLAYERS,
    chunk=200,
    features=tuple(FEATURES),
    buckets=TURN_BUCKETS,
    version=WEIGHTS_VERSION,
    weights_dir=WEIGHTS_DIR,
    default_games=(10_000, 10_000),  # round 0 (greedy), round 1 (strong with round 0's weights)
    default_k=STRONG_K,
    backends=("loky", "dask"),
    description={
        "fit": "ridge per turn bucket on the last round's samples; target: points still to score",
        "turn_buckets": TURN_BUCKETS,
    },
    solve=_solve,
    by_rules=RuleWeights(rules_hash, official_hash, preset_hashes, cached_weights),
)
TRAINER = TRAINING.trainer()  # boardlab train (boardlab.sim.games.GameDef.training.trainer)
