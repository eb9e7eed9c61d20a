"""Cartographers' runs and studies: its chunk player and its balance report."""
