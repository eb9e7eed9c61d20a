"""Citywright's agents: random, greedy, specialists and MCTS as numba policies; Python agents."""
