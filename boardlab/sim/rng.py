"""SplitMix64, the one random number generator of every game and run (docs/games/citywright/engine.md).

The constants are defined here once; :mod:`boardlab.sim.seeds` derives game seeds with
them and the engine's kernels draw a game's chance and policy streams with
:func:`rng_next` and :func:`rand_below`.  (The plain-Python reference,
``boardlab/sim/citywright/reference.py``, keeps its own copy on purpose: it is the
independent oracle.)
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from boardlab.sim._cache import guard

guard()  # the numba cache is checked before a kernel of this module loads (boardlab.sim._cache)

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)  # the state's increment per output
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_2 = np.uint64(0x94D049BB133111EB)
# A game's rng array holds two streams: chance (markets, decks) starts at the game seed,
# policy (the agents' random choices) at the seed xor POLICY_STREAM_XOR.
CHANCE = 0
POLICY = 1
POLICY_STREAM_XOR = np.uint64(0x5851F42D4C957F2D)


def mix(z):
    """SplitMix64's output function of a state.

    Parameters
    ----------
    z : numpy.uint64 or numpy.ndarray
        A state, or an array of them (uint64, any shape).

    Returns
    -------
    numpy.uint64 or numpy.ndarray
        The output(s), of `z`'s type and shape (element-wise).
    """
    z = (z ^ (z >> np.uint64(30))) * MIX_1
    z = (z ^ (z >> np.uint64(27))) * MIX_2
    return z ^ (z >> np.uint64(31))


_mix = njit(cache=True, inline="always")(mix)

# rng_next's and rand_below's argument types, given up front: each compiles once, when this module is imported,
# and a caller's literal stream (CHANCE, POLICY, 0) or int32 bound converts to int64 instead of compiling them
# again (docs/architecture/compile-time.md#why-a-kernel-compiles-once)
_STREAMS = types.uint64[::1]


@njit(types.uint64(_STREAMS, types.int64), cache=True)
def rng_next(rng, stream):
    """Advance one stream of a state array and return its next output.

    Parameters
    ----------
    rng : numpy.ndarray
        uint64, shape ``(2,)`` (or longer): the streams' states, advanced in place.
    stream : int
        Which stream (the game's CHANCE or POLICY index).

    Returns
    -------
    numpy.uint64
        The stream's next SplitMix64 output.
    """
    s = rng[stream] + GOLDEN_GAMMA
    rng[stream] = s
    return _mix(s)


@njit(types.int64(_STREAMS, types.int64, types.int64), cache=True)
def rand_below(rng, stream, n):
    """A uniform integer in ``0..n-1`` (multiply-shift on the top 32 bits of the stream's next output).

    Parameters
    ----------
    rng : numpy.ndarray
        uint64, shape ``(2,)`` (or longer): the streams' states, advanced in place.
    stream : int
        Which stream.
    n : int
        The number of values (at least 1, below 2**32).

    Returns
    -------
    numpy.int64
        The draw.
    """
    return np.int64(((rng_next(rng, stream) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))
