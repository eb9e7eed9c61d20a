"""Citywright's agents: random, greedy, specialists and MCTS as numba policies; Python agents."""

from boardlab.sim._cache import guard

guard()  # the numba cache is checked before any of the game's kernels loads (boardlab.sim._cache)
