"""The `strong` agent: the planner's exact value of every legal move, the best few re-ranked by a learned value.

Design notes: docs/games/cartographers/agents.md#strong-module.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.rules import EMPTY
from boardlab.sim.cartographers.tables import (
    CD_COIN,
    FM_N,
    FM_OFF,
    MK_MTN_NBR,
    RP_COIN_CAP,
    RP_MOUNTAINS,
    RP_MTN_TO_OWNER,
    RP_N_MOUNTAINS,
)
from boardlab.sim.rng import POLICY, rand_below

from .kernels import A_PLANNER, AMBUSH_RANDOM, P_AMBUSH, P_K, P_MARGIN, W_LEN, move_value, objective_weights
from .value import N_FEATURES, WEIGHTS_DIR, bucket, load_weights, map_features

STRONG_K = 32  # candidates re-ranked by the learned value
STRONG_MARGIN = 0  # planner points below the best a candidate may be: 0, the planner's best moves only
MAX_K = 256
MAX_MARGIN = 64
WEIGHTS_VERSION = "strong-v1"
STRONG_WEIGHTS, STRONG_WEIGHTS_META = load_weights(WEIGHTS_DIR / f"{WEIGHTS_VERSION}.json")
STRONG_WEIGHTS.setflags(write=False)

_Z = np.uint64(0)
_ONE = np.uint64(1)


def workspace() -> tuple:
    """The strong agent's scratch arrays: the move listing, its values, the candidates, the planner weights,
    one map's planes, one feature vector and a histogram of values below the best.

    Returns
    -------
    tuple of numpy.ndarray
        The scratch arrays.
    """
    return (
        np.zeros((E.MAX_MOVES, E.MV_LEN), dtype=np.int32),
        np.zeros(E.MAX_MOVES, dtype=np.int64),
        np.zeros(MAX_K, dtype=np.int64),
        np.zeros(W_LEN, dtype=np.int64),
        np.zeros((E.N_PLANES, 2), dtype=np.uint64),
        np.zeros(N_FEATURES, dtype=np.float64),
        np.zeros(MAX_MARGIN + 1, dtype=np.int64),
    )


@njit(cache=True)
def map_after(bb, st, rp, cards, forms, masks, mv, pl):
    """Fill pl uint64[N_PLANES, 2] with the target map after kernel move mv (paid mountains included) and
    return its coins after the move, as the engine pays them (card coin, mountains, up to the cap).

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
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards.
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: the move, filled.
    pl : numpy.ndarray
        uint64, shape ``(N_PLANES, 2)``: filled.
    """
    t = mv[E.MV_MAP]
    for k in range(E.N_PLANES):
        pl[k, 0] = bb[t, k, 0]
        pl[k, 1] = bb[t, k, 1]
    coins = st[E.ST_COINS + t]
    kind = mv[E.MV_KIND]
    if kind == E.K_SKIP:
        return coins
    terrain = mv[E.MV_TERRAIN]
    if kind == E.K_FALLBACK:
        _fill(pl, mv[E.MV_ANCHOR], terrain)
    else:
        f = mv[E.MV_FORM]
        a = mv[E.MV_ANCHOR]
        for c in range(forms[f, FM_N]):
            _fill(pl, a + forms[f, FM_OFF + c], terrain)
    mover = st[E.ST_CURRENT]
    cap = rp[RP_COIN_CAP]
    if kind == E.K_DRAW and cards[st[E.ST_CARD], CD_COIN + mv[E.MV_OPTION]] and mover == t:
        coins = min(coins + 1, cap) if coins < cap else coins
    elo = pl[EMPTY, 0]
    ehi = pl[EMPTY, 1]
    for j in range(rp[RP_N_MOUNTAINS]):
        if (masks[MK_MTN_NBR + j, 0] & elo) | (masks[MK_MTN_NBR + j, 1] & ehi) != _Z:
            continue
        m = rp[RP_MOUNTAINS + j]
        if E.has_cell(pl[E.PAID, 0], pl[E.PAID, 1], m):
            continue
        w = 0 if m < 64 else 1
        pl[E.PAID, w] |= _ONE << np.uint64(m - 64 * w)
        if rp[RP_MTN_TO_OWNER] or mover == t:
            coins = min(coins + 1, cap) if coins < cap else coins
    return coins


@njit(cache=True, inline="always")
def _fill(pl, i, terrain):
    w = 0 if i < 64 else 1
    bit = _ONE << np.uint64(i - 64 * w)
    pl[EMPTY, w] &= ~bit
    pl[terrain, w] |= bit


@njit(
    (
        types.uint64[::1],
        types.float64[::1],
        types.int64[::1],
        types.int64,
        types.int64,
        types.int64[::1],
        types.int64[::1],
    ),
    cache=True,
)  # its argument types given: compiled once, whatever int types or literals its callers pass
def shortlist(rng, prm, vals, n, best, cand, hist):
    """strong's shortlist: the indices of the k = prm[P_K] best of the n values vals[:n] (best their maximum)
    within margin = prm[P_MARGIN] points of the best, into cand; returns how many.  Every move above a level L
    is kept and the moves at L fill the remaining slots, sampled evenly (reservoir sampling from the policy
    stream) when more tie there than fit.  The order of cand is not the listing order when sampling replaced
    an entry.

    Parameters
    ----------
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the streams (the policy stream samples).
    prm : numpy.ndarray
        float64, shape ``(P_LEN,)``: the agent's parameter row.
    vals : numpy.ndarray
        float64: the moves' values, filled (or read).
    n : int
        The values read: vals[:n].
    best : float
        Their maximum.
    cand : numpy.ndarray
        int: the chosen indices, filled.
    hist : numpy.ndarray
        int: scratch histogram of values below the best.
    """
    k = min(max(1, int(prm[P_K])), MAX_K)
    margin = min(max(0, int(prm[P_MARGIN])), MAX_MARGIN)
    for d in range(margin + 1):
        hist[d] = 0
    for i in range(n):
        d = best - vals[i]
        if d <= margin:
            hist[d] += 1
    above = 0
    level = margin
    for d in range(margin + 1):
        if above + hist[d] >= k or d == margin:
            level = d
            break
        above += hist[d]
    kept = 0
    seen = 0
    slots = k - above  # moves at the level that fit
    for i in range(n):
        d = best - vals[i]
        if d < level:
            cand[kept] = i
            kept += 1
        elif d == level:
            if seen < slots:
                cand[above + seen] = i
            else:
                j = rand_below(rng, POLICY, seen + 1)
                if j < slots:
                    cand[above + j] = i
            seen += 1
    return above + min(seen, slots)


@njit(cache=True)
def strong_move(bb, st, rng, mv, prm, rp, cards, forms, form_anchors, masks, vw, ws):
    """Fill mv with strong's move (prm its row, vw float64[BUCKETS, N_FEATURES] the learned weights, ws the
    scratch of :func:`workspace`); returns the chosen move's value.

    Parameters
    ----------
    bb : numpy.ndarray
        uint64, shape ``(players, N_PLANES, 2)``: every seat's map planes.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the game's chance and policy streams, advanced in place.
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: the move, filled.
    prm : numpy.ndarray
        float64, shape ``(P_LEN,)``: the agent's parameter row.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    cards : numpy.ndarray
        int32, shape ``(N_CARDS, CD_LEN)``: the card table.
    forms : numpy.ndarray
        int32, shape ``(forms, FM_LEN)``: every oriented shape.
    form_anchors : numpy.ndarray
        uint64, shape ``(forms, 2)``: each form's anchors on the map.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards.
    vw : numpy.ndarray
        float64, shape ``(BUCKETS, N_FEATURES)``: strong's learned weights.
    ws : tuple
        strong's scratch (boardlab.agents.cartographers.strong.workspace).
    """
    out, vals, cand, w, pl, f, hist = ws
    monster = st[E.ST_PHASE] == E.PHASE_MONSTER
    if monster and int(prm[P_AMBUSH]) == AMBUSH_RANDOM:
        E.random_move(bb, st, rng, mv, rp, cards, forms, form_anchors, masks)
        return 0.0
    sign = -1 if monster else 1
    objective_weights(st, rp, A_PLANNER, w)
    n = E.enumerate_moves(bb, st, rp, cards, forms, form_anchors, masks, np.int64(-1), out)
    best = -(1 << 62)
    for i in range(n):
        v = sign * move_value(bb, st, rp, cards, forms, masks, out[i], w, pl)
        vals[i] = v
        if v > best:
            best = v
    kept = shortlist(rng, prm, vals, n, best, cand, hist)
    vb = vw[bucket(st, rp)]
    top = -1e300
    ties = 0
    pick = 0
    for c in range(kept):
        i = cand[c]
        coins = map_after(bb, st, rp, cards, forms, masks, out[i], pl)
        map_features(pl, coins, w, st, rp, masks, f)
        lv = 0.0
        for a in range(N_FEATURES):
            lv += vb[a] * f[a]
        tot = vals[i] + sign * lv
        if tot > top + 1e-9:
            top = tot
            ties = 1
            pick = i
        elif tot > top - 1e-9:
            ties += 1
            if rand_below(rng, POLICY, ties) == 0:
                pick = i
    for j in range(E.MV_LEN):
        mv[j] = out[pick, j]
    return top
