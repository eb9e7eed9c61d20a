"""The middle layer: one subpackage of agents per game, over that game's public moves and kernels."""

import boardlab.sim  # noqa: F401  (checks the kernels' cache before any agent kernel loads)
