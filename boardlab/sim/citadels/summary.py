"""Per-round statistics of played games for the result table, in numba (docs/games/citadels.md §12).

The game loop keeps each game's round history (``engine.HS_*``, ``hist[round, game, :]``); the result table
(:mod:`boardlab.experiments.citadels.runner`, :mod:`boardlab.experiments.citadels.columns`) reads from it who was
murdered and robbed, what the Assassin and the Thief hit, and what each chooser was offered, and the per-round text
columns.  These kernels do it in one pass over the rounds;
:func:`boardlab.experiments.citadels.columns.round_counts_numpy` and
:func:`boardlab.experiments.citadels.columns.texts_numpy` are their readable whole-array oracles (tests hold them
equal on games of every player count).
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
    when `seventh`) from hist int32[>= R, G, HS_LEN] and kept int[G] (the rounds each game's history holds).

    Parameters
    ----------
    hist : numpy.ndarray
        int32, shape ``(>= R, G, HS_LEN)``: the round history, round-major.
    kept : numpy.ndarray
        int64, shape ``(G,)``: rounds each game's history holds.
    players : int
        Seats per game.
    offers : bool
        Whether the offers follow from the history (fill `offered`).
    seventh : bool
        Whether the seventh chooser is also offered the face-down card.
    counts : numpy.ndarray
        int16, shape ``(G, players, RC_LEN)``: filled.
    offered : numpy.ndarray
        int64, shape ``(G, players, R)``: filled when `offers`.
    """
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


# The per-round text columns :func:`round_texts` writes, one string per (game, seat) each: entries joined by "-".
TEXTS = ("characters", "positions", "offered", "kills", "robs")
_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
# Per rank mask (bit r - 1 = rank r), its lowest and highest rank as ASCII digits ("0" for none).
_LOW = np.array([ord(str(min((r for r in range(1, 9) if m >> (r - 1) & 1), default=0))) for m in range(256)], np.uint8)
_HIGH = np.array([ord(str(max((r for r in range(1, 9) if m >> (r - 1) & 1), default=0))) for m in range(256)], np.uint8)


def text_widths(players: int, offers: bool) -> np.ndarray:
    """Characters per round entry of each of :data:`TEXTS` (0: the column is empty): the characters held (the
    lowest rank's digit; the lowest and highest at 2-3 players, who hold two), the place in the choosing order,
    the offer as two hex digits (only with `offers`), the murdered and the robbed rank.

    Parameters
    ----------
    players : int
        Seats per game.
    offers : bool
        Whether the offers are known.

    Returns
    -------
    numpy.ndarray
        int64, shape ``(5,)``.
    """
    return np.array([1 if players >= 4 else 2, 1, 2 if offers else 0, 1, 1], dtype=np.int64)


