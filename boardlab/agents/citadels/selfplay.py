"""Self-play for fitting Citadels' ``strong`` value (boardlab.experiments.citadels.train): games with every selection
decision's sample summed into least-squares moments, in numba.

A sample is a pick decision (PICK with two ranks or more offered): the features of the position right after
the pick, for the seat that picked (:func:`boardlab.agents.citadels.strong.features`; they read only what that seat
sees, so the true position serves), and its target that seat's final score margin over its best rival (its
total minus the best other total).  With probability ``explore`` a pick is made uniformly at random among the
offered ranks instead of by the seat's agent (from a stream of the game seed ^ EXPLORE_XOR), so that what a
rank brings is measured apart from the situations in which an agent takes it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels.rules import MAX_PLAYERS
from boardlab.sim.citadels.tables import RP_PLAYERS
from boardlab.sim.rng import rand_below, rng_next

from . import kernels as K
from . import strong as S

MAX_SAMPLES = 1024  # picks recorded per game (a 4-player game has a few dozen; beyond, the rest is not recorded)
EXPLORE_XOR = np.uint64(0x5851F42D4C957F2D)


def selfplay_moments(seeds, rp, dt, rows, seats, explore, scores, xtx, xty, yty, count) -> None:
    """Play one game per seed (agent rows[seats[g, s]] at seat s, a pick at random with probability explore)
    and add every pick decision's sample to the moments: xtx float64[F, F], xty float64[F], yty float64[1],
    count int64[1]; scores int32[G, n, SC_LEN] receives the final scores.

    Parameters
    ----------
    seeds : numpy.ndarray
        uint64, shape ``(G,)``: one seed per game.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    rows : numpy.ndarray
        float64, shape ``(A, P_LEN)``: the agents.
    seats : numpy.ndarray
        int, shape ``(G, players)``: the agent index of each seat.
    explore : float
        The chance of a random pick.
    scores : numpy.ndarray
        int32, shape ``(G, n, SC_LEN)``: filled.
    xtx : numpy.ndarray
        float64, shape ``(F, F)``: added to.
    xty : numpy.ndarray
        float64, shape ``(F,)``: added to.
    yty : numpy.ndarray
        float64, shape ``(1,)``: added to.
    count : numpy.ndarray
        int64, shape ``(1,)``: added to.

    A Python function allocating the work arrays: the loop is compiled once, in ``_selfplay``, which calls the
    agents through :func:`boardlab.agents.citadels.kernels.choose_move`'s address, so their kernels are the game
    loop's and are not linked into it and compiled again (as :func:`boardlab.agents.citadels.kernels.play_games`).
    """
    st = np.zeros(E.ST_LEN, dtype=np.int32)
    rng = np.zeros(2, dtype=np.uint64)
    ev = np.zeros((1, E.EV_LEN), dtype=np.int32)
    moves = np.zeros((E.MAX_MOVES, E.MV_LEN), dtype=np.int32)
    vals = np.zeros(E.MAX_MOVES, dtype=np.float64)
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    arng = np.zeros(2, dtype=np.uint64)
    mem = np.zeros((MAX_PLAYERS, K.M_LEN), dtype=np.int32)
    work = np.zeros(S.WORK_LEN, dtype=np.int32)
    fwork = np.zeros(S.N_FEATURES, dtype=np.float64)
    wrng = np.zeros(2, dtype=np.uint64)
    swork = K.SE.make_work()  # the expert's scratch (choose_move takes every agent's)
    feats = np.zeros((MAX_SAMPLES, S.N_FEATURES), dtype=np.float64)
    who = np.zeros(MAX_SAMPLES, dtype=np.int64)
    trng = np.zeros(2, dtype=np.uint64)
    args = (seeds, rp, dt, rows, seats, np.float64(explore), scores, xtx, xty, yty, count, st, rng, ev, moves, vals,
            mv, arng, mem, work, fwork, wrng, swork, feats, who, trng)  # fmt: skip
    K.with_choose(_selfplay, args, (st, rng, rp, dt, rows[0], arng, mem[0], moves, vals, mv, work, fwork, wrng, swork))


@njit(cache=True, nogil=True, _nrt=False)
def _selfplay(choose, seeds, rp, dt, rows, seats, explore, scores, xtx, xty, yty, count, st, rng, ev, moves, vals, mv,
              arng, mem, work, fwork, wrng, swork, feats, who, trng):  # fmt: skip
    n = rp[RP_PLAYERS]
    nf = S.N_FEATURES
    for g in range(seeds.shape[0]):
        seed = seeds[g]
        E.setup(st, rng, ev, seed, rp, dt, 0)
        for p in range(n):
            for j in range(K.M_LEN):
                mem[p, j] = 0
        trng[0] = seed ^ EXPLORE_XOR
        k = 0
        while st[E.ST_PHASE] != E.PH_DONE:
            p = st[E.ST_CURRENT]
            pick = st[E.ST_PHASE] == E.PH_PICK and st[E.ST_OFFER_N] >= 2
            if pick and explore > 0.0 and rng_next(trng, 0) < np.uint64(explore * 2.0**64 - 1.0):
                n_moves = E.legal_moves(st, rp, dt, moves)
                K._remember_offer(st, mem[p])
                i = rand_below(trng, 0, n_moves)
                for j in range(E.MV_LEN):
                    mv[j] = moves[i, j]
            else:
                choose(st, rng, rp, dt, p, rows[seats[g, p]], seed, arng, mem[p], moves, vals, mv, work, fwork, wrng,
                       swork)  # fmt: skip
            E.apply_move(st, rng, ev, rp, dt, mv)
            if pick and k < MAX_SAMPLES:
                S.features(st, rp, dt, p, feats[k])
                who[k] = p
                k += 1
        E.final_scores(st, rp, dt, scores[g])
        for i in range(k):
            p = who[i]
            best = -1 << 30
            for q in range(n):
                if q != p and scores[g, q, E.SC_TOTAL] > best:
                    best = scores[g, q, E.SC_TOTAL]
            y = float(scores[g, p, E.SC_TOTAL] - best)
            f = feats[i]
            for a in range(nf):
                fa = f[a]
                if fa == 0.0:
                    continue
                xty[a] += fa * y
                for b in range(nf):
                    xtx[a, b] += fa * f[b]
            yty[0] += y * y
            count[0] += 1
