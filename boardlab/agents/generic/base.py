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
move for a fast game.  One whose choice depends on the listed moves and its generator alone may also give
``chooser(rng) -> callable(legal_moves) -> move`` for a game (:class:`boardlab.agents.generic.uniform.RandomAgent`):
the generic chunk player calls it instead of ``act``, so it must choose as ``act`` would.
"""

from __future__ import annotations

import hashlib
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.random.bit_generator import ISpawnableSeedSequence


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
        ``bit_generator.seed_seq.entropy`` is that digest, not the seed.  (:func:`agent_rngs` gives the same
        generators for many games at once, faster.)
    """
    digest = _digest(int(game_seed) & _MASK64, int(seat))
    return np.random.default_rng(np.random.SeedSequence(int.from_bytes(digest, "little")))


def agent_rngs(game_seeds, players: int) -> list[list[np.random.Generator]]:
    """Every agent's Generator of many games at once: ``agent_rng(game_seeds[i], s)`` for each game i and seat s.

    A numpy ``SeedSequence`` costs tens of microseconds to make and to expand, a large part of a fast game's cost
    per game; here the expansion of every digest is computed together in numpy, and each generator starts from its
    expanded words (the same words, so the same numbers).  Worth it from a few games on; one generator is
    cheaper by :func:`agent_rng`.

    Parameters
    ----------
    game_seeds : sequence of int, or ndarray(uint64, ndim=1)
        The games' seeds (each taken modulo 2**64).
    players : int
        Seats per game.

    Returns
    -------
    list of list of numpy.random.Generator
        Per game, per seat, its agent's generator.
    """
    seeds = [int(x) & _MASK64 for x in game_seeds]
    digests = b"".join(_digest(seed, s) for seed in seeds for s in range(players))
    words = _expand(np.frombuffer(digests, dtype="<u4").reshape(-1, 4))
    out = []
    for i in range(len(seeds)):
        row = []
        for s in range(players):
            k = i * players + s
            seq = AgentSeedSequence(int.from_bytes(digests[16 * k : 16 * k + 16], "little"), words[k])
            row.append(np.random.Generator(np.random.PCG64(seq)))
        out.append(row)
    return out


_MASK64 = (1 << 64) - 1


def _digest(game_seed: int, seat: int) -> bytes:
    data = game_seed.to_bytes(8, "little") + seat.to_bytes(8, "little")
    return hashlib.blake2b(data, key=_AGENT_KEY, digest_size=16, person=b"agent rng").digest()


# numpy's SeedSequence (numpy/random/bit_generator.pyx): its hash constants, and the uint32 hash of its pool.
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_MULT_L, _MIX_MULT_R = 0xCA01F9DD, 0x4973F715


def _expand(entropy: np.ndarray) -> np.ndarray:
    """``SeedSequence(e).generate_state(4, np.uint64)`` of each row's 128-bit entropy e (its four little-endian
    uint32 words, as ``SeedSequence`` splits an integer), for every row at once.

    Parameters
    ----------
    entropy : ndarray(uint32, ndim=2)
        Shape (n, 4).

    Returns
    -------
    ndarray(uint64, ndim=2)
        Shape (n, 4): the words PCG64 seeds itself from.
    """
    m32 = 0xFFFFFFFF
    hash_const = _INIT_A

    def hashmix(value: np.ndarray) -> np.ndarray:
        nonlocal hash_const
        value = value ^ np.uint32(hash_const)
        hash_const = (hash_const * _MULT_A) & m32
        value = value * np.uint32(hash_const)
        return value ^ (value >> np.uint32(16))

    pool = [hashmix(entropy[:, i].astype(np.uint32)) for i in range(4)]
    for src in range(4):
        for dst in range(4):
            if src != dst:
                mixed: np.ndarray = pool[dst] * np.uint32(_MIX_MULT_L) - hashmix(pool[src]) * np.uint32(_MIX_MULT_R)
                pool[dst] = mixed ^ (mixed >> np.uint32(16))
    out = np.empty((len(entropy), 8), dtype=np.uint32)
    hash_const = _INIT_B
    for i in range(8):
        value = pool[i % 4] ^ np.uint32(hash_const)
        hash_const = (hash_const * _MULT_B) & m32
        value = value * np.uint32(hash_const)
        out[:, i] = value ^ (value >> np.uint32(16))
    return out.astype("<u4").view("<u8").astype(np.uint64)


class AgentSeedSequence(ISpawnableSeedSequence):
    """The seed sequence of an agent's generator: numpy's ``SeedSequence(entropy)``, its state words computed
    ahead (:func:`agent_rngs`); anything else (``spawn``, ``pool``, another ``generate_state``) is the real one's,
    made when first asked for.

    Parameters
    ----------
    entropy : int
        The agent's seed (a keyed hash of the game seed and seat, never the game seed itself).
    words : ndarray(uint64, shape (4,))
        ``SeedSequence(entropy).generate_state(4, np.uint64)``, computed ahead.
    """

    __slots__ = ("_real", "_words", "entropy")

    def __init__(self, entropy: int, words: np.ndarray):
        self.entropy = entropy
        self._words = words
        self._real: np.random.SeedSequence | None = None

    def real(self) -> np.random.SeedSequence:
        """numpy's SeedSequence of this entropy (the one spawned from).

        Returns
        -------
        numpy.random.SeedSequence
            Made on the first call, the same object after.
        """
        if self._real is None:
            self._real = np.random.SeedSequence(self.entropy)
        return self._real

    def generate_state(self, n_words: int, dtype=np.uint32) -> np.ndarray:
        """As ``SeedSequence.generate_state`` (the words computed ahead when PCG64 asks for them).

        Parameters
        ----------
        n_words : int
            How many words.
        dtype : numpy dtype
            ``np.uint32`` or ``np.uint64``.

        Returns
        -------
        ndarray(dtype, shape (n_words,))
            The state words, equal to the real sequence's.
        """
        if n_words == 4 and np.dtype(dtype) == np.uint64:
            return self._words.copy()
        return self.real().generate_state(n_words, dtype)

    def spawn(self, n_children: int) -> list:
        """As ``SeedSequence.spawn``: the same children, in turn.

        Parameters
        ----------
        n_children : int
            How many children.

        Returns
        -------
        list[numpy.random.SeedSequence]
            The real sequence's children.
        """
        return self.real().spawn(n_children)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.real(), name)

    def __repr__(self) -> str:
        return f"AgentSeedSequence(entropy={self.entropy})"


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
