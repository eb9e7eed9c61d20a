"""The recorded game loop: the built-in agents' games (as :mod:`boardlab.agents.citywright.play` plays them) with
every decision recorded for the game-anatomy panel, without returning to Python.

Per decision it records the seat that decides, its number of legal moves (as ``Game.legal_moves()`` lists them:
every distinct tile assignment and free pick of every legal placement, forced discards, swaps, or the one pass;
:func:`legal_count`) and, after the move, every seat's running score (``Game.progress``: the total
``final_scores`` gives for the boards as they stand).  Citywright names no decision kinds.  The moves are the game
loop's, drawn from the same streams: the games are the ones ``play_games`` plays, move for move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardlab.sim.bits import popcount
from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.rules import N_EDGE_SLOTS, N_SLOTS
from boardlab.sim.citywright.tables import (
    MAX_SHAPES,
    RP_DEPLETES,
    RP_SWAP,
    RP_SWAP_NEEDS_EMPTY,
    SHP_PL_END,
    SHP_PL_START,
    SHP_STAR,
)

from .kernels import P_VALUE
from .play import search_policy_move

_FACTORIAL = (1, 1, 2, 6, 24)


@njit(cache=True)
def legal_count(boards, st, rp, shp, pl_mask):
    """How many moves ``Game.legal_moves()`` lists for the seat to move (0 when the game is over).

    Parameters
    ----------
    boards : numpy.ndarray
        uint64[players, 4], the bitboards.
    st : numpy.ndarray
        int32[ST_LEN], the game state.
    rp, shp, pl_mask : numpy.ndarray
        The rule parameters, shape table and placement masks (``Tables``).

    Returns
    -------
    int
        The number of legal moves.
    """
    if st[E.ST_DONE] != 0:
        return 0
    p = st[E.ST_CUR]
    occ = boards[p, 0] | boards[p, 1] | boards[p, 2] | boards[p, 3]
    n_empty = popcount(~occ & E._VALID)
    any_open = False
    total = 0
    for s in range(N_SLOTS):
        shape = st[E.ST_SLOTS + s]
        if shape < 0:
            continue
        any_open = True
        # distinct orders of the line's 4 tiles (a gone tile, -1, is one more value): 4! / prod(count!)
        counts = np.zeros(5, dtype=np.int64)
        for k in range(4):
            counts[st[E.ST_MARKET + E.line_cell(s, k)] + 1] += 1
        perms = 24
        for v in range(5):
            perms //= _FACTORIAL[counts[v]]
        frees = 1
        if shp[shape, SHP_STAR] >= 0 and rp[RP_DEPLETES] != 0:
            present = 0
            for d in range(4):
                found = False
                for c in range(16):
                    if st[E.ST_MARKET + c] == d:
                        in_line = False
                        for k in range(4):
                            if E.line_cell(s, k) == c:
                                in_line = True
                        if not in_line:
                            found = True
                present += 1 if found else 0
            frees = max(present, 1)
        elif shp[shape, SHP_STAR] >= 0:
            frees = 4
        placements = 0
        for pl in range(shp[shape, SHP_PL_START], shp[shape, SHP_PL_END]):
            if pl_mask[pl] & occ == 0:
                placements += 1
        total += placements * perms * frees if placements > 0 else 1  # none: the forced discard
        if rp[RP_SWAP] != 0 and s >= N_EDGE_SLOTS:
            if n_empty > 0:
                total += 4 * n_empty
            elif rp[RP_SWAP_NEEDS_EMPTY] == 0:
                total += 4
    return total if any_open else 1  # no ruler left: the pass


@njit(cache=True)
def play_recorded_games(seeds, prms, tables, scores, boards_out, stats, seat, legal, progress, steps, bank, movers):
    """One game per seed with agents prms[g] (float64[G, players, P_LEN]), each decision recorded.

    Parameters
    ----------
    seeds : numpy.ndarray
        uint64[G].
    prms : numpy.ndarray
        float64[G, players, P_LEN], the agents per seat.
    tables : tuple
        ``Tables.kernel_args()``.
    scores, boards_out, stats : numpy.ndarray
        As :func:`boardlab.agents.citywright.play.play_games` fills them.
    seat, legal : numpy.ndarray
        int32[G, D]: per decision the seat that decides and its number of legal moves (D: the most decisions a
        game can have).
    progress : numpy.ndarray
        float64[G, D, players]: every seat's running score after each decision.
    steps : numpy.ndarray
        int64[G]: each game's number of decisions.
    bank : numpy.ndarray
        As play_games'.
    movers : tuple
        As play_games': the agents' move kernels, called by address.
    """
    rp, shp, pl_mask, pl_info, _, _, _, ach = tables
    n = boards_out.shape[1]
    boards = np.zeros((n, 4), dtype=np.uint64)
    st = np.zeros(E.ST_LEN, dtype=np.int32)
    rng = np.zeros(2, dtype=np.uint64)
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    now = np.zeros((n, E.SC_LEN), dtype=np.int32)
    for g in range(seeds.shape[0]):
        E.setup(boards, st, rng, seeds[g], rp, shp)
        t = 0
        while st[E.ST_DONE] == 0:
            p = st[E.ST_CUR]
            seat[g, t] = p
            legal[g, t] = legal_count(boards, st, rp, shp, pl_mask)
            search_policy_move(boards, st, rng, mv, prms[g, p], tables, bank[int(prms[g, p, P_VALUE])], movers)
            E.apply_move(boards, st, rng, mv, rp, shp, pl_info)
            E.final_scores(boards, st, rp, ach, now)
            for q in range(n):
                progress[g, t, q] = now[q, E.SC_TOTAL]
            t += 1
        steps[g] = t
        E.final_scores(boards, st, rp, ach, scores[g])
        for q in range(n):
            for d in range(4):
                boards_out[g, q, d] = boards[q, d]
            stats[g, q, E.STAT_TAKEN] = st[E.ST_TAKEN + q]
            stats[g, q, E.STAT_WASTE] = st[E.ST_WASTE + q]
            stats[g, q, E.STAT_FORCED] = st[E.ST_FORCED + q]
            stats[g, q, E.STAT_TURNS] = st[E.ST_TURNS + q]
            for sh in range(MAX_SHAPES):
                stats[g, q, E.STAT_PLACED + sh] = st[E.ST_PLACED + q * MAX_SHAPES + sh]
