"""Per-round statistics of played games for the result table, in numba (docs/games/citadels.md §12).

The game loop keeps each game's round history (``engine.HS_*``, ``hist[round, game, :]``); the result table
(:mod:`boardlab.experiments.citadels.runner`, :mod:`boardlab.experiments.citadels.columns`) reads from it who was murdered and robbed,
what the Assassin and the Thief hit, and what each chooser was offered.  This kernel does it in one pass over the
rounds; :func:`boardlab.experiments.citadels.columns.round_counts_numpy` is its readable whole-array oracle (tests hold the
two equal on games of every player count).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import engine as E
from .rules import ASSASSIN, THIEF

# counts[g, s, :] columns
RC_MURDERED = 0  # rounds the seat's character was murdered
RC_ROBBED = 1  # rounds it was robbed (by another seat's Thief)
RC_STOLEN = 2  # gold the Thief took from it
RC_KILLS_NAMED = 3  # rounds the seat held the Assassin and named a rank
RC_KILLS_HIT = 4  # ... and the rank was held by somebody
RC_ROBS_NAMED = 5  # rounds the seat held the Thief and named a rank
RC_ROBS_HIT = 6  # ... and robbed another seat
RC_MURDERED_LEADING = 7  # rounds it was murdered while its city was (jointly) the largest, at the round's start
RC_ROBBED_RICHEST = 8  # rounds it was robbed while it was (jointly) the richest, at the round's start
RC_LEN = 9


@njit(cache=True, _nrt=False)
def round_counts(hist, kept, players, offers, seventh, counts, offered):
    """counts int16[G, players, RC_LEN] and, when `offers`, offered int64[G, players, R] (the ranks offered to each
    seat when it chose, bit r - 1; open selection at 4+ players, the seventh chooser also offered the face-down card
    when `seventh`) from hist int32[>= R, G, HS_LEN] and kept int[G] (the rounds each game's history holds)."""
    n = players
    g_count = kept.shape[0]
    r_count = offered.shape[2]
    a_bit = 1 << (ASSASSIN - 1)
    t_bit = 1 << (THIEF - 1)
    for g in range(g_count):
        for s in range(n):
            for c in range(RC_LEN):
                counts[g, s, c] = 0
        for r in range(r_count):
            h = hist[r, g]
            if offers:
                crown = h[E.HS_CROWN]
                avail = 0xFF & ~(h[E.HS_FACEUP] | h[E.HS_FACEDOWN])
                for k in range(n):  # choosers in order from the crown: each is offered what the earlier left
                    s = (crown + k) % n
                    o = avail
                    if seventh and k == 6:
                        o |= h[E.HS_FACEDOWN]
                    offered[g, s, r] = o
                    avail &= ~h[E.HS_HELD + s]
            if r >= kept[g]:
                continue
            killed, killed_seat = h[E.HS_KILLED], h[E.HS_KILLED_SEAT]
            robbed, robbed_seat = h[E.HS_ROBBED], h[E.HS_ROBBED_SEAT]
            thief_seat = -1
            big_city = -1
            big_gold = -1
            for s in range(n):
                if h[E.HS_HELD + s] & t_bit:
                    thief_seat = s
                big_city = max(big_city, h[E.HS_CITY + s])
                big_gold = max(big_gold, h[E.HS_GOLD + s])
            rob_hit = robbed_seat >= 0 and robbed_seat != thief_seat
            for s in range(n):
                held = h[E.HS_HELD + s]
                if held & a_bit:
                    counts[g, s, RC_KILLS_NAMED] += killed > 0
                    counts[g, s, RC_KILLS_HIT] += killed_seat >= 0
                if held & t_bit:
                    counts[g, s, RC_ROBS_NAMED] += robbed > 0
                    counts[g, s, RC_ROBS_HIT] += rob_hit
            if killed_seat >= 0:
                counts[g, killed_seat, RC_MURDERED] += 1
                counts[g, killed_seat, RC_MURDERED_LEADING] += h[E.HS_CITY + killed_seat] == big_city
            if rob_hit:
                counts[g, robbed_seat, RC_ROBBED] += 1
                counts[g, robbed_seat, RC_STOLEN] += h[E.HS_STOLEN]
                counts[g, robbed_seat, RC_ROBBED_RICHEST] += h[E.HS_GOLD + robbed_seat] == big_gold


def run(hist: np.ndarray, kept: np.ndarray, players: int, rounds: int, offers: bool, seventh: bool):
    """(counts int16[G, players, RC_LEN], offered int64[G, players, rounds]) for a chunk's history."""
    g = len(kept)
    counts = np.zeros((g, players, RC_LEN), dtype=np.int16)
    offered = np.zeros((g, players, rounds), dtype=np.int64)
    round_counts(hist, np.ascontiguousarray(kept, dtype=np.int64), players, offers, seventh, counts, offered)
    return counts, offered
