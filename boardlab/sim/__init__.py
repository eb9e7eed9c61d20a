"""The bottom layer: the game-agnostic core (seeds and random streams, array layouts, the game
registry, small statistics) and one subpackage per game (rules, tables, kernels, reference, API)."""
