"""Citywright: rules as data, numba kernels, a plain-Python reference, the public API."""

from boardlab.sim._cache import guard

guard()  # the numba cache is checked before any of the game's kernels loads (boardlab.sim._cache)
