"""Flat Monte Carlo over the evaluator's best moves: the search behind the ``expert`` tier.

Design notes: docs/games/citywright/search.md#flatmc-module.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.rules import N_SLOTS
from boardlab.sim.citywright.tables import MARKET_CELLS, MAX_SHAPES, RP_N_SHAPES, RP_ROUNDS, RP_TURNS
from boardlab.sim.rng import CHANCE, POLICY, rand_below, rng_next

from .kernels import (
    A_GREEDY,
    P_C,
    P_CRN,
    P_CUT,
    P_HORIZON,
    P_ITERS,
    P_K,
    P_LATER_TURNS,
    P_LEAF,
    P_MARGIN,
    P_MEMO,
    P_OPP_SLOTS,
    P_OWN_K,
    P_OWN_MEMO,
    P_OWN_POLICY,
    P_OWN_ROUNDS,
    P_OWN_TURNS,
    P_PER_SLOT,
    P_PRUNE,
    P_RANK,
    P_REPEAT,
    P_ROLLOUT,
    P_RULER_MEMO,
    P_SELECT,
    P_SHARE,
    P_TAPER,
    evaluate_move,
    evaluate_with,
    own_achievements,
    search_offer_apart,
    search_setup,
)
from .mcts import _greedy_row
from .strong import board_after, new_ruler_memo, ruler_key, strong_move, value_weights
from .value import N_FEATURES, board_features, opponents_best, turn_bucket, turns_left_after

SELECT_HALVING = 0
SELECT_UCB = 1
SELECT_UNIFORM = 2

# The playouts' move memo: one entry per (seat, its board and recorded shapes, the round's offer),
# open addressing over _MEMO_SIZE entries, _MEMO_PROBES probes.
_MEMO_SIZE = 4096
_RULER_MEMO_SIZE = 4096  # the one-ruler searches' memo (ruler_memo): entries
_MEMO_PROBES = 8
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def _mix(h, x):
    """SplitMix64's finaliser over h xor x: a hash step."""
    z = (h ^ np.uint64(x)) + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _offer_key(st):
    """The round's offer: round, slots and market (hashed at the round's start, or at the root)."""
    h = _mix(np.uint64(0), st[E.ST_ROUND])
    for s in range(N_SLOTS):
        h = _mix(h, st[E.ST_SLOTS + s] + 2)
    for c in range(MARKET_CELLS):
        h = _mix(h, st[E.ST_MARKET + c] + 2)
    return h


@njit(cache=True)
def _position_key(boards, st, q, offer, n_shapes):
    """What a greedy move of seat q depends on, besides which slots are still open: its board and
    recorded shapes, the market and the round's offer (the slots' contents)."""
    h = _mix(offer, q + 1)
    for d in range(4):
        h = _mix(h, boards[q, d])
    for s in range(n_shapes):
        h = _mix(h, st[E.ST_PLACED + q * MAX_SHAPES + s])
    for c in range(MARKET_CELLS):
        h = _mix(h, st[E.ST_MARKET + c] + 2)
    return h | np.uint64(1)  # 0 marks an empty entry


@njit(cache=True)
def _open_slots(st):
    m = 0
    for s in range(N_SLOTS):
        if st[E.ST_SLOTS + s] >= 0:
            m |= 1 << s
    return m


# counters of one search (flatmc_search), for tests and measurements
C_PLAYOUTS = 0  # playouts played
C_REPEATED = 1  # playouts counted again by `repeat` instead of played
C_OWN_SEARCHES = 2  # the mover's strong moves searched in playouts (not from the memo)
C_OPP_SEARCHES = 3  # greedy moves searched in playouts (not from the memo)
C_HITS = 4  # playout moves from the memo
C_RULER_SEARCHES = 5  # one-ruler searches remembered by ruler_memo
C_RULER_HITS = 6  # one-ruler searches taken from it
N_COUNTERS = 7
_TRACE = 64  # memo entries a playout's trace records (trace[0] counts them; more: not repeatable)
_STRONG_TAG = np.uint64(0x5354524F4E47)


@njit(cache=True)
def _strong_key(h, boards, st, q):
    """The strong move's key beyond the greedy move's (_position_key): its value also depends on the mover's
    turns played (the learned value's bucket) and the opponents' boards (their best score per district)."""
    h = _mix(h, _STRONG_TAG)
    h = _mix(h, st[E.ST_TURNS + q])
    for r in range(boards.shape[0]):
        if r != q:
            for d in range(4):
                h = _mix(h, boards[r, d])
    return h | np.uint64(1)


@njit(cache=True, inline="always")
def _stamp(memo_stamp, j):
    """Record a write of entry j: memo_stamp[-1] counts writes, memo_stamp[j] is the count at j's last."""
    if memo_stamp.shape[0] > 0:
        memo_stamp[-1] += 1
        memo_stamp[j] = memo_stamp[-1]


