"""The game loop for built-in agents: a whole batch of games without returning to Python.

``play_games`` takes one parameter row per seat (``boardlab.agents.citywright.kernels.P_*``; the
code in column 0 picks the policy) and writes, per game and seat, the final
score breakdown, the boards, and the waste statistics.  Seats are given in
seat order; seating plans (rotation, permutation) are the caller's business.
A bank of learned-value weights holds every weight set the seats play with; a
row's ``P_VALUE`` is its set's index (``run_games``' default bank: the committed
weights alone, index 0).
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np
from numba import njit, types

from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.tables import MAX_SHAPES, PLAIN_CELLS
from boardlab.sim.layout import Layout

from .flatmc import N_COUNTERS, flatmc_move, flatmc_search
from .kernels import (
    A_FLATMC,
    A_GREEDY,
    A_MCTS,
    A_RANDOM,
    A_SPECIALIST,
    A_STRONG,
    P_CODE,
    P_VALUE,
    evaluate_move,
    evaluator_search,
)
from .mcts import mcts_move
from .strong import STRONG_WEIGHTS, new_ruler_memo, readonly_weights, strong_move, value_weights

N_STATS = E.N_STATS  # tiles taken, waste, forced discards, turns, then placed count per shape (E.STAT_*)


@njit(cache=True, inline="always")  # a dispatch: inlined into its callers, no machine code of its own to compile
def evaluator_policy_move(boards, st, rng, mv, prm, tables, evaluate):
    """policy_move for the agents that search nothing ahead (random, greedy, the specialists).  Greedy and the
    specialists move by `evaluate`, evaluator_search: the game loops pass it as a first-class function (the last
    of their movers), so its machine code is not linked into each loop and optimized and compiled again there.

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
    evaluate : function
        :func:`boardlab.agents.citywright.kernels.evaluator_search`, or a first-class function of its type.
    """
    rp, shp, pl_mask, _, _, _, _, _ = tables
    code = int(prm[P_CODE])
    if code == A_GREEDY or code == A_SPECIALIST:
        evaluate_move(evaluate, boards, st, rng, mv, prm, tables)
    else:
        E.random_move(boards, st, rng, mv, rp, shp, pl_mask)


@njit(cache=True, inline="always")  # a dispatch: inlined into the game loops, which call the agents directly
def policy_move(boards, st, rng, mv, prm, tables, vw=None):
    """Dispatch on the agent code of the seat to move (prm is that seat's row; tables is Tables.kernel_args();
    vw the learned value's weights float64[TURN_BUCKETS, N_FEATURES] of strong and flatmc, None: the committed).
    Random, greedy, the specialists and an unknown code: evaluator_policy_move's move.

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
    code = int(prm[P_CODE])
    if code == A_MCTS:
        mcts_move(boards, st, rng, mv, prm, tables)
    elif code == A_STRONG:
        # the arguments flatmc passes (shared off, an empty ruler memo): strong_move is compiled once for both
        no_memo = new_ruler_memo(np.int64(0), np.int64(1))
        strong_move(boards, st, rng, mv, prm, tables, value_weights(vw), np.bool_(False), no_memo)
    elif code == A_FLATMC:
        flatmc_move(boards, st, rng, mv, prm, tables, value_weights(vw))
    else:
        evaluator_policy_move(boards, st, rng, mv, prm, tables, evaluator_search)


@njit(cache=True, inline="always")  # a dispatch: inlined into the game loop
def search_policy_move(boards, st, rng, mv, prm, tables, vw, movers):
    """policy_move for a game loop given the searching agents' move kernels as first-class functions
    (play_games' `movers`): mcts, strong and flatmc are called through their addresses, so their machine
    code is compiled once, as functions of their own, and not linked into the loop and optimized again there
    (docs/architecture/compile-time.md).  The same moves as policy_move.

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
    vw : numpy.ndarray
        float64, shape ``(TURN_BUCKETS, N_FEATURES)``: the learned value's weights.
    movers : tuple
        ``(mcts_move, strong_move, flatmc_search, evaluator_search)`` as first-class functions
        (:func:`movers_for`).
    """
    code = int(prm[P_CODE])
    if code == A_MCTS:
        movers[0](boards, st, rng, mv, prm, tables, movers[3])  # its candidates and greedy rollouts
    elif code == A_STRONG:
        # the arguments flatmc passes (shared off, an empty ruler memo): strong_move is compiled once for both
        no_memo = new_ruler_memo(np.int64(0), np.int64(1))
        movers[1](boards, st, rng, mv, prm, tables, vw, np.bool_(False), no_memo)
    elif code == A_FLATMC:
        counters = np.zeros(N_COUNTERS, dtype=np.int64)
        movers[2](boards, st, rng, mv, prm, tables, counters, vw, movers[1], movers[3])  # its playouts' moves
    else:
        evaluator_policy_move(boards, st, rng, mv, prm, tables, movers[3])


# move-log record (one row per turn): seat, kind, slot, shape, placement or swap cell,
# the 4 plain cells' tiles (or the swap's district), free pick, waste, score change
_log = Layout("move log")
LOG_SEAT = _log.add("seat")
LOG_KIND = _log.add("kind")
LOG_SLOT = _log.add("slot")
LOG_SHAPE = _log.add("shape")
LOG_PL = _log.add("placement")
LOG_TILES = _log.add("tiles", PLAIN_CELLS)
LOG_FREE = _log.add("free")
LOG_WASTE = _log.add("waste")
LOG_GAIN = _log.add("gain")  # change of the mover's district points
LOG_LEN = _log.size
LAYOUTS = (_log,)


@njit(cache=True, inline="always")  # inlined into play_games, its one caller: no second compilation of the agents
def play_game(boards, st, rng, seed, prms, tables, log, bank, movers):
    """One game; with log int32[max_turns, LOG_LEN] (rows > 0) every turn is recorded; bank and movers as
    play_games'.

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(players, 4)``: each seat's R, C, P, I bitboards.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the game's chance and policy streams, advanced in place.
    seed : numpy.uint64
        The game seed.
    prms : numpy.ndarray
        float64, shape ``(G, players, P_LEN)``: each game's seats' rows.
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    log : numpy.ndarray
        int32, shape ``(max_turns, LOG_LEN)``: the move log (no rows: none kept).
    bank : numpy.ndarray
        float64, shape ``(sets, TURN_BUCKETS, N_FEATURES)``: the weight bank (row P_VALUE picks a set).
    movers : tuple
        The agents' move kernels (:func:`movers_for`).
    """
    rp, shp, _, pl_info, _, _, _, _ = tables
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    E.setup(boards, st, rng, seed, rp, shp)
    logging = log.shape[0] > 0
    t = 0
    while st[E.ST_DONE] == 0:
        p = st[E.ST_CUR]
        search_policy_move(boards, st, rng, mv, prms[p], tables, bank[int(prms[p, P_VALUE])], movers)
        if logging:
            before = E.score_districts(boards[p, 0], boards[p, 1], boards[p, 2], boards[p, 3], rp)
            waste0 = st[E.ST_WASTE + p]
            log[t, LOG_SEAT] = p
            log[t, LOG_KIND] = mv[E.MV_KIND]
            log[t, LOG_SLOT] = mv[E.MV_SLOT]
            log[t, LOG_SHAPE] = st[E.ST_SLOTS + mv[E.MV_SLOT]] if mv[E.MV_SLOT] >= 0 else -1
            log[t, LOG_PL] = mv[E.MV_PL]
            for k in range(4):
                log[t, LOG_TILES + k] = mv[E.MV_TILES + k]
            log[t, LOG_FREE] = mv[E.MV_FREE]
        E.apply_move(boards, st, rng, mv, rp, shp, pl_info)
        if logging:
            after = E.score_districts(boards[p, 0], boards[p, 1], boards[p, 2], boards[p, 3], rp)
            log[t, LOG_WASTE] = st[E.ST_WASTE + p] - waste0
            log[t, LOG_GAIN] = after[0] + after[1] + after[2] + after[3] - before[0] - before[1] - before[2] - before[3]
        t += 1


@njit(cache=True, nogil=True)  # releases the GIL: simulate --jobs 1 encodes the previous chunk meanwhile
def play_games(seeds, prms, tables, scores, boards_out, stats, logs, bank, movers):
    """One game per seed with agents prms[g] (float64[G, players, P_LEN]); tables is Tables.kernel_args().

    scores int32[G, players, SC_LEN]; boards_out uint64[G, players, 4];
    stats int32[G, players, N_STATS]: tiles taken, waste, forced discards, turns, placed per shape (E.STAT_*);
    logs int32[G, max_turns, LOG_LEN] for a move log, or an empty array;
    bank float64[sets, TURN_BUCKETS, N_FEATURES]: the learned value's weight sets, a seat's by its row's P_VALUE;
    movers: the agents' move kernels as first-class functions (:func:`movers_for`: a stand-in for each agent no
    seat plays, so a table of greedy players compiles no searching agent, and every table the same loop).
    Called by :func:`call_play_games`, which compiles it for first-class function arguments.

    Parameters
    ----------
    seeds : numpy.ndarray
        uint64, shape ``(G,)``: one seed per game.
    prms : numpy.ndarray
        float64, shape ``(G, players, P_LEN)``: each game's seats' rows.
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    scores : numpy.ndarray
        int32, shape ``(G, players, SC_LEN)``: filled.
    boards_out : numpy.ndarray
        uint64, shape ``(G, players, 4)``: filled.
    stats : numpy.ndarray
        int32, shape ``(G, players, N_STATS)``: filled.
    logs : numpy.ndarray
        int32, shape ``(G, max_turns, LOG_LEN)``: filled (no rows: none kept).
    bank : numpy.ndarray
        float64, shape ``(sets, TURN_BUCKETS, N_FEATURES)``: the weight bank (row P_VALUE picks a set).
    movers : tuple
        ``(mcts_move, strong_move, flatmc_search, evaluator_search)`` as first-class functions.
    """
    rp, shp, pl_mask, pl_info, _, _, _, ach = tables
    n = boards_out.shape[1]
    boards = np.zeros((n, 4), dtype=np.uint64)
    st = np.zeros(E.ST_LEN, dtype=np.int32)
    rng = np.zeros(2, dtype=np.uint64)
    no_log = np.zeros((0, LOG_LEN), dtype=np.int32)
    for g in range(seeds.shape[0]):
        all_random = logs.shape[0] == 0
        for p in range(n):
            all_random = all_random and int(prms[g, p, P_CODE]) == A_RANDOM
        if all_random:  # the engine's own random loop: the same moves, without the policy dispatch per move
            E.play_random_game(boards, st, rng, seeds[g], rp, shp, pl_mask, pl_info)
        else:
            log = logs[g] if logs.shape[0] > 0 else no_log
            play_game(boards, st, rng, seeds[g], prms[g], tables, log, bank, movers)
        E.final_scores(boards, st, rp, ach, scores[g])
        for p in range(n):
            for d in range(4):
                boards_out[g, p, d] = boards[p, d]
            stats[g, p, E.STAT_TAKEN] = st[E.ST_TAKEN + p]
            stats[g, p, E.STAT_WASTE] = st[E.ST_WASTE + p]
            stats[g, p, E.STAT_FORCED] = st[E.ST_FORCED + p]
            stats[g, p, E.STAT_TURNS] = st[E.ST_TURNS + p]
            for sh in range(MAX_SHAPES):
                stats[g, p, E.STAT_PLACED + sh] = st[E.ST_PLACED + p * MAX_SHAPES + sh]


class _Absent(types.WrapperAddressProtocol):
    """A mover no seat of the table plays: a first-class function of its type that is never called, so its
    kernel is not compiled."""

    def __init__(self, sig):
        self._sig = sig

    def __wrapper_address__(self) -> int:
        return -1  # numba's "no implementation" address

    def signature(self):
        return self._sig


def mover_signatures(tables, vw_type) -> tuple:
    """The signatures search_policy_move calls ``(mcts_move, strong_move, flatmc_search, evaluator_search)``
    with.

    Parameters
    ----------
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    vw_type : numba.types.Array
        The numba type of one weight set of the bank (read-only float64, 2-d, C).

    Returns
    -------
    tuple of numba.core.typing.templates.Signature
        One per mover, in that order.
    """
    c1 = lambda dt: types.Array(dt, 1, "C")  # noqa: E731
    base = _move_types(tables)
    # new_ruler_memo's
    memo = types.Tuple((c1(types.uint64), c1(types.int64), types.Array(types.int32, 3, "C"),
                        types.Array(types.float64, 2, "C"), c1(types.int64)))  # fmt: skip
    strong = types.float64(*base, vw_type, types.boolean, memo)
    evaluate = evaluator_signature(tables)
    return (
        types.int64(*base, types.FunctionType(evaluate)),
        strong,
        types.int64(*base, c1(types.int64), vw_type, types.FunctionType(strong), types.FunctionType(evaluate)),
        evaluate,
    )


def evaluator_signature(tables):
    """The signature the game loops call evaluator_search with (evaluator_policy_move's: no candidates kept).

    Parameters
    ----------
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.

    Returns
    -------
    numba.core.typing.templates.Signature
        ``(best worth, candidates)`` of (boards, st, rng, mv, prm, tables, cand, cand_val).
    """
    worth = types.Tuple((types.float64, types.int64))
    return worth(*_move_types(tables), types.Array(types.int32, 2, "C"), types.Array(types.float64, 1, "C"))


def _move_types(tables) -> tuple:
    """The numba types of a move kernel's first arguments as the loops pass them: (boards, st, rng, mv, prm,
    tables)."""
    c1 = lambda dt: types.Array(dt, 1, "C")  # noqa: E731
    return (types.Array(types.uint64, 2, "C"), c1(types.int32), c1(types.uint64), c1(types.int32), c1(types.float64),
            numba.typeof(tables))  # fmt: skip


def _evaluator_mover(prms: np.ndarray, tables):
    """evaluator_search, or a stand-in of its type when no seat of prms is greedy, a specialist, mcts or flatmc
    (whose searches call it)."""
    codes = set(prms[..., P_CODE].astype(np.int64).ravel().tolist())
    if codes & {A_GREEDY, A_SPECIALIST, A_MCTS, A_FLATMC}:
        return evaluator_search
    return _Absent(evaluator_signature(tables))


def movers_for(prms: np.ndarray, tables, bank: np.ndarray) -> tuple:
    """play_games' `movers` for a table of agents prms: the move kernel of each searching agent a seat plays,
    and a stand-in that is never called for the others (a table of strong players compiles no flatmc; flatmc's
    playouts call strong_move, so a flatmc seat brings strong_move too).

    Parameters
    ----------
    prms : numpy.ndarray
        float64, shape ``(G, players, P_LEN)``: each game's seats' rows.
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    bank : numpy.ndarray
        float64, shape ``(sets, TURN_BUCKETS, N_FEATURES)``, read-only: the weight bank.

    Returns
    -------
    tuple
        ``(mcts_move, strong_move, flatmc_search, evaluator_search)``, each the kernel or a stand-in of its type.
    """
    codes = set(prms[..., P_CODE].astype(np.int64).ravel().tolist())
    if A_FLATMC in codes:
        codes.add(A_STRONG)
    sigs = mover_signatures(tables, numba.typeof(bank[0]))[:3]
    kernels = ((A_MCTS, mcts_move), (A_STRONG, strong_move), (A_FLATMC, flatmc_search))
    searchers = tuple(k if code in codes else _Absent(sig) for (code, k), sig in zip(kernels, sigs, strict=True))
    return (*searchers, _evaluator_mover(prms, tables))


def call_play_games(seeds, prms, tables, scores, boards_out, stats, logs, bank) -> None:
    """Call play_games with these arguments and the movers of the table prms, compiled for first-class function
    movers: given the dispatchers themselves, numba would type each as a dispatcher of its own and link its
    kernel into the loop.

    Parameters
    ----------
    seeds : numpy.ndarray
        uint64, shape ``(G,)``: one seed per game.
    prms : numpy.ndarray
        float64, shape ``(G, players, P_LEN)``, C-contiguous: each game's seats' rows.
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    scores : numpy.ndarray
        int32, shape ``(G, players, SC_LEN)``: filled.
    boards_out : numpy.ndarray
        uint64, shape ``(G, players, 4)``: filled.
    stats : numpy.ndarray
        int32, shape ``(G, players, N_STATS)``: filled.
    logs : numpy.ndarray
        int32, shape ``(G, max_turns, LOG_LEN)``: filled (no rows: none kept).
    bank : numpy.ndarray
        float64, shape ``(sets, TURN_BUCKETS, N_FEATURES)``, read-only: the weight bank.
    """
    movers, movers_type = movers_and_type(prms, tables, bank)
    args = (seeds, prms, tables, scores, boards_out, stats, logs, bank, movers)
    entry_point(play_games, args, movers_type)(*args)


def movers_and_type(prms: np.ndarray, tables, bank: np.ndarray) -> tuple:
    """The movers of a table of agents (:func:`movers_for`) and their numba type, for a kernel that takes them as
    its last argument: one type for every table, so each such kernel compiles once.

    Parameters
    ----------
    prms : numpy.ndarray
        float64, shape ``(..., P_LEN)``: the seats' rows.
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    bank : numpy.ndarray
        float64, shape ``(sets, TURN_BUCKETS, N_FEATURES)``, read-only: the weight bank.

    Returns
    -------
    tuple
        ``(movers, numba type)``.
    """
    sigs = mover_signatures(tables, numba.typeof(bank[0]))
    return movers_for(prms, tables, bank), types.Tuple(tuple(types.FunctionType(s) for s in sigs))


def entry_point(kernel, args: tuple, movers_type):
    """The machine code of `kernel` for `args`, whose last item is the movers, compiled (or loaded from the
    cache) for first-class function movers: given the dispatchers themselves, numba would type each as a
    dispatcher of its own and link its kernel into the caller.

    Parameters
    ----------
    kernel : numba dispatcher
        A kernel whose last parameter is the movers.
    args : tuple
        The arguments it will be called with.
    movers_type : numba type
        :func:`movers_and_type`'s.

    Returns
    -------
    callable
        The compiled function, called with `args`.
    """
    sig = types.none(*(numba.typeof(a) for a in args[:-1]), movers_type)
    return kernel.get_compile_result(sig).entry_point


@njit(cache=True)
def move_by_address(boards, st, rng, mv, prm, tables, vw, movers):
    """One seat's move as the game loop makes it (search_policy_move), as a kernel of its own for a per-move
    player (:func:`boardlab.agents.citywright.registry.builtin_player`). Called through :func:`entry_point`, it
    links no searching agent: it calls the ones `movers` holds through their addresses, each compiled on its own.

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
    vw : numpy.ndarray
        float64, shape ``(TURN_BUCKETS, N_FEATURES)``, read-only: the learned value's weights.
    movers : tuple
        :func:`movers_for`'s.
    """
    search_policy_move(boards, st, rng, mv, prm, tables, vw, movers)


def policy_mover(prms: np.ndarray, tables, vw=None) -> Callable[..., None]:
    """policy_move for Python callers that move seats of these agents one move at a time (the bench's time per
    move, the levers' timing): the kernel the per-move player calls (:func:`move_by_address`), with the searching
    agents by address, so it compiles, or loads from numba's cache, what a game of them does and no more.

    Parameters
    ----------
    prms : numpy.ndarray
        float64, shape ``(P_LEN,)`` or ``(n, P_LEN)``: the rows of every agent the mover will be given.
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()`` of the games it moves in.
    vw : numpy.ndarray or None
        float64, shape ``(TURN_BUCKETS, N_FEATURES)``: the learned value's weights (None: the committed ones).

    Returns
    -------
    callable
        ``move(boards, st, rng, mv, prm)``: fills mv with prm's move and advances rng, as policy_move does.
    """
    weights = readonly_weights(value_weights(vw))
    movers, movers_type = movers_and_type(np.atleast_2d(prms), tables, weights[None])
    compiled: list = []

    def move(boards, st, rng, mv, prm) -> None:
        args = (boards, st, rng, mv, prm, tables, weights, movers)
        if not compiled:
            compiled.append(entry_point(move_by_address, args, movers_type))
        compiled[0](*args)

    return move


def searcher(code: int, tables, vw=None) -> Callable[..., int]:
    """The move of a searching agent (mcts or flatmc) for Python callers, through the machine code the game loop
    calls (:func:`movers_for`): the kernel compiled, or loaded from numba's cache, for the signature the loop
    calls it with, so it is shared with every game of that agent; both call evaluator_search, and flatmc's playouts
    strong_move, by their addresses, as in the loop.  Called from Python with the kernels themselves, numba would
    compile a specialization of its own for those argument types, and link them into the search.

    Parameters
    ----------
    code : int
        The agent's code: A_MCTS or A_FLATMC.
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()`` of the games it searches in.
    vw : numpy.ndarray or None
        float64, shape ``(TURN_BUCKETS, N_FEATURES)``: the learned value's weights (None: the committed ones),
        given to flatmc read-only, as the loop gives them.

    Returns
    -------
    callable
        ``search(boards, st, rng, mv, prm, counters=None) -> int``: fills mv (int32[MV_LEN]) with the move of the
        agent of row prm (float64[P_LEN], C-contiguous) on boards (uint64[players, 4]) and st (int32[ST_LEN]),
        advancing rng (uint64[2]); returns mcts's iterations or flatmc's playouts, and flatmc adds what its
        playouts did to counters (int64[N_COUNTERS]; None: a scratch array).
    """
    if code not in (A_MCTS, A_FLATMC):
        raise ValueError(f"searcher: code {code} is neither mcts ({A_MCTS}) nor flatmc ({A_FLATMC})")
    weights = readonly_weights(value_weights(vw))
    sigs = mover_signatures(tables, numba.typeof(weights))
    if code == A_MCTS:
        mcts = mcts_move.get_compile_result(sigs[0]).entry_point

        def search(boards, st, rng, mv, prm, counters=None) -> int:
            return int(mcts(boards, st, rng, mv, prm, tables, evaluator_search))

        return search
    flatmc = flatmc_search.get_compile_result(sigs[2]).entry_point

    def search_flatmc(boards, st, rng, mv, prm, counters=None) -> int:
        if counters is None:
            counters = np.zeros(N_COUNTERS, dtype=np.int64)
        return int(flatmc(boards, st, rng, mv, prm, tables, counters, weights, strong_move, evaluator_search))

    return search_flatmc


def search_move(boards, st, rng, mv, prm, tables, vw=None, counters=None) -> int:
    """One move of a searching agent, by the code in its row: :func:`searcher`'s search, called once.

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(players, 4)``, C-contiguous: each seat's R, C, P, I bitboards.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the game's chance and policy streams, advanced in place.
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: the move, filled.
    prm : numpy.ndarray
        float64, shape ``(P_LEN,)``, C-contiguous: the agent's parameter row (code A_MCTS or A_FLATMC).
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    vw : numpy.ndarray or None
        float64, shape ``(TURN_BUCKETS, N_FEATURES)``: the learned value's weights (None: the committed ones).
    counters : numpy.ndarray or None
        int64, shape ``(N_COUNTERS,)``: flatmc adds what its playouts did (None: a scratch array).

    Returns
    -------
    int
        mcts's iterations or flatmc's playouts.
    """
    return searcher(int(prm[P_CODE]), tables, vw)(boards, st, rng, mv, prm, counters)


def default_bank() -> np.ndarray:
    """The weight bank of rows whose P_VALUE is 0: the committed weights alone.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(1, TURN_BUCKETS, N_FEATURES)``.
    """
    return readonly_weights(STRONG_WEIGHTS[None])


def run_games(seeds: np.ndarray, prms: np.ndarray, tables, log_moves: bool = False, bank: np.ndarray | None = None):
    """Python convenience: allocate outputs and play (prms float64[G, players, P_LEN]; bank: play_games', by
    default default_bank()).

    Returns scores, boards, stats, and the move log (int32[G, turns, LOG_LEN]) or None.

    Parameters
    ----------
    seeds : numpy.ndarray
        uint64, shape ``(G,)``: one seed per game.
    prms : numpy.ndarray
        float64, shape ``(G, players, P_LEN)``: each game's seats' rows.
    tables : tuple of numpy.ndarray
        ``Tables.kernel_args()``.
    log_moves : bool
        Keep the move log.
    bank : numpy.ndarray or None
        float64, shape ``(sets, TURN_BUCKETS, N_FEATURES)``: the weight bank (row P_VALUE picks a set).

    Returns
    -------
    tuple of numpy.ndarray
        ``(scores, boards, stats, logs)``; logs is None without log_moves.
    """
    g, n = prms.shape[0], prms.shape[1]
    scores = np.zeros((g, n, E.SC_LEN), dtype=np.int32)
    boards = np.zeros((g, n, 4), dtype=np.uint64)
    stats = np.zeros((g, n, N_STATS), dtype=np.int32)
    turns = n * int(tables.rp[E.RP_ROUNDS]) * int(tables.rp[E.RP_TURNS])
    logs = np.zeros((g if log_moves else 0, turns, LOG_LEN), dtype=np.int32)
    prms = np.ascontiguousarray(prms, dtype=np.float64)
    bank = default_bank() if bank is None else readonly_weights(bank)
    call_play_games(
        np.ascontiguousarray(seeds, dtype=np.uint64), prms, tables.kernel_args(), scores, boards, stats, logs, bank
    )
    return scores, boards, stats, (logs if log_moves else None)
