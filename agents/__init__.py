"""Citywright agents: random, greedy, specialists and MCTS as numba policies; Python agents."""

import sim  # noqa: F401  (checks the kernels' cache before any agent kernel loads)