def strong_call(strong_fn, boards, st, rng, mv, row, tables, vw, shared, rulers):
    """strong_move's move and value, through strong_fn when it is given (strong_move as a first-class function,
    the game loop's), else strong_move itself.  Chosen by type when numba compiles the caller: with a first-class
    function strong_move's machine code is not linked into the caller (docs/architecture/compile-time.md).

    Parameters
    ----------
    strong_fn : first-class function or None
        strong_move, called through its address; None: strong_move called directly.
    boards, st, rng, mv, row, tables, vw, shared, rulers
        As strong_move's (row: its prm).

    Returns
    -------
    float
        strong_move's value.
    """
    return (strong_move if strong_fn is None else strong_fn)(boards, st, rng, mv, row, tables, vw, shared, rulers)


@overload(strong_call)
def _strong_call(strong_fn, boards, st, rng, mv, row, tables, vw, shared, rulers):
    # numba prunes `strong_fn is None` only when strong_fn is None; a first-class function needs the choice here
    if strong_fn is None or isinstance(strong_fn, (types.NoneType, types.Omitted)):
        return lambda strong_fn, boards, st, rng, mv, row, tables, vw, shared, rulers: strong_move(
            boards, st, rng, mv, row, tables, vw, shared, rulers
        )
    return lambda strong_fn, boards, st, rng, mv, row, tables, vw, shared, rulers: strong_fn(
        boards, st, rng, mv, row, tables, vw, shared, rulers
    )


@njit(cache=True)
def _memo_move(boards, st, rng, mv, row, memo_key, memo_open, memo_val, memo_mv, offer, st_tmp,
               tables, strong=False, memo_stamp=None, trace=None, counters=None, shared=False,
               rulers=None, vw=None, strong_fn=None, evaluate_fn=None):  # fmt: skip
    """The evaluator's move (strong: the strong tier's, by row) for the seat to move, by way of the memo.

    An entry holds the best move of a position (_position_key; strong moves also _strong_key) over a set
    of open slots.  A move's worth (or value) does not depend on which other slots are open, so if the
    remembered move's slot is still open it is the best over the open slots the entry covers; slots open
    now that it does not cover are searched alone (the other slots closed in a copy of the state) and
    the better of the two kept, and the entry then covers both sets.  Otherwise the position is
    searched in full.  Ties keep the remembered move (a greedy, or strong, move all the same).

    memo_stamp (int64[entries + 1] or empty): every write stamped (_stamp); trace (int64[_TRACE]): the
    entries read are appended (trace[0] counts them); counters (int64[N_COUNTERS]): searches and hits.
    vw: the strong moves' value weights (None: the committed ones).  strong_fn: strong_move as a first-class
    function (the game loop's, play.search_policy_move), called through its address so its machine code is not
    linked in here; None: strong_move itself.  evaluate_fn: evaluator_search likewise
    (:func:`boardlab.agents.citywright.kernels.evaluate_with`).
    """
    weights = value_weights(vw)
    q = st[E.ST_CUR]
    h = _position_key(boards, st, q, offer, tables[0][RP_N_SHAPES])
    if strong:
        h = _strong_key(h, boards, st, q)
    open_now = _open_slots(st)
    home = np.int64(h & np.uint64(_MEMO_SIZE - 1))
    at = home
    for i in range(_MEMO_PROBES):
        j = (home + i) & (_MEMO_SIZE - 1)
        if memo_key[j] == h:
            slot = memo_mv[j, E.MV_SLOT]
            if slot < 0 or not (open_now >> slot) & 1:
                at = j
                break
            if trace is not None:
                n = trace[0]
                if n + 1 < _TRACE:
                    trace[n + 1] = j
                trace[0] = n + 1
            extra = open_now & ~memo_open[j]
            if extra != 0:
                st_tmp[:] = st
                for s in range(N_SLOTS):
                    if not (extra >> s) & 1:
                        st_tmp[E.ST_SLOTS + s] = -1
                if strong:
                    v = strong_call(strong_fn, boards, st_tmp, rng, mv, row, tables, weights, shared, rulers)
                else:
                    v = evaluate_move(evaluate_fn, boards, st_tmp, rng, mv, row, tables)
                if counters is not None:
                    counters[C_OWN_SEARCHES if strong else C_OPP_SEARCHES] += 1
                memo_open[j] |= open_now
                if memo_stamp is not None:
                    _stamp(memo_stamp, j)
                if v > memo_val[j] + 1e-9:
                    memo_val[j] = v
                    memo_mv[j] = mv
                    return
            elif counters is not None:
                counters[C_HITS] += 1
            mv[:] = memo_mv[j]
            return
        if memo_key[j] == 0:
            at = j
            break
    if strong:
        v = strong_call(strong_fn, boards, st, rng, mv, row, tables, weights, shared, rulers)
    else:
        v = evaluate_move(evaluate_fn, boards, st, rng, mv, row, tables)
    if counters is not None:
        counters[C_OWN_SEARCHES if strong else C_OPP_SEARCHES] += 1
    memo_key[at] = h
    memo_open[at] = open_now
    memo_val[at] = v
    memo_mv[at] = mv
    if memo_stamp is not None:
        _stamp(memo_stamp, at)


