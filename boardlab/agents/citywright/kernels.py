"""numba policies: the evaluator-driven agents (greedy, specialists) and their brute-force oracle.

An agent is an integer code plus a float64 parameter row (``P_*`` offsets);
:mod:`boardlab.agents.citywright.registry` turns spec strings into them.  Every policy fills a
kernel move array (``boardlab.sim.citywright.engine.MV_*``) for the seat to move and draws its
random numbers from the game's policy stream only.

Objective of the evaluator agents (greedy and the specialists)::

    value(board) = sum_d w[d] * score_d(board)            # d in R, C, P, I
                 + w_ach * decided achievements            # own-board and shape cards
                 + progress * tiles of the progress district

A move's worth is the value after it minus the value before; greedy is
w = (1, 1, 1, 1), w_ach = 1, progress = 0.  "Decided" achievements are those
a player's own board and recorded shapes settle (all kinds but
``highest_district``, which depends on the other players until the end).

The fast search (`evaluator_move`) is exact: it deduplicates equal candidates
(slots giving the same shape and tiles, placements that put the same cells on
the board, assignments that differ only by identical tiles) and skips a
placement only when an upper bound on its worth is below the best found so
far.  `brute_force_best` enumerates every move with no shortcut; tests hold
the two together.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.engine import neighbours, popcount
from boardlab.sim.citywright.rules import (
    BOARD_SIZE,
    DISTRICTS,
    KIND_DISTINCT_SHAPES,
    KIND_DISTRICT_COUNT,
    KIND_FULL_LINE,
    KIND_NO_EMPTY,
    KIND_SAME_SHAPE,
    KIND_SHAPE_COUNT,
    N_EDGE_SLOTS,
    N_SLOTS,
)
from boardlab.sim.citywright.tables import (
    ACH_DISTRICT,
    ACH_KIND,
    ACH_POINTS,
    ACH_SHAPE,
    ACH_THRESHOLD,
    BOARD_CELLS,
    MARKET_CELLS,
    MAX_SHAPE_CELLS,
    MAX_SHAPES,
    NONE_TILE,
    PL_BITS,
    PLAIN_CELLS,
    RING,
    RP_C_ISO,
    RP_C_TABLE,
    RP_DEPLETES,
    RP_I_PAIR,
    RP_I_RING,
    RP_N_ACH,
    RP_N_SHAPES,
    RP_P_ADJ,
    RP_P_COL,
    RP_P_ROW,
    RP_RES_BIG,
    RP_RES_SECOND_TILE_PTS,
    RP_SWAP,
    SHP_NCELLS,
    SHP_PL_END,
    SHP_PL_START,
    SHP_PLAIN,
    SHP_STAR,
    VALID,
)
from boardlab.sim.layout import Layout
from boardlab.sim.rng import POLICY, rand_below

# --- agent codes and parameter rows ---------------------------------------------------
A_RANDOM = 0
A_GREEDY = 1
A_SPECIALIST = 2
A_MCTS = 3
A_FLATMC = 4  # flat Monte Carlo, the expert tier's search (boardlab.agents.citywright.flatmc)
A_STRONG = 5  # boardlab.agents.citywright.strong
A_PYTHON = 9  # a Python policy: the game loop returns to Python for its moves

# Offsets into an agent's parameter row, in this order (boardlab.sim.layout assigns them).
_p = Layout("agent row")
P_CODE = _p.add("code")
P_W = _p.add("weights", len(DISTRICTS))  # district weights R, C, P, I
P_W_ACH = _p.add("achievement_weight")
P_PROGRESS = _p.add("progress")
P_PROGRESS_DISTRICT = _p.add("progress_district")  # -1: none
P_ITERS = _p.add("iters")
P_K = _p.add("k")
P_C = _p.add("c")
P_ROLLOUT = _p.add("rollout")  # agent code of the rollout policy (A_RANDOM or A_GREEDY)
P_MARGIN = _p.add("margin")  # reward: 0 win share, 1 score margin
P_OWN_MEMO = _p.add("own_memo")  # flatmc: 1 = the mover's strong playout moves remembered too (as the memo's)
P_OWN_K = _p.add("own_k")  # flatmc: the strong tier's k for the mover's playout moves (0: the tier's 3)
P_REPEAT = _p.add("repeat")  # flatmc: 1 = a playout that drew nothing is counted again, not replayed
P_PRUNE = _p.add("prune")  # flatmc: drop candidates worth more than this below the best (negative: keep all)
P_HORIZON = _p.add("horizon")  # flatmc: rounds each playout covers (0: to the end of the game)
P_CRN = _p.add("crn")  # flatmc: 1 = common random numbers across the candidates
P_SELECT = _p.add("select")  # flatmc: 0 successive halving, 1 UCB1, 2 uniform
P_MEMO = _p.add("memo")  # flatmc: 1 = playout moves remembered across playouts
P_PER_SLOT = _p.add("per_slot")  # flatmc: at most this many candidates from one slot (0: the evaluator's k best)
P_TAPER = _p.add("taper")  # flatmc: budget x (half the game's moves / moves left) ** taper
P_OWN_TURNS = _p.add("own_turns")  # flatmc: a playout also stops before the mover's (n+1)-th own move (-1: off)
P_OWN_POLICY = _p.add("own_policy")  # flatmc: the mover's playout moves: 0 greedy (its objective), 1 strong
P_RANK = _p.add("rank")  # flatmc: 1 = candidates ranked by worth + the learned value (strong's two passes)
P_LEAF = _p.add("leaf")  # flatmc: 1 = a cut playout is scored by the learned value (boardlab.agents.citywright.value)
P_OPP_SLOTS = _p.add("opp_slots")  # flatmc: opponents' playout moves see this many open slots, drawn at random (0: all)
P_SHARE = _p.add("share_setup")  # flatmc: 1 = strong moves' per-ruler searches share one setup (exact, faster)
P_OWN_ROUNDS = _p.add("own_rounds")  # flatmc: the mover plays strong in playouts this many rounds, then greedy (0: all)
P_RULER_MEMO = _p.add("ruler_memo")  # flatmc: 1 = the mover's one-ruler searches remembered by board and ruler
P_LATER_TURNS = _p.add("later_turns")  # flatmc: own playout moves allowed in rounds after the current (-1: no limit)
P_CUT = _p.add("cut")  # flatmc: 1 = a playout cut by turns ends right after the mover's last own move
P_VALUE = _p.add("value_weights")  # strong, flatmc: the seat's learned-value weights, an index into play_games' bank
P_LEN = _p.size

_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_VALID = np.uint64(VALID)
_RING = np.uint64(RING)
_NEG = -1e300
_EPS = 1e-9
_N_DISTRICTS = len(DISTRICTS)
_N_TILE_KINDS = NONE_TILE + 1  # the four districts and "no tile"
_ALL_DISTRICTS = (1 << _N_DISTRICTS) - 1  # a bit set of districts (free picks offered)
_STAR_KEY = 1 << PLAIN_CELLS  # the star cell's bit in a subset of a placement's cells
_BOARD_BITS = 8 * BOARD_SIZE  # bits 0..55 hold rows 0..6 (column 7 is padding)

PERM4 = np.array(
    [[a, b, c, d] for a in range(4) for b in range(4) for c in range(4) for d in range(4) if len({a, b, c, d}) == 4],
    dtype=np.int64,
)
_N_PERMS = len(PERM4)  # bijections of a line's tiles to a ruler's plain cells


# --- the objective ---------------------------------------------------------------


@njit(cache=True)
def achievement_held(a, b0, b1, b2, b3, placed, rp, ach):
    """Whether a player holds achievement `a`, for the kinds their own board and shapes decide.

    Parameters
    ----------
    a : int
        The achievement's row in `ach`.
    b0 : numpy.uint64
        Residential bitboard.
    b1 : numpy.uint64
        Commercial bitboard.
    b2 : numpy.uint64
        Park bitboard.
    b3 : numpy.uint64
        Industrial bitboard.
    placed : numpy.ndarray
        int32, shape ``(MAX_SHAPES,)``: the player's placed count per shape.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    ach : numpy.ndarray
        int32, shape ``(cards, ACH_LEN)``: the achievements in force.
    """
    ns = rp[RP_N_SHAPES]
    kind = ach[a, ACH_KIND]
    thr = ach[a, ACH_THRESHOLD]
    d = ach[a, ACH_DISTRICT]
    if kind == KIND_DISTINCT_SHAPES:
        distinct = 0
        for s in range(ns):
            if placed[s] > 0:
                distinct += 1
        return distinct >= thr
    if kind == KIND_SAME_SHAPE:
        for s in range(ns):
            if placed[s] >= thr:
                return True
        return False
    if kind == KIND_SHAPE_COUNT:
        return placed[ach[a, ACH_SHAPE]] >= thr
    if kind == KIND_DISTRICT_COUNT:
        bd = b0 if d == 0 else (b1 if d == 1 else (b2 if d == 2 else b3))
        return popcount(bd) >= thr
    if kind == KIND_FULL_LINE:
        if d < 0:
            return E._full_line(b0 | b1 | b2 | b3)
        bd = b0 if d == 0 else (b1 if d == 1 else (b2 if d == 2 else b3))
        return E._full_line(bd)
    if kind == KIND_NO_EMPTY:
        return (b0 | b1 | b2 | b3) == _VALID
    return False  # KIND_HIGHEST_DISTRICT: not decided before the end


@njit(cache=True, inline="always")
def _board_decided(kind):
    """The kinds a player's own board decides; once held, they stay held (tiles are never removed)."""
    return kind == KIND_DISTRICT_COUNT or kind == KIND_FULL_LINE or kind == KIND_NO_EMPTY


