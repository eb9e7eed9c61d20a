"""Citywright's seat compensation as the generic solver (:mod:`experiments.compensation`) reads it.

Each seat's compensation is in the result's ``compensation`` column and in ``total``; the rules hold the
N-player vector at ``game.compensation.N``; players rank by :data:`sim.citywright.rules.RANKING` (more
points, then fewer empty cells, then more distinct shapes, then a shared win), one int64 key per player
(:func:`sim.citywright.ranking.rank_key`).
"""

from __future__ import annotations

from experiments.compensation import SeatCompensation
from sim.citywright.ranking import rank_key
from sim.citywright.rules import RANKING

SEAT_COMPENSATION = SeatCompensation(
    column="compensation",
    rule_key="game.compensation.{players}",
    rank_key=rank_key,
    rank_columns=tuple(name for name, _ in RANKING),
    score="total",
)