@njit(cache=True)
def playout(
    boards, st, rng, me, own_row, other_row, rollout_code, last_round, opp_slots,
    memo_key, memo_open, memo_val, memo_mv, offer,
    tables, own_turns=-1, own_strong=False, own_memo=False, memo_stamp=None, trace=None, counters=None,
    shared=False, strong_last_round=-1, rulers=None, later_turns=-1, cut_at_move=False, vw=None, strong_fn=None,
    evaluate_fn=None,
):  # fmt: skip
    """Play on until the game ends or round `last_round` is over: seat `me` greedy by own_row,
    the others by other_row (rollout_code A_GREEDY), or every seat at random.

    opp_slots > 0: an opponent's greedy move considers only that many of the open slots, drawn at
    random (a cheaper, weaker model of the opponents).  With a memo (memo_key.shape[0] > 0;
    offer: the root's _offer_key) greedy moves are looked up and remembered there (_memo_move).
    own_turns >= 0: the playout also stops when seat `me` is to move after that many own moves.
    own_strong: seat me's moves are the strong tier's (boardlab.agents.citywright.strong, by own_row's objective);
    own_memo: those too by way of the memo; shared: strong_move's; strong_last_round >= 0: strong only up to
    that round, greedy (by own_row) after; rulers: strong_move's; later_turns >= 0: it also stops when seat
    `me` is to move after that many own moves in rounds after the first; cut_at_move: those two stop it
    right after that own move instead, before the others reply.  memo_stamp, trace, counters, vw, strong_fn:
    as _memo_move's.

    Returns (moved, clean): whether it made a move, and whether rng was untouched until its last move
    was applied.  A clean playout is a function of its start and the memo entries it read: the last
    move's draws (a round's cleanup: the next market and rulers) are never seen by the reward.

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(players, 4)``: each seat's R, C, P, I bitboards.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the game's chance and policy streams, advanced in place.
    me : int
        The seat searching.
    own_row : numpy.ndarray
        float64, shape ``(P_LEN,)``: seat `me`'s row in the playout.
    other_row : numpy.ndarray
        float64, shape ``(P_LEN,)``: the other seats' row.
    rollout_code : int
        A_GREEDY, or random play.
    last_round : int
        The last round played.
    opp_slots : int
        Open slots an opponent's greedy move considers (0: all).
    memo_key : numpy.ndarray
        uint64, shape ``(entries,)``: the memo's keys (no entries: no memo).
    memo_open : numpy.ndarray
        int64, shape ``(entries,)``: the memo's open slots.
    memo_val : numpy.ndarray
        float64, shape ``(entries,)``: the memo's values.
    memo_mv : numpy.ndarray
        int32, shape ``(entries, MV_LEN)``: the memo's moves.
    offer : numpy.uint64
        The root's offer key (``_offer_key``).
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    own_turns : int
        Stop after that many own moves (-1: never) (see the summary above).
    own_strong : bool
        Seat `me` plays the strong tier (see the summary above).
    own_memo : bool
        Seat `me`'s moves through the memo (see the summary above).
    memo_stamp : numpy.ndarray or None
        As _memo_move's.
    trace : numpy.ndarray or None
        As _memo_move's.
    counters : numpy.ndarray or None
        int64, shape ``(N_COUNTERS,)``: added to.
    shared : bool
        Share the board's setup between the rulers' searches (strong_move's).
    strong_last_round : int
        Strong only up to this round (-1: throughout) (see the summary above).
    rulers : tuple or None
        A ruler memo (:func:`new_ruler_memo`), or None.
    later_turns : int
        Stop after that many own moves in later rounds (-1: never) (see the summary above).
    cut_at_move : bool
        Stop right after that own move (see the summary above).
    vw : numpy.ndarray or None
        float64, shape ``(TURN_BUCKETS, N_FEATURES)``: the learned value's weights (None: the committed ones).
    strong_fn : first-class function or None
        strong_move called through its address (the game loop's), or None: strong_move itself (:func:`strong_call`).
    evaluate_fn : first-class function or None
        evaluator_search likewise, or None: evaluator_search itself
        (:func:`boardlab.agents.citywright.kernels.evaluate_with`).
    """
    rp, shp, pl_mask, pl_info, _, _, _, _ = tables
    weights = value_weights(vw)
    own_moves = 0
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    memo = memo_key.shape[0] > 0
    st_tmp = np.empty_like(st)
    st_sub = np.empty_like(st)
    open_list = np.zeros(N_SLOTS, dtype=np.int64)
    rnd = st[E.ST_ROUND]
    first_round = rnd
    later_moves = 0
    r0 = rng[0]
    r1 = rng[1]
    moved = False
    clean = True
    if cut_at_move and own_turns == 0:
        return moved, clean
    while st[E.ST_DONE] == 0 and st[E.ST_ROUND] <= last_round:
        mine = st[E.ST_CUR] == me
        if mine:
            if own_turns >= 0 and own_moves >= own_turns:
                break
            if st[E.ST_ROUND] > first_round:
                if later_turns >= 0 and later_moves >= later_turns:
                    break
                later_moves += 1
            own_moves += 1
            if own_strong and (strong_last_round < 0 or st[E.ST_ROUND] <= strong_last_round):
                if own_memo and memo:
                    if st[E.ST_ROUND] != rnd:
                        rnd = st[E.ST_ROUND]
                        offer = _offer_key(st)
                    _memo_move(boards, st, rng, mv, own_row, memo_key, memo_open, memo_val, memo_mv, offer, st_tmp,
                               tables, np.bool_(True), memo_stamp, trace, counters, shared, rulers,
                               weights, strong_fn, evaluate_fn)  # fmt: skip
                else:
                    strong_call(strong_fn, boards, st, rng, mv, own_row, tables, weights, shared, rulers)
                    if counters is not None:
                        counters[C_OWN_SEARCHES] += 1
                moved = True
                clean = clean and rng[0] == r0 and rng[1] == r1
                E.apply_move(boards, st, rng, mv, rp, shp, pl_info)
                if cut_at_move and _last_own_move(own_turns, own_moves, later_turns, later_moves):
                    break
                continue
        if rollout_code == A_GREEDY:
            row = own_row
            view = st
            if st[E.ST_CUR] != me:
                row = other_row
                if opp_slots > 0:
                    nopen = 0
                    for s in range(N_SLOTS):
                        if st[E.ST_SLOTS + s] >= 0:
                            open_list[nopen] = s
                            nopen += 1
                    if nopen > opp_slots:
                        st_sub[:] = st
                        for i in range(opp_slots):  # a random opp_slots of them kept open, the rest closed
                            j = i + rand_below(rng, POLICY, nopen - i)
                            t = open_list[i]
                            open_list[i] = open_list[j]
                            open_list[j] = t
                        for i in range(opp_slots, nopen):
                            st_sub[E.ST_SLOTS + open_list[i]] = -1
                        view = st_sub
            if memo:
                if st[E.ST_ROUND] != rnd:
                    rnd = st[E.ST_ROUND]
                    offer = _offer_key(st)
                _memo_move(boards, view, rng, mv, row, memo_key, memo_open, memo_val, memo_mv, offer, st_tmp,
                           tables, np.bool_(False), memo_stamp, trace, counters, shared, rulers,
                           weights, strong_fn, evaluate_fn)  # fmt: skip
            else:
                evaluate_move(evaluate_fn, boards, view, rng, mv, row, tables)
                if counters is not None:
                    counters[C_OPP_SEARCHES] += 1
        else:
            E.random_move(boards, st, rng, mv, rp, shp, pl_mask)
        moved = True
        clean = clean and rng[0] == r0 and rng[1] == r1
        E.apply_move(boards, st, rng, mv, rp, shp, pl_info)
        if mine and cut_at_move and _last_own_move(own_turns, own_moves, later_turns, later_moves):
            break
    return moved, clean


