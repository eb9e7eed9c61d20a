"""Training data for the learned value (boardlab.agents.citywright.value): self-play, summed into least-squares moments.

Every move of every seat gives one sample: the features of the mover's board right after
the move, and the target, the points that player still went on to score (final total
without seat compensation, minus the objective's points already decided after the move).
Samples are not kept; each is added to the moments of its turn bucket, so a chunk of games
returns a few small arrays whatever its size::

    xtx[b] += f f^T     xty[b] += y f     yty[b] += y^2     count[b] += 1
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.tables import MAX_SHAPES

from .kernels import P_PROGRESS_DISTRICT, P_W, P_W_ACH, objective
from .play import entry_point, movers_and_type, search_policy_move
from .value import N_FEATURES, board_features, opponents_best, turn_bucket


@njit(cache=True)
def _greedy_row(prm):
    """The greedy objective (what "points decided" means in the target) in a row like prm."""
    g = np.zeros_like(prm)
    for d in range(4):
        g[P_W + d] = 1.0
    g[P_W_ACH] = 1.0
    g[P_PROGRESS_DISTRICT] = -1.0
    return g


@njit(cache=True)
def selfplay_moments(seeds, prms, tables, vw, scores, xtx, xty, yty, count, movers):
    """Play one game per seed with agents prms[g] (float64[G, players, P_LEN]) and tables
    ``Tables.kernel_args()``; `strong` (and `flatmc`) seats use
    weights vw (read-only float64[TURN_BUCKETS, N_FEATURES]); add every move's sample to the moments
    (float64 xtx[B, F, F], xty[B, F], yty[B]; int64 count[B]) and write the final score
    sheets into scores int32[G, players, SC_LEN].

    Seats move as in the game loop (:func:`boardlab.agents.citywright.play.search_policy_move`): the searching
    agents through their addresses in `movers`, so their kernels are the ones the game loop compiled and are
    not linked into this one (call it through :func:`play_selfplay`).

    Parameters
    ----------
    seeds : numpy.ndarray
        uint64, shape ``(G,)``: one seed per game.
    prms : numpy.ndarray
        float64, shape ``(G, players, P_LEN)``: each game's seats' rows.
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    vw : numpy.ndarray or None
        float64, shape ``(TURN_BUCKETS, N_FEATURES)``: the learned value's weights (None: the committed ones).
    scores : numpy.ndarray
        int32, shape ``(G, players, SC_LEN)``: filled.
    xtx : numpy.ndarray
        float64, shape ``(TURN_BUCKETS, N_FEATURES, N_FEATURES)``: sums of x x'.
    xty : numpy.ndarray
        float64, shape ``(TURN_BUCKETS, N_FEATURES)``: sums of x y.
    yty : numpy.ndarray
        float64, shape ``(TURN_BUCKETS,)``: sums of y y.
    count : numpy.ndarray
        int64, shape ``(TURN_BUCKETS,)``: samples per bucket.
    movers : tuple
        :func:`boardlab.agents.citywright.play.movers_for`'s for prms.
    """
    rp, shp, _, pl_info, _, _, _, ach = tables
    n = prms.shape[1]
    boards = np.zeros((n, 4), dtype=np.uint64)
    st = np.zeros(E.ST_LEN, dtype=np.int32)
    rng = np.zeros(2, dtype=np.uint64)
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    turns = n * rp[E.RP_ROUNDS] * rp[E.RP_TURNS]
    feats = np.zeros((turns, N_FEATURES), dtype=np.float64)
    seat = np.zeros(turns, dtype=np.int64)
    bucket = np.zeros(turns, dtype=np.int64)
    decided = np.zeros(turns, dtype=np.float64)
    opp = np.empty(4, dtype=np.int64)
    grow = _greedy_row(prms[0, 0])
    for g in range(seeds.shape[0]):
        E.setup(boards, st, rng, seeds[g], rp, shp)
        t = 0
        while st[E.ST_DONE] == 0:
            p = st[E.ST_CUR]
            search_policy_move(boards, st, rng, mv, prms[g, p], tables, vw, movers)
            E.apply_move(boards, st, rng, mv, rp, shp, pl_info)
            placed = st[E.ST_PLACED + p * MAX_SHAPES : E.ST_PLACED + (p + 1) * MAX_SHAPES]
            opponents_best(boards, p, rp, opp)
            board_features(boards[p, 0], boards[p, 1], boards[p, 2], boards[p, 3], placed, opp, rp, ach, feats[t])
            seat[t] = p
            bucket[t] = turn_bucket(rp[E.RP_ROUNDS] * rp[E.RP_TURNS] - st[E.ST_TURNS + p])
            decided[t] = objective(boards[p, 0], boards[p, 1], boards[p, 2], boards[p, 3], placed, grow, rp, ach)
            t += 1
        out = scores[g]
        E.final_scores(boards, st, rp, ach, out)
        for j in range(t):
            q = seat[j]
            y = out[q, E.SC_TOTAL] - out[q, E.SC_COMP] - decided[j]
            b = bucket[j]
            f = feats[j]
            for a in range(N_FEATURES):
                fa = f[a]
                if fa == 0.0:
                    continue
                xty[b, a] += y * fa
                for c in range(N_FEATURES):
                    xtx[b, a, c] += fa * f[c]
            yty[b] += y * y
            count[b] += 1


@njit(cache=True)
def ridge_fit(xtx, xty, yty, count, ridge, w, r2):
    """Ridge weights per turn bucket from the moments, and each bucket's R^2 (NaN without samples).

    w[b] solves (X'X + ridge * diag(X'X) + 1e-6 I) w = X'y, by Cholesky in plain loops: no BLAS,
    so the same moments give the same bits on any machine.  Feature 0 must be the constant 1.

    Parameters
    ----------
    xtx : numpy.ndarray
        float64, shape ``(TURN_BUCKETS, N_FEATURES, N_FEATURES)``: sums of x x'.
    xty : numpy.ndarray
        float64, shape ``(TURN_BUCKETS, N_FEATURES)``: sums of x y.
    yty : numpy.ndarray
        float64, shape ``(TURN_BUCKETS,)``: sums of y y.
    count : numpy.ndarray
        int64, shape ``(TURN_BUCKETS,)``: samples per bucket.
    ridge : float
        The ridge's strength (relative to the diagonal).
    w : numpy.ndarray
        float64, shape ``(TURN_BUCKETS, N_FEATURES)``: filled.
    r2 : numpy.ndarray
        float64, shape ``(TURN_BUCKETS,)``: filled.
    """
    nb, nf = xty.shape
    a = np.empty((nf, nf), dtype=np.float64)
    z = np.empty(nf, dtype=np.float64)
    for b in range(nb):
        w[b, :] = 0.0
        r2[b] = np.nan
        n = count[b]
        if n == 0:
            continue
        for i in range(nf):
            for j in range(nf):
                a[i, j] = xtx[b, i, j]
            a[i, i] += ridge * xtx[b, i, i] + 1e-6
        # Cholesky a = L L^T, L in the lower triangle of a
        for j in range(nf):
            s = a[j, j]
            for m in range(j):
                s -= a[j, m] * a[j, m]
            a[j, j] = np.sqrt(s)
            for i in range(j + 1, nf):
                s = a[i, j]
                for m in range(j):
                    s -= a[i, m] * a[j, m]
                a[i, j] = s / a[j, j]
        for i in range(nf):  # L z = X'y
            s = xty[b, i]
            for m in range(i):
                s -= a[i, m] * z[m]
            z[i] = s / a[i, i]
        for i in range(nf - 1, -1, -1):  # L^T w = z
            s = z[i]
            for m in range(i + 1, nf):
                s -= a[m, i] * w[b, m]
            w[b, i] = s / a[i, i]
        # residual sum of squares from the moments: y'y - 2 w'X'y + w'X'X w
        rss = yty[b]
        for i in range(nf):
            rss -= 2.0 * w[b, i] * xty[b, i]
            s = 0.0
            for j in range(nf):
                s += xtx[b, i, j] * w[b, j]
            rss += w[b, i] * s
        mean = xty[b, 0] / n
        tss = yty[b] - n * mean * mean
        if tss > 0.0:
            r2[b] = 1.0 - rss / tss


def play_selfplay(seeds, prms, tables, vw, scores, xtx, xty, yty, count) -> None:
    """:func:`selfplay_moments` with the movers of prms' agents, compiled (or loaded from numba's cache) for
    first-class function movers, as the game loop is (:func:`boardlab.agents.citywright.play.entry_point`).

    Parameters
    ----------
    seeds : numpy.ndarray
        uint64, shape ``(G,)``: one seed per game.
    prms : numpy.ndarray
        float64, shape ``(G, players, P_LEN)``: each game's seats' rows.
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    vw : numpy.ndarray
        float64, shape ``(TURN_BUCKETS, N_FEATURES)``, read-only
        (:func:`boardlab.agents.citywright.strong.readonly_weights`): the learned value's weights.
    scores : numpy.ndarray
        int32, shape ``(G, players, SC_LEN)``: filled.
    xtx, xty, yty, count : numpy.ndarray
        The moments, added to (as :func:`selfplay_moments`').
    """
    movers, movers_type = movers_and_type(prms, tables, vw[None])
    args = (seeds, prms, tables, vw, scores, xtx, xty, yty, count, movers)
    entry_point(selfplay_moments, args, movers_type)(*args)
