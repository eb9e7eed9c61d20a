"""Cartographers' numba kernels: the whole game over a few fixed-shape arrays.

Design notes: docs/games/cartographers/engine.md#kernels-module.
"""

from __future__ import annotations

import llvmlite.ir as ir
import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from boardlab.sim.bits import lowest_bit_index, popcount
from boardlab.sim.layout import Layout
from boardlab.sim.rng import CHANCE, POLICY, POLICY_STREAM_XOR, rand_below

from .rules import EMPTY, FARM, FOREST, MAX_PLAYERS, MONSTER, MOUNTAIN, N_CELLS, VILLAGE, WASTELAND, WATER
from .tables import (
    B_ALL,
    B_COLS,
    B_DIAGONALS,
    B_EDGE,
    B_NOT_COL0,
    B_NOT_COL10,
    B_ROWS,
    CARD_AMBUSH,
    CARD_RUINS,
    CD_CLOCKWISE,
    CD_COIN,
    CD_FORM_END,
    CD_FORM_START,
    CD_KIND,
    CD_N_OPTIONS,
    CD_N_TERRAINS,
    CD_SOLO_FORM,
    CD_TERRAINS,
    CD_TIME,
    CD_WALK_END,
    CD_WALK_START,
    FM_N,
    FM_OFF,
    MAX_CATEGORY_CARDS,
    MAX_DECK,
    MAX_OPTIONS,
    MAX_REVEALED,
    MAX_TERRAINS,
    MK_MOUNTAINS,
    MK_MTN_NBR,
    MK_RUINS,
    MK_WASTELAND,
    N_AMBUSH,
    N_CATEGORIES,
    N_EDICTS,
    N_SEASONS,
    RP_AMBUSH_IDS,
    RP_CAT_CARDS,
    RP_CAT_N,
    RP_COIN_CAP,
    RP_EDICT_RANDOM,
    RP_EDICTS,
    RP_EDICTS_FIXED,
    RP_EXPLORE_IDS,
    RP_FALLBACK,
    RP_FALLBACK_ANY,
    RP_GRANARY_FILLED,
    RP_GRANARY_WATER,
    RP_GREENGOLD_TYPES,
    RP_MOUNTAINS,
    RP_MTN_TO_OWNER,
    RP_N_AMBUSH,
    RP_N_EXPLORE,
    RP_N_FALLBACK,
    RP_N_MOUNTAINS,
    RP_N_RUINS,
    RP_PASS_NEXT,
    RP_PENALTY,
    RP_PENALTY_RUINS,
    RP_PLAYERS,
    RP_SEASON_EDICTS,
    RP_SENTINEL_ONCE,
    RP_SHIELDGATE_ENTRY,
    RP_STONESIDE_CLUSTER,
    RP_THRESHOLD,
    RP_TIES_MONSTER,
)

# --- cell states and planes (docs/games/cartographers/engine.md §1) --------------------------------------
PAID = WASTELAND + 1  # plane of the paid mountains, after the 8 state planes
N_PLANES = PAID + 1

# --- state layout -------------------------------------------------------------------------------
PHASE_DRAW, PHASE_MONSTER, PHASE_DONE = range(3)
_st = Layout("st")
ST_PLAYERS = _st.add("players")
ST_SEASON = _st.add("season 0..3")
ST_TIME = _st.add("the season's time so far")
ST_PHASE = _st.add("phase (PHASE_*)")
ST_CARD = _st.add("card being resolved, -1 when done")
ST_K = _st.add("decisions made in the phase")
ST_CURRENT = _st.add("seat to decide, -1 when done")
ST_TARGET = _st.add("map it draws on, -1 when done")
ST_RUINS = _st.add("ruins_pending")
ST_SCORED = _st.add("seasons scored")
ST_EDICTS = _st.add("scoring card of edicts A-D", N_EDICTS)
ST_DECK = _st.add("explore deck, top at DECK_POS", MAX_DECK)
ST_DECK_POS = _st.add("deck top index")
ST_DECK_END = _st.add("deck end index")
ST_AMBUSH = _st.add("ambush deck, top at AMBUSH_POS", N_AMBUSH)
ST_AMBUSH_POS = _st.add("ambush deck top index")
ST_AMBUSH_END = _st.add("ambush deck end index")
ST_REVEALED = _st.add("this season's revealed ruins and shape cards", MAX_REVEALED)
ST_N_REVEALED = _st.add("how many")
ST_OUT = _st.add("ambushes revealed so far, in order", N_AMBUSH)
ST_N_OUT = _st.add("how many")
ST_COINS = _st.add("coins per seat", MAX_PLAYERS)
REC_E1, REC_E2, REC_COINS, REC_MONSTER, REC_TOTAL, REC_LEN = range(6)
ST_RECORDS = _st.add("season records per seat and season (REC_*)", MAX_PLAYERS * N_SEASONS * REC_LEN)
ST_LEN = _st.size

# --- moves --------------------------------------------------------------------------------------
K_DRAW, K_FALLBACK, K_MONSTER, K_SKIP = range(4)
_mv = Layout("mv")
MV_KIND = _mv.add("kind (K_*)")
MV_MAP = _mv.add("target map")
MV_OPTION = _mv.add("card option (draw), 0 (monster), -1")
MV_FORM = _mv.add("form row (draw, monster), -1")
MV_ANCHOR = _mv.add("anchor cell 11ar+ac; fallback: the cell; skip: -1")
MV_TERRAIN = _mv.add("terrain code; skip: 0")
MV_LEN = _mv.size
# A card's listing is at most its options x 8 orientations x 121 anchors x its terrains.
MAX_MOVES = MAX_OPTIONS * 8 * N_CELLS * MAX_TERRAINS

# --- final scores -------------------------------------------------------------------------------
_sc = Layout("sc")
SC_EDICT = _sc.add("points of edicts A-D over the scored seasons", N_EDICTS)
SC_EDICT_POINTS = _sc.add("sum of e1 + e2")
SC_COIN_POINTS = _sc.add("sum of season coins")
SC_MONSTER = _sc.add("sum of monster penalties")
SC_TOTAL = _sc.add("total")
SC_RANK = _sc.add("rank, 1 = best")
SC_LEN = _sc.size

# --- 128-bit board constants (frozen into the machine code) -------------------------------------
_Z = np.uint64(0)
_ONE = np.uint64(1)
_64 = np.uint64(64)
_U11 = np.uint64(11)
_U12 = np.uint64(12)
_BYTE = np.uint64(0xFF)
_ALL_LO, _ALL_HI = np.uint64(B_ALL[0]), np.uint64(B_ALL[1])
_NC0_LO, _NC0_HI = np.uint64(B_NOT_COL0[0]), np.uint64(B_NOT_COL0[1])
_NC10_LO, _NC10_HI = np.uint64(B_NOT_COL10[0]), np.uint64(B_NOT_COL10[1])
_EDGE_LO, _EDGE_HI = np.uint64(B_EDGE[0]), np.uint64(B_EDGE[1])
_ROWS = B_ROWS.copy()
_COLS = B_COLS.copy()
_DIAGONALS = B_DIAGONALS.copy()