@njit(cache=True)
def own_achievements(b0, b1, b2, b3, placed, rp, ach):
    """Points of the achievements a player's own board and shapes decide.

    placed : int32[MAX_SHAPES] counts of recorded shapes for this player.

    Parameters
    ----------
    b0 : numpy.uint64
        Residential bitboard.
    b1 : numpy.uint64
        Commercial bitboard.
    b2 : numpy.uint64
        Park bitboard.
    b3 : numpy.uint64
        Industrial bitboard.
    placed : numpy.ndarray
        int32, shape ``(MAX_SHAPES,)``: the player's placed count per shape.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    ach : numpy.ndarray
        int32, shape ``(cards, ACH_LEN)``: the achievements in force.
    """
    pts = 0
    for a in range(rp[RP_N_ACH]):
        if achievement_held(a, b0, b1, b2, b3, placed, rp, ach):
            pts += ach[a, ACH_POINTS]
    return pts


@njit(cache=True)
def objective(b0, b1, b2, b3, placed, prm, rp, ach):
    """A player's worth by the agent's objective: its districts weighted by prm, plus its achievements.

    Parameters
    ----------
    b0 : numpy.uint64
        Residential bitboard.
    b1 : numpy.uint64
        Commercial bitboard.
    b2 : numpy.uint64
        Park bitboard.
    b3 : numpy.uint64
        Industrial bitboard.
    placed : numpy.ndarray
        int32, shape ``(MAX_SHAPES,)``: the player's placed count per shape.
    prm : numpy.ndarray
        float64, shape ``(P_LEN,)``: the agent's parameter row.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    ach : numpy.ndarray
        int32, shape ``(cards, ACH_LEN)``: the achievements in force.
    """
    r, c, p, i, _ = E.score_districts(b0, b1, b2, b3, rp)
    v = prm[P_W] * r + prm[P_W + 1] * c + prm[P_W + 2] * p + prm[P_W + 3] * i
    if prm[P_W_ACH] != 0.0:
        v += prm[P_W_ACH] * own_achievements(b0, b1, b2, b3, placed, rp, ach)
    d = int(prm[P_PROGRESS_DISTRICT])
    if d >= 0:
        bd = b0 if d == 0 else (b1 if d == 1 else (b2 if d == 2 else b3))
        v += prm[P_PROGRESS] * popcount(bd)
    return v


# --- brute force: the oracle -------------------------------------------------------


@njit(cache=True)
def brute_force_best(boards, st, prm, tables):
    """Best worth over every legal move, no shortcut: every slot, placement,
    permutation of the line's tiles, free pick, swap and forced discard.

    tables is ``Tables.kernel_args()``, as for every agent kernel.

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(players, 4)``: each seat's R, C, P, I bitboards.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    prm : numpy.ndarray
        float64, shape ``(P_LEN,)``: the agent's parameter row.
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    """
    rp, shp, pl_mask, pl_info, _, _, _, ach = tables
    p = st[E.ST_CUR]
    placed = st[E.ST_PLACED + p * MAX_SHAPES : E.ST_PLACED + (p + 1) * MAX_SHAPES].copy()
    b = boards[p].copy()
    v0 = objective(b[0], b[1], b[2], b[3], placed, prm, rp, ach)
    occ = b[0] | b[1] | b[2] | b[3]
    best = _NEG
    nb = np.zeros(4, dtype=np.uint64)
    any_slot = False
    for slot in range(N_SLOTS):
        shape = st[E.ST_SLOTS + slot]
        if shape < 0:
            continue
        any_slot = True
        tiles = np.empty(4, dtype=np.int64)
        for k in range(PLAIN_CELLS):
            d = st[E.ST_MARKET + E.line_cell(slot, k)]
            tiles[k] = d if d >= 0 else NONE_TILE
        star = shp[shape, SHP_STAR]
        free_opts = _free_options(st, rp, slot) if star >= 0 else 0
        legal_any = False
        for pl in range(shp[shape, SHP_PL_START], shp[shape, SHP_PL_END]):
            if pl_mask[pl] & occ != _ZERO:
                continue
            legal_any = True
            for q in range(_N_PERMS):
                for f in range(_N_DISTRICTS if star >= 0 else 1):
                    if star >= 0 and free_opts != 0 and not (free_opts >> f) & 1:
                        continue
                    for d in range(_N_DISTRICTS):
                        nb[d] = b[d]
                    landed = 0
                    for m in range(PLAIN_CELLS):
                        t = tiles[PERM4[q, m]]
                        bit = pl_info[pl, PL_BITS + shp[shape, SHP_PLAIN + m]]
                        if t != NONE_TILE and bit >= 0:
                            nb[t] |= _ONE << np.uint64(bit)
                            landed += 1
                    if star >= 0 and free_opts != 0:
                        bit = pl_info[pl, PL_BITS + star]
                        if bit >= 0:
                            nb[f] |= _ONE << np.uint64(bit)
                            landed += 1
                    if landed > 0:
                        placed[shape] += 1
                    v = objective(nb[0], nb[1], nb[2], nb[3], placed, prm, rp, ach) - v0
                    if landed > 0:
                        placed[shape] -= 1
                    if v > best:
                        best = v
        if not legal_any:
            best = max(best, 0.0)  # forced discard: nothing changes
        if rp[RP_SWAP] and slot >= N_EDGE_SLOTS:
            for cell in range(_BOARD_BITS):
                bit = _ONE << np.uint64(cell)
                if bit & _VALID == _ZERO or bit & occ != _ZERO:
                    continue
                for d in range(_N_DISTRICTS):
                    for e in range(_N_DISTRICTS):
                        nb[e] = b[e]
                    nb[d] |= bit
                    v = objective(nb[0], nb[1], nb[2], nb[3], placed, prm, rp, ach) - v0
                    if v > best:
                        best = v
    if not any_slot:
        return 0.0
    return best


# --- the fast exact search ------------------------------------------------------------

# evaluator_search's work space: one array per element type, carved into the search's tables
# (allocating each table on its own dominates the fixed cost of a move).  Sizes first:
_N_CLUSTERS = 32  # residential clusters (a 7x7 board holds at most 25)
_CODE_WORDS = (_N_TILE_KINDS**PLAIN_CELLS + 63) // 64  # a bit per code of the tiles on the plain cells
_N_SUBSETS = 1 << MAX_SHAPE_CELLS  # subsets of a placement's cells: the plain cells, then the star as bit 4
_N_LANDINGS = 1 << PLAIN_CELLS  # which plain cells land on the board
_BOUND_TILES = MAX_SHAPE_CELLS + 1  # 0..5 tiles landing (rows of the bound tables)
_N_BIG = BOARD_CELLS + 1  # largest-cluster sizes 0..49 (r_best's columns)
_MAX_PLACEMENTS = 1024  # placements of one shape (shapes fit in 5x5: at most 8 * 11 * 11 = 968)