@njit(cache=True, _nrt=False)
def round_texts(hist, kept, players, offered, widths, low, high, hexd, offsets, data):
    """The :data:`TEXTS` of a chunk as Arrow string buffers, row (game, seat) after row, rounds joined by "-".

    hist int32[>= R, G, HS_LEN] (round-major), kept int64[G] (rounds each game's history holds), offered
    int64[G, players, R] (:func:`round_counts`), widths int64[5] (:func:`text_widths`), low/high uint8[256] (a rank
    mask's lowest/highest rank as a digit), hexd uint8[16]; offsets int64[5, G * players + 1] (filled here) and
    data uint8[5, >= the longest column's bytes] (column t's bytes are data[t, :offsets[t, -1]]).

    Parameters
    ----------
    hist : numpy.ndarray
        int32, shape ``(>= R, G, HS_LEN)``: the round history, round-major.
    kept : numpy.ndarray
        int64, shape ``(G,)``: rounds each game's history holds.
    players : int
        Seats per game.
    offered : numpy.ndarray
        int64, shape ``(G, players, R)``.
    widths : numpy.ndarray
        int64, shape ``(5,)``.
    low, high : numpy.ndarray
        uint8, shape ``(256,)``.
    hexd : numpy.ndarray
        uint8, shape ``(16,)``.
    offsets : numpy.ndarray
        int64, shape ``(5, G * players + 1)``: filled.
    data : numpy.ndarray
        uint8, shape ``(5, bytes)``: filled.
    """
    for t in range(5):
        offsets[t, 0] = 0
    for g in range(kept.shape[0]):
        k = kept[g]
        for s in range(players):
            row = g * players + s
            for t in range(5):
                w = widths[t]
                at = offsets[t, row]
                n = 0
                if w > 0 and k > 0:
                    n = k * (w + 1) - 1
                    for r in range(k):
                        h = hist[r, g]
                        p = at + r * (w + 1)
                        if r > 0:
                            data[t, p - 1] = 45  # "-"
                        if t == 0:
                            held = h[E.HS_HELD + s]
                            data[t, p] = low[held]
                            if w == 2:
                                data[t, p + 1] = high[held]
                        elif t == 1:
                            data[t, p] = 49 + (s - h[E.HS_CROWN]) % players  # "1": the crown
                        elif t == 2:
                            o = offered[g, s, r]
                            data[t, p] = hexd[(o >> 4) & 0xF]
                            data[t, p + 1] = hexd[o & 0xF]
                        elif t == 3:
                            data[t, p] = 48 + h[E.HS_KILLED]
                        else:
                            data[t, p] = 48 + h[E.HS_ROBBED]
                offsets[t, row + 1] = at + n


def texts(hist: np.ndarray, kept: np.ndarray, players: int, offered: np.ndarray, offers: bool) -> dict:
    """:data:`TEXTS` of a chunk, each (offsets int64[G * players + 1], data uint8[...]), the buffers of an Arrow
    large string array (:func:`round_texts`; hist and offered as there, kept int[G]).

    Parameters
    ----------
    hist : numpy.ndarray
        int32, shape ``(>= R, G, HS_LEN)``: the round history, round-major.
    kept : numpy.ndarray
        int64, shape ``(G,)``: rounds each game's history holds.
    players : int
        Seats per game.
    offered : numpy.ndarray
        int64, shape ``(G, players, R)``.
    offers : bool
        Whether the offers are known.

    Returns
    -------
    dict
        Column name -> (offsets, data).
    """
    kept = np.ascontiguousarray(kept, dtype=np.int64)
    widths = text_widths(players, offers)
    m = len(kept) * players
    longest = int(players * np.where(kept > 0, kept * (widths.max() + 1) - 1, 0).sum())
    offsets = np.empty((len(TEXTS), m + 1), dtype=np.int64)
    data = np.empty((len(TEXTS), max(1, longest)), dtype=np.uint8)
    round_texts(hist, kept, players, offered, widths, _LOW, _HIGH, _HEX, offsets, data)
    return {name: (offsets[t], data[t, : offsets[t, -1]]) for t, name in enumerate(TEXTS)}


def run(hist: np.ndarray, kept: np.ndarray, players: int, rounds: int, offers: bool, seventh: bool):
    """(counts int16[G, players, RC_LEN], offered int64[G, players, rounds]) for a chunk's history.

    Parameters
    ----------
    hist : numpy.ndarray
        int32, shape ``(>= R, G, HS_LEN)``: the round history, round-major.
    kept : numpy.ndarray
        int64, shape ``(G,)``: rounds each game's history holds.
    players : int
        Seats per game.
    rounds : int
        R: the rounds of `offered`.
    offers : bool
        Whether the offers follow from the history.
    seventh : bool
        Whether the seventh chooser is also offered the face-down card.

    Returns
    -------
    tuple of numpy.ndarray
        (counts, offered).
    """
    g = len(kept)
    counts = np.zeros((g, players, RC_LEN), dtype=np.int16)
    offered = np.zeros((g, players, rounds), dtype=np.int64)
    round_counts(hist, np.ascontiguousarray(kept, dtype=np.int64), players, offers, seventh, counts, offered)
    return counts, offered
