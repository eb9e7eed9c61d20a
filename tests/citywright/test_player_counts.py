"""The player counts a Citywright rule set allows: a deck needs a ruler, two players need one left after the
two-player removal; the default table size is one the rules allow."""

from __future__ import annotations

import pytest

from boardlab.experiments.cli import _app
from boardlab.sim.games import get_game
from boardlab.sim.rulesets import RulesError


def test_citywright_needs_a_ruler_and_two_players_need_one_left():
    from boardlab.sim.citywright.rules import load_rules

    base = load_rules("v1.1")
    zero = {f"shapes.{s.name}.copies": 0 for s in base.shapes} | {
        f"shapes.{s.name}.two_player_remove": 0 for s in base.shapes
    }
    with pytest.raises(RulesError, match=r"^shapes: every shape has copies = 0"):
        base.with_overrides(zero)
    one = base.with_overrides({**zero, "shapes.I.copies": 1})  # one ruler: a deck that can be drawn
    g = get_game("citywright")
    assert g.players_for(one) == (1, 2, 3, 4)
    gone = base.with_overrides({f"shapes.{s.name}.two_player_remove": s.copies for s in base.shapes})
    assert g.players_for(gone) == (1, 3, 4)
    assert g.players_error(2, gone) == f"rules {gone.name!r} of citywright allow 1, 3, 4 players, got 2"


def test_the_default_table_size_is_one_every_rule_set_allows():
    g = get_game("citywright")
    gone = g.load_rules("v1.1").with_overrides(
        {f"shapes.{s.name}.two_player_remove": s.copies for s in g.load_rules("v1.1").shapes}
    )
    assert _app.table_players(None, g, gone) == 4
    with pytest.raises(_app.UserError, match=r"^--players: rules .* allow 1, 3, 4 players, got 2$"):
        _app.table_players(2, g, g.load_rules("v1.1"), gone)
