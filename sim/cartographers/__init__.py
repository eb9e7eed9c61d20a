"""Cartographers: rules as data and the plain-Python reference (the oracle for a later numba engine)."""
