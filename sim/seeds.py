"""Game seeds from a run seed: game g's seed depends on (run seed, g) alone.

Game g of a run with seed S gets the (g+1)-th output of a SplitMix64 stream
started at S (SplitMix64 can jump straight to any output), so a game's seed
does not depend on how many games the run has, how they are split into chunks,
how many processes play them or which backend runs them.
"""

from __future__ import annotations

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
MASK64 = (1 << 64) - 1


def _mix(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def game_seeds(run_seed: int, start: int, stop: int) -> np.ndarray:
    """Seeds of games start..stop-1 (uint64)."""
    with np.errstate(over="ignore"):
        g = np.arange(start, stop, dtype=np.uint64)
        state = np.uint64(int(run_seed) & MASK64) + (g + np.uint64(1)) * _GOLDEN
        return _mix(state)
