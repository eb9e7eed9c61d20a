"""Citadels' ``expert``: a determinised flat Monte Carlo search in numba (the family of Citywright's expert,
docs/games/citywright/search.md "The expert").

Design notes: docs/games/citadels/agents.md#expert-module.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels import infoset as I
from boardlab.sim.citadels.rules import MAX_PLAYERS
from boardlab.sim.rng import GOLDEN_GAMMA, rng_next

from . import basic as K

_F2 = types.float64[:, ::1]  # _sort_alive's argument types, given up front: it compiles once
_I1 = types.int64[::1]
_I = types.int64

GOLD_VALUE = 0.5  # a cut playout's worth of one gold and of one card in hand, in city points
CARD_VALUE = 0.5
JSTEP = np.uint64((int(GOLDEN_GAMMA) << 20) & ((1 << 64) - 1))  # 2**20 outputs per playout's redeal

REWARD_WIN = 0
REWARD_MARGIN = 1

# the work rows (wst): p's view (the canonical redeal), the redealt position of the current playout, the
# playout, the prior's copy
W_VIEW, W_BASE, W_PLAY, W_PRIOR = range(4)
# the stats rows (wf): sum of rewards, playouts, prior score
F_SUM, F_N, F_PRIOR = range(3)


@njit(cache=True)
def make_work():
    """The expert's scratch: a tuple of arrays, allocated once per game loop / chooser."""
    wst = np.zeros((4, E.ST_LEN), dtype=np.int32)
    wrng = np.zeros((4, 2), dtype=np.uint64)  # rows: game streams of the playout; determinisation; seats' stream
    ev = np.zeros((1, E.EV_LEN), dtype=np.int32)
    scratch = np.zeros(I.SCRATCH_LEN, dtype=np.int32)
    wmem = np.zeros((MAX_PLAYERS, K.M_LEN), dtype=np.int32)
    cand = np.zeros((E.MAX_MOVES, E.MV_LEN), dtype=np.int32)
    wf = np.zeros((3, E.MAX_MOVES), dtype=np.float64)
    alive = np.zeros(E.MAX_MOVES, dtype=np.int64)
    prow = np.zeros(K.P_LEN, dtype=np.float64)
    sc = np.zeros((MAX_PLAYERS, E.SC_LEN), dtype=np.int32)
    wmv = np.zeros(E.MV_LEN, dtype=np.int32)
    return (wst, wrng, ev, scratch, wmem, cand, wf, alive, prow, sc, wmv)


