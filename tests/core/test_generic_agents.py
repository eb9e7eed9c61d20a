"""The generic agents (boardlab.agents.generic): legal, reproducible, given only their observation, and the search
searches (it beats random play at the example game)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from boardlab.agents.generic.base import agent_moves, agent_rng, decide
from boardlab.agents.generic.ismcts import ISMCTS
from boardlab.agents.generic.uniform import RandomAgent
from boardlab.experiments import play as P
from boardlab.sim.games import get_game
from tests.core.user_agents import FirstMove
from tests.per_game import game_ids


def _pig(players=2, seed=3):
    """Pig (quick) at its first position with a choice (roll or hold)."""
    game = get_game("pig")
    g = game.new_game(players, game.load_rules("quick"), seed)
    while len(g.legal_moves()) < 2:
        g.apply(g.legal_moves()[0])
    return game, g


def test_random_is_uniform_over_the_listed_moves_and_reproducible():
    agent = RandomAgent()
    moves = list("abcd")
    a = [agent.act(None, moves, np.random.default_rng(1)) for _ in range(3)]
    assert len(set(a)) == 1  # the same generator state, the same move
    rng = np.random.default_rng(7)
    counts = {m: 0 for m in moves}
    for _ in range(4000):
        counts[agent.act(None, moves, rng)] += 1
    assert all(850 < c < 1150 for c in counts.values()), counts


# Pig here; Citywright and Cartographers in their folders (tests/per_game.py)
game_id = game_ids(["pig"])


def test_ismcts_plays_a_legal_move_reproducibly(game_id):
    game = get_game(game_id)
    g = game.new_game(2, game.load_rules(game.default_preset), 11)
    for _ in range(3):
        g.apply(g.random_move())
    moves = [ISMCTS(iters=4).act(g.observation(g.current), agent_moves(g), agent_rng(9, 0)) for _ in range(2)]
    assert moves[0] == moves[1] and g.is_legal(moves[0])


def test_ismcts_budget_in_iterations_or_milliseconds():
    _, g = _pig()
    agent = ISMCTS(iters=37)
    agent.act(g.observation(g.current), g.legal_moves(), np.random.default_rng(0))
    assert agent.iterations == 37
    timed = ISMCTS(ms=40)
    t0 = time.perf_counter()
    timed.act(g.observation(g.current), g.legal_moves(), np.random.default_rng(0))
    assert timed.iterations > 1 and time.perf_counter() - t0 < 1.0


def test_ismcts_rejects_bad_parameters():
    for kwargs in ({"iters": 0}, {"c": float("nan")}, {"rollout": "greedy"}, {"reward": "margin"}, {"ms": -1}):
        with pytest.raises(ValueError):
            ISMCTS(**kwargs)


def test_ismcts_with_a_python_rollout_policy_and_the_score_reward_solo():
    _, g = _pig(players=1)
    agent = ISMCTS(iters=20, reward="auto", policy=FirstMove(pick="last"))  # roll-outs always hold
    m = agent.act(g.observation(0), g.legal_moves(), np.random.default_rng(2))
    assert g.is_legal(m) and agent._win is False  # solo: the total, not the (always won) game, is the reward


@pytest.mark.slow  # statistical (strength)
def test_ismcts_beats_random_play_at_pig():
    game = get_game("pig")
    reg = game.agents()
    agents = [reg.parse_agent("ismcts:iters=40"), reg.parse_agent("random")]
    rows = P.play_chunk(game, game.load_rules("quick"), 2, agents, "rotate", 17, 0, 100)
    share = rows.groupby("agent")["win_share"].mean()
    assert share[str(agents[0])] > 0.6, share  # it wins about 0.72 of its games: 100 games put 0.6 3 SDs below


def test_decide_gives_the_agent_its_observation_never_the_game():
    _, g = _pig()
    seen = []

    class Spy:
        def act(self, observation, legal_moves, rng):
            seen.append(observation)
            return legal_moves[0]

    decide(Spy(), g, np.random.default_rng(0))
    obs = seen[0]
    assert obs == g.observation(g.current) and not hasattr(obs, "apply")
    sample = obs.sample(np.random.default_rng(1))
    sample.apply(sample.legal_moves()[0])
    assert g.observation(g.current) == obs  # searching on a sample changes nothing