@njit(cache=True, inline="always")
def _last_own_move(own_turns, own_moves, later_turns, later_moves):
    """Whether the mover's own move just played is the last its playout allows (turns, later_turns)."""
    return (own_turns >= 0 and own_moves >= own_turns) or (later_turns >= 0 and later_moves >= later_turns > 0)


@njit(cache=True)
def _leaf_estimates(boards, st, rp, ach, est, vw=None):
    """est[q]: seat q's expected final board points from an unfinished position: its district points, the
    achievements its board has decided, and the strong tier's learned value of the points it will still
    score (boardlab.agents.citywright.value; the same weights, by its own turns left).  Compensation is left out,
    as in the margin reward.  vw: the value weights (None: the committed ones)."""
    weights = value_weights(vw)
    n = boards.shape[0]
    opp = np.empty(4, dtype=np.int64)
    f = np.empty(N_FEATURES, dtype=np.float64)
    placed = np.empty(MAX_SHAPES, dtype=np.int32)
    own_turns = rp[RP_ROUNDS] * rp[RP_TURNS]
    for q in range(n):
        b0, b1, b2, b3 = boards[q, 0], boards[q, 1], boards[q, 2], boards[q, 3]
        for s in range(MAX_SHAPES):
            placed[s] = st[E.ST_PLACED + q * MAX_SHAPES + s]
        r, c, k, i, _ = E.score_districts(b0, b1, b2, b3, rp)
        v = float(r + c + k + i + own_achievements(b0, b1, b2, b3, placed, rp, ach))
        left = own_turns - st[E.ST_TURNS + q]
        if left > 0:
            opponents_best(boards, np.int32(q), rp, opp)  # a seat is int32, as the engine state holds it
            board_features(b0, b1, b2, b3, placed, opp, rp, ach, f)
            w = weights[turn_bucket(left)]
            for j in range(N_FEATURES):
                v += w[j] * f[j]
        est[q] = v


@njit(cache=True)
def _reward(boards, st, p, margin, leaf, out, est, rp, ach, vw=None):
    """The mover's reward in the (possibly unfinished) position: win share or scaled margin.

    The margin is of board points (the total without compensation), so the margin reward never sees
    compensation: like greedy's and strong's objectives, and so a seat table of its games re-ranked
    under another compensation vector is exactly what that vector would give.  The win share is by
    the final ranking, compensation included.

    With `leaf` and the game unfinished, from the learned estimates of every seat's final total
    (_leaf_estimates, by the value weights vw) rather than the points on the boards now."""
    n = boards.shape[0]
    if leaf and st[E.ST_DONE] == 0:
        _leaf_estimates(boards, st, rp, ach, est, value_weights(vw))
        if margin:
            if n == 1:
                return est[p] / 100.0
            other = -1e300
            for q in range(n):
                if q != p and est[q] > other:
                    other = est[q]
            return (est[p] - other) / 50.0
        best = -1e300
        for q in range(n):
            best = max(best, est[q])
        ties = 0
        for q in range(n):
            if est[q] == best:
                ties += 1
        return 1.0 / ties if est[p] == best else 0.0
    E.final_scores(boards, st, rp, ach, out)
    if margin:
        if n == 1:
            return (out[p, E.SC_TOTAL] - out[p, E.SC_COMP]) / 100.0
        other = -1_000_000
        for q in range(n):
            if q != p and out[q, E.SC_TOTAL] - out[q, E.SC_COMP] > other:
                other = out[q, E.SC_TOTAL] - out[q, E.SC_COMP]
        return (out[p, E.SC_TOTAL] - out[p, E.SC_COMP] - other) / 50.0
    winners = 0
    for q in range(n):
        if out[q, E.SC_RANK] == 1:
            winners += 1
    return 1.0 / winners if out[p, E.SC_RANK] == 1 else 0.0


