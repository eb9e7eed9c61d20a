"""Who sits where: the seat orders of a run's games, for every game.

Everything about game g's seating is a function of (run seed, g, seating mode), so a
chunk of games gets the same seats wherever and whenever it runs.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from boardlab.sim.seeds import _GOLDEN, _mix

SEATINGS = ("fixed", "rotate", "permute", "draw")


def seat_orders(
    players: int, seating: str, start: int, stop: int, pool: int | None = None, seeds: np.ndarray | None = None
) -> np.ndarray:
    """Which agent sits in each seat of games ``start..stop-1``.

    fixed: agent i in seat i.  rotate: game g shifts the agents by g mod N (agent i
    sits in seat (i + g) mod N).  permute: game g uses the (g mod N!)-th seat order
    in lexicographic order, so every order comes equally often.  draw: the agents
    are a pool of any size (`pool`) and each seat's agent is drawn uniformly and
    independently from it, by a hash of the game's seed and the seat (`seeds`).

    Parameters
    ----------
    players : int
        Seats per game (N).
    seating : str
        ``fixed``, ``rotate``, ``permute`` or ``draw``.
    start, stop : int
        The games' indices in the run.
    pool : int or None
        ``draw``: the number of agents in the pool.
    seeds : numpy.ndarray or None
        ``draw``: uint64, shape ``(stop - start,)``, the games' seeds.

    Returns
    -------
    numpy.ndarray
        int, shape ``(stop - start, players)``: entry [g, s] is the index of the agent in seat s for game start+g.
    """
    if seating == "draw":
        return draw_orders(np.asarray(seeds, dtype=np.uint64), players, int(pool))
    g = np.arange(start, stop)
    seats = np.arange(players)
    if seating == "fixed":
        return np.broadcast_to(seats, (len(g), players)).copy()
    if seating == "rotate":
        return (seats[None, :] - g[:, None]) % players
    if seating == "permute":
        perms = np.array(list(itertools.permutations(range(players))))
        return perms[g % math.factorial(players)]
    raise ValueError(f"seating must be one of {', '.join(SEATINGS)}, got {seating!r}")


def draw_orders(seeds: np.ndarray, players: int, pool: int) -> np.ndarray:
    """Seat s of the game with seed x plays agent mix64(x + (s + 1) * golden) mod pool (uniform to within
    pool / 2**64).

    Parameters
    ----------
    seeds : numpy.ndarray
        uint64, shape ``(G,)``: the games' seeds.
    players : int
        Seats per game.
    pool : int
        The number of agents drawn from.

    Returns
    -------
    numpy.ndarray
        int64, shape ``(G, players)``: agent indices in ``0..pool-1``.
    """
    with np.errstate(over="ignore"):
        s = np.arange(1, players + 1, dtype=np.uint64)
        h = _mix(seeds[:, None] + s[None, :] * _GOLDEN)
    return (h % np.uint64(pool)).astype(np.int64)
