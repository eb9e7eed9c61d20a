"""Citadels' move families (restricted play, boardlab.agents.generic.prefers): the characters picked; the
families' generic machinery is tested in tests/core/test_restricted.py."""

from __future__ import annotations

from boardlab.sim.games import get_game


def test_citadels_families_are_the_characters_picked():
    game = get_game("citadels")
    g = game.new_game(4, game.load_rules("official"), 5)
    assert g.move_families()[:2] == ("assassin", "thief") and len(g.move_families()) == 8
    picks = [m for m in g.legal_moves() if m[0] == 0]
    assert picks and {g.move_family(m) for m in picks} <= set(g.move_families())
    assert [g.move_family(m) for m in picks] == [g.move_families()[m[1] - 1] for m in picks]
    assert g.move_family((2,)) == "" and g.move_family((12, 5)) == ""