# Argument types of the kernels given them up front: each compiles once, for these types, and callers' int32,
# int64 and literal arguments convert to them (docs/architecture/compile-time.md#why-a-kernel-compiles-once);
# flood (a loop) is compiled once rather than inlined at every scoring card's cluster walk.  count, adjacent and
# lowest_cell, a few instructions on the placement checks' and the scoring cards' hot paths, are intrinsics: their
# LLVM code is written into the caller, with no numba function typed again at each of their many call sites.
_U = types.uint64
_I = types.int64
_BB = types.uint64[:, :, ::1]  # the maps' planes
_ST = types.int32[::1]
_RP = types.Array(types.int32, 1, "C", readonly=True)  # read-only arrays: writable ones convert to them
_MK = types.Array(types.uint64, 2, "C", readonly=True)


# --- 128-bit boards as (lo, hi) -------------------------------------------------------------------


@njit(cache=True, inline="always")
def shr(lo, hi, k):
    """Board >> k for 0 <= k < 64: bit i gets bit i + k (the cell k places further on).

    Parameters
    ----------
    lo, hi : numpy.uint64
        A 121-cell board: cells 0..63 in `lo`, 64..120 in `hi`.
    k : int
        The shift, 0..63.

    Returns
    -------
    tuple of numpy.uint64
        The resulting board (lo, hi).
    """
    if k == 0:
        return lo, hi
    return (lo >> k) | (hi << (_64 - k)), hi >> k


@njit(cache=True, inline="always")
def shl(lo, hi, k):
    """Board << k for 0 < k < 64 (bits beyond 127 drop; callers mask to the map).

    Parameters
    ----------
    lo, hi : numpy.uint64
        A 121-cell board: cells 0..63 in `lo`, 64..120 in `hi`.
    k : int
        The shift, 1..63.

    Returns
    -------
    tuple of numpy.uint64
        The resulting board (lo, hi).
    """
    return lo << k, (hi << k) | (lo >> (_64 - k))


@intrinsic
def count(typingctx, lo, hi):
    """The number of cells of a board (LLVM ctpop on each half), callable from numba code only.

    Parameters
    ----------
    lo, hi : numpy.uint64
        A 121-cell board: cells 0..63 in `lo`, 64..120 in `hi`.

    Returns
    -------
    int
        The number of cells set.
    """
    sig = types.int64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        return builder.add(builder.ctpop(args[0]), builder.ctpop(args[1]))

    return sig, codegen


