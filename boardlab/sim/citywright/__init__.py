"""Citywright: rules as data, numba kernels, a plain-Python reference, the public API."""
