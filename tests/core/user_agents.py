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


class Raiser:
    """Raises on its second move."""

    def __init__(self):
        self.moves = 0

    def act(self, observation, legal_moves, rng):
        self.moves += 1
        if self.moves > 1:
            raise ValueError("the agent broke down\nsecond line of its message")
        return legal_moves[0]


class Illegal:
    """A move of another game: a string the game cannot read."""

    def act(self, observation, legal_moves, rng):
        return "not a move"


class Nothing:
    """Returns None."""

    def act(self, observation, legal_moves, rng):
        return None


class Exits:
    """Calls sys.exit(0) in the middle of a game."""

    def act(self, observation, legal_moves, rng):
        import sys

        sys.exit(0)


class HardExit:
    """Ends its process at once (os._exit), as a crash would."""

    def act(self, observation, legal_moves, rng):
        import os

        os._exit(3)


class Hangs:
    """Never returns."""

    def act(self, observation, legal_moves, rng):
        import time

        while True:
            time.sleep(0.05)


class FrameReader:
    """Looks through the frames of its callers for a game (an object with snapshot and apply): raises when it
    finds one (as it does in the runner's process), else plays the first move."""

    def act(self, observation, legal_moves, rng):
        import sys

        frame = sys._getframe(1)
        while frame is not None:
            if any(hasattr(v, "snapshot") and hasattr(v, "apply") for v in frame.f_locals.values()):
                raise RuntimeError("the runner's game is in reach")
            frame = frame.f_back
        return legal_moves[0]


class Flaky:
    """Plays the first move, but fails in a game past the first ``Flaky.after`` games this process played it in
    (``Flaky.games`` counts them)."""

    games = 0
    after = 10**9

    def __init__(self):
        self.number = 0

    def act(self, observation, legal_moves, rng):
        if not self.number:
            Flaky.games += 1
            self.number = Flaky.games
        if self.number > Flaky.after:
            raise ValueError(f"game number {self.number} of this process")
        return legal_moves[0]
