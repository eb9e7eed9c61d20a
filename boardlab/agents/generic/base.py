"""The interface of every Python agent -- generic, or a user's own (``py:module:Name``).

An agent is an object with one method::

    def act(self, observation, legal_moves, rng) -> move

``observation`` is :class:`boardlab.sim.observation.Observation`: what the seat to move may see (a read-only
mapping, its ``player`` the seat), and ``observation.sample(rng)``, a game of the public API drawn
consistently with it -- a determinisation to search on; changing it changes nothing else.  The agent
is never given the true game.  ``legal_moves`` are the moves to choose from (the game's
``agent_moves()``); ``rng`` is a numpy Generator seeded from the game seed and the seat, so a game
replays identically on any process.  The move returned must be one of ``legal_moves``, or another
legal move (the game checks it).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    def act(self, observation: Any, legal_moves: list, rng: np.random.Generator) -> Any: ...


def agent_moves(game) -> list:
    """The moves offered to an agent: the game's ``agent_moves()`` where it has one (a game whose full
    listing is much longer, such as every tile assignment), else ``legal_moves()``."""
    listing = getattr(game, "agent_moves", None)
    return listing() if listing is not None else game.legal_moves()


def agent_rng(game_seed: int, seat: int) -> np.random.Generator:
    """The Generator of the agent in `seat` of the game with seed `game_seed` (what every runner gives it)."""
    return np.random.default_rng([int(game_seed) & ((1 << 64) - 1), int(seat)])


def decide(agent: Agent, game, rng: np.random.Generator):
    """The move `agent` chooses for the seat to move in `game` (given its observation, never the game)."""
    return agent.act(game.observation(game.current), agent_moves(game), rng)
