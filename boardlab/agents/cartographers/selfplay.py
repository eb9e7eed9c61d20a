"""Training data for the strong agent's learned value (boardlab.agents.cartographers.value): self-play, summed into
least-squares moments.

Every decision gives one sample, for the map it draws on (the mover's own in a draw, the victim's in a
monster phase): the features of that map right after the move (:func:`boardlab.agents.cartographers.value.map_features`,
planner weights of the position) and the target, the points its owner still went on to score beyond what
the planner's value already counts::

    y = final total - points of the seasons already scored - planner value(map after the move)

so that planner value + learned value estimates the points still to come.  Samples are not kept past
their game; each is added to the moments of its bucket (:func:`boardlab.agents.cartographers.value.bucket`)::

    xtx[b] += f f^T     xty[b] += y f     yty[b] += y^2     count[b] += 1
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.tables import RP_PLAYERS

from .kernels import A_PLANNER, W_LEN, map_value, objective_weights
from .play import with_policy
from .strong import map_after
from .value import N_FEATURES, bucket, map_features

MAX_SAMPLES = 1024  # decisions of one game (5 seats x about 30 each, far below)


@njit(cache=True)
def selfplay_moments(policy, seeds, prms, rp, cards, forms, form_anchors, walk, masks, vw, ws, scores, xtx, xty, yty,
                     count):  # fmt: skip
    """Play one game per seed with agents prms[g] (float64[G, players, P_LEN]), strong seats with weights vw
    (float64[BUCKETS, N_FEATURES]) and scratch ws (boardlab.agents.cartographers.strong.workspace); add every
    decision's sample to the moments (float64 xtx[B, F, F], xty[B, F], yty[B]; int64 count[B]) and write the
    final scores into scores int32[G, players, SC_LEN].

    Seats move by `policy`, :func:`boardlab.agents.cartographers.play.policy_move` as a first-class function, as
    the game loop calls it: its machine code is the loop's, not linked into this kernel and compiled again (call
    it through :func:`play_selfplay`).

    Parameters
    ----------
    policy : FunctionType
        :func:`boardlab.agents.cartographers.play.policy_move` (:func:`boardlab.agents.cartographers.play.policy_type`).
    seeds : numpy.ndarray
        uint64, shape ``(G,)``: one seed per game.
    prms : numpy.ndarray
        float64, shape ``(G, players, P_LEN)``: each game's seats' rows.
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
    scores : numpy.ndarray
        int32, shape ``(G, players, SC_LEN)``: filled.
    xtx : numpy.ndarray
        float64, shape ``(BUCKETS, N_FEATURES, N_FEATURES)``: added to.
    xty : numpy.ndarray
        float64, shape ``(BUCKETS, N_FEATURES)``: added to.
    yty : numpy.ndarray
        float64, shape ``(BUCKETS,)``: added to.
    count : numpy.ndarray
        int64, shape ``(BUCKETS,)``: added to.
    """
    n = rp[RP_PLAYERS]
    bb = np.zeros((n, E.N_PLANES, 2), dtype=np.uint64)
    st = np.zeros(E.ST_LEN, dtype=np.int32)
    rng = np.zeros(2, dtype=np.uint64)
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    pl = np.zeros((E.N_PLANES, 2), dtype=np.uint64)
    w = np.zeros(W_LEN, dtype=np.int64)
    feats = np.zeros((MAX_SAMPLES, N_FEATURES), dtype=np.float64)
    owner = np.zeros(MAX_SAMPLES, dtype=np.int64)
    bucket_of = np.zeros(MAX_SAMPLES, dtype=np.int64)
    base = np.zeros(MAX_SAMPLES, dtype=np.float64)
    for g in range(seeds.shape[0]):
        E.setup(bb, st, rng, seeds[g], rp, cards, forms, form_anchors, walk, masks)
        t = 0
        while st[E.ST_PHASE] != E.PHASE_DONE:
            policy(bb, st, rng, mv, prms[g, st[E.ST_CURRENT]], rp, cards, forms, form_anchors, walk, masks, vw, ws)
            if t < MAX_SAMPLES:
                q = mv[E.MV_MAP]
                coins = map_after(bb, st, rp, cards, forms, masks, mv, pl)
                objective_weights(st, rp, A_PLANNER, w)
                map_features(pl, coins, w, st, rp, masks, feats[t])
                scored = 0
                for s in range(st[E.ST_SCORED]):
                    scored += st[E.ST_RECORDS + (q * E.N_SEASONS + s) * E.REC_LEN + E.REC_TOTAL]
                owner[t] = q
                bucket_of[t] = bucket(st, rp)
                base[t] = scored + map_value(pl, coins, w, st, rp, masks)
                t += 1
            E.apply_move(bb, st, rng, mv, rp, cards, forms, form_anchors, walk, masks)
        out = scores[g]
        E.final_scores(st, rp, out)
        for j in range(t):
            y = out[owner[j], E.SC_TOTAL] - base[j]
            b = bucket_of[j]
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


def play_selfplay(seeds, prms, tables, vw, ws, scores, xtx, xty, yty, count) -> None:
    """:func:`selfplay_moments` with :func:`boardlab.agents.cartographers.play.policy_move` by its address, compiled
    (or loaded from numba's cache) once per process and types, as the game loop is.

    Parameters
    ----------
    seeds : numpy.ndarray
        uint64, shape ``(G,)``: one seed per game.
    prms : numpy.ndarray
        float64, shape ``(G, players, P_LEN)``: each game's seats' rows.
    tables : Tables
        The rule set's tables (boardlab.sim.cartographers.tables).
    vw : numpy.ndarray
        float64, shape ``(BUCKETS, N_FEATURES)``, writable: strong's learned weights.
    ws : tuple
        strong's scratch (boardlab.agents.cartographers.strong.workspace).
    scores : numpy.ndarray
        int32, shape ``(G, players, SC_LEN)``: filled.
    xtx, xty, yty, count : numpy.ndarray
        The moments, added to (as :func:`selfplay_moments`').
    """
    tail = (*tables.kernel_args(), vw, ws)
    with_policy(selfplay_moments, tail, (seeds, prms, *tail, scores, xtx, xty, yty, count))
