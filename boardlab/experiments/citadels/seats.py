"""Citadels' seat compensation as the generic solver (:mod:`boardlab.experiments.compensation`) reads it.

The compensation is the rule ``seat_points`` (docs/games/citadels.md §6): points added to each seat's score at
the end, by player count, seat 1 first; each seat's share is in the result's ``seat_points`` column and in
``total``.  Players rank by score, then district points, then gold, and the seats still tied share the win
(``tiebreak = districts_gold_shared``, the official rule, I12); games under another tie-break are refused
with one line rather than re-ranked wrongly.
"""

from __future__ import annotations

import numpy as np

from boardlab.experiments.compensation import SeatCompensation

RANK_COLUMNS = ("total", "district_points", "gold")


def rank_key(columns: dict) -> np.ndarray:
    """One int64 key per player, larger ranks higher, equal keys tie: score, then district points, then gold
    (each below 2**16 in any game: gold is at most the bank's 999).

    Parameters
    ----------
    columns : dict of str to numpy.ndarray
        ``total``, ``district_points`` and ``gold`` (RANK_COLUMNS), one value per player.

    Returns
    -------
    numpy.ndarray
        int64, one key per player.
    """
    total, points, gold = (np.asarray(columns[c], dtype=np.int64) for c in RANK_COLUMNS)
    return (total << 32) + (points << 16) + gold


def check(rules: dict) -> str | None:
    """SeatCompensation.check: why games played under `rules` cannot be re-ranked here, or None.

    Parameters
    ----------
    rules : dict
        The mapping the games were played under.

    Returns
    -------
    str or None
        Why their seats cannot be re-ranked, or None.
    """
    tie = rules.get("tiebreak")
    if tie != "districts_gold_shared":
        return f"played with tiebreak {tie!r}: seats are re-ranked under districts_gold_shared only (I12)"
    return None


SEAT_COMPENSATION = SeatCompensation(
    column="seat_points",
    rule_key="seat_points.{players}",
    rank_key=rank_key,
    rank_columns=RANK_COLUMNS,
    score="total",
    check=check,
)
