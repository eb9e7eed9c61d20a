"""Cartographers: rules as data, numba kernels (engine.py), the public API, and the plain-Python reference."""

from boardlab.sim._cache import guard

guard()  # the numba cache is checked before any of the game's kernels loads (boardlab.sim._cache)
