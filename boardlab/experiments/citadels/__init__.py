"""Citadels' runs: the chunk player."""
