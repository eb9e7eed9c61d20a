"""The `strong` agent's learned value of a map's potential: features of one map, and its weight files.

Design notes: docs/games/cartographers/agents.md#learned-value.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from numba import njit, types

from boardlab.sim.bits import popcount
from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.rules import EMPTY, FARM, FOREST, MOUNTAIN, VILLAGE, WATER
from boardlab.sim.cartographers.tables import (
    B_ALL,
    B_COLS,
    B_DIAGONALS,
    B_EDGE,
    B_NOT_COL0,
    B_NOT_COL10,
    B_ROWS,
    MK_MTN_NBR,
    MK_RUINS,
    N_EDICTS,
    N_SEASONS,
    RP_COIN_CAP,
    RP_MOUNTAINS,
    RP_N_AMBUSH,
    RP_N_MOUNTAINS,
    RP_THRESHOLD,
)

WEIGHTS_DIR = Path(__file__).parent / "weights"
BUCKETS = 2 * N_SEASONS
FIRST_CARD = 26
N_CARDS_SCORING = 16
GENERIC = ("bias", "empty", "mtn1", "mtn2", "open", "ruins", "holes", "nooks")
N_GENERIC = len(GENERIC)
FEATURES = GENERIC + tuple(f"{FIRST_CARD + c}_{k}" for c in range(N_CARDS_SCORING) for k in (1, 2))
N_FEATURES = len(FEATURES)

_Z = np.uint64(0)
_ONE = np.uint64(1)
_U1 = np.uint64(1)
_U11 = np.uint64(11)
_64 = np.uint64(64)
_ALL_LO, _ALL_HI = np.uint64(B_ALL[0]), np.uint64(B_ALL[1])
_NC0_LO, _NC0_HI = np.uint64(B_NOT_COL0[0]), np.uint64(B_NOT_COL0[1])
_NC10_LO, _NC10_HI = np.uint64(B_NOT_COL10[0]), np.uint64(B_NOT_COL10[1])
_EDGE_LO, _EDGE_HI = np.uint64(B_EDGE[0]), np.uint64(B_EDGE[1])
_ROWS = B_ROWS.copy()
_COLS = B_COLS.copy()
_DIAGONALS = B_DIAGONALS.copy()


@njit(cache=True, inline="always")
def _count(lo, hi):
    return popcount(lo) + popcount(hi)


@njit(cache=True, inline="always")
def _neighbours(lo, hi):
    """The four boards "the cell's right / left / lower / upper neighbour is in the board" (on the map)."""
    # the cell whose right neighbour is in b: b >> 1, cut where column 10 would wrap to the next row's column 0
    rlo = ((lo >> _U1) | (hi << (_64 - _U1))) & _NC10_LO
    rhi = (hi >> _U1) & _NC10_HI
    llo = (lo << _U1) & _NC0_LO
    lhi = ((hi << _U1) | (lo >> (_64 - _U1))) & _NC0_HI
    dlo = (lo >> _U11) | (hi << (_64 - _U11))
    dhi = hi >> _U11
    ulo = lo << _U11
    uhi = ((hi << _U11) | (lo >> (_64 - _U11))) & _ALL_HI
    return rlo, rhi, llo, lhi, dlo & _ALL_LO, dhi & _ALL_HI, ulo & _ALL_LO, uhi


@njit((types.uint64, types.uint64), cache=True)  # compiled once, not inlined at its ten call sites
def _beside(lo, hi):
    """Cells with at least one 4-neighbour in the board."""
    rlo, rhi, llo, lhi, dlo, dhi, ulo, uhi = _neighbours(lo, hi)
    return rlo | llo | dlo | ulo, rhi | lhi | dhi | uhi


@njit(cache=True)
def _clusters(slo, shi, small, big):
    """(clusters of the board, clusters of small..big cells)."""
    n = 0
    mid = 0
    rlo, rhi = slo, shi
    while rlo != _Z or rhi != _Z:
        clo, chi = E.lowest_cell(rlo, rhi)
        clo, chi = E.flood(clo, chi, slo, shi)
        rlo &= ~clo
        rhi &= ~chi
        sz = _count(clo, chi)
        n += 1
        if small <= sz <= big:
            mid += 1
    return n, mid


@njit(cache=True, inline="always")
def bucket(st, rp):
    """The weights' bucket of the position: 2 * season + (second half of the season's time).

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    """
    s = st[E.ST_SEASON]
    return 2 * s + (2 * st[E.ST_TIME] >= rp[RP_THRESHOLD + s])


@njit(cache=True)
def map_features(pl, coins, w, st, rp, masks, f):
    """Fill f float64[N_FEATURES] with the features of one map (planes pl uint64[N_PLANES, 2], its coins)
    under the planner weights w int64[W_LEN] of the position st (see the module doc).

    Parameters
    ----------
    pl : numpy.ndarray
        uint64, shape ``(N_PLANES, 2)``: one map's planes.
    coins : int
        The map owner's coins.
    w : numpy.ndarray
        int64, shape ``(W_LEN,)``: the planner weights of the position.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards.
    f : numpy.ndarray
        float64, shape ``(N_FEATURES,)``: filled.
    """
    ends = N_SEASONS - st[E.ST_SEASON]
    elo, ehi = pl[EMPTY, 0], pl[EMPTY, 1]
    filo, fihi = ~elo & _ALL_LO, ~ehi & _ALL_HI
    n_empty = _count(elo, ehi)
    # how many empty neighbours each empty cell has: none / exactly one
    rlo, rhi, llo, lhi, dlo, dhi, ulo, uhi = _neighbours(elo, ehi)
    any_lo, any_hi = rlo | llo | dlo | ulo, rhi | lhi | dhi | uhi
    two_lo = (rlo & llo) | (rlo & dlo) | (rlo & ulo) | (llo & dlo) | (llo & ulo) | (dlo & ulo)
    two_hi = (rhi & lhi) | (rhi & dhi) | (rhi & uhi) | (lhi & dhi) | (lhi & uhi) | (dhi & uhi)
    holes = _count(elo & ~any_lo, ehi & ~any_hi)
    nooks = _count(elo & any_lo & ~two_lo, ehi & any_hi & ~two_hi)
    bflo, bfhi = _beside(filo, fihi)
    room = rp[RP_COIN_CAP] - coins
    if room < 0:
        room = 0
    m1 = 0
    m2 = 0
    for j in range(rp[RP_N_MOUNTAINS]):
        if E.has_cell(pl[E.PAID, 0], pl[E.PAID, 1], rp[RP_MOUNTAINS + j]):
            continue
        k = _count(masks[MK_MTN_NBR + j, 0] & elo, masks[MK_MTN_NBR + j, 1] & ehi)
        m1 += k == 1
        m2 += k == 2
    for i in range(N_FEATURES):
        f[i] = 0.0
    f[0] = 1.0
    f[1] = n_empty * ends
    f[2] = min(m1, room) * ends
    f[3] = min(m2, room) * ends
    f[4] = _count(elo & ~bflo, ehi & ~bfhi) * (rp[RP_N_AMBUSH] - st[E.ST_N_OUT])
    rulo, ruhi = masks[MK_RUINS, 0], masks[MK_RUINS, 1]
    f[5] = _count(elo & rulo, ehi & ruhi)
    f[6] = holes
    f[7] = nooks
    for e in range(N_EDICTS):
        if w[e] == 0:
            continue
        card = st[E.ST_EDICTS + e]
        p1 = 0
        p2 = n_empty
        if card == 26 or card == 27 or card == 28:
            tlo, thi = pl[FOREST, 0], pl[FOREST, 1]
            blo, bhi = _beside(tlo, thi)
            p2 = _count(elo & blo, ehi & bhi)
            if card == 26:
                p1 = _count(elo & _EDGE_LO, ehi & _EDGE_HI)
            elif card == 27:
                for r in range(11):
                    for which in range(2):
                        if which == 0:
                            mlo, mhi = _ROWS[r, 0], _ROWS[r, 1]
                        else:
                            mlo, mhi = _COLS[r, 0], _COLS[r, 1]
                        if (tlo & mlo) | (thi & mhi) == _Z and (elo & mlo) | (ehi & mhi) != _Z:
                            p1 += 1
            else:
                p1 = _count(tlo & any_lo, thi & any_hi)
                p2 = holes
        elif card == 29 or card == 31:
            mlo, mhi = pl[MOUNTAIN, 0], pl[MOUNTAIN, 1]
            blo, bhi = _beside(mlo, mhi)
            if card == 29:
                tlo, thi = _beside(pl[FOREST, 0], pl[FOREST, 1])
                p1 = _count(mlo & tlo & any_lo, mhi & thi & any_hi)
                p2 = _count(elo & blo, ehi & bhi)
            else:
                p1 = _count(elo & blo, ehi & bhi)
        elif card == 30:
            alo, ahi = _beside(pl[FARM, 0], pl[FARM, 1])
            blo, bhi = _beside(pl[WATER, 0], pl[WATER, 1])
            p1 = _count(elo & alo, ehi & ahi)
            p2 = _count(elo & blo, ehi & bhi)
        elif card == 32:
            blo, bhi = _beside(rulo, ruhi)
            p1 = _count(elo & rulo, ehi & ruhi)
            p2 = _count(elo & blo, ehi & bhi)
        elif card == 33:
            alo, ahi = _beside(pl[FARM, 0] | pl[WATER, 0], pl[FARM, 1] | pl[WATER, 1])
            p1 = _count(elo & ~alo & ~_EDGE_LO, ehi & ~ahi & ~_EDGE_HI)
        elif 34 <= card <= 37:
            vlo, vhi = pl[VILLAGE, 0], pl[VILLAGE, 1]
            blo, bhi = _beside(vlo, vhi)
            p1 = _count(elo & blo, ehi & bhi)
            n, mid = _clusters(vlo, vhi, 3, 5)
            p2 = mid if card == 34 else n
            if card == 35:
                mlo, mhi = _beside(pl[MOUNTAIN, 0], pl[MOUNTAIN, 1])
                p1 = _count(elo & blo & ~mlo, ehi & bhi & ~mhi)
                p2 = _count(elo & ~mlo, ehi & ~mhi)
        elif card == 38:
            p2 = 0
            for r in range(11):
                for which in range(2):
                    if which == 0:
                        mlo, mhi = _ROWS[r, 0], _ROWS[r, 1]
                    else:
                        mlo, mhi = _COLS[r, 0], _COLS[r, 1]
                    k = _count(elo & mlo, ehi & mhi)
                    p1 += 1 <= k <= 2
                    p2 += 3 <= k <= 5
        elif card == 39:
            p1 = _count(filo, fihi)
            p2 = _count(elo & bflo, ehi & bfhi)
        elif card == 40:
            p2 = 0
            for r in range(11):
                k = _count(elo & _DIAGONALS[r, 0], ehi & _DIAGONALS[r, 1])
                p1 += 1 <= k <= 2
                p2 += 3 <= k <= 5
        elif card == 41:
            p1 = nooks
        c = N_GENERIC + 2 * (card - FIRST_CARD)
        f[c] += w[e] * p1
        f[c + 1] += w[e] * p2


def load_weights(path: Path) -> tuple[np.ndarray, dict]:
    """float64[BUCKETS, N_FEATURES] and the file's metadata, from a weight file (``boardlab train --game
    cartographers`` writes them); refused when its feature list is not FEATURES.

    Parameters
    ----------
    path : pathlib.Path
        The weight file.

    Returns
    -------
    tuple of (numpy.ndarray, dict)
        The weights and the file's metadata.
    """
    data = json.loads(Path(path).read_text())
    if tuple(data.get("features", ())) != FEATURES:
        raise ValueError(
            f"{path}: its feature list is not this version's (boardlab.agents.cartographers.value.FEATURES)"
        )
    w = np.array(data["weights"], dtype=np.float64)
    if w.shape != (BUCKETS, N_FEATURES):
        raise ValueError(f"{path}: weights of shape {w.shape}, expected {(BUCKETS, N_FEATURES)}")
    return w, {k: v for k, v in data.items() if k != "weights"}