_wu = Layout("evaluator_search uint64 work space")
WU_CLUSTER_MASKS = _wu.add("cluster masks", _N_CLUSTERS)
WU_CODES_SEEN = _wu.add("codes seen", _CODE_WORDS)  # _distinct_assignments' bit set
WU_SUBSET_CELLS = _wu.add("subset cells", _N_SUBSETS)  # board cells of each subset of a placement's cells
WU_LEN = _wu.size

_wi = Layout("evaluator_search int64 work space")
WI_CLUSTER_SIZES = _wi.add("cluster sizes", _N_CLUSTERS)
WI_R_BEST = _wi.add("r_best", _BOUND_TILES * _N_BIG)
WI_C_BEST = _wi.add("c_best", _BOUND_TILES)
WI_SEEN = _wi.add("candidate keys seen", N_SLOTS)
WI_PBIT = _wi.add("plain cell bits", PLAIN_CELLS)
WI_R_GAIN = _wi.add("r_gain", _N_SUBSETS)
WI_C_GAIN = _wi.add("c_gain", _N_SUBSETS)
WI_I_GAIN = _wi.add("i_gain", _N_SUBSETS)
WI_Q_SUB = _wi.add("q_sub", _N_PERMS * _N_DISTRICTS)
WI_Q_LISTS = _wi.add("q_lists", _N_LANDINGS * _N_PERMS)
WI_NQ_LAND = _wi.add("nq_land", _N_LANDINGS)
WI_C_SLOT = _wi.add("c_slot", N_SLOTS)
WI_C_TILES = _wi.add("c_tiles", N_SLOTS * PLAIN_CELLS)
WI_C_CNT = _wi.add("c_cnt", N_SLOTS * _N_TILE_KINDS)
WI_C_FREE = _wi.add("c_free", N_SLOTS)
WI_SHAPE_ACH_DONE = _wi.add("shape_ach_done", MAX_SHAPES)
WI_ORDER = _wi.add("order", N_SLOTS)
WI_PL_LIST = _wi.add("pl_list", _MAX_PLACEMENTS)
WI_LEN = _wi.size

_wf = Layout("evaluator_search float64 work space")
WF_ACH_BOARD_UB = _wf.add("ach_board_ub", _BOUND_TILES)
WF_C_ACH = _wf.add("c_ach", N_SLOTS)
WF_SHAPE_ACH = _wf.add("shape_ach", MAX_SHAPES)
WF_C_UB = _wf.add("c_ub", N_SLOTS)
WF_UB_LIST = _wf.add("ub_list", _MAX_PLACEMENTS)
WF_LEN = _wf.size
LAYOUTS = (_p, _wu, _wi, _wf)


@njit(cache=True, inline="always")  # a wrapper: inlined into its callers, which call evaluator_search directly
def evaluator_move(boards, st, rng, mv, prm, tables):
    """Fill mv with the move of greatest worth (ties broken by the policy stream); return the worth.

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
    """
    no_cand = np.zeros((0, E.MV_LEN), dtype=np.int32)
    no_val = np.zeros(0, dtype=np.float64)
    return evaluator_search(boards, st, rng, mv, prm, tables, no_cand, no_val)[0]


def evaluate_with(evaluate_fn, boards, st, rng, mv, prm, tables, cand, cand_val):
    """evaluator_search's ``(best worth, candidates)``, through evaluate_fn when it is given (evaluator_search as a
    first-class function, the game loop's), else evaluator_search itself.  Chosen by type when numba compiles the
    caller: with a first-class function the search's machine code is not linked into the caller and optimized and
    compiled again there (docs/architecture/compile-time.md).

    Parameters
    ----------
    evaluate_fn : first-class function or None
        evaluator_search, called through its address; None: evaluator_search called directly.
    boards, st, rng, mv, prm, tables, cand, cand_val
        As evaluator_search's.

    Returns
    -------
    tuple
        ``(best worth, number of candidates)``.
    """
    return (evaluator_search if evaluate_fn is None else evaluate_fn)(boards, st, rng, mv, prm, tables, cand, cand_val)


@overload(evaluate_with)
def _evaluate_with(evaluate_fn, boards, st, rng, mv, prm, tables, cand, cand_val):
    # numba prunes `evaluate_fn is None` only when evaluate_fn is None; a first-class function needs the choice here
    if evaluate_fn is None or isinstance(evaluate_fn, (types.NoneType, types.Omitted)):
        return lambda evaluate_fn, boards, st, rng, mv, prm, tables, cand, cand_val: evaluator_search(
            boards, st, rng, mv, prm, tables, cand, cand_val
        )
    return lambda evaluate_fn, boards, st, rng, mv, prm, tables, cand, cand_val: evaluate_fn(
        boards, st, rng, mv, prm, tables, cand, cand_val
    )


@njit(cache=True, inline="always")  # a wrapper: inlined into its callers
def evaluate_move(evaluate_fn, boards, st, rng, mv, prm, tables):
    """evaluator_move's move and worth, through evaluate_fn when it is given (:func:`evaluate_with`).

    Parameters
    ----------
    evaluate_fn : first-class function or None
        evaluator_search, called through its address; None: evaluator_search called directly.
    boards, st, rng, mv, prm, tables
        As evaluator_move's.

    Returns
    -------
    float
        The move's worth.
    """
    no_cand = np.zeros((0, E.MV_LEN), dtype=np.int32)
    no_val = np.zeros(0, dtype=np.float64)
    return evaluate_with(evaluate_fn, boards, st, rng, mv, prm, tables, no_cand, no_val)[0]


@njit(cache=True)
def evaluator_search(boards, st, rng, mv, prm, tables, cand, cand_val):
    """The exact search behind the evaluator agents (docs/games/citywright/search.md).

    Fills mv with the best move and returns (best worth, number of candidates).
    With cand int32[k, MV_LEN] (k > 0) it also keeps the k best distinct
    candidates, best first, worths in cand_val; pruning then uses the k-th
    best worth.  tables is ``Tables.kernel_args()``.

    The passes, in order: the position's scores (`_base_scores`); the move's bound
    tables (`_bound_facts`, `_achievement_bounds`); pass 1, the distinct candidates and
    a bound on each (`_candidates`); the candidates in decreasing bound
    (`_order_by_bound`); then for each candidate whose bound beats the threshold, pass A,
    a bound on every legal placement (`_bound_placements`), and pass B, the exact worth
    of the placements whose bound beats it (`_evaluate_placements`); last the swaps
    (`_evaluate_swaps`).  Every worth goes through the k-best bookkeeping (`_threshold`,
    `_offer`, `_consider`).  The tables the passes share come from one work space per
    move (`_work_space`).

    The passes are functions for the reader only: numba inlines them all (``inline="always"``)
    into two functions, as fast as when the search was written as one (called, with their
    tuples of arrays, they cost about 5% of a move): the setup here, and the rest in
    `search_offer_apart`, which is compiled without reference counting and which the strong
    tier's loop over rulers calls too, so its machine code is compiled once for both.

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
    cand : numpy.ndarray
        int32, shape ``(k, MV_LEN)``: the candidates, filled.
    cand_val : numpy.ndarray
        float64, shape ``(k,)``: their values, filled.
    """
    placed, board, ws, base, facts, prunable, board_ach_open = search_setup(boards, st, prm, tables)
    return search_offer_apart(st, rng, mv, prm, tables, cand, cand_val, placed, board, ws, base, facts, prunable,
                              board_ach_open)  # fmt: skip


@njit(cache=True)  # called once per search: compiled once, not inlined into each of its three callers
def search_setup(boards, st, prm, tables):
    """evaluator_search's first part: what depends on the mover's board alone (not on the rulers on offer),
    so a caller searching several offers of one board (the strong tier: one ruler at a time) computes it
    once.  Returns (placed, board, work space, base scores, bound facts, prunable, board achievements
    open); search_offer_apart takes them and does the rest.

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(players, 4)``: each seat's R, C, P, I bitboards.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    prm : numpy.ndarray
        float64, shape ``(P_LEN,)``: the agent's parameter row.
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    """
    rp, _, _, _, _, _, _, ach = tables
    p = st[E.ST_CUR]
    placed = st[E.ST_PLACED + p * MAX_SHAPES : E.ST_PLACED + (p + 1) * MAX_SHAPES].copy()
    board = (boards[p, 0], boards[p, 1], boards[p, 2], boards[p, 3])
    ws = _work_space()
    bounds = ws[0]
    base = _base_scores(board, placed, prm, rp, ach)
    facts = _bound_facts(board, rp, bounds)
    _achievement_bounds(board, placed, prm, rp, ach, bounds)
    prunable = _prunable(prm, rp)
    board_ach_open = _board_achievements_open(board, placed, prm, rp, ach)
    return placed, board, ws, base, facts, prunable, board_ach_open


