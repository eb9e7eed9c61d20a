"""numba agents for Citadels: the dispatch to every agent and the game loop, and their Python callers.

The parameter rows and the ``basic`` player are boardlab.agents.citadels.basic (re-exported here, the agents'
one entry point), the expert's search boardlab.agents.citadels.search.
Design notes: docs/games/citadels/agents.md#basic-and-loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit, typeof, types

from boardlab.agents.citadels import strong as S
from boardlab.sim._cache import types_key
from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels.rules import MAX_PLAYERS
from boardlab.sim.citadels.tables import RP_PLAYERS

from . import search as SE
from .basic import *  # noqa: F403  (the parameter rows and basic, re-exported: the agents' one entry point)
from .basic import (
    A_BASIC,
    A_EXPERT,
    A_RANDOM,
    A_STRONG,
    M_LEN,
    M_OFFER,
    M_PICKS,
    M_ROUND,
    P_CODE,
    P_PREFERS,
    P_WEIGHTS,
    _find,
    basic_move,
    basic_prefers_move,
    position_stream,
)


# --- dispatch and the game loop -----------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def choose_move(st, rng, rp, dt, p, row, seed, arng, mem, moves, vals, mv, work, fwork, wrng, swork):
    """The move of agent `row` (float64[P_LEN]) for seat p, the seat to decide, into mv.

    seed: the game seed (uint64), whence p's own stream (positioned here at the game's decision count);
    mem: p's memory row; rng: the game's streams (only ``random`` draws from them, its POLICY stream);
    work int32[strong.WORK_LEN], fwork float64[strong.N_FEATURES], wrng uint64[2]: strong's scratch;
    swork: the expert search's (boardlab.agents.citadels.search.make_work).
    Unknown codes play as ``random`` rather than stall a batch.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the game's chance and policy streams.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    p : int
        The seat deciding.
    row : numpy.ndarray
        float64, shape ``(P_LEN,)``: the agent's parameter row.
    seed : numpy.uint64
        The game seed.
    arng : numpy.ndarray
        uint64, shape ``(2,)``: seat p's own stream (arng[1] scratch).
    mem : numpy.ndarray
        int32, shape ``(M_LEN,)``: seat p's memory row.
    moves : numpy.ndarray
        int32, shape ``(MAX_MOVES, MV_LEN)``: scratch (the legal list).
    vals : numpy.ndarray
        float64, shape ``(MAX_MOVES,)``: scratch.
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: the move, filled.
    work : numpy.ndarray
        int32, shape ``(strong.WORK_LEN,)``: strong's scratch.
    fwork : numpy.ndarray
        float64, shape ``(strong.N_FEATURES,)``: strong's scratch.
    wrng : numpy.ndarray
        uint64, shape ``(2,)``: strong's scratch streams.
    swork : tuple
        The expert search's scratch (boardlab.agents.citadels.search.make_work).
    """
    code = int(row[P_CODE])
    if code == A_BASIC:
        position_stream(arng, seed, p, st[E.ST_DECISIONS])
        basic_prefers_move(st, rp, dt, p, row, arng, mem, moves, vals, mv)
    elif code == A_STRONG:
        position_stream(arng, seed, p, st[E.ST_DECISIONS])
        strong_choice(st, rp, dt, p, row, arng, mem, moves, vals, mv, work, fwork, wrng)
    elif code == A_EXPERT:
        position_stream(arng, seed, p, st[E.ST_DECISIONS])
        SE.expert_move(st, rng, rp, dt, p, row, arng, mem, moves, vals, mv, swork)
    else:
        E.random_move(st, rng, rp, dt, moves, mv)


# --- strong (boardlab.agents.citadels.strong) ------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _remember_offer(st, mem):
    """Record the offer of a pick decision in the seat's memory, as basic's _pick does (its KILL / ROB read it)."""
    if mem[M_ROUND] != st[E.ST_ROUND]:
        mem[M_ROUND] = st[E.ST_ROUND]
        mem[M_PICKS] = 0
    k = mem[M_PICKS]
    if k < 2:
        mask = 0
        for i in range(st[E.ST_OFFER_N]):
            mask |= 1 << st[E.ST_OFFER + i]
        mem[M_OFFER + k] = mask
        mem[M_PICKS] = k + 1


@njit(cache=True, _nrt=False, inline="always")  # inlined into choose_move, its one caller: compiled there
def strong_choice(st, rp, dt, p, row, arng, mem, moves, vals, mv, work, fwork, wrng):
    """strong's move for seat p into mv (arng positioned): at a pick, rank P_PREFERS when offered, else the best
    offered rank by the learned value (boardlab.agents.citadels.strong); every other decision is basic's.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    p : int
        The seat deciding.
    row : numpy.ndarray
        float64, shape ``(P_LEN,)``: the agent's parameter row.
    arng : numpy.ndarray
        uint64, shape ``(2,)``: seat p's own stream (arng[1] scratch).
    mem : numpy.ndarray
        int32, shape ``(M_LEN,)``: seat p's memory row.
    moves : numpy.ndarray
        int32, shape ``(MAX_MOVES, MV_LEN)``: scratch (the legal list).
    vals : numpy.ndarray
        float64, shape ``(MAX_MOVES,)``: scratch.
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: the move, filled.
    work : numpy.ndarray
        int32, shape ``(strong.WORK_LEN,)``: strong's scratch.
    fwork : numpy.ndarray
        float64, shape ``(strong.N_FEATURES,)``: strong's scratch.
    wrng : numpy.ndarray
        uint64, shape ``(2,)``: strong's scratch streams.
    """
    if st[E.ST_PHASE] != E.PH_PICK:
        basic_move(st, rp, dt, p, row, arng, mem, moves, vals, mv)
        return
    n = E.legal_moves(st, rp, dt, moves)
    _remember_offer(st, mem)
    i = -1
    pref = int(row[P_PREFERS])
    if pref > 0:
        i = _find(moves, n, E.K_PICK, pref)
    if i < 0:
        w = row[P_WEIGHTS : P_WEIGHTS + S.N_FEATURES]
        i = S.strong_move(st, rp, dt, p, w, arng, moves, n, vals, fwork, work, wrng, moves)
        if i < 0:  # a position the redeal cannot read: basic's pick (on the true state, which it reads safely)
            mem[M_PICKS] -= 1  # basic records the offer itself
            basic_move(st, rp, dt, p, row, arng, mem, moves, vals, mv)
            return
    for j in range(E.MV_LEN):
        mv[j] = moves[i, j]


def play_games(
    seeds: np.ndarray,
    rp: np.ndarray,
    dt: np.ndarray,
    rows: np.ndarray,
    seats: np.ndarray,
    scores: np.ndarray,
    info: np.ndarray,
    hist: np.ndarray,
) -> None:
    """One game per seed, seat s of game g played by agent rows[seats[g, s]]; the results of
    boardlab.sim.citadels.engine.play_random_games (same arrays, same meaning).

    A Python function allocating the work arrays: the loop is compiled once, in ``_play_games`` (which releases
    the GIL, as play_random_games), not again inside a compiled wrapper.

    Parameters
    ----------
    seeds : ndarray(uint64, ndim=1)
        One seed per game.
    rp, dt : ndarray(int32)
        The rule parameters and the district types' table (``Tables.kernel_args()``).
    rows : ndarray(float64, ndim=2)
        ``[A, P_LEN]``: the agents.
    seats : ndarray(int64, ndim=2)
        ``[G, players]``: the agent index of each seat.
    scores, info, hist : ndarray(int32, ndim=3)
        ``[G, players, SC_LEN]``, ``[G, players, IN_LEN]``, ``[HIST_ROUNDS, G, HS_LEN]`` (zeroed): filled.

    Returns
    -------
    None
    """
    st = np.zeros(E.ST_LEN, dtype=np.int32)
    rng = np.zeros(2, dtype=np.uint64)
    ev = np.zeros((1, E.EV_LEN), dtype=np.int32)
    moves = np.zeros((E.MAX_MOVES, E.MV_LEN), dtype=np.int32)
    vals = np.zeros(E.MAX_MOVES, dtype=np.float64)
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    arng = np.zeros(2, dtype=np.uint64)
    mem = np.zeros((MAX_PLAYERS, M_LEN), dtype=np.int32)
    work = np.zeros(S.WORK_LEN, dtype=np.int32)
    fwork = np.zeros(S.N_FEATURES, dtype=np.float64)
    wrng = np.zeros(2, dtype=np.uint64)
    swork = SE.make_work()
    args = (seeds, rp, dt, rows, seats, scores, info, hist, st, rng, ev, moves, vals, mv, arng, mem, work, fwork, wrng,
            swork)  # fmt: skip
    with_choose(_play_games, args, (st, rng, rp, dt, rows[0], arng, mem[0], moves, vals, mv, work, fwork, wrng, swork))


def with_choose(loop, args: tuple, choose_args: tuple) -> None:
    """Call `loop` (a kernel whose first parameter is the agents' per-move kernel) with :func:`choose_move` by its
    address and `args`, compiled once per process and types for choose_move's type as the loops pass it (then a
    lookup; or loaded from numba's cache): the game loop, the recorded loop and self-play.

    Parameters
    ----------
    loop : numba dispatcher
        The kernel.
    args : tuple
        The loop's other arguments, in order.
    choose_args : tuple
        Arrays of choose_move's argument types, as :func:`choose_types` takes them.
    """
    choose = types.FunctionType(types.none(*choose_types(*choose_args)))
    loop_types = (choose, *(typeof(a) for a in args))
    loop.compile(loop_types)
    loop.overloads[loop_types].entry_point(choose_move, *args)  # choose_move converts to its address


def choose_types(st, rng, rp, dt, row, arng, mem, moves, vals, mv, work, fwork, wrng, swork) -> tuple:
    """choose_move's argument types for these arrays, as the loops pass them (the seat int32, the seed uint64).

    Parameters
    ----------
    st, rng, rp, dt, row, arng, mem, moves, vals, mv, work, fwork, wrng : numpy.ndarray
        choose_move's arrays (``row`` and ``mem`` one agent's and one seat's rows).
    swork : tuple of numpy.ndarray
        The expert search's scratch.

    Returns
    -------
    tuple of numba types
        choose_move's parameter types, in its order.
    """
    t = [typeof(a) for a in (st, rng, rp, dt, row, arng, mem, moves, vals, mv, work, fwork, wrng, swork)]
    return (*t[:4], types.int32, t[4], types.uint64, *t[5:])


@njit(cache=True, nogil=True, _nrt=False)
def _play_games(choose, seeds, rp, dt, rows, seats, scores, info, hist, st, rng, ev, moves, vals, mv, arng, mem, work,
                fwork, wrng, swork):  # fmt: skip
    # choose: choose_move as a first-class function (its address): its call tree is compiled once, in
    # choose_move, and not again inside this loop (docs/architecture/compile-time.md)
    n = rp[RP_PLAYERS]
    for g in range(seeds.shape[0]):
        seed = seeds[g]
        E.setup(st, rng, ev, seed, rp, dt, 0)
        for p in range(n):
            for j in range(M_LEN):
                mem[p, j] = 0
        while st[E.ST_PHASE] != E.PH_DONE:
            p = st[E.ST_CURRENT]
            row = rows[seats[g, p]]
            if int(row[P_CODE]) == A_RANDOM:  # as choose_move plays it, without the call by address (a cheap move)
                E.random_move(st, rng, rp, dt, moves, mv)
            else:
                choose(st, rng, rp, dt, p, row, seed, arng, mem[p], moves, vals, mv, work, fwork, wrng, swork)
            E.apply_move(st, rng, ev, rp, dt, mv)
        E.record_results(st, rp, dt, g, scores, info, hist)


@njit(cache=True, _nrt=False)
def memory_from_log(ev, n_events, p, mem):
    """Seat p's memory row rebuilt from an event log (rows ev[:n_events]): the offers of its pick decisions
    (offer events private to p of two ranks or more) since the last round event.

    Parameters
    ----------
    ev : numpy.ndarray
        int32, shape ``(rows, EV_LEN)``: an event log.
    n_events : int
        The log's rows written.
    p : int
        The seat.
    mem : numpy.ndarray
        int32, shape ``(M_LEN,)``: filled.
    """
    for j in range(M_LEN):
        mem[j] = 0
    i = n_events - 1
    while i >= 0 and ev[i, E.EV_KIND] != E.E_ROUND:
        i -= 1
    if i < 0:
        return
    mem[M_ROUND] = ev[i, E.EV_A]
    for j in range(i + 1, n_events):
        if ev[j, E.EV_KIND] == E.E_OFFER and ev[j, E.EV_VIS] == p and ev[j, E.EV_A] >= 2 and mem[M_PICKS] < 2:
            mask = 0
            for k in range(ev[j, E.EV_A]):
                mask |= 1 << ev[j + 1 + k, E.EV_A]
            mem[M_OFFER + mem[M_PICKS]] = mask
            mem[M_PICKS] += 1


# --- Python callers -----------------------------------------------------------------------------------------
def run_games(seeds: np.ndarray, tables, rows: np.ndarray, seats: np.ndarray) -> dict[str, np.ndarray]:
    """Play one game per seed (agents rows float64[A, P_LEN], seat plan seats int[G, players]); the
    result arrays of boardlab.sim.citadels.engine.play_random_games.

    Parameters
    ----------
    seeds : numpy.ndarray
        uint64, shape ``(G,)``: one seed per game.
    tables : Tables
        The rule set's tables.
    rows : numpy.ndarray
        float64, shape ``(A, P_LEN)``: the agents.
    seats : numpy.ndarray
        int, shape ``(G, players)``: the agent index of each seat.

    Returns
    -------
    dict of str to numpy.ndarray
        ``scores``, ``info``, ``hist``.
    """
    g, n = len(seeds), tables.players
    out = {
        "scores": np.zeros((g, n, E.SC_LEN), dtype=np.int32),
        "info": np.zeros((g, n, E.IN_LEN), dtype=np.int32),
        "hist": np.zeros((E.HIST_ROUNDS, g, E.HS_LEN), dtype=np.int32),
    }
    play_games(
        np.ascontiguousarray(seeds, dtype=np.uint64),
        *tables.kernel_args(),
        np.ascontiguousarray(rows, dtype=np.float64),
        np.ascontiguousarray(seats, dtype=np.int64),
        *out.values(),
    )
    return out


_CHOOSE_ENTRIES: dict = {}  # Chooser's: choose_move's machine code by the types of a game's arrays and the row


class Chooser:
    """The scratch arrays of :func:`choose_move` for moves of a public-API game (boardlab.sim.citadels.api.Game)."""

    def __init__(self) -> None:
        self.moves = np.zeros((E.MAX_MOVES, E.MV_LEN), dtype=np.int32)
        self.vals = np.zeros(E.MAX_MOVES, dtype=np.float64)
        self.mv = np.zeros(E.MV_LEN, dtype=np.int32)
        self.arng = np.zeros(2, dtype=np.uint64)
        self.mem = np.zeros(M_LEN, dtype=np.int32)
        self.work = np.zeros(S.WORK_LEN, dtype=np.int32)
        self.fwork = np.zeros(S.N_FEATURES, dtype=np.float64)
        self.wrng = np.zeros(2, dtype=np.uint64)
        self.swork = SE.make_work()

    def move(self, game, row: np.ndarray, seed: int | None = None) -> tuple:
        """The move agent `row` plays for the seat to decide, as the API's move tuple.

        The game is not moved (``random`` advances its policy stream, as it would in the loop).  The seat's
        memory comes from the game's event log, which the game must keep (``Game(..., log=True)``, the
        default).

        Parameters
        ----------
        game : boardlab.sim.citadels.api.Game
            The position; its current seat decides.
        row : ndarray(float64, ndim=1)
            The agent (its registry row, ``P_LEN`` values).
        seed : int, optional
            The seed of the agent's own stream (``seat_seed(seed, p)``); default the game's ``seed``.  A redeal
            carries a seed of its own (never the true game's), so an agent asked to decide on a redeal as on
            the position it came from is given the position's seed here.

        Returns
        -------
        tuple
            The move, as the public API writes it.
        """
        if game.done:
            raise ValueError("the game is over")
        p = game.current
        row = np.ascontiguousarray(row, dtype=np.float64)
        if int(row[P_CODE]) != A_RANDOM:
            if not game.st[E.ST_LOG]:
                raise ValueError("a built-in agent's memory is read from the event log: this game keeps none")
            memory_from_log(game.ev, int(game.st[E.ST_N_EVENTS]), p, self.mem)
        rp, dt = game.tables.kernel_args()
        args = (
            game.st,
            game.rng,
            rp,
            dt,
            np.int32(p),
            row,
            np.uint64(game.seed if seed is None else seed),
            self.arng,
            self.mem,
            self.moves,
            self.vals,
            self.mv,
            self.work,
            self.fwork,
            self.wrng,
            self.swork,
        )
        # the machine code the loops call by address (p int32, the seed uint64, the signature as the loops give
        # it): called as choose_move(...), numba would key its cache by the argument types alone and compile the
        # agents a second time
        key = types_key((game.st, game.rng, rp, dt, row))  # the arrays not the Chooser's own
        entry = _CHOOSE_ENTRIES.get(key)
        if entry is None:  # typing the arguments costs about 0.4 ms: once per process and key
            sig = types.none(*choose_types(*args[:4], row, *args[7:]))
            entry = _CHOOSE_ENTRIES[key] = choose_move.get_compile_result(sig).entry_point
        entry(*args)
        return move_tuple(self.mv)


def move_tuple(mv: np.ndarray) -> tuple:
    """A kernel move (MV_*) as the public API's tuple (boardlab.sim.citadels.api): KEEP's types as a tuple.

    Parameters
    ----------
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: the move, filled.

    Returns
    -------
    tuple
        The move.
    """
    kind, a, b = (int(x) for x in mv[: E.MV_LEN])
    if kind == E.K_KEEP:
        return (kind, (a,) if b < 0 else (a, b))
    return (kind, *(x for x in (a, b) if x >= 0))