@njit(cache=True)
def _streams(rng, seeds, ndrawn, j, crn, rng2):
    """Fill rng2 with a playout's streams: the j-th common pair (drawn from the policy stream on
    first use, so in order) or a fresh pair; returns how many common pairs are drawn."""
    if not crn:
        rng2[CHANCE] = rng_next(rng, POLICY)
        rng2[POLICY] = rng_next(rng, POLICY)
        return ndrawn
    if j == ndrawn:
        seeds[j, 0] = rng_next(rng, POLICY)
        seeds[j, 1] = rng_next(rng, POLICY)
        ndrawn += 1
    rng2[CHANCE] = seeds[j, 0]
    rng2[POLICY] = seeds[j, 1]
    return ndrawn


@njit(cache=True, inline="always")
def _keep_k_best(cand, cand_val, n, move, v):
    """Offer `move` worth v to the n best kept so far (cand, cand_val, best first, at most k = cand.shape[0]):
    inserted after every equal one (ties keep the visiting order), the k-th dropped when full.  Returns the new n."""
    k = cand.shape[0]
    if n == k and v <= cand_val[k - 1]:
        return n
    pos = n if n < k else k - 1
    while pos > 0 and cand_val[pos - 1] < v:
        if pos < k:
            cand_val[pos] = cand_val[pos - 1]
            cand[pos] = cand[pos - 1]
        pos -= 1
    cand_val[pos] = v
    cand[pos] = move
    return min(n + 1, k)


@njit(cache=True)
def candidates_per_slot(
    boards, st, rng, mv, prm, per_slot, tables,
    cand, cand_val, evaluate_fn=None,
):  # fmt: skip
    """The k best moves (k = cand.shape[0]) with at most `per_slot` from any one slot, best first.

    The evaluator's k best moves are mostly placements and tile assignments of one or two slots
    (a move's worth is often tied with many others'), so the candidates would explore little.
    Here each open slot is searched alone (the others closed in a copy of the state; a slot
    giving the same shape and tiles as one already searched is skipped, as the evaluator does)
    for its `per_slot` best moves, and the k best of these are kept.  Slots are visited from a
    random offset, so ties between slots are broken by the policy stream.  The swap (two
    players) is kept from the first corner searched only.  Returns the number of candidates;
    mv is the first.

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
    per_slot : int
        The most candidates from one slot.
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    cand : numpy.ndarray
        int32, shape ``(k, MV_LEN)``: the candidates, filled.
    cand_val : numpy.ndarray
        float64, shape ``(k,)``: their values, filled.
    evaluate_fn : first-class function or None
        evaluator_search by its address (flatmc_search's), or None: evaluator_search itself
        (:func:`boardlab.agents.citywright.kernels.evaluate_with`).
    """
    pool = np.zeros((N_SLOTS * per_slot, E.MV_LEN), dtype=np.int32)
    pool_val = np.zeros(N_SLOTS * per_slot, dtype=np.float64)
    one = np.zeros((per_slot, E.MV_LEN), dtype=np.int32)
    one_val = np.zeros(per_slot, dtype=np.float64)
    seen = np.zeros(N_SLOTS, dtype=np.int64)
    st_tmp = np.empty_like(st)
    npool = 0
    nseen = 0
    swap_kept = False
    off = rand_below(rng, POLICY, N_SLOTS)
    for si in range(N_SLOTS):
        slot = (si + off) % N_SLOTS
        shape = st[E.ST_SLOTS + slot]
        if shape < 0:
            continue
        key = shape
        for j in range(4):
            key = key * 8 + st[E.ST_MARKET + E.line_cell(slot, j)] + 2
        dup = False
        for j in range(nseen):
            if seen[j] == key:
                dup = True
        if dup:
            continue
        seen[nseen] = key
        nseen += 1
        st_tmp[:] = st
        for s in range(N_SLOTS):
            if s != slot:
                st_tmp[E.ST_SLOTS + s] = -1
        _, n1 = evaluate_with(evaluate_fn, boards, st_tmp, rng, mv, prm, tables, one, one_val)
        had_swap = False
        for i in range(n1):
            if one[i, E.MV_KIND] == E.K_SWAP:
                if swap_kept:
                    continue
                had_swap = True
            pool[npool] = one[i]
            pool_val[npool] = one_val[i]
            npool += 1
        swap_kept = swap_kept or had_swap
    if npool == 0:  # no slot open: the evaluator's pass
        _, n = evaluate_with(evaluate_fn, boards, st, rng, mv, prm, tables, cand, cand_val)
        return n
    # the k best, stable (ties keep the visiting order)
    n = 0
    for i in range(npool):
        n = _keep_k_best(cand, cand_val, n, pool[i], pool_val[i])
    mv[:] = cand[0]
    return n


