"""Game seeds from a run seed: game g's seed depends on (run seed, g) alone.

Game g of a run with seed S gets the (g+1)-th output of a SplitMix64 stream
started at S (SplitMix64 can jump straight to any output), so a game's seed
does not depend on how many games the run has, how they are split into chunks,
how many processes play them or which backend runs them.
"""

from __future__ import annotations

import numpy as np

from .rng import GOLDEN_GAMMA as _GOLDEN
from .rng import mix as _mix

MASK64 = (1 << 64) - 1


def game_seeds(run_seed: int, start: int, stop: int) -> np.ndarray:
    """Seeds of games ``start..stop-1`` of a run.

    Parameters
    ----------
    run_seed : int
        The run's seed (taken modulo 2**64).
    start, stop : int
        The first game index and one past the last.

    Returns
    -------
    numpy.ndarray
        uint64, shape ``(stop - start,)``: game g's seed at ``g - start``, the (g+1)-th output of a SplitMix64
        stream started at `run_seed`.
    """
    with np.errstate(over="ignore"):
        g = np.arange(start, stop, dtype=np.uint64)
        state = np.uint64(int(run_seed) & MASK64) + (g + np.uint64(1)) * _GOLDEN
        return _mix(state)
