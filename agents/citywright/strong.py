"""The `strong` agent: each ruler's k best moves by the exact greedy search, re-ranked by a learned value.

A move's value is its immediate worth (the evaluator's objective, as for greedy or a
specialist) plus the learned value of the position it leads to
(:mod:`agents.citywright.value`)::

    value(move) = worth(move) + weights[turns left] . features(board after the move)

Two passes, so the greedy search's pruning stays exact and untouched:

1. For each ruler on offer (slots giving the same shape and the same tiles count once),
   :func:`agents.citywright.kernels.evaluator_search` keeps that ruler's k best moves by
   worth (``P_K``), exactly, with its bounds: it is run on a copy of the position in which
   every other slot is empty.
2. Every kept move is played on a copy of the mover's board and re-ranked by worth plus
   learned value; ties are broken by the policy stream, as the search breaks its own.

Why per ruler: the k best moves of the whole position are mostly variants of one or two
rulers (early in a game the 64 best span 2.4 rulers and 1.1 points of worth), so a
learned value choosing among them cannot prefer another ruler that leaves a better board.
A move outside its ruler's k best by worth is never chosen, however good its position.
The weights are an argument; :data:`STRONG_WEIGHTS` are the committed ones
(``weights/strong-v1.json``) that the game loop passes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.citywright import engine as E
from sim.citywright.rules import N_SLOTS
from sim.citywright.tables import MAX_SHAPES, NONE_TILE, PL_BITS, SHP_PLAIN, SHP_STAR
from sim.rng import POLICY, rand_below

from .kernels import P_K, evaluator_search, search_offer, search_setup
from .value import N_FEATURES, WEIGHTS_DIR, board_features, load_weights, opponents_best, turn_bucket, turns_left_after

_ONE = np.uint64(1)

STRONG_K = 3  # the default k: per ruler (docs/search.md: strength and time by k)
WEIGHTS_VERSION = "strong-v1"
STRONG_WEIGHTS, STRONG_WEIGHTS_META = load_weights(WEIGHTS_DIR / f"{WEIGHTS_VERSION}.json")
STRONG_WEIGHTS.setflags(write=False)


@njit(cache=True, inline="always")
def ruler_key(st, slot, shape):
    """A key equal for slots giving the same shape and the same tiles in any order (they offer the same moves)."""
    key = shape * 100000
    for j in range(4):
        d = st[E.ST_MARKET + E.line_cell(slot, j)]
        key += 10 ** (4 - (d if d >= 0 else NONE_TILE))
    return key


@njit(cache=True)
def board_after(boards, st, p, mv, shp, pl_info, nb, placed):
    """The mover's board nb uint64[4] and placed counts int32[MAX_SHAPES] after move mv (as apply_move puts them)."""
    for d in range(4):
        nb[d] = boards[p, d]
    for s in range(MAX_SHAPES):
        placed[s] = st[E.ST_PLACED + p * MAX_SHAPES + s]
    kind = mv[E.MV_KIND]
    if kind == E.K_PLACE:
        shape = st[E.ST_SLOTS + mv[E.MV_SLOT]]
        pl = mv[E.MV_PL]
        landed = 0
        for k in range(4):
            d = mv[E.MV_TILES + k]
            if d == NONE_TILE:
                continue
            b = pl_info[pl, PL_BITS + shp[shape, SHP_PLAIN + k]]
            if b >= 0:
                nb[d] |= _ONE << np.uint64(b)
                landed += 1
        star = shp[shape, SHP_STAR]
        if star >= 0:
            d = mv[E.MV_FREE]
            if d >= 0 and d != NONE_TILE:
                b = pl_info[pl, PL_BITS + star]
                if b >= 0:
                    nb[d] |= _ONE << np.uint64(b)
                    landed += 1
        if landed > 0:
            placed[shape] += 1
    elif kind == E.K_SWAP and mv[E.MV_PL] >= 0:
        nb[mv[E.MV_TILES]] |= _ONE << np.uint64(mv[E.MV_PL])


@njit(cache=True)
def strong_move(boards, st, rng, mv, prm, tables, vw, shared=False):
    """Fill mv with the best, by worth + learned value, of each ruler's k best moves by worth; return that value.

    tables is ``Tables.kernel_args()``; vw float64[TURN_BUCKETS, N_FEATURES] the value's weights.
    shared: the rulers' searches share one setup of the mover's board (kernels.search_setup, about a
    quarter of a one-ruler search) instead of each its own; the same moves, worths and draws.
    """
    rp, shp, _, pl_info, _, _, _, ach = tables
    k = max(1, int(prm[P_K]))
    p = st[E.ST_CUR]
    opp = np.empty(4, dtype=np.int64)
    opponents_best(boards, p, rp, opp)
    w = vw[turn_bucket(turns_left_after(st, rp, p))]
    f = np.empty(N_FEATURES, dtype=np.float64)
    nb = np.empty(4, dtype=np.uint64)
    placed = np.empty(MAX_SHAPES, dtype=np.int32)
    cand = np.zeros((k, E.MV_LEN), dtype=np.int32)
    cand_val = np.zeros(k, dtype=np.float64)
    one = st.copy()  # the position with one ruler left on offer

    keys = np.full(N_SLOTS, -1, dtype=np.int64)
    top = -1e300
    seen = 0
    pick = np.zeros(E.MV_LEN, dtype=np.int32)
    searched = 0
    if shared:
        placed0, board0, ws, base, facts, prunable, ach_open = search_setup(boards, st, prm, tables)
    for slot in range(N_SLOTS):
        shape = st[E.ST_SLOTS + slot]
        if shape < 0:
            continue
        key = ruler_key(st, slot, shape)
        dup = False
        for s in range(slot):
            if keys[s] == key:
                dup = True
        keys[slot] = key
        if dup:
            continue
        searched += 1
        for s in range(N_SLOTS):
            one[E.ST_SLOTS + s] = shape if s == slot else -1
        if shared:
            _, ncand = search_offer(one, rng, mv, prm, tables, cand, cand_val, placed0, board0, ws, base, facts,
                                    prunable, ach_open)  # fmt: skip
        else:
            _, ncand = evaluator_search(boards, one, rng, mv, prm, tables, cand, cand_val)
        for j in range(ncand):
            board_after(boards, st, p, cand[j], shp, pl_info, nb, placed)
            board_features(nb[0], nb[1], nb[2], nb[3], placed, opp, rp, ach, f)
            v = cand_val[j]
            for i in range(N_FEATURES):
                v += w[i] * f[i]
            if v > top + 1e-9:
                top = v
                seen = 1
                pick[:] = cand[j]
            elif v > top - 1e-9:
                seen += 1
                if rand_below(rng, POLICY, seen) == 0:
                    pick[:] = cand[j]
    if searched == 0:  # no ruler on offer: the search passes
        return evaluator_search(boards, st, rng, mv, prm, tables, cand, cand_val)[0]
    mv[:] = pick
    return top
