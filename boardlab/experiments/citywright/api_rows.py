"""Citywright's result columns read from a finished public-API game (for boardlab.experiments.play, the generic
chunk player): the same values and types as the kernels' chunk player (boardlab.experiments.citywright.runner)."""

from __future__ import annotations

import numpy as np

from boardlab.sim.citywright.api import Game

_SCORES = {
    "residential": np.int16, "commercial": np.int16, "park": np.int16, "industrial": np.int16,
    "achievements": np.int16, "compensation": np.int16, "total": np.int16, "empty": np.int8,
    "shapes_distinct": np.int8,
}  # fmt: skip


def rows(game: Game) -> dict[str, np.ndarray]:
    """Per column of Citywright's own (and total, in its type), one value per seat.

    Parameters
    ----------
    game : Game
        A finished game of the public API.

    Returns
    -------
    dict of str to numpy.ndarray
        Column name -> shape ``(players,)`` values.
    """
    scores = game.scores()
    snap = game.snapshot()
    names = [s.name for s in game.rules.shapes]
    out = {c: np.array([s[c] for s in scores], dtype=t) for c, t in _SCORES.items()}
    out["tiles_taken"] = np.array(snap["taken"], dtype=np.int16)
    out["waste"] = np.array(snap["waste"], dtype=np.int16)
    out["forced_discards"] = np.array(snap["forced"], dtype=np.int8)
    out["board"] = np.array(snap["boards"], dtype=object)
    out["shapes_placed"] = np.array(
        [" ".join(f"{n}:{placed[n]}" for n in names if placed[n]) for placed in snap["placed"]], dtype=object
    )
    return out
