"""The generic chunk player (boardlab.experiments.play): Python agents -- generic and a user's own -- seated with a
game's built-in agents, reproducibly."""

from __future__ import annotations

import pickle

import pandas as pd
import pytest

from boardlab.experiments import play as P
from boardlab.experiments.isolation import AgentFailure, Isolation
from boardlab.sim.games import get_game
from tests.per_game import PLUGIN_GAMES, game_ids

USER = "py:tests.core.user_agents:Shuffler"


# a built-in agent of each game that has one: the built-in games run this in their folders (tests/per_game.py)
BUILT_IN = {"citywright": "greedy", "cartographers": "planner"}
game_id = game_ids([g for g in PLUGIN_GAMES if g in BUILT_IN])


def test_a_users_agent_plays_beside_built_in_ones_and_any_chunking_gives_the_same_rows(game_id):
    builtin = BUILT_IN[game_id]
    game = get_game(game_id)
    reg = game.agents()
    agents = [reg.parse_agent(s) for s in (USER, builtin)]
    assert P.needs_api(agents) and not P.needs_api(agents[1:])
    rules = game.load_rules(game.default_preset)
    whole = P.play_chunk(game, rules, 2, agents, "rotate", 8, 0, 4)
    parts = [P.play_chunk(game_id, rules, 2, agents, "rotate", 8, a, b) for a, b in ((0, 1), (1, 2), (2, 4))]
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), whole)
    assert set(whole["agent"]) == {USER, str(agents[1])}
    assert whole.groupby("agent")["win_share"].mean()[str(agents[1])] > 0.5  # the built-in plays its own game
    assert (whole[whole.game == 0].agent.tolist(), whole[whole.game == 1].agent.tolist()) == (
        [USER, str(agents[1])],
        [str(agents[1]), USER],
    )  # rotated seats


def test_a_draw_pool_with_python_agents():
    game = get_game("pig")
    reg = game.agents()
    agents = [reg.parse_agent(s) for s in ("random", USER, "ismcts:iters=5")]
    rows = P.play_chunk(game, game.load_rules("quick"), 4, agents, "draw", 1, 0, 10)
    assert len(rows) == 40 and set(rows["agent"]) <= {str(a) for a in agents} and rows["agent"].nunique() > 1


def test_a_python_agent_is_made_afresh_for_every_game_and_a_built_in_once(game_id):
    game = get_game(game_id)
    reg = game.agents()
    user, builtin = P.seat_players(game, [reg.parse_agent(USER), reg.parse_agent(BUILT_IN[game_id])])
    assert user() is not user() and builtin() is builtin()


def test_an_illegal_move_of_a_python_agent_is_refused():
    from boardlab_pig.api import IllegalMove

    from boardlab.agents.generic.uniform import RandomAgent

    game = get_game("pig")

    class Cheater:
        def act(self, observation, legal_moves, rng):
            m = legal_moves[0]  # a move of the game's own class, made illegal: to hold where only rolling is listed
            assert [x.kind for x in legal_moves] == ["roll"]
            return m.__class__(**{**m.__dict__, "kind": "hold"})

    with pytest.raises(AgentFailure, match="refuses") as e:
        P.play_game(game, game.load_rules("standard"), [Cheater(), RandomAgent()], 3)
    assert isinstance(e.value.__cause__, IllegalMove) and (e.value.seat, e.value.spec) == (0, "Cheater")


@pytest.mark.parametrize("isolation", [None, Isolation(isolate=True, move_timeout=60)])
def test_an_agent_failure_names_the_game_its_seed_the_seat_and_the_agent(isolation):
    game = get_game("pig")
    reg = game.agents()
    agents = [reg.parse_agent(s) for s in ("random", "py:tests.core.user_agents:Raiser")]
    rules = game.load_rules(game.default_preset)
    with pytest.raises(AgentFailure) as e:
        P.play_table(game, rules, 2, agents, "fixed", 8, 3, 5, isolation)
    f = e.value
    seeds = P.game_seeds(8, 3, 5)
    assert (f.game, f.game_seed, f.seat, f.spec) == (3, seeds[0], 1, "py:tests.core.user_agents:Raiser")
    assert f.what == "ValueError: the agent broke down (...)"
    assert "second line of its message" in f.details and 'raise ValueError("the agent broke down' in f.details
    assert str(f) == (
        f"agent py:tests.core.user_agents:Raiser failed (game 3, game seed {seeds[0]}, seat 2):"
        " ValueError: the agent broke down (...)"
    )
    again = pickle.loads(pickle.dumps(f))  # it crosses a process boundary whole
    assert (type(again), str(again), again.details) == (AgentFailure, str(f), f.details)


def test_isolated_agents_play_the_same_rows_and_cannot_read_the_runners_frames():
    game = get_game("pig")
    reg = game.agents()
    rules = game.load_rules(game.default_preset)
    agents = [reg.parse_agent(s) for s in (USER, "ismcts:iters=3")]
    here = P.play_chunk(game, rules, 2, agents, "rotate", 4, 0, 3)
    isolated = P.play_chunk(game, rules, 2, agents, "rotate", 4, 0, 3, Isolation(isolate=True))
    pd.testing.assert_frame_equal(here, isolated)
    reader = [reg.parse_agent("py:tests.core.user_agents:FrameReader"), reg.parse_agent("random")]
    with pytest.raises(AgentFailure, match="the runner's game is in reach"):  # in the runner's process: it is
        P.play_chunk(game, rules, 2, reader, "fixed", 4, 0, 1)
    assert len(P.play_chunk(game, rules, 2, reader, "fixed", 4, 0, 1, Isolation(isolate=True))) == 2


