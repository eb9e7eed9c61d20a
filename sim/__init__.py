"""Citywright engine: rules as data, numba kernels, a plain-Python reference."""

from ._cache import ensure_fresh_cache

ensure_fresh_cache()
