"""The recorded game loop: the built-in agents' games (as :mod:`boardlab.agents.cartographers.play` plays them)
with every decision recorded for the game-anatomy panel, without returning to Python.

Per decision it records the seat that decides, its kind (``draw`` or ``monster``: the phase), its number of legal
moves (``enumerate_moves``' count: ``Game.legal_moves()``'s length) and, after the move, every seat's running score
(``Game.progress``: its scored seasons' totals plus, while a season is under way, its coins).  The moves are the
game loop's, drawn from the same streams: the games are the ones ``play_games`` plays, move for move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.tables import N_SEASONS, RP_PLAYERS

from .kernels import A_RANDOM, P_CODE

KINDS = ("draw", "monster")  # a decision's kind: its phase (E.PHASE_DRAW, E.PHASE_MONSTER)


@njit(cache=True)
def seat_progress(st, p):
    """Seat p's running score: its scored seasons' totals, plus its coins while a season is under way.

    Parameters
    ----------
    st : numpy.ndarray
        int32[ST_LEN], the game state.
    p : int
        The seat.

    Returns
    -------
    int
        Its points so far.
    """
    total = 0
    for s in range(st[E.ST_SCORED]):
        total += st[E.ST_RECORDS + (p * N_SEASONS + s) * E.REC_LEN + E.REC_TOTAL]
    if st[E.ST_PHASE] != E.PHASE_DONE:
        total += st[E.ST_COINS + p]
    return total


@njit(cache=True)
def play_recorded_games(
    policy, seeds, prms, rp, cards, forms, form_anchors, walk, masks, vw, ws, scores, records, coins, edicts, planes,
    seat, kind, legal, progress, steps,
):  # fmt: skip
    """One game per seed with agents prms (float64[G, players, P_LEN]), each decision recorded.

    Parameters
    ----------
    policy, seeds, prms, rp, cards, forms, form_anchors, walk, masks, vw, ws :
        As :func:`boardlab.agents.cartographers.play.play_games` takes them (`policy`: policy_move, called by its
        address, compiled once on its own and not again inside this loop).
    scores, records, coins, edicts, planes : numpy.ndarray
        As play_games fills them.
    seat, kind, legal : numpy.ndarray
        int32[G, D]: per decision the seat that decides, its kind (index into KINDS) and its number of legal moves.
    progress : numpy.ndarray
        float64[G, D, players]: every seat's running score after each decision.
    steps : numpy.ndarray
        int64[G]: each game's number of decisions.  A game of more than D decisions raises ValueError.
    """
    n = rp[RP_PLAYERS]
    bb = np.zeros((n, E.N_PLANES, 2), dtype=np.uint64)
    st = np.zeros(E.ST_LEN, dtype=np.int32)
    rng = np.zeros(2, dtype=np.uint64)
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    count = np.zeros((1, E.MV_LEN), dtype=np.int32)
    for g in range(seeds.shape[0]):
        E.setup(bb, st, rng, seeds[g], rp, cards, forms, form_anchors, walk, masks)
        t = 0
        while st[E.ST_PHASE] != E.PHASE_DONE:
            if t >= seat.shape[1]:
                raise ValueError("more decisions than the recording holds")
            p = st[E.ST_CURRENT]
            seat[g, t] = p
            kind[g, t] = st[E.ST_PHASE]
            legal[g, t] = E.enumerate_moves(bb, st, rp, cards, forms, form_anchors, masks, np.int64(-2), count)
            prm = prms[g, p]
            if int(prm[P_CODE]) == A_RANDOM:  # as policy_move plays it, without the call by address (a cheap move)
                E.random_move(bb, st, rng, mv, rp, cards, forms, form_anchors, masks)
            else:
                policy(bb, st, rng, mv, prm, rp, cards, forms, form_anchors, walk, masks, vw, ws)
            E.apply_move(bb, st, rng, mv, rp, cards, forms, form_anchors, walk, masks)
            for q in range(n):
                progress[g, t, q] = seat_progress(st, q)
            t += 1
        steps[g] = t
        E.record_game(bb, st, rp, scores[g], records[g], coins[g], edicts[g], planes[g])