@njit(cache=True)
def candidates_by_value(
    boards, st, rng, mv, prm, per_slot, tables, cand, cand_val, shared=False, vw=None, evaluate_fn=None
):
    """The k best moves (k = cand.shape[0]) by the strong tier's value, best first: each ruler's `per_slot` best
    moves by worth (its objective, exact), ranked by worth + the learned value of the mover's board after the
    move (boardlab.agents.citywright.strong's two passes, with every ruler's moves kept instead of the best one).

    Rulers giving the same shape and tiles count once; ties keep the visiting order.  shared: as strong_move's
    (one setup of the board for every ruler's search; the same result); vw: the value weights (None: the
    committed ones).  Returns the number of candidates; mv is the first.

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
    per_slot : int
        The most candidates from one slot.
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    cand : numpy.ndarray
        int32, shape ``(k, MV_LEN)``: the candidates, filled.
    cand_val : numpy.ndarray
        float64, shape ``(k,)``: their values, filled.
    shared : bool
        Share the board's setup between the rulers' searches (strong_move's).
    vw : numpy.ndarray or None
        float64, shape ``(TURN_BUCKETS, N_FEATURES)``: the learned value's weights (None: the committed ones).
    evaluate_fn : first-class function or None
        evaluator_search by its address (flatmc_search's), or None: evaluator_search itself
        (:func:`boardlab.agents.citywright.kernels.evaluate_with`).
    """
    rp, shp, _, pl_info, _, _, _, ach = tables
    p = st[E.ST_CUR]
    opp = np.empty(4, dtype=np.int64)
    opponents_best(boards, p, rp, opp)
    w = value_weights(vw)[turn_bucket(turns_left_after(st, rp, p))]
    f = np.empty(N_FEATURES, dtype=np.float64)
    nb = np.empty(4, dtype=np.uint64)
    placed = np.empty(MAX_SHAPES, dtype=np.int32)
    one = np.zeros((per_slot, E.MV_LEN), dtype=np.int32)
    one_val = np.zeros(per_slot, dtype=np.float64)
    seen = np.zeros(N_SLOTS, dtype=np.int64)
    st_one = st.copy()
    nseen = 0
    n = 0
    if shared:
        placed0, board0, ws, base, facts, prunable, ach_open = search_setup(boards, st, prm, tables)
    for slot in range(N_SLOTS):
        shape = st[E.ST_SLOTS + slot]
        if shape < 0:
            continue
        key = ruler_key(st, slot, shape)
        dup = False
        for j in range(nseen):
            if seen[j] == key:
                dup = True
        if dup:
            continue
        seen[nseen] = key
        nseen += 1
        for s in range(N_SLOTS):
            st_one[E.ST_SLOTS + s] = shape if s == slot else -1
        if shared:
            _, n1 = search_offer_apart(st_one, rng, mv, prm, tables, one, one_val, placed0, board0, ws, base, facts,
                                       prunable, ach_open)  # fmt: skip
        else:
            _, n1 = evaluate_with(evaluate_fn, boards, st_one, rng, mv, prm, tables, one, one_val)
        for i in range(n1):
            board_after(boards, st, p, one[i], shp, pl_info, nb, placed)
            board_features(nb[0], nb[1], nb[2], nb[3], placed, opp, rp, ach, f)
            v = one_val[i]
            for j in range(N_FEATURES):
                v += w[j] * f[j]
            n = _keep_k_best(cand, cand_val, n, one[i], v)
    if n == 0:  # no ruler on offer: the evaluator's pass
        _, n = evaluate_with(evaluate_fn, boards, st, rng, mv, prm, tables, cand, cand_val)
        return n
    mv[:] = cand[0]
    return n


@njit(cache=True, inline="always")  # a wrapper: inlined into its caller, flatmc_search compiled once
def flatmc_move(boards, st, rng, mv, prm, tables, vw=None):
    """Fill mv with the search's choice for the seat to move; returns the playouts run (flatmc_search).

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
    vw : numpy.ndarray or None
        float64, shape ``(TURN_BUCKETS, N_FEATURES)``: the learned value's weights (None: the committed ones).
    """
    counters = np.zeros(N_COUNTERS, dtype=np.int64)
    return flatmc_search(boards, st, rng, mv, prm, tables, counters, value_weights(vw))


@njit(cache=True)
def _unchanged(memo_stamp, entries, n, serial):
    """Whether none of the memo entries entries[:n] was written after the write count `serial`."""
    for t in range(n):
        if memo_stamp[entries[t]] > serial:
            return False
    return True


