"""Citadels (Faidutti, 2000), classic base game: rules, numba engine, public API."""
