"""Citadels (classic edition, 2-8 players): the plain-Python reference implementation."""