@njit(cache=True)
def flatmc_search(boards, st, rng, mv, prm, tables, counters, vw=None, strong_fn=None, evaluate_fn=None):
    """Fill mv with the search's choice for the seat to move; returns the playouts run (those counted
    again by `repeat` included), and adds to counters (int64[N_COUNTERS], C_*) what the playouts did.

    prm is the agent's row: its weights (P_W..P_PROGRESS_DISTRICT) are the candidates' objective
    and its own policy in playouts; P_ITERS the budget in playouts, P_K the candidates, P_PRUNE,
    P_HORIZON, P_CRN, P_SELECT, P_C (UCB1), P_ROLLOUT and P_MARGIN as in the module docstring.  vw: the
    learned value's weights float64[TURN_BUCKETS, N_FEATURES] (None: the committed ones), for the candidates,
    the mover's strong playout moves and the leaves.

    P_REPEAT: a playout that was clean (playout: no random number drawn before its last move was
    applied) and took every move from the memo is a function of its start, which every playout of its
    candidate shares, and of the memo entries it read.  While none of those entries has been written
    since, a later playout of that candidate would play the same moves to the same reward, so that
    reward is counted instead; its common streams are still drawn, so the search's own draws, its choice
    and the policy stream after it are those of the same search played out in full (a test holds the
    two together).

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
    counters : numpy.ndarray or None
        int64, shape ``(N_COUNTERS,)``: added to.
    vw : numpy.ndarray or None
        float64, shape ``(TURN_BUCKETS, N_FEATURES)``: the learned value's weights (None: the committed ones).
    strong_fn : first-class function or None
        strong_move as the game loop passes it (play.search_policy_move): the playouts' strong moves are called
        through its address, so strong_move's machine code is not linked into flatmc's kernels and optimized
        again in each (docs/architecture/compile-time.md); None: strong_move itself.
    evaluate_fn : first-class function or None
        evaluator_search likewise (the candidates, the playouts' greedy moves), or None: evaluator_search itself
        (:func:`boardlab.agents.citywright.kernels.evaluate_with`).
    """
    rp, shp, _, pl_info, _, _, _, ach = tables
    weights = value_weights(vw)
    p = st[E.ST_CUR]
    n = boards.shape[0]
    k = max(1, int(prm[P_K]))
    budget = max(1, int(prm[P_ITERS]))
    taper = prm[P_TAPER]
    if taper != 0.0:
        # the budget at mid-game, more playouts later (shorter) and fewer earlier (longer)
        per_round = n * rp[RP_TURNS]
        total_moves = per_round * rp[RP_ROUNDS]
        left = total_moves - (st[E.ST_ROUND] * per_round + st[E.ST_TURN]) - 1
        scaled = budget * ((total_moves / 2.0) / max(left, 1)) ** taper
        budget = max(1, min(int(scaled + 0.5), 4 * budget))
    prune = prm[P_PRUNE]
    horizon = int(prm[P_HORIZON])
    crn = prm[P_CRN] != 0.0
    select = int(prm[P_SELECT])
    margin = prm[P_MARGIN] != 0.0
    rollout_code = int(prm[P_ROLLOUT])
    opp_slots = int(prm[P_OPP_SLOTS])
    last_round = st[E.ST_ROUND] + horizon - 1 if horizon > 0 else 1_000_000
    grow = _greedy_row()
    cand = np.zeros((k, E.MV_LEN), dtype=np.int32)
    cand_val = np.zeros(k, dtype=np.float64)
    per_slot = int(prm[P_PER_SLOT])
    shared = prm[P_SHARE] != 0.0
    if prm[P_RANK] != 0.0:
        ncand = candidates_by_value(
            boards, st, rng, mv, prm, max(per_slot, 1), tables, cand, cand_val, shared, weights, evaluate_fn
        )  # fmt: skip
    elif per_slot > 0:
        ncand = candidates_per_slot(
            boards, st, rng, mv, prm, per_slot, tables,
            cand, cand_val, evaluate_fn,
        )  # fmt: skip
    else:
        _, ncand = evaluate_with(evaluate_fn, boards, st, rng, mv, prm, tables, cand, cand_val)
    if prune >= 0.0:
        m = 1
        while m < ncand and cand_val[m] >= cand_val[0] - prune:
            m += 1
        ncand = m
    if ncand <= 1:
        mv[:] = cand[0]
        return 0
    visits = np.zeros(ncand, dtype=np.int64)
    total = np.zeros(ncand, dtype=np.float64)
    # the common streams, by an arm's playout number (an arm gets at most budget + a playout per round)
    seeds = np.zeros((budget + 64, 2), dtype=np.uint64)
    ndrawn = np.int64(0)  # typed: _streams compiles once, for int64, not again for a literal 0
    memo_n = _MEMO_SIZE if prm[P_MEMO] != 0.0 and rollout_code == A_GREEDY else 0
    memo_key = np.zeros(memo_n, dtype=np.uint64)
    memo_open = np.zeros(memo_n, dtype=np.int64)
    memo_val = np.zeros(memo_n, dtype=np.float64)
    memo_mv = np.zeros((memo_n, E.MV_LEN), dtype=np.int32)
    offer = _offer_key(st)
    b2 = np.empty_like(boards)
    st2 = np.empty_like(st)
    rng2 = np.empty_like(rng)
    out = np.zeros((n, E.SC_LEN), dtype=np.int32)
    est = np.zeros(n, dtype=np.float64)
    leaf = prm[P_LEAF] != 0.0
    own_turns = int(prm[P_OWN_TURNS])
    own_strong = prm[P_OWN_POLICY] != 0.0
    strong_last_round = st[E.ST_ROUND] + int(prm[P_OWN_ROUNDS]) - 1 if prm[P_OWN_ROUNDS] > 0 else -1
    own = prm.copy()
    own[P_K] = prm[P_OWN_K] if prm[P_OWN_K] > 0 else 3  # the strong tier's k, when it plays the mover's moves
    own_memo = prm[P_OWN_MEMO] != 0.0
    repeat = prm[P_REPEAT] != 0.0
    memo_stamp = np.zeros(memo_n + 1 if repeat else 0, dtype=np.int64)
    trace = np.zeros(_TRACE, dtype=np.int64)
    rep_len = np.full(ncand, -1, dtype=np.int64)  # a candidate's clean playout: the entries it read (-1: none)
    rep_entries = np.zeros((ncand, _TRACE), dtype=np.int64)
    rep_serial = np.zeros(ncand, dtype=np.int64)
    rep_reward = np.zeros(ncand, dtype=np.float64)
    later_turns = int(prm[P_LATER_TURNS])
    cut_at_move = prm[P_CUT] != 0.0
    rulers = new_ruler_memo(_RULER_MEMO_SIZE if prm[P_RULER_MEMO] != 0.0 else 0, int(own[P_K]))
    played = 0
    alive = np.arange(ncand)
    nalive = ncand
    while True:
        # the arms and playouts of the next block
        if select == SELECT_HALVING:
            if nalive <= 1:
                break
            rounds_left = 0
            m = nalive
            while m > 1:
                m = (m + 1) // 2
                rounds_left += 1
            per = max(1, (budget - played) // (nalive * rounds_left))
        elif select == SELECT_UNIFORM:
            if played > 0:
                break
            per = max(1, budget // ncand)
        else:  # UCB1: one playout of the selected arm
            if played >= budget:
                break
            per = 1
            if played < ncand:
                a = played
            else:
                best = -1e300
                lg = np.log(played)
                a = 0
                for j in range(ncand):
                    u = total[j] / visits[j] + prm[P_C] * np.sqrt(lg / visits[j])
                    if u > best:
                        best = u
                        a = j
            alive[0] = a
            nalive = 1
        for _ in range(per):
            for i in range(nalive):
                a = alive[i]
                ndrawn = _streams(rng, seeds, ndrawn, visits[a], crn, rng2)
                if repeat and rep_len[a] >= 0:
                    if _unchanged(memo_stamp, rep_entries[a], rep_len[a], rep_serial[a]):
                        total[a] += rep_reward[a]
                        visits[a] += 1
                        played += 1
                        counters[C_REPEATED] += 1
                        continue
                    rep_len[a] = -1
                b2[:, :] = boards
                st2[:] = st
                c0 = rng2[0]
                c1 = rng2[1]
                E.apply_move(b2, st2, rng2, cand[a], rp, shp, pl_info)
                cand_clean = rng2[0] == c0 and rng2[1] == c1
                trace[0] = 0
                searches = counters[C_OWN_SEARCHES] + counters[C_OPP_SEARCHES]
                moved, clean = playout(
                    b2, st2, rng2, p, own, grow, rollout_code, last_round, opp_slots,
                    memo_key, memo_open, memo_val, memo_mv, offer,
                    tables, own_turns, own_strong, own_memo, memo_stamp, trace, counters, shared, strong_last_round,
                    rulers, later_turns, cut_at_move, weights, strong_fn, evaluate_fn,
                )  # fmt: skip
                r = _reward(b2, st2, p, margin, leaf, out, est, rp, ach, weights)
                total[a] += r
                visits[a] += 1
                played += 1
                counters[C_PLAYOUTS] += 1
                # repeatable: every move from the memo (no search: its result could depend on state no trace
                # records, as the ruler memo) and no draw but the last move's
                searched = counters[C_OWN_SEARCHES] + counters[C_OPP_SEARCHES] > searches
                if repeat and (not moved or (cand_clean and clean and not searched)) and trace[0] < _TRACE:
                    rep_len[a] = trace[0]
                    rep_entries[a, : trace[0]] = trace[1 : trace[0] + 1]
                    rep_serial[a] = memo_stamp[-1]
                    rep_reward[a] = r
        if select == SELECT_HALVING:
            # keep the better half (stable: ties keep the evaluator's order); every survivor has had
            # the same playouts, so totals compare like means
            for i in range(1, nalive):
                a = alive[i]
                j = i
                while j > 0 and (
                    total[alive[j - 1]] < total[a] or (total[alive[j - 1]] == total[a] and alive[j - 1] > a)
                ):
                    alive[j] = alive[j - 1]
                    j -= 1
                alive[j] = a
            nalive = (nalive + 1) // 2
    if select == SELECT_HALVING:
        a = alive[0]
    elif select == SELECT_UNIFORM:
        a = 0
        for j in range(1, ncand):
            if total[j] > total[a]:
                a = j
    else:
        a = 0
        for j in range(1, ncand):
            if visits[j] > visits[a] or (visits[j] == visits[a] and total[j] > total[a]):
                a = j
    counters[C_RULER_SEARCHES] += rulers[4][0]
    counters[C_RULER_HITS] += rulers[4][1]
    mv[:] = cand[a]
    return played
