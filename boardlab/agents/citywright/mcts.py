"""Monte Carlo tree search at the root, in numba over flat preallocated arrays.

Shape of the search (agent ``mcts``):

* **Candidates.** The greedy evaluator's k best distinct moves (exact worths,
  :func:`boardlab.agents.citywright.kernels.evaluator_search`) are the root's arms; the tile
  assignment and free pick come with each candidate, chosen by the evaluator.
* **Chance is re-sampled every iteration (determinisation).** The copy of the
  game a rollout plays gets fresh chance and policy streams drawn from the
  agent's own policy stream, so future markets, deals and opponents' choices
  differ between iterations while the visible position is the same.
* **Selection** by UCB1 over the arms (every arm tried once first).
* **Rollouts** by a fast policy (random, or greedy for a stronger but slower
  search) to the end of the game.
* **Reward**: the mover's win share (1/k for a k-way shared win), or with
  ``margin=1`` the score margin over the best opponent scaled to about [-1, 1].
* **Decision**: the most-visited arm.

Budget in iterations; deterministic given the game seed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardlab.sim.citywright import engine as E
from boardlab.sim.rng import CHANCE, POLICY, rng_next

from .kernels import (
    A_GREEDY,
    P_C,
    P_ITERS,
    P_K,
    P_LEN,
    P_MARGIN,
    P_PROGRESS_DISTRICT,
    P_ROLLOUT,
    P_W,
    P_W_ACH,
    evaluate_move,
    evaluate_with,
)


@njit(cache=True)
def _greedy_row():
    prm = np.zeros(P_LEN, dtype=np.float64)
    for d in range(4):
        prm[P_W + d] = 1.0
    prm[P_W_ACH] = 1.0
    prm[P_PROGRESS_DISTRICT] = -1.0
    return prm


@njit(cache=True)
def rollout(boards, st, rng, rollout_code, grow, tables, evaluate_fn=None):
    """Play the game to its end, every seat by the rollout policy (greedy with row grow, or random).

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(players, 4)``: each seat's R, C, P, I bitboards.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the game's chance and policy streams, advanced in place.
    rollout_code : int
        A_GREEDY, or random play.
    grow : numpy.ndarray
        float64, shape ``(P_LEN,)``: the greedy rollout's row.
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    evaluate_fn : first-class function or None
        evaluator_search by its address (mcts_move's); None: evaluator_search itself
        (:func:`boardlab.agents.citywright.kernels.evaluate_with`).
    """
    rp, shp, pl_mask, pl_info, _, _, _, _ = tables
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    while st[E.ST_DONE] == 0:
        if rollout_code == A_GREEDY:
            evaluate_move(evaluate_fn, boards, st, rng, mv, grow, tables)
        else:
            E.random_move(boards, st, rng, mv, rp, shp, pl_mask)
        E.apply_move(boards, st, rng, mv, rp, shp, pl_info)


@njit(cache=True)
def mcts_move(boards, st, rng, mv, prm, tables, evaluate_fn=None):
    """Fill mv with the search's choice for the seat to move; returns the iterations run.

    tables is ``Tables.kernel_args()``.

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(players, 4)``: each seat's R, C, P, I bitboards.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the game's chance and policy streams, advanced in place.
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: the move, filled.
    prm : numpy.ndarray
        float64, shape ``(P_LEN,)``: the agent's parameter row.
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    evaluate_fn : first-class function or None
        evaluator_search as the game loop passes it (play.search_policy_move): the root's candidates and the greedy
        rollouts call it through its address, so its machine code is not linked in here and compiled again; None:
        evaluator_search itself (:func:`boardlab.agents.citywright.kernels.evaluate_with`).
    """
    rp, shp, _, pl_info, _, _, _, ach = tables
    p = st[E.ST_CUR]
    n = boards.shape[0]
    k = max(1, int(prm[P_K]))
    iters = max(1, int(prm[P_ITERS]))
    c = prm[P_C]
    margin = prm[P_MARGIN] != 0.0
    rollout_code = int(prm[P_ROLLOUT])
    grow = _greedy_row()
    cand = np.zeros((k, E.MV_LEN), dtype=np.int32)
    cand_val = np.zeros(k, dtype=np.float64)
    _, ncand = evaluate_with(evaluate_fn, boards, st, rng, mv, grow, tables, cand, cand_val)
    if ncand <= 1:
        return 0
    visits = np.zeros(ncand, dtype=np.int64)
    total = np.zeros(ncand, dtype=np.float64)
    b2 = np.empty_like(boards)
    st2 = np.empty_like(st)
    rng2 = np.empty_like(rng)
    out = np.zeros((n, E.SC_LEN), dtype=np.int32)
    for it in range(iters):
        # select
        a = -1
        if it < ncand:
            a = it
        else:
            best = -1e300
            lg = np.log(it)
            for j in range(ncand):
                u = total[j] / visits[j] + c * np.sqrt(lg / visits[j])
                if u > best:
                    best = u
                    a = j
        # determinise and play out
        b2[:, :] = boards
        st2[:] = st
        rng2[CHANCE] = rng_next(rng, POLICY)
        rng2[POLICY] = rng_next(rng, POLICY)
        E.apply_move(b2, st2, rng2, cand[a], rp, shp, pl_info)
        rollout(b2, st2, rng2, rollout_code, grow, tables, evaluate_fn)
        E.final_scores(b2, st2, rp, ach, out)
        if margin:
            other = -1_000_000
            for q in range(n):
                if q != p and out[q, E.SC_TOTAL] > other:
                    other = out[q, E.SC_TOTAL]
            r = (out[p, E.SC_TOTAL] - other) / 50.0 if n > 1 else out[p, E.SC_TOTAL] / 100.0
        else:
            winners = 0
            for q in range(n):
                if out[q, E.SC_RANK] == 1:
                    winners += 1
            r = 1.0 / winners if out[p, E.SC_RANK] == 1 else 0.0
        visits[a] += 1
        total[a] += r
    a = 0
    for j in range(1, ncand):
        if visits[j] > visits[a] or (visits[j] == visits[a] and total[j] > total[a]):
            a = j
    mv[:] = cand[a]
    return iters
