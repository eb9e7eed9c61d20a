"""Cartographers: rules as data, numba kernels (engine.py), the public API, and the plain-Python reference."""
