"""Citadels (Faidutti, 2000), classic base game: rules as data, the numba engine, the public API and the
plain-Python reference it is checked against (docs/games/citadels.md)."""

from boardlab.sim._cache import guard

guard()  # the numba cache is checked before any of the game's kernels loads (boardlab.sim._cache)
