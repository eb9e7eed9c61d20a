"""Cartographers' agents: the random policy (more to come) in a numba game loop, by spec string."""
