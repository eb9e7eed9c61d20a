"""``random``: a move drawn uniformly from the listed legal moves with the agent's own generator."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

_BLOCK = 64  # doubles drawn at a time by a chooser: one draw of 64 costs about what two single draws cost


class RandomAgent:
    """Uniform over ``legal_moves``; the choice depends on the list and `rng` alone."""

    name = "random"
    observes = False  # the runner passes no observation (boardlab.agents.generic.base)

    def act(self, observation, legal_moves: list, rng: np.random.Generator):
        """A move drawn uniformly from `legal_moves` with `rng` (the observation is not read).

        Parameters
        ----------
        observation : boardlab.sim.observation.Observation or None
            What the seat to move may see (None for an agent with ``observes = False``).
        legal_moves : list
            The moves to choose from (the game's ``agent_moves()``), not empty.
        rng : numpy.random.Generator
            The agent's own generator (:func:`boardlab.agents.generic.base.agent_rng`).

        Returns
        -------
        object
            The chosen move, one of `legal_moves`.
        """
        if not legal_moves:
            raise ValueError("no legal move to choose from")
        # floor(u * n) for one double u in [0, 1): uniform up to n / 2**53, and a tenth of rng.integers' cost
        return legal_moves[int(rng.random() * len(legal_moves))]

    def chooser(self, rng: np.random.Generator) -> Callable[[list], object] | None:
        """The agent's moves of one game as a function of the listed moves alone, for a runner that gives `rng` to
        this agent only: the same moves :meth:`act` would choose, its doubles drawn from `rng` in blocks (numpy
        draws ``rng.random(k)`` as k successive ``rng.random()``).  None for a subclass whose ``act`` differs.

        Parameters
        ----------
        rng : numpy.random.Generator
            The agent's generator for the game; nothing else may draw from it.

        Returns
        -------
        callable(list) -> move, or None
            Per decision, the listed moves -> the move chosen (ValueError when none is listed).
        """
        if type(self).act is not RandomAgent.act:
            return None
        buffer: list[float] = []
        at = 0

        def choose(legal_moves: list):
            nonlocal buffer, at
            if not legal_moves:
                raise ValueError("no legal move to choose from")
            if at == len(buffer):
                buffer, at = rng.random(_BLOCK).tolist(), 0
            u = buffer[at]
            at += 1
            return legal_moves[int(u * len(legal_moves))]

        return choose
