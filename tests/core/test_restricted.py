"""Restricted play (boardlab.agents.generic.prefers): the games' move families, the restricted agents taking their
family whenever it is listed (and only then anything else), the one-line refusals, and the report's table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from boardlab.agents.generic.base import agent_moves
from boardlab.agents.generic.prefers import ISMCTSPrefers, RandomPrefers, check_families, family_of, restrict
from boardlab.agents.generic.uniform import RandomAgent
from boardlab.experiments import anatomy_report as AR
from boardlab.experiments import play as P
from boardlab.sim.games import get_game
from tests.cli import cli, said
from tests.per_game import game_ids


def _families_seen(game_id: str, players: int, games: int) -> set[str]:
    """Every family of every listed move over a few random games."""
    game = get_game(game_id)
    rules = game.load_rules(game.default_preset)
    seen: set[str] = set()
    for seed in range(games):
        g = game.new_game(players, rules, seed)
        while not g.done:
            seen.update(g.move_family(m) for m in agent_moves(g))
            g.apply(g.random_move())
    return seen


# (players, games) of each game: Pig here, the built-in games in their folders (tests/per_game.py)
FAMILY_PLAY = {"pig": (2, 3), "citywright": (2, 1), "cartographers": (1, 1)}
game_id = game_ids(["pig"])


def test_every_family_a_game_names_is_listed_in_play_and_no_other(game_id):
    players, games = FAMILY_PLAY[game_id]
    game = get_game(game_id)
    families = game.new_game(players, game.load_rules(game.default_preset), 0).move_families()
    assert len(families) >= 2
    assert _families_seen(game_id, players, games) - {""} == set(families)


def test_restrict_offers_the_family_when_listed_else_everything():
    game = get_game("pig")
    g = game.new_game(2, game.load_rules("quick"), 3)
    while len(g.legal_moves()) < 2:
        g.apply(g.legal_moves()[0])
    both = g.legal_moves()
    assert [str(m) for m in restrict(g, RandomPrefers("hold"), both)] == ["hold"]
    assert [str(m) for m in restrict(g, RandomPrefers("roll"), both)] == ["roll"]
    only_roll = [m for m in both if str(m) == "roll"]
    assert restrict(g, RandomPrefers("hold"), only_roll) == only_roll  # no hold listed: every move
    assert restrict(g, RandomAgent(), both) is both


class _Spy(RandomPrefers):
    """random-prefers:hold that records every list it is offered."""

    def __init__(self):
        super().__init__("hold")
        self.offered: list[list[str]] = []

    def act(self, observation, legal_moves, rng):
        self.offered.append([str(m) for m in legal_moves])
        return super().act(observation, legal_moves, rng)


def test_a_restricted_agent_in_play_takes_its_family_whenever_it_is_legal(monkeypatch):
    pairs: list[tuple[list[str], list[str]]] = []  # per decision of the spy: (listed, offered)
    real = P.restrict

    def spying(g, agent, moves):
        offered = real(g, agent, moves)
        if isinstance(agent, _Spy):
            pairs.append(([str(m) for m in moves], [str(m) for m in offered]))
        return offered

    monkeypatch.setattr(P, "restrict", spying)
    game = get_game("pig")
    rules = game.load_rules("quick")
    for seed in range(5):
        spy = _Spy()
        P.play_game(game, rules, [RandomAgent(), spy], seed)
        assert [offered for _, offered in pairs[-len(spy.offered) :]] == spy.offered
    assert pairs and any(len(listed) > 1 for listed, _ in pairs)
    for listed, offered in pairs:
        assert offered == (["hold"] if "hold" in listed else listed)


def test_a_restricted_agent_holds_at_its_first_chance_in_every_turn():
    # random-prefers:hold rolls (the only move at a turn's start) and then holds unless the roll lost the turn:
    # it is never offered the choice, and never offered a roll right after a roll it survived
    game = get_game("pig")
    rules = game.load_rules("quick")
    spy = _Spy()
    P.play_game(game, rules, [spy, RandomAgent()], 11)
    assert set(map(tuple, spy.offered)) == {("roll",), ("hold",)}
    assert all(a == ["roll"] for a, b in zip(spy.offered, spy.offered[1:], strict=False) if b == ["hold"])


def test_spec_forms_and_the_one_line_refusals(capsys, tmp_path):
    reg = get_game("citywright").agents()
    a = reg.parse_agent("ismcts-prefers:R,iters=5")
    assert family_of(a) == "R" and family_of(reg.parse_agent("random")) is None
    assert isinstance(a.make(), ISMCTSPrefers) and a.make().prefers == "R" and a.make().iters == 5
    assert str(reg.parse_agent(str(a))) == str(a)
    assert check_families(object(), [reg.parse_agent("random-prefers:R")]).endswith(
        "this game names no move families (move_families() and move_family(move))"
    )
    pig = get_game("pig")
    assert check_families(pig.new_game(2, pig.load_rules("quick"), 0), [pig.agents().parse_agent("random")]) is None
    code, _, err = cli(
        capsys, "simulate", "--game", "pig", "--players", 2, "--agents", "random-prefers:sit,random", "--games", 4,
        "--out", tmp_path / "x.parquet",
    )  # fmt: skip
    assert code == 2 and said(err)[-1].endswith(
        "error: --agents: random-prefers:sit: no move family 'sit' (the game's: roll, hold)"
    )
    assert len(said(err)) == 1 and not list(tmp_path.iterdir())


def test_restricted_specs_and_the_plan():
    assert AR.restricted_spec("random", "hold") == "random-prefers:hold"
    assert AR.restricted_spec("ismcts:iters=16", "R") == "ismcts-prefers:R,iters=16"
    assert AR.restricted_spec("greedy", "R") is None
    runs = [r for r in AR.plan(get_game("pig"), 100) if r.kind == "restricted"]
    assert [(r.tier, r.family, r.agents, r.games) for r in runs] == [
        ("random", "roll", ("random-prefers:roll", "random"), 100),
        ("random", "hold", ("random-prefers:hold", "random"), 100),
        ("ismcts-16", "roll", ("ismcts-prefers:roll,iters=16", "ismcts:iters=16"), 20),
        ("ismcts-16", "hold", ("ismcts-prefers:hold,iters=16", "ismcts:iters=16"), 20),
    ]


@pytest.mark.parametrize(("wins", "verdict"), [(80, "too strong"), (50, "balanced"), (20, "weak")])
def test_the_verdict_follows_the_interval_against_one_in_n(wins, verdict):
    run = AR.Run("k", "random", "restricted", 2, ("random-prefers:a", "random"), 100, "rotate", "a")
    share = np.r_[np.ones(wins), np.zeros(100 - wins)]
    results = pd.DataFrame({"agent": ["random-prefers:a"] * 100, "win_share": share})
    row = AR.restricted_row(run, results, "random-prefers:a")
    assert row["verdict"] == verdict and row["family"] == "a" and row["fair"] == 0.5
    assert row["lo"] < row["win_share"] < row["hi"]
