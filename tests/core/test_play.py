"""The generic chunk player (boardlab.experiments.play): Python agents -- generic and a user's own -- seated with a
game's built-in agents, reproducibly."""

from __future__ import annotations

import pandas as pd
import pytest

from boardlab.experiments import play as P
from boardlab.sim.games import get_game

USER = "py:tests.core.user_agents:Shuffler"


@pytest.mark.parametrize(("game_id", "builtin"), [("citywright", "greedy"), ("cartographers", "planner")])
def test_a_users_agent_plays_beside_built_in_ones_and_any_chunking_gives_the_same_rows(game_id, builtin):
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


def test_a_python_agent_is_made_afresh_for_every_game_and_a_built_in_once():
    game = get_game("citywright")
    reg = game.agents()
    user, greedy = P.seat_players(game, [reg.parse_agent(USER), reg.parse_agent("greedy")])
    assert user() is not user() and greedy() is greedy()


def test_an_illegal_move_of_a_python_agent_is_refused():
    from boardlab.sim.cartographers.api import IllegalMove

    game = get_game("cartographers")
    reg = game.agents()

    class Cheater:
        def act(self, observation, legal_moves, rng):
            m = legal_moves[0]
            return m.__class__(**{**m.__dict__, "terrain": "mountain"})

    with pytest.raises(IllegalMove):
        P.play_game(game, game.load_rules("base-a"), [Cheater(), reg.builtin_player(reg.parse_agent("greedy"))], 3)


def test_citywright_play_game_takes_generic_and_user_specs():
    from boardlab.agents.citywright.python import play_game

    a = play_game(["ismcts:iters=2", USER, "greedy"], "v1.1", seed=3)
    b = play_game(["ismcts:iters=2", USER, "greedy"], "v1.1", seed=3)
    assert a.done and a.snapshot() == b.snapshot()