@njit(cache=True, _nrt=False)
def search_offer_apart(st, rng, mv, prm, tables, cand, cand_val, placed, board, ws, base, facts, prunable,
                       board_ach_open):  # fmt: skip
    """evaluator_search's second part, over the rulers on offer in st (the setup from search_setup, for the
    same mover, board and objective; its bound tables are only read here, so one setup serves many offers).
    Returns (best worth, number of candidates).

    A function of its own, called by evaluator_search and by the callers that search several offers of one
    setup in a loop (strong_move and flatmc's candidates with a shared setup): inlined into such a loop beside
    the loop's own work it ran about a tenth slower (docs/games/citywright/search.md, "Exact speedups").  Its
    body is written here rather than inlined from a function of its own: numba copies an inlined function's
    IR block by block, each copy with the function's whole variable scope, so inlining a function this large
    cost more compile time than every other part of the search (docs/architecture/compile-time.md).

    Compiled without numba's reference counting (``_nrt=False``): the search allocates nothing and returns
    only numbers, and every array it sees belongs to its caller for the whole call, so the atomic increments
    and decrements of its arrays' counts (its tuples of work-space arrays unpacked per candidate, the views
    made per placement: a fifth to a quarter of the tier's time) do nothing it needs.  The same code, the same
    moves.  Numba compiles the functions it calls with the same flag (unless a caller with NRT compiled them
    first), so neither it nor they may allocate or copy a slice into an array (numba then refuses: "NRT
    required"); `_offer` copies its rows element by element for that reason.

    Parameters
    ----------
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
    cand : numpy.ndarray
        int32, shape ``(k, MV_LEN)``: the candidates, filled.
    cand_val : numpy.ndarray
        float64, shape ``(k,)``: their values, filled.
    placed : numpy.ndarray
        int32, shape ``(MAX_SHAPES,)``: the mover's placed count per shape (search_setup's).
    board : tuple of numpy.uint64
        The mover's R, C, P, I bitboards (search_setup's).
    ws : tuple
        The search's work space (search_setup's).
    base : object
        The board's base scores (search_setup's).
    facts : object
        The bound's facts about the board (search_setup's).
    prunable : bool
        Whether the bound may prune (search_setup's).
    board_ach_open : object
        The achievements still open to the board (search_setup's).
    """
    rp, shp, _, _, _, _, _, ach = tables
    cap = cand.shape[0]
    bounds, cands, cand_scratch, order, placements, scratch = ws
    c_slot, c_tiles, _, _, _, c_ub = cands
    q_sub, _, nq_land, _, _, _, _, _, _ = scratch
    # Visit slots and placements from random offsets: the search keeps the first of
    # equally good moves it meets, so the offsets break ties at random.
    slot_off = rand_below(rng, POLICY, N_SLOTS)
    nc, any_slot = _candidates(st, slot_off, placed, board, facts, bounds, prm, rp, shp, ach, cands, cand_scratch)
    _order_by_bound(c_ub, nc, order)
    best = _NEG
    nbest = 0
    ncand = np.int64(0)  # typed, not a literal: _offer compiles for one type of count
    for oi in range(nc):
        ci = order[oi]
        slot = c_slot[ci]
        tiles = c_tiles[ci]
        if prunable and c_ub[ci] <= _threshold(best, cand_val, ncand) + _EPS:
            continue  # (a forced discard here is worth 0 <= every bound: nothing lost)
        shape = st[E.ST_SLOTS + slot]
        nq_land[:] = -1
        _assignment_cells(tiles, q_sub)
        npl, max_ub, legal_any = _bound_placements(rng, ci, cands, shape, board, facts, bounds, prm, tables, placements)
        best, nbest, ncand = _evaluate_placements(
            ci,
            cands,
            shape,
            npl,
            max_ub,
            placements,
            prunable,
            board_ach_open,
            board,
            base,
            placed,
            prm,
            tables,
            scratch,
            rng,
            mv,
            cand,
            cand_val,
            best,
            nbest,
            ncand,
        )
        if not legal_any:  # the forced discard, worth 0
            best, nbest, ncand = _evaluate_discard(slot, tiles, rng, mv, cand, cand_val, best, nbest, ncand)
    first_corner = _first_corner(st)
    if rp[RP_SWAP] and first_corner >= 0:
        best, nbest, ncand = _evaluate_swaps(
            first_corner, c_tiles[0], board, base, placed, prm, rp, ach, rng, mv, cand, cand_val, best, nbest, ncand
        )
    if not any_slot:
        mv[E.MV_KIND] = E.K_PASS
        mv[E.MV_SLOT] = -1
        if cap > 0:
            for j in range(E.MV_LEN):  # (element by element: search_offer_apart compiles without NRT)
                cand[0, j] = mv[j]
            cand_val[0] = 0.0
            ncand = 1
        return 0.0, ncand
    return best, ncand


@njit(cache=True, inline="always")
def _work_space():
    """The search's tables, carved from three arrays (one per element type; allocating each
    table on its own dominates the fixed cost of a move).  The layout is WU_*, WI_*, WF_*.

    Returns the tuples the passes take: bounds (cluster masks and sizes, r_best, c_best,
    ach_board_ub), cands (slot, tiles, tile counts, free picks, shape achievement gain,
    bound, per candidate), cand_scratch (keys seen, shape achievement gains and whether
    each is known), order, placements (pl_list, ub_list) and scratch (pass B's tables:
    q_sub, q_lists, nq_land, codes_seen, pbit, subset cells, r_gain, c_gain, i_gain).
    """
    wu = np.empty(WU_LEN, dtype=np.uint64)
    wi = np.empty(WI_LEN, dtype=np.int64)
    wf = np.empty(WF_LEN, dtype=np.float64)
    # the bound tables (_bound_facts, _achievement_bounds)
    bounds = (
        wu[WU_CLUSTER_MASKS : WU_CLUSTER_MASKS + _N_CLUSTERS],
        wi[WI_CLUSTER_SIZES : WI_CLUSTER_SIZES + _N_CLUSTERS],
        wi[WI_R_BEST : WI_R_BEST + _BOUND_TILES * _N_BIG].reshape((_BOUND_TILES, _N_BIG)),
        wi[WI_C_BEST : WI_C_BEST + _BOUND_TILES],
        wf[WF_ACH_BOARD_UB : WF_ACH_BOARD_UB + _BOUND_TILES],
    )
    # the candidates (_candidates)
    cands = (
        wi[WI_C_SLOT : WI_C_SLOT + N_SLOTS],
        wi[WI_C_TILES : WI_C_TILES + N_SLOTS * PLAIN_CELLS].reshape((N_SLOTS, PLAIN_CELLS)),
        wi[WI_C_CNT : WI_C_CNT + N_SLOTS * _N_TILE_KINDS].reshape((N_SLOTS, _N_TILE_KINDS)),
        wi[WI_C_FREE : WI_C_FREE + N_SLOTS],
        wf[WF_C_ACH : WF_C_ACH + N_SLOTS],
        wf[WF_C_UB : WF_C_UB + N_SLOTS],
    )
    cand_scratch = (
        wi[WI_SEEN : WI_SEEN + N_SLOTS],
        wf[WF_SHAPE_ACH : WF_SHAPE_ACH + MAX_SHAPES],
        wi[WI_SHAPE_ACH_DONE : WI_SHAPE_ACH_DONE + MAX_SHAPES],
    )
    order = wi[WI_ORDER : WI_ORDER + N_SLOTS]
    # one candidate's placements and their bounds (pass A), then pass B's tables
    placements = (wi[WI_PL_LIST : WI_PL_LIST + _MAX_PLACEMENTS], wf[WF_UB_LIST : WF_UB_LIST + _MAX_PLACEMENTS])
    scratch = (
        wi[WI_Q_SUB : WI_Q_SUB + _N_PERMS * _N_DISTRICTS].reshape((_N_PERMS, _N_DISTRICTS)),
        wi[WI_Q_LISTS : WI_Q_LISTS + _N_LANDINGS * _N_PERMS].reshape((_N_LANDINGS, _N_PERMS)),
        wi[WI_NQ_LAND : WI_NQ_LAND + _N_LANDINGS],
        wu[WU_CODES_SEEN : WU_CODES_SEEN + _CODE_WORDS],
        wi[WI_PBIT : WI_PBIT + PLAIN_CELLS],
        wu[WU_SUBSET_CELLS : WU_SUBSET_CELLS + _N_SUBSETS],
        wi[WI_R_GAIN : WI_R_GAIN + _N_SUBSETS],
        wi[WI_C_GAIN : WI_C_GAIN + _N_SUBSETS],
        wi[WI_I_GAIN : WI_I_GAIN + _N_SUBSETS],
    )
    return bounds, cands, cand_scratch, order, placements, scratch


