"""Cartographers' result columns read from a finished public-API game (for boardlab.experiments.play, the generic
chunk player): the same values and types as the kernels' chunk player (boardlab.experiments.cartographers.runner)."""

from __future__ import annotations

import numpy as np

from boardlab.sim.cartographers.api import Game
from boardlab.sim.cartographers.game import EDICT_KEYS, SEASON_KEYS


def rows(game: Game) -> dict[str, np.ndarray]:
    """Per column of Cartographers' own (and total, in its type), one value per seat.

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
    scores = game.scores()
    snap = game.snapshot()
    out: dict[str, np.ndarray] = {"side": np.array([game.rules.side] * n, dtype=object)}
    for e, key in enumerate(EDICT_KEYS):
        out[f"card_{key}"] = np.full(n, snap["edicts"][e], dtype=np.int8)
    for s, key in enumerate(SEASON_KEYS):
        out[f"{key}_e1"] = np.array([snap["seasons"][p][s]["e1"] for p in range(n)], dtype=np.int16)
        out[f"{key}_e2"] = np.array([snap["seasons"][p][s]["e2"] for p in range(n)], dtype=np.int16)
    for e, key in enumerate(EDICT_KEYS):
        out[f"points_{key}"] = np.array([sc["edicts"][e] for sc in scores], dtype=np.int16)
    for c in ("edict_points", "coin_points", "monster_penalty", "total"):
        out[c] = np.array([sc[c] for sc in scores], dtype=np.int16)
    out["coins"] = np.array(snap["coins"], dtype=np.int16)
    # a rating and title with one player only; null otherwise (the schema's int16 at every count)
    out["rating"] = np.array([sc["rating"] for sc in scores], dtype=object)
    out["title"] = np.array([sc["title"] or "" for sc in scores], dtype=object)
    out["grid"] = np.array([game.grid_string(p) for p in range(n)], dtype=object)
    return out
