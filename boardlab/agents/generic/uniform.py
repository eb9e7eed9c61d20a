"""``random``: a move drawn uniformly from the listed legal moves with the agent's own generator."""

from __future__ import annotations

import numpy as np


class RandomAgent:
    """Uniform over ``legal_moves``; the choice depends on the list and `rng` alone."""

    name = "random"
    observes = False  # the runner passes no observation (boardlab.agents.generic.base)

    def act(self, observation, legal_moves: list, rng: np.random.Generator):
        if not legal_moves:
            raise ValueError("no legal move to choose from")
        # floor(u * n) for one double u in [0, 1): uniform up to n / 2**53, and a tenth of rng.integers' cost
        return legal_moves[int(rng.random() * len(legal_moves))]
