"""Citadels' running score (``Game.progress``, ``capped``, ``decision_kind``) and its game-anatomy trajectories."""

from __future__ import annotations

import pytest

from boardlab.sim.citadels import reference as R
from boardlab.sim.citadels.api import Game
from boardlab.sim.citadels.rules import load_rules


@pytest.mark.parametrize(("players", "seed"), [(2, 3), (4, 7), (6, 1)])
def test_progress_is_the_reference_score_after_every_decision_and_the_final_total_at_the_end(players, seed):
    ref = R.RefGame(players, "official", seed)
    player = R.reference_random_player(seed)
    g = Game(players, load_rules("official"), seed)
    kinds = set()
    while not ref.done:
        kinds.add(g.decision_kind())
        move = player(ref.legal_moves())
        g.apply(move)
        ref.apply(move)
        assert [g.progress(p) for p in range(players)] == [s["total"] for s in ref.scores()]
    assert g.done and g.capped() == ref.capped
    assert [g.progress(p) for p in range(players)] == [s["total"] for s in g.scores()]
    assert kinds <= {"select", "discard", "turn", "graveyard"} and {"select", "turn"} <= kinds


def test_a_game_ended_at_the_round_cap_says_so():
    rules = load_rules("official").with_overrides({"max_rounds": 2})
    g = Game(3, rules, 5)
    assert not g.capped()
    while not g.done:
        g.apply(g.random_move())
    assert g.capped() and g.round == 2
    assert [g.progress(p) for p in range(3)] == [s["total"] for s in g.scores()]
