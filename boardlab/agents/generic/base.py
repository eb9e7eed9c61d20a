"""The interface of every Python agent -- generic, or a user's own (``py:module:Name``).

An agent is an object with one method::

    def act(self, observation, legal_moves, rng) -> move

``observation`` is :class:`boardlab.sim.observation.Observation`: what the seat to move may see (a read-only
mapping, its ``player`` the seat), and ``observation.sample(rng)``, a game of the public API drawn
consistently with it -- a determinisation to search on; changing it changes nothing else.  The agent
is never given the true game.  ``legal_moves`` are the moves to choose from (the game's
``agent_moves()``); ``rng`` is a numpy Generator seeded from a keyed hash of the game seed and the
seat (:func:`agent_rng`), so a game replays identically on any process while nothing the agent is
given leads back to the game seed.  The move returned must be one of ``legal_moves``, or another
legal move (the game checks it).

An agent that never reads its observation may say so with a class attribute ``observes = False``: the runner
then passes ``None`` and skips building the observation (and the redealt copy it carries), the largest cost of a
move for a fast game.
"""

from __future__ import annotations

import hashlib
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """What a Python agent is: an object with :meth:`act` (structural: no base class to inherit)."""

    def act(self, observation: Any, legal_moves: list, rng: np.random.Generator) -> Any:
        """The move for the seat to move.

        Parameters
        ----------
        observation : boardlab.sim.observation.Observation or None
            What the seat to move may see (None for an agent with ``observes = False``).
        legal_moves : list
            The moves to choose from (the game's ``agent_moves()``), not empty.
        rng : numpy.random.Generator
            The agent's own generator (:func:`agent_rng`).

        Returns
        -------
        object
            The chosen move, one of `legal_moves`.
        """
        ...


def observes(agent) -> bool:
    """Whether the runner builds `agent`'s observation (its ``observes`` attribute; True by default).

    Parameters
    ----------
    agent
        A Python agent.

    Returns
    -------
    bool
        False only for an agent that declares ``observes = False``.
    """
    return bool(getattr(agent, "observes", True))


def agent_moves(game) -> list:
    """The moves offered to an agent: the game's ``agent_moves()`` where it has one (a game whose full
    listing is much longer, such as every tile assignment), else ``legal_moves()``.

    Parameters
    ----------
    game : boardlab.sim.contract.Game
        The position.

    Returns
    -------
    list
        The moves, in the game's order.
    """
    listing = getattr(game, "agent_moves", None)
    return listing() if listing is not None else game.legal_moves()


# The key of the keyed hash between a game seed and its agents' generators: fixed, so that a game replays on
# any process.  It hides the seed from the generator's own record of its entropy (seed_seq.entropy), not from
# an agent that tries every run seed of a small range through the whole derivation.
_AGENT_KEY = b"boardlab agent streams"


def agent_rng(game_seed: int, seat: int) -> np.random.Generator:
    """The Generator of the agent in `seat` of the game with seed `game_seed` (what every runner gives it).

    Parameters
    ----------
    game_seed : int
        The game's seed (taken modulo 2**64).
    seat : int
        The agent's seat (0-based).

    Returns
    -------
    numpy.random.Generator
        Seeded from a 128-bit BLAKE2b digest of (game seed, seat) under a fixed project key, so its
        ``bit_generator.seed_seq.entropy`` is that digest, not the seed.
    """
    data = (int(game_seed) & ((1 << 64) - 1)).to_bytes(8, "little") + int(seat).to_bytes(8, "little")
    digest = hashlib.blake2b(data, key=_AGENT_KEY, digest_size=16, person=b"agent rng").digest()
    return np.random.default_rng(np.random.SeedSequence(int.from_bytes(digest, "little")))


def decide(agent: Agent, game, rng: np.random.Generator):
    """The move `agent` chooses for the seat to move in `game` (given its observation, never the game).

    Parameters
    ----------
    agent : Agent
        The Python agent.
    game : boardlab.sim.contract.Game
        The position (not moved).
    rng : numpy.random.Generator
        The agent's generator.

    Returns
    -------
    object
        The agent's move.
    """
    return agent.act(game.observation(game.current), agent_moves(game), rng)
