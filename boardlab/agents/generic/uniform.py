"""``random``: a move drawn uniformly from the listed legal moves with the agent's own generator."""

from __future__ import annotations

import numpy as np


class RandomAgent:
    """Uniform over ``legal_moves``; the choice depends on the list and `rng` alone."""

    name = "random"

    def act(self, observation, legal_moves: list, rng: np.random.Generator):
        if not legal_moves:
            raise ValueError("no legal move to choose from")
        return legal_moves[int(rng.integers(len(legal_moves)))]
