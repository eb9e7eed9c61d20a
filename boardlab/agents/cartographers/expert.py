"""The `expert` agent: a determinised flat Monte Carlo search over strong's best draws.

Design notes: docs/games/cartographers/agents.md#expert-module.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.tables import CARD_AMBUSH, CD_KIND, MAX_DECK, N_AMBUSH
from boardlab.sim.rng import CHANCE, POLICY, rand_below, rng_next

from .kernels import (
    A_PLANNER,
    A_STRONG,
    P_BUDGET,
    P_CANDS,
    P_CODE,
    P_HORIZON,
    P_K,
    P_ROLLOUT_K,
    P_SEATS,
    map_value,
    move_value,
    objective_weights,
)
from .strong import map_after, shortlist, strong_move
from .value import N_FEATURES, bucket, map_features

EXPERT_BUDGET = 32  # playouts per decision
EXPERT_CANDS = 4  # candidates searched
EXPERT_HORIZON = 0  # explore cards before the cut; 0 = the end of the current season
EXPERT_ROLLOUT_K = 4  # strong's k in the playouts
MAX_CANDS = 32
MAX_BUDGET = 4096
MAX_HORIZON = 16
SEATS_OWN = 0
SEATS_ALL = 1


@njit(cache=True, inline="always")
def _sort(a, lo, n):
    """Insertion sort of a[lo:lo+n] (a handful of card ids)."""
    for i in range(lo + 1, lo + n):
        x = a[i]
        j = i
        while j > lo and a[j - 1] > x:
            a[j] = a[j - 1]
            j -= 1
        a[j] = x


@njit(cache=True, inline="always")
def _shuffle(a, lo, n, rng):
    """The engine's shuffle (docs/games/cartographers/engine.md §2) of a[lo:lo+n], from rng's chance stream."""
    for i in range(n - 1, 0, -1):
        j = rand_below(rng, CHANCE, i + 1)
        t = a[lo + i]
        a[lo + i] = a[lo + j]
        a[lo + j] = t


@njit(cache=True)
def redeal(st, rng, cards, pool):
    """Deal the hidden part of st afresh from rng's chance stream, from public facts only.

    The unseen ambushes (in the explore deck and the ambush deck) are sorted, shuffled, and as many as the
    deck holds go into it with the explore cards not yet revealed (sorted); the deck is shuffled; the rest
    of the ambushes are the ambush deck.  Which ambushes went into earlier decks is cleared (never read
    again).  pool int32[MAX_DECK + N_AMBUSH] is scratch.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the streams (the chance stream draws).
    cards : numpy.ndarray
        int32, shape ``(N_CARDS, CD_LEN)``: the card table.
    pool : numpy.ndarray
        int32, shape ``(MAX_DECK + N_AMBUSH,)``: scratch.
    """
    pos, end = st[E.ST_DECK_POS], st[E.ST_DECK_END]
    apos, aend = st[E.ST_AMBUSH_POS], st[E.ST_AMBUSH_END]
    nc = 0  # explore cards at pool[0:nc]
    na = 0  # unseen ambushes at pool[MAX_DECK:MAX_DECK + na]
    for i in range(pos, end):
        x = st[E.ST_DECK + i]
        if cards[x, CD_KIND] == CARD_AMBUSH:
            pool[MAX_DECK + na] = x
            na += 1
        else:
            pool[nc] = x
            nc += 1
    in_deck = na
    for i in range(apos, aend):
        pool[MAX_DECK + na] = st[E.ST_AMBUSH + i]
        na += 1
    _sort(pool, 0, nc)
    _sort(pool, MAX_DECK, na)
    _shuffle(pool, MAX_DECK, na, rng)
    for i in range(in_deck):
        pool[nc + i] = pool[MAX_DECK + i]
    _shuffle(pool, 0, nc + in_deck, rng)
    for i in range(nc + in_deck):
        st[E.ST_DECK + pos + i] = pool[i]
    for i in range(end, MAX_DECK):
        st[E.ST_DECK + i] = 0
    for i in range(apos):
        st[E.ST_AMBUSH + i] = 0
    for i in range(aend - apos):
        st[E.ST_AMBUSH + apos + i] = pool[MAX_DECK + in_deck + i]


@njit(cache=True)
def _copy(bb2, bb, st2, st):
    """bb2[:] = bb and st2[:] = st, element by element (an array assignment compiles numba's shape checks)."""
    for p in range(bb.shape[0]):
        for k in range(bb.shape[1]):
            for w in range(bb.shape[2]):
                bb2[p, k, w] = bb[p, k, w]
    for i in range(st.shape[0]):
        st2[i] = st[i]


@njit(cache=True, inline="always")  # one caller: no machine code of its own
def candidates(bb, st, rng, prm, rp, cards, forms, form_anchors, masks, vw, ws, cmv, ctot):
    """The k = cmv.shape[0] best draws by strong's value, best first (ties in listing order), into cmv
    int32[k, MV_LEN] and their values into ctot; returns how many.  strong's shortlist (its k best by planner
    value, the plateau sampled from the policy stream) is strong_move's, step for step.

    Parameters
    ----------
    bb : numpy.ndarray
        uint64, shape ``(players, N_PLANES, 2)``: every seat's map planes.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the game's chance and policy streams, advanced in place.
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
    cmv : numpy.ndarray
        int32, shape ``(k, MV_LEN)``: the candidates, filled.
    ctot : numpy.ndarray
        float64, shape ``(k,)``: their values, filled.
    """
    out, vals, cand, w, pl, f, hist = ws
    objective_weights(st, rp, A_PLANNER, w)
    n = E.enumerate_moves(bb, st, rp, cards, forms, form_anchors, masks, np.int64(-1), out)
    best = -(1 << 62)
    for i in range(n):
        v = move_value(bb, st, rp, cards, forms, masks, out[i], w, pl)
        vals[i] = v
        if v > best:
            best = v
    kept = shortlist(rng, prm, vals, n, best, cand, hist)  # strong's own, step for step
    # the shortlist back in listing order, so that ties between candidates go to the listing
    for a in range(1, kept):
        x = cand[a]
        b = a
        while b > 0 and cand[b - 1] > x:
            cand[b] = cand[b - 1]
            b -= 1
        cand[b] = x
    vb = vw[bucket(st, rp)]
    m = cmv.shape[0]
    got = 0
    for c in range(kept):
        i = cand[c]
        coins = map_after(bb, st, rp, cards, forms, masks, out[i], pl)
        map_features(pl, coins, w, st, rp, masks, f)
        tot = float(vals[i])
        for a in range(N_FEATURES):
            tot += vb[a] * f[a]
        if got == m and tot <= ctot[m - 1]:
            continue
        at = got if got < m else m - 1
        while at > 0 and ctot[at - 1] < tot:
            if at < m:
                ctot[at] = ctot[at - 1]
                for j in range(E.MV_LEN):
                    cmv[at, j] = cmv[at - 1, j]
            at -= 1
        ctot[at] = tot
        for j in range(E.MV_LEN):
            cmv[at, j] = out[i, j]
        got = min(got + 1, m)
    return got


@njit(cache=True, inline="always")  # one caller: no machine code of its own
def playout(bb, st, rng, me, season, prow, horizon, every_seat, rp, cards, forms, form_anchors, walk, masks, vw, ws,
            mv):  # fmt: skip
    """Play on from a redealt position with strong (row prow) to the cut: the end of season `season` (the root's),
    or sooner when a draw on the (horizon + 1)-th explore card from here would begin (horizon > 0).  Without
    every_seat, only the decisions that reach map `me` are played; the others are skips.

    Parameters
    ----------
    bb : numpy.ndarray
        uint64, shape ``(players, N_PLANES, 2)``: every seat's map planes.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the game's chance and policy streams, advanced in place.
    me : int
        The seat searching.
    season : int
        The root's season.
    prow : numpy.ndarray
        float64, shape ``(P_LEN,)``: strong's row for the playout.
    horizon : int
        Explore cards a playout covers (0: to the season's end).
    every_seat : bool
        Play every seat's decisions (else only those reaching map `me`).
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    cards : numpy.ndarray
        int32, shape ``(N_CARDS, CD_LEN)``: the card table.
    forms : numpy.ndarray
        int32, shape ``(forms, FM_LEN)``: every oriented shape.
    form_anchors : numpy.ndarray
        uint64, shape ``(forms, 2)``: each form's anchors on the map.
    walk : numpy.ndarray
        int32: the solo ambushes' ring walks.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards.
    vw : numpy.ndarray
        float64, shape ``(BUCKETS, N_FEATURES)``: strong's learned weights.
    ws : tuple
        strong's scratch (boardlab.agents.cartographers.strong.workspace).
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: the move, filled.
    """
    draws = 0
    while st[E.ST_PHASE] != E.PHASE_DONE and st[E.ST_SEASON] == season:
        if st[E.ST_PHASE] == E.PHASE_DRAW and st[E.ST_K] == 0:
            if horizon > 0 and draws >= horizon:
                break
            draws += 1
        if every_seat or st[E.ST_TARGET] == me:
            strong_move(bb, st, rng, mv, prow, rp, cards, forms, form_anchors, masks, vw, ws)
        else:
            mv[E.MV_KIND] = E.K_SKIP
            mv[E.MV_MAP] = st[E.ST_TARGET]
            mv[E.MV_OPTION] = -1
            mv[E.MV_FORM] = -1
            mv[E.MV_ANCHOR] = -1
            mv[E.MV_TERRAIN] = 0
        E.apply_move(bb, st, rng, mv, rp, cards, forms, form_anchors, walk, masks)


@njit(cache=True, inline="always")  # one caller: no machine code of its own
def reward(bb, st, me, scored, rp, masks, vw, ws):
    """The mover's points of the seasons scored since the root (`scored` were scored there) plus, unless the
    game is over, strong's estimate of its points still to come: planner value + learned value of its map.

    Parameters
    ----------
    bb : numpy.ndarray
        uint64, shape ``(players, N_PLANES, 2)``: every seat's map planes.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    me : int
        The seat searching.
    scored : int
        Seasons scored at the root.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards.
    vw : numpy.ndarray
        float64, shape ``(BUCKETS, N_FEATURES)``: strong's learned weights.
    ws : tuple
        strong's scratch (boardlab.agents.cartographers.strong.workspace).
    """
    _, _, _, w, _, f, _ = ws
    v = 0.0
    for s in range(scored, st[E.ST_SCORED]):
        v += st[E.ST_RECORDS + (me * E.N_SEASONS + s) * E.REC_LEN + E.REC_TOTAL]
    if st[E.ST_PHASE] == E.PHASE_DONE:
        return v
    objective_weights(st, rp, A_PLANNER, w)
    coins = np.int64(st[E.ST_COINS + me])  # int64, as map_after's: map_value, map_features compiled once
    v += map_value(bb[me], coins, w, st, rp, masks)
    map_features(bb[me], coins, w, st, rp, masks, f)
    vb = vw[bucket(st, rp)]
    for a in range(N_FEATURES):
        v += vb[a] * f[a]
    return v


@njit(cache=True, inline="always")  # inlined into policy_move, its one caller: compiled there
def expert_move(bb, st, rng, mv, prm, rp, cards, forms, form_anchors, walk, masks, vw, ws):
    """Fill mv with the expert's move (prm its row, vw strong's learned weights, ws strong's scratch:
    boardlab.agents.cartographers.strong.workspace); returns the playouts run.

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
    walk : numpy.ndarray
        int32: the solo ambushes' ring walks.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards.
    vw : numpy.ndarray
        float64, shape ``(BUCKETS, N_FEATURES)``: strong's learned weights.
    ws : tuple
        strong's scratch (boardlab.agents.cartographers.strong.workspace).
    """
    prow = prm.copy()  # the playouts' strong, and strong's ambush
    prow[P_CODE] = A_STRONG
    if st[E.ST_PHASE] == E.PHASE_MONSTER:
        strong_move(bb, st, rng, mv, prow, rp, cards, forms, form_anchors, masks, vw, ws)
        return 0
    k = min(max(1, int(prm[P_CANDS])), MAX_CANDS)
    cmv = np.zeros((k, E.MV_LEN), dtype=np.int32)
    ctot = np.zeros(k, dtype=np.float64)
    ncand = candidates(bb, st, rng, prm, rp, cards, forms, form_anchors, masks, vw, ws, cmv, ctot)
    if ncand <= 1:
        for j in range(E.MV_LEN):
            mv[j] = cmv[0, j]
        return 0
    budget = min(max(1, int(prm[P_BUDGET])), MAX_BUDGET)
    horizon = min(max(0, int(prm[P_HORIZON])), MAX_HORIZON)
    every_seat = int(prm[P_SEATS]) == SEATS_ALL
    prow[P_K] = int(prm[P_ROLLOUT_K])
    me = st[E.ST_CURRENT]
    scored = st[E.ST_SCORED]
    season = st[E.ST_SEASON]
    # an arm's playouts: at most budget // 2 in the first round, +1 per later round
    seeds = np.zeros((budget + 64, 2), dtype=np.uint64)
    ndrawn = 0
    total = np.zeros(ncand, dtype=np.float64)
    visits = np.zeros(ncand, dtype=np.int64)
    alive = np.arange(ncand)
    bb2 = np.empty_like(bb)
    st2 = np.empty_like(st)
    rng2 = np.empty_like(rng)
    pool = np.zeros(MAX_DECK + N_AMBUSH, dtype=np.int32)
    mv2 = np.zeros(E.MV_LEN, dtype=np.int32)
    nalive = ncand
    played = 0
    while nalive > 1:
        rounds_left = 0
        m = nalive
        while m > 1:
            m = (m + 1) // 2
            rounds_left += 1
        per = max(1, (budget - played) // (nalive * rounds_left))
        for _ in range(per):
            for i in range(nalive):
                a = alive[i]
                j = visits[a]
                if j == ndrawn:  # the j-th common pair, drawn from the policy stream on first use
                    seeds[j, 0] = rng_next(rng, POLICY)
                    seeds[j, 1] = rng_next(rng, POLICY)
                    ndrawn += 1
                rng2[CHANCE] = seeds[j, 0]
                rng2[POLICY] = seeds[j, 1]
                _copy(bb2, bb, st2, st)
                redeal(st2, rng2, cards, pool)
                E.apply_move(bb2, st2, rng2, cmv[a], rp, cards, forms, form_anchors, walk, masks)
                playout(bb2, st2, rng2, me, season, prow, horizon, every_seat,
                        rp, cards, forms, form_anchors, walk, masks, vw, ws, mv2)  # fmt: skip
                total[a] += reward(bb2, st2, me, scored, rp, masks, vw, ws)
                visits[a] += 1
                played += 1
        # keep the better half (stable: ties to the candidates' order); survivors have had equal playouts
        for i in range(1, nalive):
            a = alive[i]
            j = i
            while j > 0 and (total[alive[j - 1]] < total[a] or (total[alive[j - 1]] == total[a] and alive[j - 1] > a)):
                alive[j] = alive[j - 1]
                j -= 1
            alive[j] = a
        nalive = (nalive + 1) // 2
    for j in range(E.MV_LEN):
        mv[j] = cmv[alive[0], j]
    return played