@njit(cache=True, _nrt=False, inline="always")
def _copy(dst, src):
    """dst[:] = src, element by element (a slice copy asks numba's runtime for a temporary)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True, _nrt=False)
def position_value(st, dt, p):
    """A cheap value of the position for p: its (city points + GOLD_VALUE x gold + CARD_VALUE x cards) minus
    the best rival's.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    p : int
        The seat valued.
    """
    best = -1.0e18
    mine = 0.0
    for s in range(st[E.ST_PLAYERS]):
        v = K.city_points(st, dt, s) + GOLD_VALUE * st[E.ST_GOLD + s] + CARD_VALUE * st[E.ST_HAND_N + s]
        if s == p:
            mine = v
        elif v > best:
            best = v
    return mine - best


@njit(cache=True, _nrt=False)
def _cut_win(st, dt, p):
    """p's share of the lead by position_value's per-seat value (1 / ties when highest, else 0)."""
    mine = K.city_points(st, dt, p) + GOLD_VALUE * st[E.ST_GOLD + p] + CARD_VALUE * st[E.ST_HAND_N + p]
    ties = 0
    for s in range(st[E.ST_PLAYERS]):
        v = K.city_points(st, dt, s) + GOLD_VALUE * st[E.ST_GOLD + s] + CARD_VALUE * st[E.ST_HAND_N + s]
        if v > mine:
            return 0.0
        if v == mine:
            ties += 1
    return 1.0 / ties


@njit(cache=True, _nrt=False)
def reward(st, rp, dt, p, kind, sc):
    """p's reward at the end of a playout (module docstring, 3.).

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    p : int
        The seat rewarded.
    kind : int
        REWARD_WIN or REWARD_MARGIN.
    sc : numpy.ndarray
        int32, shape ``(players, SC_LEN)``: scratch for the final scores.
    """
    if st[E.ST_PHASE] != E.PH_DONE:
        return _cut_win(st, dt, p) if kind == REWARD_WIN else position_value(st, dt, p)
    E.final_scores(st, rp, dt, sc)
    n = st[E.ST_PLAYERS]
    if kind == REWARD_WIN:
        if sc[p, E.SC_WINNER] == 0:
            return 0.0
        w = 0
        for s in range(n):
            w += sc[s, E.SC_WINNER]
        return 1.0 / w
    best = -(1 << 30)
    for s in range(n):
        if s != p and sc[s, E.SC_TOTAL] > best:
            best = sc[s, E.SC_TOTAL]
    return float(sc[p, E.SC_TOTAL] - best)


@njit(cache=True, _nrt=False, inline="always")  # one caller: no machine code of its own
def playout(w, wrng, ev, rp, dt, p, row, prow, pseed, horizon, wmem, moves, vals, mv, parng):
    """Play position w (its game streams wrng[0]) on with basic in every seat: p by `row` (its basic
    parameters and prefers), the others by `prow`; to the end, or until `horizon` round changes (> 0).

    Parameters
    ----------
    w : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the position played on, in place.
    wrng : numpy.ndarray
        uint64: its game streams (row 0).
    ev : numpy.ndarray
        int32, shape ``(rows, EV_LEN)``: an event log.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    p : int
        The seat deciding.
    row : numpy.ndarray
        float64, shape ``(P_LEN,)``: the agent's parameter row.
    prow : numpy.ndarray
        float64, shape ``(P_LEN,)``: the other seats' row.
    pseed : numpy.uint64
        The seed the seats' own streams derive from.
    horizon : int
        Round changes a playout covers (0: to the end).
    wmem : numpy.ndarray
        int32, shape ``(players, M_LEN)``: the seats' memories.
    moves : numpy.ndarray
        int32, shape ``(MAX_MOVES, MV_LEN)``: scratch (the legal list).
    vals : numpy.ndarray
        float64, shape ``(MAX_MOVES,)``: scratch.
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: the move, filled.
    parng : numpy.ndarray
        uint64, shape ``(2,)``: scratch for the seats' streams.
    """
    r0 = w[E.ST_ROUND]
    while w[E.ST_PHASE] != E.PH_DONE and (horizon <= 0 or w[E.ST_ROUND] - r0 < horizon):
        s = w[E.ST_CURRENT]
        K.position_stream(parng, pseed, s, w[E.ST_DECISIONS])
        K.basic_prefers_move(w, rp, dt, s, row if s == p else prow, parng, wmem[s], moves, vals, mv)
        E.apply_move(w, wrng, ev, rp, dt, mv)


@njit(cache=True, _nrt=False, inline="always")  # one caller: no machine code of its own
def _one_playout(st, rng, rp, dt, p, row, mem, work, moves, vals, j, base, c0, c1, horizon, kind):
    """Playout j (its redeal drawn from base + j * JSTEP) of every candidate index in alive[c0:c1]; adds the
    rewards to the stats."""
    wst, wrng, ev, scratch, wmem, cand, wf, alive, prow, sc, wmv = work
    b = wst[W_BASE]
    _copy(b, wst[W_VIEW])  # p's view: the truth's order of the unseen cards is gone
    wrng[1, 0] = base + np.uint64(j) * JSTEP
    wrng[1, 1] = 0
    I.redeal(b, wrng[2], rp, p, wrng[1], np.bool_(False), scratch)  # np.bool_: one compiled redeal, not one per literal
    pseed = rng_next(wrng[1], 0)
    g0 = wrng[2, 0]
    g1 = wrng[2, 1]
    w = wst[W_PLAY]
    n = st[E.ST_PLAYERS]
    for a in range(c0, c1):
        c = alive[a]
        _copy(w, b)
        wrng[0, 0] = g0
        wrng[0, 1] = g1
        for s in range(n):
            for x in range(K.M_LEN):
                wmem[s, x] = mem[x] if s == p else 0
        E.apply_move(w, wrng[0], ev, rp, dt, cand[c])
        playout(w, wrng[0], ev, rp, dt, p, prow, prow, pseed, horizon, wmem, moves, vals, wmv, wrng[3])
        wf[F_SUM, c] += reward(w, rp, dt, p, kind, sc)
        wf[F_N, c] += 1.0


@njit(cache=True, _nrt=False, inline="always")  # one caller: no machine code of its own
def _prior(rp, dt, p, work, m):
    """Score candidates cand[:m] by position_value after each, applied to p's view (the canonical redeal, its
    streams zero)."""
    wst, wrng, ev, _, _, cand, wf, _, _, _, _ = work
    b = wst[W_VIEW]
    w = wst[W_PRIOR]
    for c in range(m):
        _copy(w, b)
        wrng[0, 0] = 0
        wrng[0, 1] = 0
        E.apply_move(w, wrng[0], ev, rp, dt, cand[c])
        wf[F_PRIOR, c] = position_value(w, dt, p)


@njit((_F2, _I1, _I, _I), cache=True, _nrt=False)
def _sort_alive(wf, alive, count, row_key):
    """Sort alive[:count] by wf[row_key] (F_PRIOR: the score; F_SUM: the mean) descending, stable."""
    for i in range(1, count):
        x = alive[i]
        kx = wf[F_PRIOR, x] if row_key == F_PRIOR else wf[F_SUM, x] / max(wf[F_N, x], 1.0)
        j = i - 1
        while j >= 0:
            y = alive[j]
            ky = wf[F_PRIOR, y] if row_key == F_PRIOR else wf[F_SUM, y] / max(wf[F_N, y], 1.0)
            if ky >= kx:
                break
            alive[j + 1] = y
            j -= 1
        alive[j + 1] = x


@njit(cache=True, _nrt=False, inline="always")  # inlined into expert_move, its one caller
def halving(st, rng, rp, dt, p, row, mem, work, moves, vals, m, base, budget, horizon, kind):
    """Successive halving over candidates cand[:m] (module docstring, 4.): the index of the one chosen.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the game's chance and policy streams.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    p : int
        The seat deciding.
    row : numpy.ndarray
        float64, shape ``(P_LEN,)``: the agent's parameter row.
    mem : numpy.ndarray
        int32, shape ``(M_LEN,)``: seat p's memory row.
    work : tuple
        The expert's scratch (make_work).
    moves : numpy.ndarray
        int32, shape ``(MAX_MOVES, MV_LEN)``: scratch (the legal list).
    vals : numpy.ndarray
        float64, shape ``(MAX_MOVES,)``: scratch.
    m : int
        The candidates.
    base : numpy.uint64
        The base of the playouts' redeal streams.
    budget : int
        Playouts in all.
    horizon : int
        Round changes a playout covers (0: to the end).
    kind : int
        REWARD_WIN or REWARD_MARGIN.
    """
    _, _, _, _, _, _, wf, alive, _, _, _ = work
    for c in range(m):
        wf[F_SUM, c] = 0.0
        wf[F_N, c] = 0.0
        alive[c] = c
    rounds = 0
    while (1 << rounds) < m:
        rounds += 1
    left = m
    j = np.int64(0)  # (not a literal 0: one compilation of _one_playout)
    for _ in range(rounds):
        per = max(1, budget // (left * rounds))
        for _k in range(per):
            _one_playout(st, rng, rp, dt, p, row, mem, work, moves, vals, j, base, 0, left, horizon, kind)
            j += 1
        _sort_alive(wf, alive, left, F_SUM)
        left = (left + 1) // 2
    return alive[0]


@njit(cache=True, _nrt=False, inline="always")  # inlined into choose_move, its one caller: compiled there
def expert_move(st, rng, rp, dt, p, row, arng, mem, moves, vals, mv, work):
    """The expert's move for seat p into mv (module docstring); arng is p's stream, positioned; row the
    expert's row (basic's parameters, P_BUDGET, P_K, P_HORIZON, P_REWARD, P_PREFERS).

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the game's chance and policy streams.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    p : int
        The seat deciding.
    row : numpy.ndarray
        float64, shape ``(P_LEN,)``: the agent's parameter row.
    arng : numpy.ndarray
        uint64, shape ``(2,)``: seat p's own stream (arng[1] scratch).
    mem : numpy.ndarray
        int32, shape ``(M_LEN,)``: seat p's memory row.
    moves : numpy.ndarray
        int32, shape ``(MAX_MOVES, MV_LEN)``: scratch (the legal list).
    vals : numpy.ndarray
        float64, shape ``(MAX_MOVES,)``: scratch.
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: the move, filled.
    work : tuple
        The expert's scratch (make_work).
    """
    wst, wrng, _, scratch, _, cand, wf, alive, prow, _, _ = work
    K.basic_prefers_move(st, rp, dt, p, row, arng, mem, moves, vals, mv)  # records p's offer; candidate 0
    n = E.legal_moves(st, rp, dt, moves)
    if n <= 1:
        return
    ph = st[E.ST_PHASE]
    pref = int(row[K.P_PREFERS])
    if pref > 0 and ph == E.PH_PICK and K.find_move(moves, n, E.K_PICK, pref) >= 0:
        return  # basic_prefers_move took it
    for x in range(E.MV_LEN):
        cand[0, x] = mv[x]
    m = np.int64(1)  # (not a literal 1: one compilation of _prior)
    for i in range(n):
        same = True
        for x in range(E.MV_LEN):
            if moves[i, x] != mv[x]:
                same = False
        if same:
            continue
        if pref > 0 and ph == E.PH_DISCARD and moves[i, E.MV_A] == pref:
            continue  # basic_prefers_move never discards R when another choice exists: neither do the others
        for x in range(E.MV_LEN):
            cand[m, x] = moves[i, x]
        m += 1
    if m <= 1:
        return
    k = max(1, int(row[K.P_K]))
    # p's view: the canonical redeal of the position (a function of what p sees); every playout starts there
    v = wst[W_VIEW]
    _copy(v, st)
    v[E.ST_LOG] = 0
    I.redeal(v, wrng[2], rp, p, wrng[1], np.bool_(True), scratch)
    if m > k:
        _prior(rp, dt, p, work, m)
        wf[F_PRIOR, 0] = 1.0e30  # basic's move stays
        for c in range(m):
            alive[c] = c
        _sort_alive(wf, alive, m, F_PRIOR)
        # keep the k best, in candidate order (alive holds indices; compact cand in place, ascending)
        for a in range(1, k):
            y = alive[a]
            x = a
            while x > 1 and alive[x - 1] > y:
                alive[x] = alive[x - 1]
                x -= 1
            alive[x] = y
        for a in range(k):
            c = alive[a]
            for x in range(E.MV_LEN):
                cand[a, x] = cand[c, x]
        m = k
    if m <= 1:
        return
    for x in range(K.P_LEN):
        prow[x] = row[x]
    prow[K.P_CODE] = K.A_BASIC
    prow[K.P_PREFERS] = 0.0
    base = rng_next(arng, 0)
    best = halving(
        st, rng, rp, dt, p, row, mem, work, moves, vals, m, base,
        int(row[K.P_BUDGET]), int(row[K.P_HORIZON]), int(row[K.P_REWARD]),
    )  # fmt: skip
    for x in range(E.MV_LEN):
        mv[x] = cand[best, x]
