"""Ranks from scores in a game's score direction (``GameDef.score_direction``: ``"higher"`` or ``"lower"`` wins).

Every place that ranks players by their score reads it through :func:`score_key` (larger key = better), so that a
game where the lowest score wins needs no negated columns of its own.
"""

from __future__ import annotations

import numpy as np

DIRECTIONS = ("higher", "lower")


def check_direction(direction: str) -> str:
    """`direction` if it is one of DIRECTIONS, else ValueError (one line).

    Parameters
    ----------
    direction : str
        A score direction.

    Returns
    -------
    str
        The same direction.
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"score direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
    return direction


def direction_of(game) -> str:
    """The score direction a public-API game object declares (its ``score_direction`` attribute), "higher" when it
    declares none.

    Parameters
    ----------
    game : object
        A game of the public API (or a copy, a determinisation).

    Returns
    -------
    str
        "higher" or "lower".
    """
    return check_direction(getattr(game, "score_direction", "higher"))


def score_key(scores, direction: str = "higher") -> np.ndarray:
    """Scores as a key where larger is better: the scores themselves, or negated when the lowest score wins.

    Parameters
    ----------
    scores : array-like
        Scores, any shape.
    direction : {"higher", "lower"}
        Which scores are better.

    Returns
    -------
    numpy.ndarray
        The key, of the scores' shape.
    """
    a = np.asarray(scores)
    return a if check_direction(direction) == "higher" else -a


def ranking(totals, direction: str = "higher") -> tuple[list[int], list[float]]:
    """Ranks and win shares of one game's final scores: rank 1 for the best score, equal scores share a rank,
    and each of k players of rank 1 gets a win share of 1/k.

    Parameters
    ----------
    totals : sequence of numbers
        One final score per seat.
    direction : {"higher", "lower"}
        Which scores are better.

    Returns
    -------
    (list of int, list of float)
        Per seat, its rank and its win share.
    """
    # plain floats, not an array: a game's few seats are ranked many times faster so, with the same comparisons
    key = [float(t) for t in totals]
    if check_direction(direction) == "lower":
        key = [-k for k in key]
    ranks = [1 + sum(other > k for other in key) for k in key]
    winners = ranks.count(1)
    return ranks, [1.0 / winners if r == 1 else 0.0 for r in ranks]
