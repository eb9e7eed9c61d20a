"""Citadels (Faidutti, 2000), classic base game: rules as data, the numba engine, the public API and the
plain-Python reference it is checked against (docs/games/citadels.md)."""
