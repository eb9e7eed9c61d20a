"""Citadels' result columns read from a finished public-API game (for boardlab.experiments.play, the generic chunk
player): the same values and types as the kernels' chunk player (boardlab.experiments.citadels.runner)."""

from __future__ import annotations

import numpy as np

from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels.api import Game
from boardlab.sim.citadels.rules import N_RANKS, THIEF


def _joined(values) -> str:
    return "-".join(str(v) for v in values)


def rows(game: Game) -> dict[str, np.ndarray]:
    """Per column of Citadels' own (and total, in its type), one value per seat.

    Parameters
    ----------
    game : Game
        A finished game of the public API.

    Returns
    -------
    dict of str to numpy.ndarray
        Column name -> shape ``(players,)`` values.
    """
    n = game.players
    st = game.st
    scores = game.scores()
    out: dict[str, np.ndarray] = {}
    for c in ("district_points", "purple_extras", "total", "printed_cost", "gold"):
        out[c] = np.array([sc[c] for sc in scores], dtype=np.int16)
    for c in ("colour_bonus", "completion_bonus", "seat_points"):
        out[c] = np.array([sc[c] for sc in scores], dtype=np.int8)
    out["districts"] = np.array([int(st[E.ST_CITY_N + p]) for p in range(n)], dtype=np.int8)
    out["hand"] = np.array([int(st[E.ST_HAND_N + p]) for p in range(n)], dtype=np.int16)
    rounds = game.round
    out["rounds"] = np.full(n, rounds, dtype=np.int16)
    out["capped"] = np.full(n, bool(st[E.ST_CAPPED]))
    out["completion"] = np.array([int(st[E.ST_COMPLETE_ORDER + p]) for p in range(n)], dtype=np.int8)
    kept = min(rounds, E.HIST_ROUNDS)
    hist = [st[E.ST_HIST + r * E.HS_LEN : E.ST_HIST + (r + 1) * E.HS_LEN] for r in range(kept)]
    chars, murdered, robbed, stolen = [], [], [], []
    for p in range(n):
        per = []
        for h in hist:
            m = int(h[E.HS_HELD + p])
            ranks = [r for r in range(1, N_RANKS + 1) if m >> (r - 1) & 1]
            lo, hi = (min(ranks), max(ranks)) if ranks else (0, 0)
            per.append(f"{lo}" if n >= 4 else f"{lo}{hi}")
        chars.append("-".join(per))
        murdered.append(sum(int(h[E.HS_KILLED_SEAT]) == p for h in hist))
        rob = [h for h in hist if int(h[E.HS_ROBBED_SEAT]) == p and not (int(h[E.HS_HELD + p]) >> (THIEF - 1) & 1)]
        robbed.append(len(rob))
        stolen.append(sum(int(h[E.HS_STOLEN]) for h in rob))
    out["characters"] = np.array(chars, dtype=object)
    out["murdered"] = np.array(murdered, dtype=np.int16)
    out["robbed"] = np.array(robbed, dtype=np.int16)
    out["gold_stolen"] = np.array(stolen, dtype=np.int16)
    out["kills"] = np.array([_joined(int(h[E.HS_KILLED]) for h in hist)] * n, dtype=object)
    out["robs"] = np.array([_joined(int(h[E.HS_ROBBED]) for h in hist)] * n, dtype=object)
    out.update(_round_columns(game))
    return out


def _round_columns(game: Game) -> dict[str, np.ndarray]:
    """The per-round columns (boardlab.experiments.citadels.columns) from the game's arrays, as the chunk player builds
    them from a batch of one: the engine's record_results, then the same column code (its round counts and texts from
    the numba kernels' whole-array oracles, so the conformance test's comparison of the two chunk players checks one
    against the other)."""
    from boardlab.experiments.citadels.columns import COLUMNS, columns, round_counts_numpy, texts_numpy

    n = game.players
    tb = game.tables
    scores = np.zeros((1, n, E.SC_LEN), dtype=np.int32)
    info = np.zeros((1, n, E.IN_LEN), dtype=np.int32)
    hist = np.zeros((E.HIST_ROUNDS, 1, E.HS_LEN), dtype=np.int32)
    E.record_results(game.st, tb.rp, tb.districts, 0, scores, info, hist)
    kept = np.array([min(game.round, E.HIST_ROUNDS)])
    h = hist[: max(1, int(kept[0]))].transpose(1, 0, 2)
    counts, offered = round_counts_numpy(game.rules, n, h, kept)  # the kernel's oracle: the tables agree (tests)
    texts = texts_numpy(game.rules, n, h, kept, offered)  # the text kernel's oracle
    cols = {"positions": texts["positions"], "offered": texts["offered"], **columns(game.rules, n, info, counts)}
    out = {}
    for c in COLUMNS:
        v = np.asarray(cols[c].to_pylist() if hasattr(cols[c], "to_pylist") else cols[c])
        out[c] = v.astype(object) if v.dtype.kind in "UO" else v
    return out