# --- setup: the position's scores and the move's bound tables -------------------------


@njit(cache=True, inline="always")
def _base_scores(board, placed, prm, rp, ach):
    """The mover's scores before the move, which every worth is measured from.

    Returns (R, C, P, I points, decided achievement points, progress term, objective value).
    The achievements are counted only when they are weighted (wa != 0).
    """
    b0, b1, b2, b3 = board
    w0 = prm[P_W]
    w1 = prm[P_W + 1]
    w2 = prm[P_W + 2]
    w3 = prm[P_W + 3]
    wa = prm[P_W_ACH]
    prog = prm[P_PROGRESS]
    pd = int(prm[P_PROGRESS_DISTRICT])
    r0 = E.residential_score(b0, rp)
    c0 = E.commercial_score(b1, rp)
    k0 = E.park_score(b0, b1, b2, b3, rp)
    i0 = E.industrial_score(b3, rp)
    a0 = own_achievements(b0, b1, b2, b3, placed, rp, ach) if wa != 0.0 else 0
    v0 = w0 * r0 + w1 * c0 + w2 * k0 + w3 * i0 + wa * a0
    prog_base = 0.0
    if pd >= 0:
        prog_base = prog * popcount(b0 if pd == 0 else (b1 if pd == 1 else (b2 if pd == 2 else b3)))
        v0 += prog_base
    return r0, c0, k0, i0, a0, prog_base, v0


@njit(cache=True, inline="always")
def _bound_facts(board, rp, bounds):
    """The facts about the board that every bound of this move uses, computed once per move.

    Labels the residential clusters (bounds' masks and sizes) and fills the best-case
    district tables r_best and c_best (`_bound_tables`).  Returns (number of clusters,
    largest cluster, current residential score, industrial tiles, lonely parks (parks
    that do not score adjacency yet), rows with a park, columns with a park).
    """
    b0, b1, b2, b3 = board
    masks, sizes, r_best, c_best, _ = bounds
    ncl = _r_clusters(b0, masks, sizes)
    s1 = np.int64(0)  # (not a literal 0: one type for the returned facts, one compilation of their users)
    s2 = np.int64(0)
    for j in range(ncl):
        if sizes[j] > s1:
            s2 = s1
            s1 = sizes[j]
        elif sizes[j] > s2:
            s2 = sizes[j]
    nR = popcount(b0)
    nC = popcount(b1)
    nI = popcount(b3)
    r_best[:, :] = 0
    c_best[:] = 0
    r_base = _bound_tables(s1, s2, nR, nC, rp, r_best, c_best)
    lonely_parks = b2 & ~neighbours(E.park_neighbour_source(b0, b1, b2, b3, rp))
    return ncl, s1, r_base, nI, lonely_parks, E.rows_with(b2), E.columns_with(b2)


@njit(cache=True, inline="always")
def _achievement_bounds(board, placed, prm, rp, ach, bounds):
    """Fill bounds' ach_board_ub[n]: the most achievement points n more tiles on the board can win.

    Only the kinds the board decides count (`_board_decided`), and only those not held yet
    (they stay held).  All zero when achievements are not weighted.
    """
    b0, b1, b2, b3 = board
    ach_board_ub = bounds[4]
    wa = prm[P_W_ACH]
    occ = b0 | b1 | b2 | b3
    ach_board_ub[:] = 0.0
    if wa != 0.0:
        for a in range(rp[RP_N_ACH]):
            kind = ach[a, ACH_KIND]
            if not _board_decided(kind) or ach[a, ACH_POINTS] <= 0:
                continue
            if achievement_held(a, b0, b1, b2, b3, placed, rp, ach):
                continue  # board kinds never go away once held
            for n in range(1, _BOUND_TILES):
                ok = True
                if kind == KIND_DISTRICT_COUNT:
                    d = ach[a, ACH_DISTRICT]
                    bd = b0 if d == 0 else (b1 if d == 1 else (b2 if d == 2 else b3))
                    ok = popcount(bd) + n >= ach[a, ACH_THRESHOLD]
                elif kind == KIND_NO_EMPTY:
                    ok = BOARD_CELLS - popcount(occ) <= n
                if ok:
                    ach_board_ub[n] += ach[a, ACH_POINTS]


@njit(cache=True, inline="always")
def _prunable(prm, rp):
    """Whether the bounds hold: they assume no scoring table pays less for more tiles and no
    district weight is negative.  When they do not, every move is evaluated exactly."""
    prunable = (
        rp[RP_RES_SECOND_TILE_PTS] >= 0
        and rp[RP_C_ISO] >= 0
        and rp[RP_P_ADJ] >= 0
        and rp[RP_P_ROW] >= 0
        and rp[RP_P_COL] >= 0
        and rp[RP_I_RING] >= 0
        and rp[RP_I_PAIR] >= 0
        and prm[P_W] >= 0.0
        and prm[P_W + 1] >= 0.0
        and prm[P_W + 2] >= 0.0
        and prm[P_W + 3] >= 0.0
    )
    for n in range(BOARD_CELLS):
        if rp[RP_RES_BIG + n + 1] < rp[RP_RES_BIG + n]:
            prunable = False
    return prunable


@njit(cache=True, inline="always")
def _board_achievements_open(board, placed, prm, rp, ach):
    """Whether a board-decided achievement is still to win: pass B then evaluates achievements per move."""
    b0, b1, b2, b3 = board
    if prm[P_W_ACH] != 0.0:
        for a in range(rp[RP_N_ACH]):
            kind = ach[a, ACH_KIND]
            if _board_decided(kind) and not achievement_held(a, b0, b1, b2, b3, placed, rp, ach):
                return True
    return False


@njit(cache=True, inline="always")
def _first_corner(st):
    """The first corner slot holding a ruler (the one a swap uses), or -1."""
    for slot in range(N_EDGE_SLOTS, N_SLOTS):
        if st[E.ST_SLOTS + slot] >= 0:
            return slot
    return -1


# --- pass 1: the candidates -------------------------------------------------------------