@intrinsic
def adjacent(typingctx, lo, hi):
    """The cells with at least one 4-neighbour in the board (the board's own cells only if they have one),
    callable from numba code only.

    Parameters
    ----------
    lo, hi : numpy.uint64
        A 121-cell board: cells 0..63 in `lo`, 64..120 in `hi`.

    Returns
    -------
    tuple of numpy.uint64
        The resulting board (lo, hi).
    """
    sig = types.UniTuple(types.uint64, 2)(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        lo, hi = args
        b = builder

        def k(v):  # a 64-bit constant (two's complement: LLVM reads i64 constants signed)
            v = int(v)
            return ir.Constant(lo.type, v - (1 << 64) if v >= 1 << 63 else v)

        # shl(board, 1): right neighbours (column 0 got row-wrapped bits); shr(board, 1): left neighbours (column
        # 10 got row-wrapped bits); shl(board, 11): below; shr(board, 11): above
        rlo, rhi = b.shl(lo, k(1)), b.or_(b.shl(hi, k(1)), b.lshr(lo, k(63)))
        llo, lhi = b.or_(b.lshr(lo, k(1)), b.shl(hi, k(63))), b.lshr(hi, k(1))
        dlo, dhi = b.shl(lo, k(11)), b.or_(b.shl(hi, k(11)), b.lshr(lo, k(53)))
        ulo, uhi = b.or_(b.lshr(lo, k(11)), b.shl(hi, k(53))), b.lshr(hi, k(11))
        out_lo = b.and_(b.or_(b.or_(b.and_(rlo, k(_NC0_LO)), b.and_(llo, k(_NC10_LO))), b.or_(dlo, ulo)), k(_ALL_LO))
        out_hi = b.and_(b.or_(b.or_(b.and_(rhi, k(_NC0_HI)), b.and_(lhi, k(_NC10_HI))), b.or_(dhi, uhi)), k(_ALL_HI))
        return context.make_tuple(builder, signature.return_type, (out_lo, out_hi))

    return sig, codegen


@njit((_U, _U, _U, _U), cache=True)
def flood(slo, shi, set_lo, set_hi):
    """The cluster of `set` grown from the seed cells s (4-connected).

    Parameters
    ----------
    slo, shi : numpy.uint64
        The seed cells.
    set_lo, set_hi : numpy.uint64
        The cells the cluster may grow on.

    Returns
    -------
    tuple of numpy.uint64
        The cluster (lo, hi).
    """
    clo, chi = slo, shi
    while True:  # two growth steps per test: fewer unpredictable branches
        alo, ahi = adjacent(clo, chi)
        nlo, nhi = (clo | alo) & set_lo, (chi | ahi) & set_hi
        alo, ahi = adjacent(nlo, nhi)
        mlo, mhi = (nlo | alo) & set_lo, (nhi | ahi) & set_hi
        if mlo == nlo and mhi == nhi:
            return mlo, mhi
        clo, chi = mlo, mhi


@intrinsic
def lowest_cell(typingctx, lo, hi):
    """The board holding only the lowest set cell of a non-empty board, callable from numba code only.

    Parameters
    ----------
    lo, hi : numpy.uint64
        A 121-cell board: cells 0..63 in `lo`, 64..120 in `hi`.

    Returns
    -------
    tuple of numpy.uint64
        The resulting board (lo, hi).
    """
    sig = types.UniTuple(types.uint64, 2)(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        lo, hi = args
        zero = ir.Constant(lo.type, 0)
        in_lo = builder.icmp_unsigned("!=", lo, zero)
        out_lo = builder.select(in_lo, builder.and_(lo, builder.neg(lo)), zero)  # x & -x: its lowest bit
        out_hi = builder.select(in_lo, zero, builder.and_(hi, builder.neg(hi)))
        return context.make_tuple(builder, signature.return_type, (out_lo, out_hi))

    return sig, codegen


@njit(cache=True)
def select_bit(lo, hi, j):
    """Index of the j-th (0-based) set bit of the 128-bit board; j < count(lo, hi).

    Parameters
    ----------
    lo, hi : numpy.uint64
        A 121-cell board: cells 0..63 in `lo`, 64..120 in `hi`.
    j : int
        Which set bit.

    Returns
    -------
    int
        The cell's index.
    """
    base = 0
    x = lo
    pc = popcount(lo)
    if j >= pc:
        j -= pc
        x = hi
        base = 64
    while True:
        pc = popcount(x & _BYTE)
        if j < pc:
            break
        j -= pc
        x >>= np.uint64(8)
        base += 8
    for _ in range(j):
        x &= x - _ONE
    return base + lowest_bit_index(x)


@njit(cache=True, inline="always")
def has_cell(lo, hi, i):
    """Whether cell i is set on a board.

    Parameters
    ----------
    lo, hi : numpy.uint64
        A 121-cell board: cells 0..63 in `lo`, 64..120 in `hi`.
    i : int
        A cell index, 0..120.

    Returns
    -------
    bool
        True when cell i is set.
    """
    if i < 64:
        return (lo >> np.uint64(i)) & _ONE != _Z
    return (hi >> np.uint64(i - 64)) & _ONE != _Z


@njit(cache=True, inline="always")
def pop_lowest(lo, hi):
    """(index of the lowest set cell, the board without it) of a non-empty board.

    Parameters
    ----------
    lo, hi : numpy.uint64
        A 121-cell board: cells 0..63 in `lo`, 64..120 in `hi`.

    Returns
    -------
    tuple
        (cell index, lo, hi).
    """
    if lo != _Z:
        return lowest_bit_index(lo), lo & (lo - _ONE), hi
    return 64 + lowest_bit_index(hi), lo, hi & (hi - _ONE)


# --- placements ---------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def free_anchors(f, elo, ehi, forms, form_anchors):
    """The anchors at which form f lies on empty cells only (empty = the board e).

    Parameters
    ----------
    f : int
        The form's index.
    elo, ehi : numpy.uint64
        The empty cells.
    forms : numpy.ndarray
        int32, shape ``(forms, FM_LEN)``: every oriented shape.
    form_anchors : numpy.ndarray
        uint64, shape ``(forms, 2)``: each form's anchors that keep it on the map.

    Returns
    -------
    tuple of numpy.uint64
        The anchors (lo, hi).
    """
    alo = form_anchors[f, 0]
    ahi = form_anchors[f, 1]
    for c in range(forms[f, FM_N]):
        slo, shi = shr(elo, ehi, np.uint64(forms[f, FM_OFF + c]))
        alo &= slo
        ahi &= shi
    return alo, ahi


@njit(cache=True, inline="always")
def touching_anchors(f, rlo, rhi, forms):
    """The anchors at which some cell of form f is in board r (any anchor, on the map or not).

    Parameters
    ----------
    f : int
        The form's index.
    rlo, rhi : numpy.uint64
        The board r.
    forms : numpy.ndarray
        int32, shape ``(forms, FM_LEN)``: every oriented shape.

    Returns
    -------
    tuple of numpy.uint64
        The anchors (lo, hi).
    """
    alo = _Z
    ahi = _Z
    for c in range(forms[f, FM_N]):
        slo, shi = shr(rlo, rhi, np.uint64(forms[f, FM_OFF + c]))
        alo |= slo
        ahi |= shi
    return alo, ahi


@njit(cache=True, inline="always")
def draw_anchors(f, elo, ehi, pending, rlo, rhi, forms, form_anchors):
    """Free anchors of form f; with a ruins card pending, only those covering an empty ruins cell (r).

    Parameters
    ----------
    f : int
        The form's index.
    elo, ehi : numpy.uint64
        The empty cells.
    pending : bool
        Whether a ruins card is pending.
    rlo, rhi : numpy.uint64
        The ruins cells.
    forms : numpy.ndarray
        int32, shape ``(forms, FM_LEN)``: every oriented shape.
    form_anchors : numpy.ndarray
        uint64, shape ``(forms, 2)``: each form's anchors that keep it on the map.

    Returns
    -------
    tuple of numpy.uint64
        The anchors (lo, hi).
    """
    alo, ahi = free_anchors(f, elo, ehi, forms, form_anchors)
    if pending:
        tlo, thi = touching_anchors(f, rlo, rhi, forms)
        alo &= tlo
        ahi &= thi
    return alo, ahi


# --- scoring (docs/games/cartographers/engine.md §7) -------------------------------------------------------


@njit(cache=True)
def _cluster_sizes_top2(slo, shi, entry):
    """The largest and the second cluster size (second entry of the sorted list, or second distinct size)."""
    s1 = 0
    s2 = 0
    rlo, rhi = slo, shi
    while rlo != _Z or rhi != _Z:
        clo, chi = lowest_cell(rlo, rhi)
        clo, chi = flood(clo, chi, slo, shi)
        rlo &= ~clo
        rhi &= ~chi
        sz = count(clo, chi)
        if sz > s1:
            s2 = s1
            s1 = sz
        elif entry:
            if sz > s2:
                s2 = sz
        elif s2 < sz < s1:
            s2 = sz
    return s1, s2


@njit(cache=True)
def score_card(card, pl, rp, masks):
    """Points of scoring card `card` (26..41) on one map's planes pl (uint64[N_PLANES, 2]).

    Parameters
    ----------
    card : int
        The scoring card.
    pl : numpy.ndarray
        uint64, shape ``(N_PLANES, 2)``.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards (ruins, edges, ...).

    Returns
    -------
    int
        The card's points.
    """
    elo, ehi = pl[EMPTY, 0], pl[EMPTY, 1]
    flo, fhi = pl[FOREST, 0], pl[FOREST, 1]
    vlo, vhi = pl[VILLAGE, 0], pl[VILLAGE, 1]
    falo, fahi = pl[FARM, 0], pl[FARM, 1]
    wlo, whi = pl[WATER, 0], pl[WATER, 1]
    mlo, mhi = pl[MOUNTAIN, 0], pl[MOUNTAIN, 1]
    if card == 26:  # Sentinel Wood
        if rp[RP_SENTINEL_ONCE]:
            return count(flo & _EDGE_LO, fhi & _EDGE_HI)
        pts = 0
        for k in (0, 10):
            pts += count(flo & _ROWS[k, 0], fhi & _ROWS[k, 1]) + count(flo & _COLS[k, 0], fhi & _COLS[k, 1])
        return pts
    if card == 27:  # Greenbough
        pts = 0
        for k in range(11):
            pts += (flo & _ROWS[k, 0]) | (fhi & _ROWS[k, 1]) != _Z
            pts += (flo & _COLS[k, 0]) | (fhi & _COLS[k, 1]) != _Z
        return pts
    if card == 28:  # Treetower: no side is an empty cell
        alo, ahi = adjacent(elo, ehi)
        return count(flo & ~alo, fhi & ~ahi)
    if card == 29:  # Stoneside Forest
        if not rp[RP_STONESIDE_CLUSTER]:
            alo, ahi = adjacent(flo, fhi)
            return 3 * count(mlo & alo, mhi & ahi)
        slo = _Z
        shi = _Z
        rlo, rhi = flo, fhi
        while rlo != _Z or rhi != _Z:
            clo, chi = lowest_cell(rlo, rhi)
            clo, chi = flood(clo, chi, flo, fhi)
            rlo &= ~clo
            rhi &= ~chi
            alo, ahi = adjacent(clo, chi)
            tlo, thi = alo & mlo, ahi & mhi
            if count(tlo, thi) >= 2:
                slo |= tlo
                shi |= thi
        return 3 * count(slo, shi)
    if card == 30:  # Canal Lake
        alo, ahi = adjacent(falo, fahi)
        blo, bhi = adjacent(wlo, whi)
        return count(wlo & alo, whi & ahi) + count(falo & blo, fahi & bhi)
    if card == 31:  # Mages Valley
        alo, ahi = adjacent(mlo, mhi)
        return 2 * count(wlo & alo, whi & ahi) + count(falo & alo, fahi & ahi)
    if card == 32:  # The Golden Granary
        rlo, rhi = masks[MK_RUINS, 0], masks[MK_RUINS, 1]
        if rp[RP_GRANARY_FILLED]:
            alo, ahi = adjacent(rlo, rhi)
        else:
            alo, ahi = adjacent(rlo & elo, rhi & ehi)
        return rp[RP_GRANARY_WATER] * count(wlo & alo, whi & ahi) + 3 * count(falo & rlo, fahi & rhi)
    if card == 33:  # Shoreside Expanse
        pts = 0
        for which in range(2):
            if which == 0:
                slo, shi, olo, ohi = falo, fahi, wlo, whi
            else:
                slo, shi, olo, ohi = wlo, whi, falo, fahi
            nlo, nhi = adjacent(olo, ohi)
            blo, bhi = nlo | _EDGE_LO, nhi | _EDGE_HI  # cells that disqualify a cluster
            rlo, rhi = slo, shi
            while rlo != _Z or rhi != _Z:
                clo, chi = lowest_cell(rlo, rhi)
                clo, chi = flood(clo, chi, slo, shi)
                rlo &= ~clo
                rhi &= ~chi
                if (clo & blo) | (chi & bhi) == _Z:
                    pts += 3
        return pts
    if card == 34 or card == 35 or card == 36:  # Wildholds, Great City, Greengold Plains
        amlo, amhi = adjacent(mlo, mhi)
        types = rp[RP_GREENGOLD_TYPES]
        pts = 0
        rlo, rhi = vlo, vhi
        while rlo != _Z or rhi != _Z:
            clo, chi = lowest_cell(rlo, rhi)
            clo, chi = flood(clo, chi, vlo, vhi)
            rlo &= ~clo
            rhi &= ~chi
            if card == 34:
                if count(clo, chi) >= 6:
                    pts += 8
            elif card == 35:
                if (clo & amlo) | (chi & amhi) == _Z:
                    pts = max(pts, count(clo, chi))
            else:
                alo, ahi = adjacent(clo, chi)
                distinct = 0
                for s in range(1, 8):
                    if (types >> s) & 1 and (pl[s, 0] & alo) | (pl[s, 1] & ahi) != _Z:
                        distinct += 1
                if distinct >= 3:
                    pts += 3
        return pts
    if card == 37:  # Shieldgate
        _, s2 = _cluster_sizes_top2(vlo, vhi, rp[RP_SHIELDGATE_ENTRY])
        return 2 * s2
    filo = ~elo & _ALL_LO
    fihi = ~ehi & _ALL_HI
    if card == 38:  # Borderlands
        full = 0
        for k in range(11):
            full += (filo & _ROWS[k, 0] == _ROWS[k, 0]) and (fihi & _ROWS[k, 1] == _ROWS[k, 1])
            full += (filo & _COLS[k, 0] == _COLS[k, 0]) and (fihi & _COLS[k, 1] == _COLS[k, 1])
        return 6 * full
    if card == 39:  # Lost Barony: anchors of all-filled k x k squares, grown one k at a time
        k = 0
        slo, shi = filo, fihi
        while slo != _Z or shi != _Z:
            k += 1
            alo, ahi = shr(slo, shi, _ONE)
            blo, bhi = shr(slo, shi, _U11)
            clo, chi = shr(slo, shi, _U12)
            slo = slo & alo & blo & clo & _NC10_LO
            shi = shi & ahi & bhi & chi & _NC10_HI
        return 3 * k
    if card == 40:  # The Broken Road
        full = 0
        for r in range(11):
            d0 = _DIAGONALS[r, 0]
            d1 = _DIAGONALS[r, 1]
            full += (filo & d0 == d0) and (fihi & d1 == d1)
        return 3 * full
    if card == 41:  # The Cauldrons: empty cells with no empty side
        alo, ahi = adjacent(elo, ehi)
        return count(elo & ~alo, ehi & ~ahi)
    return 0


@njit(cache=True)
def monster_penalty(pl, rp, masks):
    """Empty cells with a monster neighbour, each once (empty ruins left out unless the rules count them).

    Parameters
    ----------
    pl : numpy.ndarray
        uint64, shape ``(N_PLANES, 2)``: one map's planes.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards (ruins, edges, ...).

    Returns
    -------
    int
        The number of such cells (0 when the rules have no penalty).
    """
    if not rp[RP_PENALTY]:
        return 0
    elo, ehi = pl[EMPTY, 0], pl[EMPTY, 1]
    if not rp[RP_PENALTY_RUINS]:
        elo &= ~masks[MK_RUINS, 0]
        ehi &= ~masks[MK_RUINS, 1]
    alo, ahi = adjacent(pl[MONSTER, 0], pl[MONSTER, 1])
    return count(elo & alo, ehi & ahi)


@njit(cache=True)
def score_cards(planes, cards_out, rp, masks):
    """Every scoring card 26..41 on many maps: planes uint64[M, N_PLANES, 2] -> cards_out int32[M, 16].

    Parameters
    ----------
    planes : numpy.ndarray
        uint64, shape ``(M, N_PLANES, 2)``.
    cards_out : numpy.ndarray
        int32, shape ``(M, 16)``: filled, card 26 first.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards (ruins, edges, ...).
    """
    for m in range(planes.shape[0]):
        for c in range(16):
            cards_out[m, c] = score_card(np.int32(26 + c), planes[m], rp, masks)  # (a card id as in the state: int32)


# --- maps ---------------------------------------------------------------------------------------


@njit(cache=True)
def init_map(pl, masks):
    """An unplayed map of the rule set's side: mountains, wasteland, the rest empty; nothing paid.

    Parameters
    ----------
    pl : numpy.ndarray
        uint64, shape ``(N_PLANES, 2)``: overwritten.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards (ruins, edges, ...).
    """
    pl[:, :] = _Z
    for w in range(2):
        pl[MOUNTAIN, w] = masks[MK_MOUNTAINS, w]
        pl[WASTELAND, w] = masks[MK_WASTELAND, w]
        pl[EMPTY, w] = (_ALL_LO if w == 0 else _ALL_HI) & ~(masks[MK_MOUNTAINS, w] | masks[MK_WASTELAND, w])


@njit(cache=True, inline="always")
def _fill(pl, i, terrain):
    """Draw `terrain` on the (empty) cell i."""
    w = 0 if i < 64 else 1
    bit = _ONE << np.uint64(i - 64 * w)
    pl[EMPTY, w] &= ~bit
    pl[terrain, w] |= bit


@njit(cache=True, inline="always")
def _gain(st, rp, seat):
    c = st[ST_COINS + seat] + 1
    cap = rp[RP_COIN_CAP]
    st[ST_COINS + seat] = c if c < cap else cap


@njit((_BB, _ST, _RP, _MK, _I, _I), cache=True)
def _mountain_coins(bb, st, rp, masks, target, mover):
    """§5.4.2: pay every unpaid mountain of map `target` whose 4 neighbours are all filled."""
    elo = bb[target, EMPTY, 0]
    ehi = bb[target, EMPTY, 1]
    for j in range(rp[RP_N_MOUNTAINS]):
        if (masks[MK_MTN_NBR + j, 0] & elo) | (masks[MK_MTN_NBR + j, 1] & ehi) != _Z:
            continue
        m = rp[RP_MOUNTAINS + j]
        w = 0 if m < 64 else 1
        bit = _ONE << np.uint64(m - 64 * w)
        if bb[target, PAID, w] & bit:
            continue
        bb[target, PAID, w] |= bit
        if rp[RP_MTN_TO_OWNER]:
            _gain(st, rp, target)
        elif mover >= 0:
            _gain(st, rp, mover)


# --- chance ---------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _shuffle(st, lo, n, rng):
    """§2 Shuffle of st[lo:lo+n], st[lo] the top: for i from n-1 down to 1, j = rand(i+1), swap."""
    for i in range(n - 1, 0, -1):
        j = rand_below(rng, CHANCE, i + 1)
        t = st[lo + i]
        st[lo + i] = st[lo + j]
        st[lo + j] = t


@njit(cache=True)
def setup(bb, st, rng, seed, rp, cards, forms, form_anchors, walk, masks):
    """§3.1: a new game for rp's player count; every array is overwritten, then Explore to the first decision.

    Parameters
    ----------
    bb : numpy.ndarray
        uint64, shape ``(players, N_PLANES, 2)``: every seat's map planes.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    seed : numpy.uint64
        The game seed.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    cards : numpy.ndarray
        int32, shape ``(N_CARDS, CD_LEN)``: the card table.
    forms : numpy.ndarray
        int32, shape ``(forms, FM_LEN)``: every oriented shape.
    form_anchors : numpy.ndarray
        uint64, shape ``(forms, 2)``: each form's anchors that keep it on the map.
    walk : numpy.ndarray
        int32: the solo ambushes' ring walks.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards (ruins, edges, ...).
    """
    n = rp[RP_PLAYERS]
    st[:] = 0
    rng[CHANCE] = np.uint64(seed)
    rng[POLICY] = np.uint64(seed) ^ POLICY_STREAM_XOR
    for p in range(n):
        init_map(bb[p], masks)
    st[ST_PLAYERS] = n
    # 1. scoring cards and edicts
    if rp[RP_EDICTS_FIXED]:
        for e in range(N_EDICTS):
            st[ST_EDICTS + e] = rp[RP_EDICTS + e]
    else:
        for c in range(N_CATEGORIES):
            j = rand_below(rng, CHANCE, rp[RP_CAT_N + c])
            st[ST_EDICTS + c] = rp[RP_CAT_CARDS + c * MAX_CATEGORY_CARDS + j]
        if rp[RP_EDICT_RANDOM]:
            _shuffle(st, ST_EDICTS, N_EDICTS, rng)
    # 2. ambush deck
    na = rp[RP_N_AMBUSH]
    for a in range(na):
        st[ST_AMBUSH + a] = rp[RP_AMBUSH_IDS + a]
    _shuffle(st, ST_AMBUSH, na, rng)
    st[ST_AMBUSH_POS] = 0
    st[ST_AMBUSH_END] = na
    # 3. explore deck, then the top ambush inserted at a random depth
    nd = rp[RP_N_RUINS] + rp[RP_N_EXPLORE]
    for i in range(nd):
        st[ST_DECK + i] = rp[RP_EXPLORE_IDS + i]
    _shuffle(st, ST_DECK, nd, rng)
    if na > 0:
        x = st[ST_AMBUSH]
        st[ST_AMBUSH_POS] = 1
        p = rand_below(rng, CHANCE, nd + 1)
        for i in range(nd, p, -1):
            st[ST_DECK + i] = st[ST_DECK + i - 1]
        st[ST_DECK + p] = x
        nd += 1
    st[ST_DECK_POS] = 0
    st[ST_DECK_END] = nd
    # 4. season 0 (st is zeroed), then Explore
    _explore(bb, st, rng, rp, cards, forms, form_anchors, walk, masks)


@njit(cache=True)
def _next_season(st, rng, rp):
    """§3.2: unrevealed deck + revealed + the top ambush, shuffled, is the new deck."""
    pool = np.empty(MAX_DECK, dtype=np.int32)
    n = 0
    for i in range(st[ST_DECK_POS], st[ST_DECK_END]):
        pool[n] = st[ST_DECK + i]
        n += 1
    for i in range(st[ST_N_REVEALED]):
        pool[n] = st[ST_REVEALED + i]
        n += 1
    if st[ST_AMBUSH_POS] < st[ST_AMBUSH_END]:
        pool[n] = st[ST_AMBUSH + st[ST_AMBUSH_POS]]
        st[ST_AMBUSH_POS] += 1
        n += 1
    for i in range(n):
        st[ST_DECK + i] = pool[i]
    _shuffle(st, ST_DECK, n, rng)
    st[ST_DECK_POS] = 0
    st[ST_DECK_END] = n
    st[ST_N_REVEALED] = 0
    st[ST_TIME] = 0
    st[ST_SEASON] += 1


# --- play -----------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def source_map(rp, cards, card, k, n):
    """§4.2: the map seat k holds in a monster phase of ambush `card`.

    Parameters
    ----------
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    cards : numpy.ndarray
        int32, shape ``(N_CARDS, CD_LEN)``: the card table.
    card : int
        The ambush card.
    k : int
        The seat drawing the monster.
    n : int
        The player count.

    Returns
    -------
    int
        The seat whose map it is drawn on (the next or the previous seat, as the card passes).
    """
    if (rp[RP_PASS_NEXT] != 0) == (cards[card, CD_CLOCKWISE] != 0):
        return (k - 1) % n
    return (k + 1) % n


@njit(cache=True)
def solo_ambush(bb, st, rp, cards, forms, form_anchors, walk, masks, card):
    """§6: the monster in printed orientation at the first free anchor of the ring walk on seat 0's map.

    Parameters
    ----------
    bb : numpy.ndarray
        uint64, shape ``(players, N_PLANES, 2)``: every seat's map planes.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    cards : numpy.ndarray
        int32, shape ``(N_CARDS, CD_LEN)``: the card table.
    forms : numpy.ndarray
        int32, shape ``(forms, FM_LEN)``: every oriented shape.
    form_anchors : numpy.ndarray
        uint64, shape ``(forms, 2)``: each form's anchors that keep it on the map.
    walk : numpy.ndarray
        int32: the solo ambushes' ring walks.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards (ruins, edges, ...).
    card : int
        The ambush card.
    """
    f = cards[card, CD_SOLO_FORM]
    alo, ahi = free_anchors(f, bb[0, EMPTY, 0], bb[0, EMPTY, 1], forms, form_anchors)
    if alo == _Z and ahi == _Z:
        return
    for w in range(cards[card, CD_WALK_START], cards[card, CD_WALK_END]):
        a = walk[w]
        if has_cell(alo, ahi, a):
            for c in range(forms[f, FM_N]):
                _fill(bb[0], a + forms[f, FM_OFF + c], MONSTER)
            _mountain_coins(bb, st, rp, masks, 0, -1)
            return


@njit(cache=True)
def _explore(bb, st, rng, rp, cards, forms, form_anchors, walk, masks):
    """§4.1: reveal cards up to the next decision."""
    n = st[ST_PLAYERS]
    while True:
        x = st[ST_DECK + st[ST_DECK_POS]]
        st[ST_DECK_POS] += 1
        kind = cards[x, CD_KIND]
        if kind == CARD_RUINS:
            st[ST_REVEALED + st[ST_N_REVEALED]] = x
            st[ST_N_REVEALED] += 1
            st[ST_RUINS] = 1
            continue
        if kind == CARD_AMBUSH:
            st[ST_OUT + st[ST_N_OUT]] = x
            st[ST_N_OUT] += 1
            if n == 1:
                solo_ambush(bb, st, rp, cards, forms, form_anchors, walk, masks, x)
                continue
            st[ST_PHASE] = PHASE_MONSTER
            st[ST_CARD] = x
            st[ST_K] = 0
            st[ST_CURRENT] = 0
            st[ST_TARGET] = source_map(rp, cards, x, 0, n)
            return
        st[ST_REVEALED + st[ST_N_REVEALED]] = x
        st[ST_N_REVEALED] += 1
        st[ST_TIME] += cards[x, CD_TIME]
        st[ST_PHASE] = PHASE_DRAW
        st[ST_CARD] = x
        st[ST_K] = 0
        st[ST_CURRENT] = 0
        st[ST_TARGET] = 0
        return


@njit(cache=True)
def score_season(bb, st, rp, masks):
    """§7.2: every seat's record of the current season.

    Parameters
    ----------
    bb : numpy.ndarray
        uint64, shape ``(players, N_PLANES, 2)``: every seat's map planes.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards (ruins, edges, ...).
    """
    s = st[ST_SEASON]
    c1 = st[ST_EDICTS + rp[RP_SEASON_EDICTS + 2 * s]]
    c2 = st[ST_EDICTS + rp[RP_SEASON_EDICTS + 2 * s + 1]]
    for p in range(st[ST_PLAYERS]):
        e1 = score_card(c1, bb[p], rp, masks)
        e2 = score_card(c2, bb[p], rp, masks)
        c = st[ST_COINS + p]
        m = monster_penalty(bb[p], rp, masks)
        r = ST_RECORDS + (p * N_SEASONS + s) * REC_LEN
        st[r + REC_E1] = e1
        st[r + REC_E2] = e2
        st[r + REC_COINS] = c
        st[r + REC_MONSTER] = m
        st[r + REC_TOTAL] = e1 + e2 + c - m
    st[ST_SCORED] = s + 1


@njit(cache=True)
def _advance(bb, st, rng, rp, cards, forms, form_anchors, walk, masks):
    """After a decision: the next seat, or the phase's end (§4.2)."""
    n = st[ST_PLAYERS]
    k = st[ST_K] + 1
    if k < n:
        st[ST_K] = k
        st[ST_CURRENT] = k
        if st[ST_PHASE] == PHASE_DRAW:
            st[ST_TARGET] = k
        else:
            st[ST_TARGET] = source_map(rp, cards, st[ST_CARD], k, n)
        return
    if st[ST_PHASE] == PHASE_DRAW:
        st[ST_RUINS] = 0
        s = st[ST_SEASON]
        if st[ST_TIME] >= rp[RP_THRESHOLD + s]:
            score_season(bb, st, rp, masks)
            if s == N_SEASONS - 1:
                st[ST_PHASE] = PHASE_DONE
                st[ST_CARD] = -1
                st[ST_CURRENT] = -1
                st[ST_TARGET] = -1
                st[ST_K] = 0
                return
            _next_season(st, rng, rp)
    _explore(bb, st, rng, rp, cards, forms, form_anchors, walk, masks)


@njit(cache=True)
def apply_move(bb, st, rng, mv, rp, cards, forms, form_anchors, walk, masks):
    """§5.4: apply a move (trusted legal: boardlab.sim.cartographers.api checks moves from people) and advance.

    Parameters
    ----------
    bb : numpy.ndarray
        uint64, shape ``(players, N_PLANES, 2)``: every seat's map planes.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: the move.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    cards : numpy.ndarray
        int32, shape ``(N_CARDS, CD_LEN)``: the card table.
    forms : numpy.ndarray
        int32, shape ``(forms, FM_LEN)``: every oriented shape.
    form_anchors : numpy.ndarray
        uint64, shape ``(forms, 2)``: each form's anchors that keep it on the map.
    walk : numpy.ndarray
        int32: the solo ambushes' ring walks.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards (ruins, edges, ...).
    """
    kind = mv[MV_KIND]
    t = mv[MV_MAP]
    mover = st[ST_CURRENT]
    if kind != K_SKIP:
        terrain = mv[MV_TERRAIN]
        if kind == K_FALLBACK:
            _fill(bb[t], mv[MV_ANCHOR], terrain)
        else:
            f = mv[MV_FORM]
            a = mv[MV_ANCHOR]
            for c in range(forms[f, FM_N]):
                _fill(bb[t], a + forms[f, FM_OFF + c], terrain)
            if kind == K_DRAW and cards[st[ST_CARD], CD_COIN + mv[MV_OPTION]]:
                _gain(st, rp, mover)
        _mountain_coins(bb, st, rp, masks, t, mover)
    _advance(bb, st, rng, rp, cards, forms, form_anchors, walk, masks)


@njit(cache=True, inline="always")
def _put(out, row, kind, t, option, f, anchor, terrain):
    out[row, MV_KIND] = kind
    out[row, MV_MAP] = t
    out[row, MV_OPTION] = option
    out[row, MV_FORM] = f
    out[row, MV_ANCHOR] = anchor
    out[row, MV_TERRAIN] = terrain


@njit(cache=True)
def enumerate_moves(bb, st, rp, cards, forms, form_anchors, masks, want, out):
    """The legal moves of the decision at hand, in the listing order of §5.3.

    want = -2: only count them; -1: write every move into out (int32[>= count, MV_LEN]);
    want >= 0: write the want-th move into out[0].  Returns the number of legal moves.

    Parameters
    ----------
    bb : numpy.ndarray
        uint64, shape ``(players, N_PLANES, 2)``: every seat's map planes.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    cards : numpy.ndarray
        int32, shape ``(N_CARDS, CD_LEN)``: the card table.
    forms : numpy.ndarray
        int32, shape ``(forms, FM_LEN)``: every oriented shape.
    form_anchors : numpy.ndarray
        uint64, shape ``(forms, 2)``: each form's anchors that keep it on the map.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards (ruins, edges, ...).
    want : int
        What to do (above).
    out : numpy.ndarray
        int32, shape ``(rows, MV_LEN)``: the moves written.

    Returns
    -------
    int
        The number of legal moves (or what `want` asks for).
    """
    phase = st[ST_PHASE]
    if phase == PHASE_DONE:
        return 0
    t = st[ST_TARGET]
    card = st[ST_CARD]
    elo = bb[t, EMPTY, 0]
    ehi = bb[t, EMPTY, 1]
    if elo == _Z and ehi == _Z:  # a full map: skip
        if want != -2:
            _put(out, 0, K_SKIP, t, -1, -1, -1, 0)
        return 1
    total = 0
    if phase == PHASE_DRAW:
        kind = K_DRAW
        nterr = cards[card, CD_N_TERRAINS]
        pending = st[ST_RUINS]
        rlo = elo & masks[MK_RUINS, 0]
        rhi = ehi & masks[MK_RUINS, 1]
    else:
        kind = K_MONSTER
        nterr = 1
        pending = 0
        rlo = _Z
        rhi = _Z
    for o in range(cards[card, CD_N_OPTIONS]):
        for f in range(cards[card, CD_FORM_START + o], cards[card, CD_FORM_END + o]):
            alo, ahi = draw_anchors(f, elo, ehi, pending, rlo, rhi, forms, form_anchors)
            cnt = count(alo, ahi) * nterr
            if cnt == 0:
                continue
            if want == -1:
                row = total
                while alo != _Z or ahi != _Z:
                    a, alo, ahi = pop_lowest(alo, ahi)
                    for j in range(nterr):
                        terr = cards[card, CD_TERRAINS + j] if kind == K_DRAW else MONSTER
                        _put(out, row, kind, t, o, f, a, terr)
                        row += 1
            elif total <= want < total + cnt:
                j = want - total
                a = select_bit(alo, ahi, j // nterr)
                terr = cards[card, CD_TERRAINS + j % nterr] if kind == K_DRAW else MONSTER
                _put(out, 0, kind, t, o, f, a, terr)
            total += cnt
    if total > 0:
        return total
    # the 1x1 fallback: every empty cell, ascending, times the fallback terrains
    if phase == PHASE_MONSTER:
        nterr = 1
        base = -1
    elif rp[RP_FALLBACK_ANY] or pending:
        nterr = rp[RP_N_FALLBACK]
        base = RP_FALLBACK
    else:
        nterr = cards[card, CD_N_TERRAINS]
        base = -2
    total = count(elo, ehi) * nterr
    if want == -1:
        row = 0
        alo, ahi = elo, ehi
        while alo != _Z or ahi != _Z:
            a, alo, ahi = pop_lowest(alo, ahi)
            for j in range(nterr):
                _put(out, row, K_FALLBACK, t, -1, -1, a, _fallback_terrain(rp, cards, card, base, j))
                row += 1
    elif 0 <= want < total:
        a = select_bit(elo, ehi, want // nterr)
        _put(out, 0, K_FALLBACK, t, -1, -1, a, _fallback_terrain(rp, cards, card, base, want % nterr))
    return total


@njit(cache=True, inline="always")
def _fallback_terrain(rp, cards, card, base, j):
    if base == -1:
        return MONSTER
    if base == -2:
        return cards[card, CD_TERRAINS + j]
    return rp[base + j]


@njit(cache=True)
def shape_fits(bb, st, rp, cards, forms, form_anchors, masks):
    """Whether the decision at hand has a shape (or monster) placement, i.e. no 1x1 fallback is legal.

    Parameters
    ----------
    bb : numpy.ndarray
        uint64, shape ``(players, N_PLANES, 2)``: every seat's map planes.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    cards : numpy.ndarray
        int32, shape ``(N_CARDS, CD_LEN)``: the card table.
    forms : numpy.ndarray
        int32, shape ``(forms, FM_LEN)``: every oriented shape.
    form_anchors : numpy.ndarray
        uint64, shape ``(forms, 2)``: each form's anchors that keep it on the map.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards (ruins, edges, ...).

    Returns
    -------
    bool
        True when a shape placement is legal.
    """
    phase = st[ST_PHASE]
    t = st[ST_TARGET]
    card = st[ST_CARD]
    elo = bb[t, EMPTY, 0]
    ehi = bb[t, EMPTY, 1]
    pending = st[ST_RUINS] if phase == PHASE_DRAW else 0
    rlo = elo & masks[MK_RUINS, 0]
    rhi = ehi & masks[MK_RUINS, 1]
    for o in range(cards[card, CD_N_OPTIONS]):
        for f in range(cards[card, CD_FORM_START + o], cards[card, CD_FORM_END + o]):
            alo, ahi = draw_anchors(f, elo, ehi, pending, rlo, rhi, forms, form_anchors)
            if alo != _Z or ahi != _Z:
                return True
    return False


@njit(cache=True)
def placement_ok(bb, st, masks, forms, form_anchors, f, anchor):
    """Whether form f at `anchor` is a legal placement for the decision at hand (free; ruins if pending).

    Parameters
    ----------
    bb : numpy.ndarray
        uint64, shape ``(players, N_PLANES, 2)``: every seat's map planes.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards (ruins, edges, ...).
    forms : numpy.ndarray
        int32, shape ``(forms, FM_LEN)``: every oriented shape.
    form_anchors : numpy.ndarray
        uint64, shape ``(forms, 2)``: each form's anchors that keep it on the map.
    f : int
        The form's index.
    anchor : int
        The anchor cell.

    Returns
    -------
    bool
        True when legal.
    """
    t = st[ST_TARGET]
    elo = bb[t, EMPTY, 0]
    ehi = bb[t, EMPTY, 1]
    pending = st[ST_RUINS] if st[ST_PHASE] == PHASE_DRAW else 0
    rlo = elo & masks[MK_RUINS, 0]
    rhi = ehi & masks[MK_RUINS, 1]
    alo, ahi = draw_anchors(f, elo, ehi, pending, rlo, rhi, forms, form_anchors)
    return has_cell(alo, ahi, anchor)


@njit(cache=True)
def random_move(bb, st, rng, mv, rp, cards, forms, form_anchors, masks):
    """The random policy (§9): moves = the listing, moves[policy.rand(len(moves))], into mv.

    One pass over the card's forms keeps each form's legal anchors, so the k-th move is
    found without listing (the order is enumerate_moves'; the differential tests hold the
    two implementations' choices equal at every decision).

    Parameters
    ----------
    bb : numpy.ndarray
        uint64, shape ``(players, N_PLANES, 2)``: every seat's map planes.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: filled.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    cards : numpy.ndarray
        int32, shape ``(N_CARDS, CD_LEN)``: the card table.
    forms : numpy.ndarray
        int32, shape ``(forms, FM_LEN)``: every oriented shape.
    form_anchors : numpy.ndarray
        uint64, shape ``(forms, 2)``: each form's anchors that keep it on the map.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards (ruins, edges, ...).
    """
    t = st[ST_TARGET]
    card = st[ST_CARD]
    elo = bb[t, EMPTY, 0]
    ehi = bb[t, EMPTY, 1]
    mv[MV_MAP] = t
    if elo == _Z and ehi == _Z:  # a full map: the only move is skip (a number is drawn all the same)
        rand_below(rng, POLICY, 1)
        mv[MV_KIND] = K_SKIP
        mv[MV_OPTION] = -1
        mv[MV_FORM] = -1
        mv[MV_ANCHOR] = -1
        mv[MV_TERRAIN] = 0
        return
    draw_phase = st[ST_PHASE] == PHASE_DRAW
    if draw_phase:
        nterr = cards[card, CD_N_TERRAINS]
        pending = st[ST_RUINS]
    else:
        nterr = 1
        pending = 0
    rlo = elo & masks[MK_RUINS, 0]
    rhi = ehi & masks[MK_RUINS, 1]
    f0 = cards[card, CD_FORM_START]
    nf = cards[card, CD_FORM_END + cards[card, CD_N_OPTIONS] - 1] - f0
    anchors = np.empty((nf, 2), dtype=np.uint64)
    total = 0
    for o in range(cards[card, CD_N_OPTIONS]):
        for f in range(cards[card, CD_FORM_START + o], cards[card, CD_FORM_END + o]):
            alo, ahi = draw_anchors(f, elo, ehi, pending, rlo, rhi, forms, form_anchors)
            anchors[f - f0, 0] = alo
            anchors[f - f0, 1] = ahi
            total += count(alo, ahi)
    if total > 0:
        k = rand_below(rng, POLICY, total * nterr)
        j = k // nterr
        for o in range(cards[card, CD_N_OPTIONS]):
            for f in range(cards[card, CD_FORM_START + o], cards[card, CD_FORM_END + o]):
                alo = anchors[f - f0, 0]
                ahi = anchors[f - f0, 1]
                c = count(alo, ahi)
                if j < c:
                    mv[MV_KIND] = K_DRAW if draw_phase else K_MONSTER
                    mv[MV_OPTION] = o
                    mv[MV_FORM] = f
                    mv[MV_ANCHOR] = select_bit(alo, ahi, j)
                    mv[MV_TERRAIN] = cards[card, CD_TERRAINS + k % nterr] if draw_phase else MONSTER
                    return
                j -= c
    out = mv.reshape(1, MV_LEN)  # the 1x1 fallback: as listed
    total = enumerate_moves(bb, st, rp, cards, forms, form_anchors, masks, np.int64(-2), out)  # (typed: one signature)
    enumerate_moves(bb, st, rp, cards, forms, form_anchors, masks, rand_below(rng, POLICY, total), out)


@njit(cache=True)
def final_scores(st, rp, out):
    """§7.3 over the seasons scored so far: out int32[players, SC_LEN].

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    out : numpy.ndarray
        int32, shape ``(players, SC_LEN)``: filled.
    """
    n = st[ST_PLAYERS]
    for p in range(n):
        for j in range(SC_LEN):
            out[p, j] = 0
        for s in range(st[ST_SCORED]):
            r = ST_RECORDS + (p * N_SEASONS + s) * REC_LEN
            out[p, SC_EDICT + rp[RP_SEASON_EDICTS + 2 * s]] += st[r + REC_E1]
            out[p, SC_EDICT + rp[RP_SEASON_EDICTS + 2 * s + 1]] += st[r + REC_E2]
            out[p, SC_EDICT_POINTS] += st[r + REC_E1] + st[r + REC_E2]
            out[p, SC_COIN_POINTS] += st[r + REC_COINS]
            out[p, SC_MONSTER] += st[r + REC_MONSTER]
            out[p, SC_TOTAL] += st[r + REC_TOTAL]
    ties = rp[RP_TIES_MONSTER]
    for p in range(n):
        ahead = 0
        for q in range(n):
            if out[q, SC_TOTAL] > out[p, SC_TOTAL] or (
                ties and out[q, SC_TOTAL] == out[p, SC_TOTAL] and out[q, SC_MONSTER] < out[p, SC_MONSTER]
            ):
                ahead += 1
        out[p, SC_RANK] = 1 + ahead


@njit(cache=True)
def map_letters(planes, letters, out):
    """Maps as letters: planes uint64[M, N_PLANES, 2] (final maps) -> out uint8[M, 121], cell c of map m being
    letters[code] for the state plane (0..7) holding it (a cell in no plane reads letters[0]).

    The state planes partition the cells, so bit j of a cell's code is set when one of the planes whose
    number has bit j holds it: three words per half-map, read cell by cell (the readable form is
    boardlab.sim.cartographers.api.planes_to_codes).

    Parameters
    ----------
    planes : numpy.ndarray
        uint64, shape ``(M, N_PLANES, 2)``.
    letters : numpy.ndarray
        uint8, shape ``(8,)``: the letter of each state code.
    out : numpy.ndarray
        uint8, shape ``(M, 121)``: filled.
    """
    for m in range(planes.shape[0]):
        for w in range(2):
            b0 = planes[m, 1, w] | planes[m, 3, w] | planes[m, 5, w] | planes[m, 7, w]
            b1 = planes[m, 2, w] | planes[m, 3, w] | planes[m, 6, w] | planes[m, 7, w]
            b2 = planes[m, 4, w] | planes[m, 5, w] | planes[m, 6, w] | planes[m, 7, w]
            for b in range(64 if w == 0 else N_CELLS - 64):
                code = ((b0 >> np.uint64(b)) & np.uint64(1)) | (((b1 >> np.uint64(b)) & np.uint64(1)) << np.uint64(1))
                code |= ((b2 >> np.uint64(b)) & np.uint64(1)) << np.uint64(2)
                out[m, 64 * w + b] = letters[code]


def new_results(games: int, players: int) -> dict[str, np.ndarray]:
    """Zeroed batch outputs of :func:`play_random_games` (and the agents' loop), in their argument order.

    Parameters
    ----------
    games : int
        Games in the batch (G).
    players : int
        Players per game.

    Returns
    -------
    dict of str to numpy.ndarray
        ``scores`` int32[G, players, SC_LEN], ``records`` int32[G, players, N_SEASONS, REC_LEN], ``coins``
        int32[G, players], ``edicts`` int32[G, 4], ``planes`` uint64[G, players, N_PLANES, 2].
    """
    return {
        "scores": np.zeros((games, players, SC_LEN), dtype=np.int32),
        "records": np.zeros((games, players, N_SEASONS, REC_LEN), dtype=np.int32),
        "coins": np.zeros((games, players), dtype=np.int32),
        "edicts": np.zeros((games, 4), dtype=np.int32),
        "planes": np.zeros((games, players, N_PLANES, 2), dtype=np.uint64),
    }


@njit(cache=True)
def record_game(bb, st, rp, scores, records, coins, edicts, planes):
    """A finished game's results, for one game's slot of each batch output: scores int32[players, SC_LEN]
    (:func:`final_scores`), records int32[players, N_SEASONS, REC_LEN] (the season records), coins
    int32[players] (coins held at the end), edicts int32[4] and planes uint64[players, N_PLANES, 2] (the final
    maps).

    Parameters
    ----------
    bb : numpy.ndarray
        uint64, shape ``(players, N_PLANES, 2)``: every seat's map planes.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    scores, records, coins, edicts, planes : numpy.ndarray
        Filled, as above.
    """
    final_scores(st, rp, scores)
    for e in range(4):
        edicts[e] = st[ST_EDICTS + e]
    for p in range(rp[RP_PLAYERS]):
        coins[p] = st[ST_COINS + p]
        for s in range(N_SEASONS):
            for j in range(REC_LEN):
                records[p, s, j] = st[ST_RECORDS + (p * N_SEASONS + s) * REC_LEN + j]
        for k in range(N_PLANES):  # element by element: an array assignment compiles numba's shape checks
            planes[p, k, 0] = bb[p, k, 0]
            planes[p, k, 1] = bb[p, k, 1]


@njit(cache=True, nogil=True)  # releases the GIL: simulate --jobs 1 builds the previous chunk's table meanwhile
def play_random_games(seeds, rp, cards, forms, form_anchors, walk, masks, scores, records, coins, edicts, planes):
    """One game of the random policy per seed, recorded by :func:`record_game`: scores int32[G, players, SC_LEN],
    records int32[G, players, N_SEASONS, REC_LEN], coins int32[G, players], edicts int32[G, 4], planes
    uint64[G, players, N_PLANES, 2].  The same games as the agents' loop with every seat random.

    Parameters
    ----------
    seeds : numpy.ndarray
        uint64, shape ``(G,)``.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    cards : numpy.ndarray
        int32, shape ``(N_CARDS, CD_LEN)``: the card table.
    forms : numpy.ndarray
        int32, shape ``(forms, FM_LEN)``: every oriented shape.
    form_anchors : numpy.ndarray
        uint64, shape ``(forms, 2)``: each form's anchors that keep it on the map.
    walk : numpy.ndarray
        int32: the solo ambushes' ring walks.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards (ruins, edges, ...).
    scores, records, coins, edicts, planes : numpy.ndarray
        Filled, one game per row (shapes as above).
    """
    n = rp[RP_PLAYERS]
    bb = np.zeros((n, N_PLANES, 2), dtype=np.uint64)
    st = np.zeros(ST_LEN, dtype=np.int32)
    rng = np.zeros(2, dtype=np.uint64)
    mv = np.zeros(MV_LEN, dtype=np.int32)
    for g in range(seeds.shape[0]):
        setup(bb, st, rng, seeds[g], rp, cards, forms, form_anchors, walk, masks)
        while st[ST_PHASE] != PHASE_DONE:
            random_move(bb, st, rng, mv, rp, cards, forms, form_anchors, masks)
            apply_move(bb, st, rng, mv, rp, cards, forms, form_anchors, walk, masks)
        record_game(bb, st, rp, scores[g], records[g], coins[g], edicts[g], planes[g])