def test_after_an_agent_failure_the_finished_chunks_stay_and_resume_plays_only_the_rest(tmp_path, capsys, monkeypatch):
    from tests.cli import cli, said
    from tests.core import user_agents as U

    monkeypatch.setattr(U.Flaky, "games", 0)
    monkeypatch.setattr(U.Flaky, "after", 2)  # games 0 and 1 play; game 2 fails
    out = tmp_path / "r.parquet"
    args = ["simulate", "--game", "pig", "--players", 2, "--agents", "random,py:tests.core.user_agents:Flaky",
            "--games", 4, "--seating", "fixed", "--chunk-size", 1, "--out", out, "--quiet"]  # fmt: skip
    code, _, err = cli(capsys, *args)
    assert code == 1 and "(game 2, game seed" in err and len(said(err)) == 1, err
    parts = sorted(p.name for p in (tmp_path / "r.parquet.parts").glob("chunk-*.arrow"))
    assert parts == ["chunk-0000000.arrow", "chunk-0000001.arrow"] and not out.exists()
    assert "game number 3 of this process" in (tmp_path / "r.parquet.error.log").read_text()
    monkeypatch.setattr(U.Flaky, "after", 10**9)
    code, _, err = cli(capsys, *args, "--resume")
    assert code == 0, err
    assert U.Flaky.games == 5  # games 2 and 3 only
    assert sorted(pd.read_parquet(out)["game"].unique()) == [0, 1, 2, 3]


def test_agent_rngs_of_a_chunk_are_the_generators_agent_rng_makes():
    import copy

    from boardlab.agents.generic.base import agent_rng, agent_rngs

    seeds = [0, 1, 7, (1 << 64) - 1, 0x9E3779B97F4A7C15, *range(1000, 1040)]
    together = agent_rngs(seeds, 3)
    for seed, row in zip(seeds, together, strict=True):
        for seat, rng in enumerate(row):
            alone = agent_rng(seed, seat)
            assert rng.bit_generator.state == alone.bit_generator.state
            assert rng.bit_generator.seed_seq.entropy == alone.bit_generator.seed_seq.entropy
    rng, alone = together[2][1], agent_rng(seeds[2], 1)
    assert rng.integers(0, 1 << 62, 8).tolist() == alone.integers(0, 1 << 62, 8).tolist()
    assert [c.random() for c in rng.spawn(2)] == [c.random() for c in alone.spawn(2)]  # the same children
    assert pickle.loads(pickle.dumps(rng)).random() == copy.deepcopy(alone).random()


class _Uniform:
    """The random agent's act without its chooser: what the runner gives every other Python agent."""

    observes = False

    def act(self, observation, legal_moves, rng):
        from boardlab.agents.generic.uniform import RandomAgent

        return RandomAgent().act(observation, legal_moves, rng)


def test_the_random_agents_chooser_plays_the_moves_its_act_plays():
    from boardlab.agents.generic.base import agent_rng
    from boardlab.agents.generic.uniform import RandomAgent

    moves = list(range(7))
    a, b = agent_rng(5, 0), agent_rng(5, 0)
    choose = RandomAgent().chooser(a)
    assert [choose(moves[: 1 + i % 7]) for i in range(200)] == [
        RandomAgent().act(None, moves[: 1 + i % 7], b) for i in range(200)
    ]
    with pytest.raises(ValueError, match="no legal move"):
        choose([])

    class Biased(RandomAgent):
        def act(self, observation, legal_moves, rng):
            return legal_moves[0]

    assert Biased().chooser(a) is None  # a subclass that chooses otherwise is asked by act


@pytest.mark.parametrize("players", [2, 4])
def test_random_agents_play_the_same_games_by_chooser_as_by_act(players):
    from boardlab.agents.generic.uniform import RandomAgent

    game = get_game("pig")
    rules = game.load_rules("quick")
    for seed in (3, 99, 12345, (1 << 64) - 5):
        fast = P.play_game(game, rules, [RandomAgent() for _ in range(players)], seed)
        slow = P.play_game(game, rules, [_Uniform() for _ in range(players)], seed)
        mixed = P.play_game(game, rules, [_Uniform() if s % 2 else RandomAgent() for s in range(players)], seed)
        assert fast.snapshot() == slow.snapshot() == mixed.snapshot()
        assert fast.snapshot()["turns"] != [0] * players


def test_a_chunk_plays_the_same_rows_with_its_generators_made_together_or_one_by_one(monkeypatch):
    game = get_game("pig")
    rules = game.load_rules("quick")
    agents = [game.agents().parse_agent(s) for s in ("random", "random-prefers:hold", USER)]
    whole = P.play_chunk(game, rules, 3, agents, "rotate", 4, 0, 300)  # more games than a block of generators
    monkeypatch.setattr(P, "agent_rngs", lambda seeds, players: [[None] * players for _ in seeds])
    monkeypatch.setattr(P, "_chooser", lambda agent, rng: None)
    real = P.play_game
    monkeypatch.setattr(P, "play_game", lambda *a: real(*a[:-1]))  # every game makes its own, by agent_rng
    pd.testing.assert_frame_equal(P.play_chunk(game, rules, 3, agents, "rotate", 4, 0, 300), whole)
