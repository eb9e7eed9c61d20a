"""numba policies for Cartographers: the evaluator agents (greedy, planner) and their ambush policies.

Design notes: docs/games/cartographers/agents.md#evaluator-agents.
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
    N_EDICTS,
    N_SEASONS,
    RP_COIN_CAP,
    RP_MOUNTAINS,
    RP_MTN_TO_OWNER,
    RP_N_MOUNTAINS,
    RP_SEASON_EDICTS,
)
from boardlab.sim.layout import Layout
from boardlab.sim.rng import POLICY, rand_below

# --- agent codes and parameter rows ---------------------------------------------------------------
A_RANDOM = 0
A_GREEDY = 1
A_PLANNER = 2
A_STRONG = 3  # boardlab.agents.cartographers.strong
A_EXPERT = 4  # boardlab.agents.cartographers.expert

AMBUSH_ADVERSARIAL = 0
AMBUSH_RANDOM = 1

_p = Layout("agent row")
P_CODE = _p.add("agent code (A_*)")
P_AMBUSH = _p.add("ambush policy (AMBUSH_*)")
P_K = _p.add("strong: candidates re-ranked by the learned value")
P_MARGIN = _p.add("strong: a candidate's planner value is at least the best's minus this")
P_BUDGET = _p.add("expert: playouts per decision")
P_CANDS = _p.add("expert: candidates searched (strong's best)")
P_HORIZON = _p.add("expert: draws a playout runs before its cut, 0 = to the end of the season")
P_ROLLOUT_K = _p.add("expert: strong's k in the playouts")
P_SEATS = _p.add("expert: the playouts play every seat (1) or only what reaches the mover's map (0)")
P_LEN = _p.size

# Weights: the four edicts, then coins and monster penalty.
W_COINS = N_EDICTS
W_MONSTER = N_EDICTS + 1
W_LEN = N_EDICTS + 2

_Z = np.uint64(0)


@njit(
    (types.int32[::1], types.Array(types.int32, 1, "C", readonly=True), types.int64, types.int64[::1]),
    cache=True,
)  # its argument types given: compiled once, whatever int types or literals its callers pass
def objective_weights(st, rp, code, w):
    """Fill w int64[W_LEN] with the weights of agent `code` in the current season (see the module doc).

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    code : int
        The agent code (A_*).
    w : numpy.ndarray
        int64, shape ``(W_LEN,)``: filled.
    """
    s = st[E.ST_SEASON]
    last = s if code == A_GREEDY else N_SEASONS - 1
    for j in range(W_LEN):
        w[j] = 0
    for q in range(s, last + 1):
        w[rp[RP_SEASON_EDICTS + 2 * q]] += 1
        w[rp[RP_SEASON_EDICTS + 2 * q + 1]] += 1
        w[W_COINS] += 1
        w[W_MONSTER] += 1


@njit(cache=True)
def map_value(pl, coins, w, st, rp, masks):
    """value(map) for weights w: planes pl uint64[N_PLANES, 2], the owner's coins.

    Parameters
    ----------
    pl : numpy.ndarray
        uint64, shape ``(N_PLANES, 2)``: one map's planes.
    coins : int
        The map owner's coins.
    w : numpy.ndarray
        int64, shape ``(W_LEN,)``: objective weights (objective_weights).
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards.
    """
    v = w[W_COINS] * coins
    if w[W_MONSTER] != 0:
        v -= w[W_MONSTER] * E.monster_penalty(pl, rp, masks)
    for e in range(N_EDICTS):
        if w[e] != 0:
            v += w[e] * E.score_card(st[E.ST_EDICTS + e], pl, rp, masks)
    return v


@njit(cache=True)
def move_value(bb, st, rp, cards, forms, masks, mv, w, pl):
    """The value of the target map after kernel move mv (pl uint64[N_PLANES, 2] is scratch).

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
    w : numpy.ndarray
        int64, shape ``(W_LEN,)``: objective weights (objective_weights).
    pl : numpy.ndarray
        uint64, shape ``(N_PLANES, 2)``: scratch.
    """
    t = mv[E.MV_MAP]
    for k in range(E.N_PLANES):
        pl[k, 0] = bb[t, k, 0]
        pl[k, 1] = bb[t, k, 1]
    coins = np.int64(st[E.ST_COINS + t])  # int64, as every caller of map_value passes: one compilation
    kind = mv[E.MV_KIND]
    if kind == E.K_SKIP:
        return map_value(pl, coins, w, st, rp, masks)
    terrain = mv[E.MV_TERRAIN]
    if kind == E.K_FALLBACK:
        _fill(pl, mv[E.MV_ANCHOR], terrain)
    else:
        f = mv[E.MV_FORM]
        a = mv[E.MV_ANCHOR]
        for c in range(forms[f, FM_N]):
            _fill(pl, a + forms[f, FM_OFF + c], terrain)
    gain = 0
    mover = st[E.ST_CURRENT]
    if kind == E.K_DRAW and cards[st[E.ST_CARD], CD_COIN + mv[E.MV_OPTION]] and mover == t:
        gain += 1
    if rp[RP_MTN_TO_OWNER] or mover == t:
        elo = pl[EMPTY, 0]
        ehi = pl[EMPTY, 1]
        for j in range(rp[RP_N_MOUNTAINS]):
            if (masks[MK_MTN_NBR + j, 0] & elo) | (masks[MK_MTN_NBR + j, 1] & ehi) != _Z:
                continue
            m = rp[RP_MOUNTAINS + j]
            if not E.has_cell(pl[E.PAID, 0], pl[E.PAID, 1], m):
                gain += 1
    coins = min(coins + gain, rp[RP_COIN_CAP]) if coins < rp[RP_COIN_CAP] else coins
    return map_value(pl, coins, w, st, rp, masks)


@njit(cache=True, inline="always")
def _fill(pl, i, terrain):
    w = 0 if i < 64 else 1
    bit = np.uint64(1) << np.uint64(i - 64 * w)
    pl[EMPTY, w] &= ~bit
    pl[terrain, w] |= bit


@njit(cache=True, inline="always")  # one caller: no machine code of its own
def evaluate_moves(bb, st, rp, cards, forms, form_anchors, masks, w, sign, out, vals):
    """List every legal move into out (listing order) and its value times `sign` into vals; returns the count.

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
        uint64, shape ``(forms, 2)``: each form's anchors on the map.
    masks : numpy.ndarray
        uint64, shape ``(MK_LEN, 2)``: the map's fixed boards.
    w : numpy.ndarray
        int64, shape ``(W_LEN,)``: objective weights (objective_weights).
    sign : int
        1, or -1 to rank moves by the lowest value (a monster drawn on a rival's map).
    out : numpy.ndarray
        int32, shape ``(MAX_MOVES, MV_LEN)``: the moves, filled.
    vals : numpy.ndarray
        float64, shape ``(MAX_MOVES,)``: the values, filled.
    """
    n = E.enumerate_moves(bb, st, rp, cards, forms, form_anchors, masks, np.int64(-1), out)
    pl = np.empty((E.N_PLANES, 2), dtype=np.uint64)
    for i in range(n):
        vals[i] = sign * move_value(bb, st, rp, cards, forms, masks, out[i], w, pl)
    return n


@njit(cache=True, inline="always")  # one caller: no machine code of its own
def evaluator_move(bb, st, rng, mv, prm, rp, cards, forms, form_anchors, masks):
    """greedy / planner (and their ambush policy): the best listed move, ties by the policy stream.

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
    """
    monster = st[E.ST_PHASE] == E.PHASE_MONSTER
    if monster and int(prm[P_AMBUSH]) == AMBUSH_RANDOM:
        E.random_move(bb, st, rng, mv, rp, cards, forms, form_anchors, masks)
        return
    w = np.empty(W_LEN, dtype=np.int64)
    objective_weights(st, rp, int(prm[P_CODE]), w)
    out = np.empty((E.MAX_MOVES, E.MV_LEN), dtype=np.int32)
    vals = np.empty(E.MAX_MOVES, dtype=np.int64)
    n = evaluate_moves(bb, st, rp, cards, forms, form_anchors, masks, w, -1 if monster else 1, out, vals)
    best = vals[0]
    for i in range(1, n):
        if vals[i] > best:
            best = vals[i]
    ties = 0
    for i in range(n):
        ties += vals[i] == best
    k = rand_below(rng, POLICY, ties)
    for i in range(n):
        if vals[i] == best:
            if k == 0:
                for j in range(E.MV_LEN):
                    mv[j] = out[i, j]
                return
            k -= 1
