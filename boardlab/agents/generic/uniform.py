"""``random``: a move drawn uniformly from the listed legal moves with the agent's own generator."""

from __future__ import annotations

import numpy as np


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