@njit(cache=True, inline="always")
def _candidates(st, slot_off, placed, board, facts, bounds, prm, rp, shp, ach, cands, cand_scratch):
    """Pass 1: the distinct candidates and an upper bound on each over all its placements.

    Slots that give the same shape and the same tiles are one candidate (the first met,
    visiting slots from slot_off).  Fills the candidate tables cands (slot, tiles, tile
    counts per district, free picks offered, the achievement gain of recording the shape,
    the bound); returns (number of candidates, whether any slot holds a ruler).
    """
    b0, b1, b2, b3 = board
    ncl, s1, r_base, nI, lonely_parks, park_rows, park_cols = facts
    _, sizes, r_best, c_best, ach_board_ub = bounds
    c_slot, c_tiles, c_cnt, c_free, c_ach, c_ub = cands
    seen, shape_ach, shape_ach_done = cand_scratch
    wa = prm[P_W_ACH]
    occ = b0 | b1 | b2 | b3
    seen[:] = -1
    nseen = 0
    c_cnt[:, :] = 0
    c_ach[:] = 0.0
    shape_ach[:] = 0.0  # the same for every slot holding the shape
    shape_ach_done[:] = 0
    ach_before = own_achievements(_ZERO, _ZERO, _ZERO, _ZERO, placed, rp, ach) if wa != 0.0 else 0
    # the whole board's geometry, for bounds over every placement of a candidate
    all_r = 0
    for j in range(ncl):
        all_r += sizes[j]
    rows_free = BOARD_SIZE - popcount(park_rows)
    cols_free = BOARD_SIZE - popcount(park_cols)
    lonely_all = popcount(lonely_parks) * rp[RP_P_ADJ]
    iso_free = popcount(_VALID & ~occ & ~neighbours(b1))
    ring_free = popcount(_RING & ~occ)
    empty_cells = BOARD_CELLS - popcount(occ)
    any_slot = False
    nc = 0
    for si in range(N_SLOTS):
        slot = (si + slot_off) % N_SLOTS
        shape = st[E.ST_SLOTS + slot]
        if shape < 0:
            continue
        any_slot = True
        cnt = c_cnt[nc]
        for k in range(PLAIN_CELLS):
            d = st[E.ST_MARKET + E.line_cell(slot, k)]
            c_tiles[nc, k] = d if d >= 0 else NONE_TILE
            cnt[c_tiles[nc, k]] += 1
        key = shape * 100000 + cnt[0] * 10000 + cnt[1] * 1000 + cnt[2] * 100 + cnt[3] * 10 + cnt[4]
        dup = False
        for j in range(nseen):
            if seen[j] == key:
                dup = True
        if dup:
            cnt[:] = 0
            continue
        seen[nseen] = key
        nseen += 1
        c_slot[nc] = slot
        star = shp[shape, SHP_STAR]
        c_free[nc] = _free_options(st, rp, slot) if star >= 0 else _ALL_DISTRICTS
        # achievement gain from recording this shape (exact, if any tile lands)
        if wa != 0.0:
            if shape_ach_done[shape] == 0:
                placed[shape] += 1
                shape_ach[shape] = wa * (own_achievements(_ZERO, _ZERO, _ZERO, _ZERO, placed, rp, ach) - ach_before)
                placed[shape] -= 1
                shape_ach_done[shape] = 1
            c_ach[nc] = shape_ach[shape]
        ncell = min(shp[shape, SHP_NCELLS], empty_cells)
        u = _bound(
            cnt,
            star >= 0,
            c_free[nc],
            ncell,
            all_r,
            rows_free,
            cols_free,
            lonely_all,
            ring_free,
            iso_free,
            s1,
            r_base,
            r_best,
            c_best,
            nI,
            prm,
            rp,
        )
        if wa != 0.0:
            u += max(c_ach[nc], 0.0) + wa * ach_board_ub[min(ncell, MAX_SHAPE_CELLS)]
        c_ub[nc] = u
        nc += 1
    return nc, any_slot


