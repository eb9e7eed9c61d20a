"""Citadels' agents."""
