"""What one player may see, and positions drawn consistently with it: every game's hidden-information API.

Design notes: docs/architecture.md#observation-module.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

INFORMATION = ("perfect", "imperfect")


def as_generator(rng: np.random.Generator | int) -> np.random.Generator:
    """A numpy Generator for `rng`: a Generator as it is, an integer as a seed.

    Parameters
    ----------
    rng : numpy.random.Generator or int
        A generator, or a seed (taken modulo 2**64).

    Returns
    -------
    numpy.random.Generator
        `rng` itself, or a new generator seeded with it.

    Raises
    ------
    TypeError
        `rng` is neither (a bool is refused).
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, bool) or not isinstance(rng, (int, np.integer)):
        raise TypeError(f"rng must be a numpy Generator or an integer seed, got {rng!r}")
    return np.random.default_rng(int(rng) & ((1 << 64) - 1))


def fresh_streams(rng: np.random.Generator | int | None) -> np.ndarray:
    """New states for a game's chance and policy streams (boardlab.sim.rng), drawn from `rng`.

    Parameters
    ----------
    rng : numpy.random.Generator or int or None
        A generator or a seed; None gives both states zero (a redeal's canonical form).

    Returns
    -------
    numpy.ndarray
        uint64, shape ``(2,)``: the chance stream's state, then the policy stream's.
    """
    if rng is None:
        return np.zeros(2, dtype=np.uint64)
    return as_generator(rng).integers(0, 1 << 64, size=2, dtype=np.uint64, endpoint=False)


def copy_seed(streams: np.ndarray) -> int:
    """The ``seed`` of a redealt copy whose random streams are `streams` (what :func:`fresh_streams` drew from the
    agent's `rng`; both zero for the canonical copy, whose seed is then 0): never the true game's seed.

    Parameters
    ----------
    streams : numpy.ndarray
        uint64[2], the copy's new chance and policy stream states.

    Returns
    -------
    int
        A 64-bit label of the copy, a function of those draws only.
    """
    return int(np.bitwise_xor(streams[0], streams[1]))


class Observation(Mapping):
    """What `player` may see of a position: a read-only mapping (``obs["market"]``), plus :meth:`sample`.

    Equal observations compare equal (as mappings: the player is one of the keys).

    Parameters
    ----------
    player : int
        The observing seat (0-based); also the mapping's ``"player"`` value.
    data : dict of str to object
        The visible data, plain values.
    infoset : object
        A redealt copy of the position (holding nothing the player may not see); :meth:`sample` redeals it.
    """

    __slots__ = ("_data", "_infoset", "player")

    def __init__(self, player: int, data: dict[str, Any], infoset: Any):
        self.player = int(player)
        self._data = {"player": self.player, **data}
        self._infoset = infoset  # a redealt copy: it holds nothing the player may not see

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"Observation(player={self.player}, keys={list(self._data)})"

    def to_dict(self) -> dict[str, Any]:
        """The observation as a plain dict (a deep copy: its values are plain data, which pickle copies many times
        faster than ``copy.deepcopy``).

        Returns
        -------
        dict of str to object
            Every key of the mapping, ``"player"`` included.
        """
        return pickle.loads(pickle.dumps(self._data, protocol=pickle.HIGHEST_PROTOCOL))

    def sample(self, rng: np.random.Generator | int):
        """A game (the public API's) consistent with this observation, its hidden part drawn with `rng`;
        changing it changes nothing else.

        Parameters
        ----------
        rng : numpy.random.Generator or int
            Where the hidden part is drawn from; an int seeds a fresh generator.

        Returns
        -------
        boardlab.sim.contract.Game
            A new game, the observing player's view unchanged.
        """
        return self._infoset.redeal(self.player, rng)
