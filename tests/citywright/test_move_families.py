"""Citywright's move families (restricted play, boardlab.agents.generic.prefers): the district placed most; the
families' generic machinery is tested in tests/core/test_restricted.py."""

from __future__ import annotations

from boardlab.sim.citywright.moves import Move as CityMove
from boardlab.sim.games import get_game


def test_citywright_family_is_the_district_placed_most():
    g = get_game("citywright")
    api = g.new_game(2, g.load_rules(g.default_preset), 0)
    place = lambda *tiles, free="": CityMove("place", tiles=tiles, free=free)  # noqa: E731
    assert api.move_family(place("C", "C", "R")) == "C"
    assert api.move_family(place("C", "R")) == "R"  # a tie goes to the first in R C P I
    assert api.move_family(place("I", "", "P", free="P")) == "P"  # the free pick counts, an empty cell does not
    assert api.move_family(CityMove("swap", district="I")) == "I"
    assert api.move_family(CityMove("discard")) == "" and api.move_family(CityMove("pass")) == ""
