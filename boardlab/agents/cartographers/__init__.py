"""Cartographers' agents: the random policy (more to come) in a numba game loop, by spec string."""

from boardlab.sim._cache import guard

guard()  # the numba cache is checked before any of the game's kernels loads (boardlab.sim._cache)
