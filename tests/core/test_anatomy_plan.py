"""The generic report's player counts: the game's two smallest counts of two players or more."""

from __future__ import annotations

import dataclasses

import pytest

from boardlab.experiments import anatomy_report as AR
from boardlab.sim.games import get_game


@pytest.mark.parametrize(
    ("game", "counts"), [("pig", [2, 3]), ("heartslite", [3, 4])]
)  # the built-in games' counts: in their folders' report tests
def test_the_report_plays_the_two_smallest_counts_with_rivals(game, counts):
    g = get_game(game)
    assert AR.player_counts(g) == counts
    assert sorted({r.players for r in AR.plan(g, 100) if r.kind == "self"}) == counts


@pytest.mark.parametrize(("players", "counts"), [((1, 1), [1]), ((4, 4), [4]), ((1, 2), [2]), ((2, 6), [2, 3])])
def test_a_game_with_one_count_or_solo_only_reports_it(players, counts):
    assert AR.player_counts(dataclasses.replace(get_game("pig"), players=players)) == counts
