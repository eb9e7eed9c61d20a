"""boardlab.testing.check_game on every registered game (the built-in ones in their own folders: tests/per_game.py),
and on broken toy games it must refuse."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from boardlab.sim.games import get_game
from boardlab.testing import check_game, digest
from tests.per_game import PLUGIN_GAMES, game_ids

game_id = game_ids(PLUGIN_GAMES)  # the built-in games run these in their own folders (tests/per_game.py)


def test_every_registered_game_conforms(game_id):
    lo = get_game(game_id).players[0]
    check_game(game_id, players=[max(lo, 2)], games=2, seed=5)


@pytest.fixture
def pig_like(monkeypatch):
    """Register a game wrapping pig with a broken API; returns the registrar."""
    import boardlab.sim.games as G

    pig = get_game("pig")

    def register(game_cls):
        gd = dataclasses.replace(pig, id="broken-pig", new_game=game_cls)
        monkeypatch.setitem(G._GAMES, "broken-pig", gd)
        return "broken-pig"

    return pig, register


def test_a_game_with_no_legal_move_mid_game_fails(pig_like):
    pig, register = pig_like
    base = type(pig.new_game(2, pig.load_rules(pig.default_preset), 0))

    class NoMoves(base):
        def legal_moves(self):
            return [] if not self.done and self.round == 2 else super().legal_moves()

    with pytest.raises(AssertionError, match=r"broken-pig, 2 players, seed 0, move \d+: no legal move"):
        check_game(register(NoMoves), players=[2], games=1)


def test_a_game_with_nondeterministic_scores_fails(pig_like):
    pig, register = pig_like
    base = type(pig.new_game(2, pig.load_rules(pig.default_preset), 0))
    counter = itertools.count()

    class Drifting(base):
        def scores(self):
            out = super().scores()
            out[0]["turns"] += next(counter)
            return out

    with pytest.raises(AssertionError, match=r"broken-pig, 2 players, seed 3, .*same seed ends in other scores"):
        check_game(register(Drifting), players=[2], games=1, seed=3)


def test_a_game_accepting_an_illegal_move_fails(pig_like):
    pig, register = pig_like
    base = type(pig.new_game(2, pig.load_rules(pig.default_preset), 0))

    class Lax(base):
        def apply(self, m):
            if not self.is_legal(m):
                return  # silently ignored instead of refused
            super().apply(m)

    with pytest.raises(AssertionError, match=r"broken-pig.*illegal move .* is accepted"):
        check_game(register(Lax), players=[2], games=1)


def test_a_game_with_a_bad_ranking_or_broken_invariant_fails(pig_like):
    pig, register = pig_like
    base = type(pig.new_game(2, pig.load_rules(pig.default_preset), 0))

    class Unranked(base):
        def scores(self):
            out = super().scores()
            for s in out:
                s["rank"] = 3
            return out

    with pytest.raises(AssertionError, match=r"broken-pig.*are not a ranking"):
        check_game(register(Unranked), players=[2], games=1)

    class Overdrawn(base):
        def apply(self, m):
            super().apply(m)
            if self.round == 1 and not self.done:
                self.busts[0] += 1  # the invariant busts + holds == turns breaks

    with pytest.raises(AssertionError, match=r"broken-pig, 2 players, seed 0, move \d+: after .*invariant is broken"):
        check_game(register(Overdrawn), players=[2], games=1)


def test_digest_is_stable_and_sees_a_change():
    assert digest("a\nb") == digest("a\nb") != digest("a\nc")
    assert digest([1, 2, 3]) != digest([1, 2, 4])
    assert len(digest("x")) == 16


def test_a_game_lacking_a_member_of_the_contract_fails_naming_it(pig_like):
    pig, register = pig_like
    base = type(pig.new_game(2, pig.load_rules(pig.default_preset), 0))

    class NoSnapshot(base):
        def __getattribute__(self, name):
            if name == "snapshot":
                raise AttributeError(name)
            return super().__getattribute__(name)

    with pytest.raises(AssertionError, match=r"broken-pig, 2 players, seed 0, move 0: .* lacks snapshot of the game"):
        check_game(register(NoSnapshot), players=[2], games=1)


def test_every_game_and_observation_has_the_contracts_members(game_id):
    from boardlab.sim import contract as C

    gd = get_game(game_id)
    g = gd.new_game(gd.players[0], gd.load_rules(gd.default_preset), 1)
    assert isinstance(g, C.Game) and not C.missing_members(g, C.Game), gd.id
    obs = g.observation(0)
    assert isinstance(obs, C.Observation) and not C.missing_members(obs, C.Observation), gd.id


def test_a_half_game_is_not_a_game_and_its_missing_members_are_named():
    from boardlab.sim import contract as C

    class Half:
        players, seed, done, current = 2, 0, False, 0

        def legal_moves(self):
            return []

    assert not isinstance(Half(), C.Game)
    assert C.missing_members(Half(), C.Game) == [
        "is_legal", "apply", "random_move", "scores", "snapshot", "copy", "observation", "redeal"
    ]  # fmt: skip