@njit(cache=True, inline="always")
def _order_by_bound(c_ub, nc, order):
    """The candidates in decreasing bound, so a strong move is found early and the rest pruned.

    An insertion sort (a few candidates): stable, so equal bounds keep the slot-visit order.
    """
    for i in range(nc):
        j = i
        while j > 0 and c_ub[order[j - 1]] < c_ub[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i


@njit(cache=True, inline="always")
def _assignment_cells(tiles, q_sub):
    """q_sub[q, d]: the plain cells (bit m) that get district d when the tiles go to the
    cells by permutation q (a candidate's table for pass B)."""
    for q in range(_N_PERMS):
        for d in range(_N_DISTRICTS):
            q_sub[q, d] = 0
        for m in range(PLAIN_CELLS):
            t = tiles[PERM4[q, m]]
            if t != NONE_TILE:
                q_sub[q, t] |= 1 << m


# --- pass A: a bound on every legal placement of a candidate ---------------------------


@njit(cache=True, inline="always")
def _bound_placements(rng, ci, cands, shape, board, facts, bounds, prm, tables, placements):
    """Pass A: an upper bound on the worth of every legal placement of candidate ci (of shape `shape`).

    Placements are visited from a random offset (ties, see evaluator_search); those that
    put the same plain cells and star cell on the board are counted once.  The bound
    comes from the placement's geometry: the residential clusters it touches, rows and
    columns without a park, lonely parks next to it, ring cells, and cells with no
    commercial neighbour.  Fills placements (pl_list, ub_list); returns (their length, the
    highest bound, whether the ruler has any legal placement).
    """
    rp, shp, pl_mask, _, _, pl_star_bit, pl_canon, _ = tables
    b0, b1, b2, b3 = board
    ncl, s1, r_base, nI, lonely_parks, park_rows, park_cols = facts
    masks, sizes, r_best, c_best, ach_board_ub = bounds
    _, _, c_cnt, c_free, c_ach, _ = cands
    pl_list, ub_list = placements
    cnt = c_cnt[ci]
    free_opts = c_free[ci]
    ach_shape_gain = c_ach[ci]
    wa = prm[P_W_ACH]
    occ = b0 | b1 | b2 | b3
    c_near = neighbours(b1)
    legal_any = False
    lo = shp[shape, SHP_PL_START]
    span = shp[shape, SHP_PL_END] - lo
    pl_off = rand_below(rng, POLICY, span)
    npl = 0
    max_ub = _NEG
    pl = lo + pl_off - 1
    for _ in range(span):
        pl += 1  # lo + (t + pl_off) % span
        if pl == lo + span:
            pl = lo
        if pl_mask[pl] & occ != _ZERO:
            continue
        legal_any = True
        if not pl_canon[pl]:
            continue
        sb = pl_star_bit[pl]
        allm = pl_mask[pl]
        ncell = popcount(allm)
        wild = 1 if sb >= 0 else 0
        # geometry first (independent of which district lands where) ...
        nbm = neighbours(allm)
        merged_adj = 0
        for j in range(ncl):
            if masks[j] & nbm != _ZERO:
                merged_adj += sizes[j]
        rows_new = popcount(E.rows_with(allm) & ~park_rows)
        cols_new = popcount(E.columns_with(allm) & ~park_cols)
        lonely_adj = popcount(lonely_parks & nbm) * rp[RP_P_ADJ]
        # ... then the districts' tiles
        ub = _bound(
            cnt,
            wild,
            free_opts,
            ncell,
            merged_adj,
            rows_new,
            cols_new,
            lonely_adj,
            popcount(allm & _RING),
            popcount(allm & ~c_near),
            s1,
            r_base,
            r_best,
            c_best,
            nI,
            prm,
            rp,
        )
        if wa != 0.0:
            ub += max(ach_shape_gain, 0.0) + wa * ach_board_ub[min(ncell, MAX_SHAPE_CELLS)]
        pl_list[npl] = pl
        ub_list[npl] = ub
        npl += 1
        max_ub = max(max_ub, ub)
    return npl, max_ub, legal_any


# --- pass B: the exact worth of the placements that may beat the threshold -------------


@njit(cache=True, inline="always")
def _evaluate_placements(
    ci,
    cands,
    shape,
    npl,
    max_ub,
    placements,
    prunable,
    board_ach_open,
    board,
    base,
    placed,
    prm,
    tables,
    scratch,
    rng,
    mv,
    cand,
    cand_val,
    best,
    nbest,
    ncand,
):
    """Pass B: the exact worth of every distinct move of candidate ci whose placement's bound
    beats the threshold; returns the k-best bookkeeping (best, nbest, ncand) after them.

    The placements with the highest bound go first: when that bound is reached (it often
    is) every other placement of the candidate is pruned.  Each placement is evaluated for
    every distinct assignment of the tiles (identical tiles are not permuted) and every
    free pick; the R, C and I worths are memoised per subset of the placement's cells.
    """
    rp, shp, _, pl_info, _, pl_star_bit, _, ach = tables
    b0, b1, b2, b3 = board
    r0, c0, k0, i0, a0, prog_base, _ = base
    q_sub, q_lists, nq_land, codes_seen, pbit, cm, r_gain, c_gain, i_gain = scratch
    c_slot, c_tiles, _, c_free, c_ach, _ = cands
    pl_list, ub_list = placements
    slot = c_slot[ci]
    tiles = c_tiles[ci]
    free_opts = c_free[ci]
    ach_shape_gain = c_ach[ci]
    w0 = prm[P_W]
    w1 = prm[P_W + 1]
    w2 = prm[P_W + 2]
    w3 = prm[P_W + 3]
    wa = prm[P_W_ACH]
    prog = prm[P_PROGRESS]
    pd = int(prm[P_PROGRESS_DISTRICT])
    cap = cand.shape[0]
    star = shp[shape, SHP_STAR]
    for phase in range(2):
        for e in range(npl):
            ub = ub_list[e]
            if (phase == 0) != (ub >= max_ub - _EPS):
                continue
            if prunable and ub <= _threshold(best, cand_val, ncand) + _EPS:
                continue
            pl = pl_list[e]
            sb = pl_star_bit[pl]
            land_m = 0  # the plain cells on the board (bit m)
            for m in range(PLAIN_CELLS):
                pbit[m] = pl_info[pl, PL_BITS + shp[shape, SHP_PLAIN + m]]
                if pbit[m] >= 0:
                    land_m |= 1 << m
            # the board cells of each subset of plain cells (an overhanging cell adds none)
            cm[0] = _ZERO
            for m in range(PLAIN_CELLS):
                bm = (_ONE << np.uint64(pbit[m])) if pbit[m] >= 0 else _ZERO
                for sub in range(1 << m):
                    cm[sub | (1 << m)] = cm[sub] | bm
            # free picks to try: each district offered (the star cell, key bit 4, gets it), or
            # none at all (the star overhangs, or a depleted market offers nothing)
            star_on = sb >= 0 and free_opts != 0
            nf = _N_DISTRICTS if star_on else 1
            if star_on:
                star_bm = _ONE << np.uint64(sb)
                for sub in range(_N_LANDINGS):
                    cm[_STAR_KEY + sub] = cm[sub] | star_bm
            # the distinct assignments depend on which plain cells land: listed once per
            # candidate and landing pattern
            qs = q_lists[land_m]
            nq = nq_land[land_m]
            if nq < 0:
                nq = _distinct_assignments(tiles, pbit, qs, codes_seen)
                nq_land[land_m] = nq
            # the R, C and I worths depend only on which of the placement's cells (4 plain,
            # the star as 5th) get that district: each is computed once per placement
            r_done = 0
            c_done = 0
            i_done = 0
            for qi in range(nq):
                q = qs[qi]
                r_sub = q_sub[q, 0] & land_m
                c_sub = q_sub[q, 1] & land_m
                p_sub = q_sub[q, 2] & land_m
                i_sub = q_sub[q, 3] & land_m
                landed = popcount(np.uint64(r_sub | c_sub | p_sub | i_sub))
                for f in range(nf):
                    if star_on and not (free_opts >> f) & 1:
                        continue
                    # the cells (key bits: plain cells 0-3, the star 4) each district gets
                    r_key = r_sub
                    c_key = c_sub
                    p_key = p_sub
                    i_key = i_sub
                    land = landed
                    if star_on:
                        land += 1
                        if f == 0:
                            r_key |= _STAR_KEY
                        elif f == 1:
                            c_key |= _STAR_KEY
                        elif f == 2:
                            p_key |= _STAR_KEY
                        else:
                            i_key |= _STAR_KEY
                    m0 = b0 | cm[r_key]
                    m1 = b1 | cm[c_key]
                    m2 = b2 | cm[p_key]
                    m3 = b3 | cm[i_key]
                    v = 0.0
                    if r_key != 0:
                        if not (r_done >> r_key) & 1:
                            r_gain[r_key] = E.residential_score(m0, rp) - r0
                            r_done |= 1 << r_key
                        v += w0 * r_gain[r_key]
                    if c_key != 0:
                        if not (c_done >> c_key) & 1:
                            c_gain[c_key] = E.commercial_score(m1, rp) - c0
                            c_done |= 1 << c_key
                        v += w1 * c_gain[c_key]
                    if p_key != 0 or (b2 != _ZERO and land > 0):
                        v += w2 * (E.park_score(m0, m1, m2, m3, rp) - k0)
                    if i_key != 0:
                        if not (i_done >> i_key) & 1:
                            i_gain[i_key] = E.industrial_score(m3, rp) - i0
                            i_done |= 1 << i_key
                        v += w3 * i_gain[i_key]
                    if pd >= 0:
                        bd = m0 if pd == 0 else (m1 if pd == 1 else (m2 if pd == 2 else m3))
                        v += prog * popcount(bd) - prog_base
                    if board_ach_open:
                        if land > 0:
                            placed[shape] += 1
                        v += wa * (own_achievements(m0, m1, m2, m3, placed, rp, ach) - a0)
                        if land > 0:
                            placed[shape] -= 1
                    elif land > 0:
                        v += ach_shape_gain
                    if cap > 0 and (ncand < cap or v > cand_val[cap - 1]):  # else _offer keeps the list as it is
                        fr = f if star_on else _first_free(free_opts)
                        ncand = _offer(
                            v,
                            E.K_PLACE,
                            slot,
                            pl,
                            tiles,
                            PERM4[q],
                            fr if star >= 0 else -1,
                            cand,
                            cand_val,
                            ncand,
                        )
                    take, best, nbest = _consider(v, best, nbest, rng)
                    if take:
                        mv[E.MV_KIND] = E.K_PLACE
                        mv[E.MV_SLOT] = slot
                        mv[E.MV_PL] = pl
                        for m in range(PLAIN_CELLS):
                            mv[E.MV_TILES + m] = tiles[PERM4[q, m]]
                        if star >= 0:
                            mv[E.MV_FREE] = f if star_on else _first_free(free_opts)
                        else:
                            mv[E.MV_FREE] = -1
    return best, nbest, ncand


# --- the forced discard and the swap ----------------------------------------------------


@njit(cache=True, inline="always")
def _evaluate_discard(slot, tiles, rng, mv, cand, cand_val, best, nbest, ncand):
    """The forced discard of a ruler with no legal placement (worth 0); returns the k-best bookkeeping."""
    v = 0.0
    if cand.shape[0] > 0:
        ncand = _offer(v, E.K_DISCARD, slot, np.int64(0), tiles, PERM4[0], np.int64(-1), cand, cand_val, ncand)
    take, best, nbest = _consider(v, best, nbest, rng)
    if take:
        mv[E.MV_KIND] = E.K_DISCARD
        mv[E.MV_SLOT] = slot
        mv[E.MV_FREE] = -1
    return best, nbest, ncand


@njit(cache=True, inline="always")
def _evaluate_swaps(
    first_corner, no_tiles, board, base, placed, prm, rp, ach, rng, mv, cand, cand_val, best, nbest, ncand
):
    """Every swap (two players): the ruler in the first corner slot leaves the game, one tile of
    any district on any empty cell.  Returns the k-best bookkeeping (no_tiles: any tile row, unread)."""
    b0, b1, b2, b3 = board
    _, _, _, _, _, _, v0 = base
    occ = b0 | b1 | b2 | b3
    cap = cand.shape[0]
    for cell in range(_BOARD_BITS):
        bm = _ONE << np.uint64(cell)
        if bm & _VALID == _ZERO or bm & occ != _ZERO:
            continue
        for d in range(_N_DISTRICTS):
            m0 = b0 | bm if d == 0 else b0
            m1 = b1 | bm if d == 1 else b1
            m2 = b2 | bm if d == 2 else b2
            m3 = b3 | bm if d == 3 else b3
            v = objective(m0, m1, m2, m3, placed, prm, rp, ach) - v0
            if cap > 0:
                ncand = _offer(v, E.K_SWAP, first_corner, cell, no_tiles, PERM4[0], d, cand, cand_val, ncand)
            take, best, nbest = _consider(v, best, nbest, rng)
            if take:
                mv[E.MV_KIND] = E.K_SWAP
                mv[E.MV_SLOT] = first_corner
                mv[E.MV_PL] = cell
                mv[E.MV_TILES] = d
                mv[E.MV_FREE] = -1
    return best, nbest, ncand


# --- the bounds and the assignments, shared by the passes ----------------------------------


@njit(cache=True)
def _r_clusters(r, masks, sizes):
    """Label residential clusters: fills masks/sizes, returns their number."""
    n = 0
    rem = r
    while rem != _ZERO:
        c = rem & (~rem + _ONE)
        while True:
            nx = (c | neighbours(c)) & rem
            if nx == c:
                break
            c = nx
        rem &= ~c
        masks[n] = c
        sizes[n] = popcount(c)
        n += 1
    return n


@njit(cache=True)
def _bound_tables(s1, s2, nR, nC, rp, r_best, c_best):
    """The district parts of `_bound` that do not depend on the placement, once per move.

    r_best[j, big]: the best residential score with j more residential tiles when the largest
    cluster grows to at most `big` (>= s1): the second cluster is no larger than the largest
    and the two together hold at most every residential tile.  Returns the current score
    (the one r_best is measured against).  c_best[j]: the best commercial tier gain from j
    more commercial tiles.
    """
    sec = rp[RP_RES_SECOND_TILE_PTS]
    top = min(max(s1, r_best.shape[0] - 1 + nR), BOARD_CELLS)  # the largest `big` (clusters merged hold <= nR)
    for j in range(r_best.shape[0]):
        total_r = nR + j
        best_r = 0
        for a in range(s1, top + 1):
            best_r = max(best_r, rp[RP_RES_BIG + a] + min(a, total_r - a) * sec)
            r_best[j, a] = best_r
    for j in range(c_best.shape[0]):
        gain = 0
        for k in range(1, j + 1):
            gain = max(gain, rp[RP_C_TABLE + min(nC + k, BOARD_CELLS)] - rp[RP_C_TABLE + nC])
        c_best[j] = gain
    return rp[RP_RES_BIG + s1] + s2 * sec


@njit(cache=True, inline="always")
def _bound(
    cnt,
    wild,
    free_opts,
    ncell,
    merged_adj,
    rows_new,
    cols_new,
    lonely_adj,
    ring,
    iso_cells,
    s1,
    r_base,
    r_best,
    c_best,
    nI,
    prm,
    rp,
):
    """Upper bound on the worth of landing up to `ncell` of a candidate's tiles on cells with this geometry.

    cnt : tiles per district (the free pick, if `wild`, may add one of any offered district).
    The geometry numbers are for the cells covered: residential tiles next to them,
    rows and columns without a park, lonely parks next to them, ring cells, cells
    with no commercial neighbour (where a new commercial tile can be isolated).
    r_best, c_best, r_base: the move's tables from `_bound_tables`.
    """
    w0 = prm[P_W]
    w1 = prm[P_W + 1]
    w2 = prm[P_W + 2]
    w3 = prm[P_W + 3]
    pd = int(prm[P_PROGRESS_DISTRICT])
    # each district's term with its own tiles (x0) and with the free pick too (x1); the
    # sum per free pick is formed in the same order as ever (so the same floating value)
    r_x0 = 0.0
    r_x1 = 0.0
    c_x0 = 0.0
    c_x1 = 0.0
    p_x0 = 0.0
    p_x1 = 0.0
    i_x0 = 0.0
    i_x1 = 0.0
    for extra in range(2 if wild else 1):
        jr = min(cnt[0] + extra, ncell)
        jc = min(cnt[1] + extra, ncell)
        jp = min(cnt[2] + extra, ncell)
        ji = min(cnt[3] + extra, ncell)
        tr = 0.0
        if jr > 0:
            # the largest cluster grows to at most `big` (see _bound_tables)
            big = min(max(s1, jr + merged_adj), BOARD_CELLS)
            tr = w0 * (r_best[jr, big] - r_base)
        tc = 0.0
        if jc > 0:
            tc = w1 * (c_best[jc] + min(jc, iso_cells) * rp[RP_C_ISO])
        g = lonely_adj
        if jp > 0:
            g += jp * rp[RP_P_ADJ] + min(jp, rows_new) * rp[RP_P_ROW] + min(jp, cols_new) * rp[RP_P_COL]
        tp = w2 * g
        ti = 0.0
        if ji > 0:
            ti = w3 * (min(ji, ring) * rp[RP_I_RING] + ((nI + ji) // 2 - nI // 2) * rp[RP_I_PAIR])
        if extra == 0:
            r_x0 = tr
            c_x0 = tc
            p_x0 = tp
            i_x0 = ti
        else:
            r_x1 = tr
            c_x1 = tc
            p_x1 = tp
            i_x1 = ti
    r_on = min(cnt[0], ncell) > 0
    c_on = min(cnt[1], ncell) > 0
    i_on = min(cnt[3], ncell) > 0
    ub = _NEG
    for f in range(4 if wild else 1):
        if wild and free_opts != 0 and not (free_opts >> f) & 1:
            continue
        u = 0.0
        fw = f if wild else -1
        if fw == 0:
            if min(cnt[0] + 1, ncell) > 0:
                u += r_x1
        elif r_on:
            u += r_x0
        if fw == 1:
            if min(cnt[1] + 1, ncell) > 0:
                u += c_x1
        elif c_on:
            u += c_x0
        u += p_x1 if fw == 2 else p_x0
        if fw == 3:
            if min(cnt[3] + 1, ncell) > 0:
                u += i_x1
        elif i_on:
            u += i_x0
        if pd >= 0:
            u += max(prm[P_PROGRESS], 0.0) * min(cnt[pd] + (1 if fw == pd else 0), ncell)
        ub = max(ub, u)
    return ub


@njit(cache=True)
def _distinct_assignments(tiles, bits, out, codes_seen):
    """The permutations q (increasing) whose tiles on the landing cells (bits[m] >= 0) differ
    from every earlier q's; fills out, returns their number."""
    for j in range(_CODE_WORDS):
        codes_seen[j] = _ZERO
    n = 0
    for q in range(_N_PERMS):
        code = 0
        for m in range(PLAIN_CELLS):
            if bits[m] >= 0:
                code = code * _N_TILE_KINDS + tiles[PERM4[q, m]]
        word = code >> 6
        bitc = _ONE << np.uint64(code & 63)
        if codes_seen[word] & bitc != _ZERO:
            continue
        codes_seen[word] |= bitc
        out[n] = q
        n += 1
    return n


# --- the k best moves: bookkeeping ---------------------------------------------------


@njit(cache=True, inline="always")
def _threshold(best, cand_val, ncand):
    """The worth a move must beat to change the outcome: the best so far, or when the k best
    are kept, the k-th best (nothing until k are kept)."""
    cap = cand_val.shape[0]
    if cap == 0:
        return best
    return cand_val[cap - 1] if ncand == cap else _NEG


@njit(cache=True)
def _offer(v, kind, slot, pl, tiles_or_cell, perm_row, free, cand, cand_val, ncand):
    """Insert a candidate into the worth-sorted list cand/cand_val (capacity cand.shape[0])."""
    cap = cand.shape[0]
    if ncand == cap and v <= cand_val[cap - 1]:
        return ncand
    pos = ncand if ncand < cap else cap - 1
    while pos > 0 and cand_val[pos - 1] < v:
        if pos < cap:
            cand_val[pos] = cand_val[pos - 1]
            for j in range(cand.shape[1]):  # (element by element: compiles without NRT, see search_offer_apart)
                cand[pos, j] = cand[pos - 1, j]
        pos -= 1
    cand_val[pos] = v
    cand[pos, E.MV_KIND] = kind
    cand[pos, E.MV_SLOT] = slot
    cand[pos, E.MV_PL] = pl
    if kind == E.K_PLACE:
        for m in range(PLAIN_CELLS):
            cand[pos, E.MV_TILES + m] = tiles_or_cell[perm_row[m]]
    elif kind == E.K_SWAP:
        cand[pos, E.MV_TILES] = free
    cand[pos, E.MV_FREE] = free if kind == E.K_PLACE else -1
    return min(ncand + 1, cap)


@njit(cache=True, inline="always")
def _consider(v, best, nbest, rng):
    """Keep the best worth; among equal worths, each new one replaces the kept move with
    probability 1/(number seen), so ties are broken uniformly (reservoir sampling)."""
    if v > best + _EPS:
        return True, v, 1
    if v > best - _EPS:
        nbest += 1
        return rand_below(rng, POLICY, nbest) == 0, best, nbest
    return False, best, nbest


# --- the market ----------------------------------------------------------------------


@njit(cache=True)
def _free_options(st, rp, slot):
    """Bit set of the districts a free pick may take: all four, or those left on a depleting market."""
    if not rp[RP_DEPLETES]:
        return _ALL_DISTRICTS
    opts = 0
    for c in range(MARKET_CELLS):
        d = st[E.ST_MARKET + c]
        on_line = False
        for j in range(PLAIN_CELLS):
            if E.line_cell(slot, j) == c:
                on_line = True
        if d >= 0 and not on_line:
            opts |= 1 << d
    return opts


@njit(cache=True)
def _first_free(opts):
    """The first district in the bit set opts (the free pick recorded when none can land), or NONE_TILE."""
    for d in range(_N_DISTRICTS):
        if (opts >> d) & 1:
            return d
    return NONE_TILE


free_options = _free_options  # (public: strong's memo of one-ruler searches keys on it)
