"""Python agents as a user would write them, for the py:module:Name specs of the tests."""

from __future__ import annotations

__version__ = "1.2.3"


class FirstMove:
    """The first listed move, or with `pick` = "last" the last; `risk` is kept (a parameter it is built with)."""

    def __init__(self, pick: str = "first", risk: float = 0.0, deep: bool = False, depth: int = 1):
        if pick not in ("first", "last"):
            raise ValueError(f"pick must be first or last, got {pick!r}")
        self.pick, self.risk, self.deep, self.depth = pick, risk, deep, depth

    def act(self, observation, legal_moves, rng):
        return legal_moves[0] if self.pick == "first" else legal_moves[-1]


class Shuffler:
    """A uniform choice with its own generator, counting its moves (fresh for every game)."""

    def __init__(self):
        self.moves = 0

    def act(self, observation, legal_moves, rng):
        self.moves += 1
        return legal_moves[int(rng.integers(len(legal_moves)))]


class NoAct:
    pass


FIRST = FirstMove()  # an object, not a class
