"""The ranking is defined once (rules.RANKING): the pandas re-rankers' key and the engine's order agree with it."""

from __future__ import annotations

import numpy as np

from sim.citywright import engine as E
from sim.citywright.ranking import rank_key
from sim.citywright.rules import ACHIEVEMENT_CODES, ACHIEVEMENT_KINDS, RANKING


def test_rank_key_orders_players_as_ranking_says():
    rng = np.random.default_rng(0)
    n = 2000
    cols = {
        "total": rng.integers(-30, 30, n),  # small ranges, so ties reach every tie-break
        "empty": rng.integers(0, 50, n) // 10,
        "shapes_distinct": rng.integers(0, 17, n) // 4,
    }
    key = rank_key(cols)

    def lexicographic(i):
        return tuple(cols[name][i] if more else -cols[name][i] for name, more in RANKING)

    for i, j in rng.integers(0, n, (5000, 2)):
        a, b = lexicographic(i), lexicographic(j)
        assert (key[i] > key[j]) == (a > b) and (key[i] == key[j]) == (a == b)


def test_engine_ranks_with_the_same_columns():
    sheet = dict(zip(("total", "empty", "shapes_distinct"), (E.SC_TOTAL, E.SC_EMPTY, E.SC_DISTINCT), strict=True))
    assert E.RANK_COLUMNS == tuple(sheet[name] for name, _ in RANKING)
    assert E.RANK_SIGNS == tuple(1 if more else -1 for _, more in RANKING)


def test_every_achievement_kind_has_a_code():
    assert sorted(ACHIEVEMENT_CODES.values()) == list(range(len(ACHIEVEMENT_KINDS)))
