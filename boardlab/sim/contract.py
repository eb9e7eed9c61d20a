"""The game contract as types: what every game's public API offers, and what an agent is given.

A game's ``GameDef.new_game(players, rules, seed)`` returns a :class:`Game`; ``game.observation(player)`` an
:class:`Observation`.  Both are structural (:class:`typing.Protocol`): a game need not inherit from anything, it
only has these members.  :func:`boardlab.testing.check_game` checks a game's objects against them at run time,
and mypy checks code typed with them.  ``docs/architecture.md`` ("The game contract") says what each member means.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["Game", "Observation", "missing_members"]


@runtime_checkable
class Observation(Protocol):
    """All that one player may see of a position: a read-only mapping of plain data, and a way to draw a
    position consistent with it.  The only thing an agent is given of the game."""

    def __getitem__(self, key: str) -> Any: ...

    def __iter__(self) -> Iterator[str]: ...

    def __len__(self) -> int: ...

    def sample(self, rng: np.random.Generator | int) -> Game:
        """A position consistent with the observation, its hidden part drawn from `rng` (a redealt copy: its
        ``seed`` is drawn too, never the true game's).

        Parameters
        ----------
        rng : numpy.random.Generator or int
            Where the hidden part is drawn from; an int seeds a fresh generator.

        Returns
        -------
        Game
            A new game, the observing player's view unchanged.
        """
        ...


@runtime_checkable
class Game(Protocol):
    """A game's public API: one position, moved in place."""

    players: int
    seed: int

    @property
    def done(self) -> bool:
        """Whether the game is over."""
        ...

    @property
    def current(self) -> int:
        """The seat to move (0-based)."""
        ...

    def legal_moves(self) -> Sequence[Any]:
        """The moves the seat to move may make (none once the game is over).

        Returns
        -------
        sequence
            The game's own move objects, in the engine's order.
        """
        ...

    def is_legal(self, move: Any) -> bool:
        """Whether `move` may be made now.

        Parameters
        ----------
        move : object
            A move, as the game writes it.

        Returns
        -------
        bool
            True when `move` is among the legal moves.
        """
        ...

    def apply(self, move: Any) -> None:
        """Make `move`; the game's ``IllegalMove`` (a ValueError) when it is not legal, the game unchanged.

        Parameters
        ----------
        move : object
            A move, as the game writes it.
        """
        ...

    def random_move(self) -> Any:
        """A legal move drawn from the game's own policy stream.

        Returns
        -------
        object
            The move (the stream advances; the game does not move).
        """
        ...

    def scores(self) -> list[dict[str, Any]]:
        """The seats' scores.

        Returns
        -------
        list of dict
            One entry per seat: ``total``, ``rank`` (1 = best, ties share) and ``win_share`` (summing to 1).
        """
        ...

    def snapshot(self) -> dict[str, Any]:
        """The position as plain data.

        Returns
        -------
        dict of str to object
            JSON-serialisable values.
        """
        ...

    def copy(self) -> Game:
        """An independent copy.

        Returns
        -------
        Game
            The same position; moving either leaves the other unchanged.
        """
        ...

    def observation(self, player: int) -> Observation:
        """What `player` may see.

        Parameters
        ----------
        player : int
            The seat (0-based).

        Returns
        -------
        Observation
            The player's view of the position.
        """
        ...

    def redeal(self, player: int, rng: np.random.Generator | int | None = None) -> Game:
        """A copy whose part hidden from `player` is drawn afresh from `rng` (None: a canonical form).

        Parameters
        ----------
        player : int
            The seat whose view is kept (0-based).
        rng : numpy.random.Generator or int or None
            Where the hidden part is drawn from; None gives the canonical redeal.

        Returns
        -------
        Game
            A new game, `player`'s view unchanged.
        """
        ...


def missing_members(obj: object, protocol: type) -> list[str]:
    """The members of `protocol` that `obj` lacks (what ``isinstance`` against a runtime-checkable protocol
    tests, by name, so that a failure can say which).

    Parameters
    ----------
    obj : object
        A game or an observation.
    protocol : type
        :class:`Game` or :class:`Observation`.

    Returns
    -------
    list of str
        The names missing, in the protocol's order; empty when `obj` conforms.
    """
    names = list(inspect.get_annotations(protocol))
    names += [
        n for n, v in protocol.__dict__.items() if not n.startswith("_") and (callable(v) or isinstance(v, property))
    ]
    for dunder in ("__getitem__", "__iter__", "__len__"):
        if dunder in protocol.__dict__:
            names.append(dunder)
    return [n for n in dict.fromkeys(names) if not hasattr(obj, n)]
