"""The game loop for built-in agents: a whole batch of games without returning to Python.

``play_games`` takes one parameter row per seat (``agents.kernels.P_*``; the
code in column 0 picks the policy) and writes, per game and seat, the final
score breakdown, the boards, and the waste statistics.  Seats are given in
seat order; seating plans (rotation, permutation) are the caller's business.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import engine as E

from .kernels import A_GREEDY, A_MCTS, A_RANDOM, A_SPECIALIST, P_CODE, evaluator_move
from .mcts import mcts_move

N_STATS = 4  # tiles taken, waste, forced discards, turns


@njit(cache=True)
def policy_move(boards, st, rng, mv, prm, rp, shp, pl_mask, pl_info, pl_plain, pl_star_bit, pl_canon, ach):
    """Dispatch on the agent code of the seat to move (prm is that seat's row)."""
    code = int(prm[P_CODE])
    if code == A_RANDOM:
        E.random_move(boards, st, rng, mv, rp, shp, pl_mask)
    elif code == A_GREEDY or code == A_SPECIALIST:
        evaluator_move(boards, st, rng, mv, prm, rp, shp, pl_mask, pl_info, pl_plain, pl_star_bit, pl_canon, ach)
    elif code == A_MCTS:
        mcts_move(boards, st, rng, mv, prm, rp, shp, pl_mask, pl_info, pl_plain, pl_star_bit, pl_canon, ach)
    else:
        E.random_move(boards, st, rng, mv, rp, shp, pl_mask)


@njit(cache=True)
def play_game(boards, st, rng, seed, prms, rp, shp, pl_mask, pl_info, pl_plain, pl_star_bit, pl_canon, ach):
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    E.setup(boards, st, rng, seed, rp, shp)
    while st[E.ST_DONE] == 0:
        p = st[E.ST_CUR]
        policy_move(boards, st, rng, mv, prms[p], rp, shp, pl_mask, pl_info, pl_plain, pl_star_bit, pl_canon, ach)
        E.apply_move(boards, st, rng, mv, rp, shp, pl_info)


@njit(cache=True)
def play_games(seeds, prms, rp, shp, pl_mask, pl_info, pl_plain, pl_star_bit, pl_canon, ach, scores, boards_out, stats):
    """One game per seed with agents prms[g] (float64[G, players, P_LEN]).

    scores int32[G, players, SC_LEN]; boards_out uint64[G, players, 4];
    stats int32[G, players, N_STATS]: tiles taken, waste, forced discards, turns.
    """
    n = boards_out.shape[1]
    boards = np.zeros((n, 4), dtype=np.uint64)
    st = np.zeros(E.ST_LEN, dtype=np.int32)
    rng = np.zeros(2, dtype=np.uint64)
    for g in range(seeds.shape[0]):
        play_game(boards, st, rng, seeds[g], prms[g], rp, shp, pl_mask, pl_info, pl_plain, pl_star_bit, pl_canon, ach)
        E.final_scores(boards, st, rp, ach, scores[g])
        for p in range(n):
            for d in range(4):
                boards_out[g, p, d] = boards[p, d]
            stats[g, p, 0] = st[E.ST_TAKEN + p]
            stats[g, p, 1] = st[E.ST_WASTE + p]
            stats[g, p, 2] = st[E.ST_FORCED + p]
            stats[g, p, 3] = st[E.ST_TURNS + p]


def run_games(seeds: np.ndarray, prms: np.ndarray, tables):
    """Python convenience: allocate outputs and play (prms float64[G, players, P_LEN])."""
    g, n = prms.shape[0], prms.shape[1]
    scores = np.zeros((g, n, E.SC_LEN), dtype=np.int32)
    boards = np.zeros((g, n, 4), dtype=np.uint64)
    stats = np.zeros((g, n, N_STATS), dtype=np.int32)
    tb = tables
    play_games(
        np.ascontiguousarray(seeds, dtype=np.uint64),
        np.ascontiguousarray(prms, dtype=np.float64),
        tb.rp,
        tb.shp,
        tb.pl_mask,
        tb.pl_info,
        tb.pl_plain,
        tb.pl_star_bit,
        tb.pl_canon,
        tb.ach,
        scores,
        boards,
        stats,
    )
    return scores, boards, stats
