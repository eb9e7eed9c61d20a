"""Citadels' ``expert``: a determinised flat Monte Carlo search in numba (the family of Citywright's expert,
docs/search.md "The expert").

At a decision of seat p with more than one legal move (:func:`expert_move`):

1. **Candidates.**  ``basic``'s own move first (it is computed anyway: it records p's memory of its offer,
   as ``basic`` does), then every other legal move; when there are more than ``k``, the ``k - 1`` others
   kept are the best by a cheap prior: the move applied to the *canonical* redeal of the position for p
   (boardlab/sim/citadels/infoset.py: a function of p's view only) and the position after it scored by
   :func:`position_value` (p's margin over the best rival).
2. **Playouts.**  Playout j starts from p's *view* -- the canonical redeal of the position for p, computed
   once per decision --, redeals it from a state drawn from the expert's own stream (every card p cannot
   see, every character it cannot place, both game streams: never the true hidden part), applies the
   candidate and plays on with ``basic`` in every seat (p with its own memory of its offers, the others with
   none; a specialist plays its later picks in playouts as basic does, unrestricted, so that off its rank it
   is the expert move for move) -- to the end of the game, or with ``horizon`` = h > 0 until h round
   changes have happened.  Each seat's tie-breaks in a playout come
   from a stream seeded by the playout's own draw, not from the game seed.
3. **Reward.**  ``win``: p's share of the win at the end (1 / the number of winners, or 0); ``margin``: p's
   score minus the best rival's.  A playout cut by the horizon is scored by :func:`position_value` (city
   points + GOLD_VALUE per gold + CARD_VALUE per card in hand, per seat): margin as is, win as 1 / ties when
   p's value is the highest.
4. **Choice.**  Successive halving over the candidates, with **common random numbers**: the j-th playout of
   every candidate starts from the same redeal and the same playout streams.  With m candidates there are
   ceil(log2 m) rounds; a round gives each surviving candidate max(1, budget // (survivors * rounds)) more
   playouts and keeps the better half by mean reward (ties: the earlier candidate, so basic's move).

**Information** (docs/games/citadels.md §7.1).  The expert reads the true state only through ``basic``
(which reads p's view) and through one canonical redeal for p (a function of p's view alone); every
playout's random redeal starts from that canonical copy, so it is a function of p's view and the drawn
state alone (a random redeal of the true position is not: its shuffle starts from the true order of the
unseen cards, so two positions of one information set give two different, equally likely, deals).  The
move is therefore the same whichever position of p's information set it is given.  Its
random numbers: p's own agent stream positioned at the decision (boardlab/agents/citadels/kernels.py); basic's tie
draw, then one output, ``base``; playout j redeals from the state base + j * JSTEP.

**Specialists** (``prefers`` = R > 0, Jaffe et al. 2012): at a selection it takes rank R whenever offered;
at a 2-player discard it never discards R when another choice exists (the candidates leave R out); else it
searches as the expert.

**Levers.**  One expert among three ``basic`` seats, 4 players, official rules, seats rotated, the same 200
game seeds for every row (a script over ``boardlab.agents.citadels.kernels.run_games``); win share with its Wilson 95%
interval; margin = own score - the best rival's (mean; a basic seat among basics: -5.03 on these seeds);
ms = mean process CPU per own decision (every decision, forced ones too: about 84% have two or more legal
moves), over 6 games through the API's per-move player, on the shared 2-core machine under load (noisy:
+-30%).  Unnamed parameters are
k=6, horizon=0, reward=win.  The rows above the rule were run before playouts started from the canonical view
(then each redeal shuffled the true order: the same search in distribution).

================================  =====================  =======  =====
lever                             win share              margin   ms
================================  =====================  =======  =====
budget=16                         0.245 [0.191, 0.309]   -6.94    0.80
budget=48                         0.295 [0.236, 0.362]   -7.16    1.95
budget=128                        0.470 [0.402, 0.539]   -2.79    6.20
budget=48,k=3                     0.355 [0.292, 0.423]   -5.39    2.33
budget=48,k=12                    0.300 [0.241, 0.367]   -6.97    2.12
budget=48,reward=margin           0.370 [0.306, 0.439]   -2.36    2.10
budget=48,horizon=2               0.550 [0.481, 0.617]   -0.02    0.63
--------------------------------  ---------------------  -------  -----
budget=48,horizon=1               0.590 [0.521, 0.656]   +0.84    0.32
budget=128,horizon=1              0.590 [0.521, 0.656]   +0.52    0.73
budget=128,horizon=2              0.660 [0.592, 0.722]   +1.91    1.71
budget=128,horizon=3              0.580 [0.511, 0.646]   +0.45    2.72
budget=128,horizon=2,k=3          0.660 [0.592, 0.722]   +1.74    1.84
budget=128,horizon=2,margin       0.755 [0.691, 0.809]   +5.39    1.19
budget=256,horizon=2              0.745 [0.680, 0.800]   +3.00    3.22
================================  =====================  =======  =====

What they say: playouts to the end of the game are too noisy for so few of them (a basic game's end is far
and each seat's luck dominates); cut after two round changes and scored by points + gold and cards, the
same budget buys a far better choice at a third of the time.  The margin reward beats the win share (it
tells more per playout).  k matters little (basic's move is always kept).  The tier
(``expert:budget=256,k=6,horizon=2,reward=margin``, boardlab.agents.citadels.registry.TIERS) combines the best rows.
Its table: ``boardlab simulate --game citadels --players 4 --agents expert,basic,basic,basic --seating rotate
--games 2000 --jobs 1`` (run seed 0): win share 0.784 [0.766, 0.802], margin +5.79, mean score 32.3 against
basic's 22.5; 0.16 s of CPU a game.  Its time: 3.46, 3.19, 2.73 ms per own decision (three runs of 12 games,
one expert among three basics, process CPU, every decision counted), 3.41 ms per decision with the expert in
all four seats (4 games, 678 decisions): well under the 10 ms budget.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels import infoset as I
from boardlab.sim.citadels.rules import MAX_PLAYERS
from boardlab.sim.rng import GOLDEN_GAMMA, rng_next

from . import kernels as K

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
    the best rival's."""
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
    """p's reward at the end of a playout (module docstring, 3.)."""
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


@njit(cache=True, _nrt=False)
def playout(w, wrng, ev, rp, dt, p, row, prow, pseed, horizon, wmem, moves, vals, mv, parng):
    """Play position w (its game streams wrng[0]) on with basic in every seat: p by `row` (its basic
    parameters and prefers), the others by `prow`; to the end, or until `horizon` round changes (> 0)."""
    r0 = w[E.ST_ROUND]
    while w[E.ST_PHASE] != E.PH_DONE and (horizon <= 0 or w[E.ST_ROUND] - r0 < horizon):
        s = w[E.ST_CURRENT]
        K.position_stream(parng, pseed, s, w[E.ST_DECISIONS])
        K.basic_prefers_move(w, rp, dt, s, row if s == p else prow, parng, wmem[s], moves, vals, mv)
        E.apply_move(w, wrng, ev, rp, dt, mv)


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
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
    """Successive halving over candidates cand[:m] (module docstring, 4.): the index of the one chosen."""
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
    expert's row (basic's parameters, P_BUDGET, P_K, P_HORIZON, P_REWARD, P_PREFERS)."""
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
    m = 1
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
