"""The game loop for Cartographers' built-in agents: a batch of games without returning to Python.

An agent is an integer code plus a float64 parameter row (``P_*`` offsets); the code picks
the policy.  ``play_games`` takes one row per seat per game and writes, per game and seat,
the final scores (``boardlab.sim.cartographers.engine.SC_*``), the season records, the coins held and
the final map; per game, the four edicts.  Seating plans (rotation, permutation) are the
caller's business.

Every policy fills a kernel move (``boardlab.sim.cartographers.engine.MV_*``) for the seat to decide
and draws its random numbers from the game's policy stream only.  A new policy is a new code,
its parameters in the row, and a branch in :func:`policy_move`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, typeof, types

from boardlab.sim._cache import types_key
from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.tables import RP_PLAYERS

from .expert import expert_move
from .kernels import A_EXPERT, A_GREEDY, A_PLANNER, A_RANDOM, A_STRONG, P_AMBUSH, P_CODE, P_LEN, evaluator_move
from .strong import STRONG_WEIGHTS, strong_move, workspace

__all__ = [
    "A_EXPERT", "A_GREEDY", "A_PLANNER", "A_RANDOM", "A_STRONG", "P_AMBUSH", "P_CODE", "P_LEN",
    "play_games", "run_games",
]  # fmt: skip


@njit(cache=True)
def policy_move(bb, st, rng, mv, prm, rp, cards, forms, form_anchors, walk, masks, vw, ws):
    """Fill mv with the move of the agent of the seat to decide (prm is its row; vw the strong agent's
    learned weights, ws its scratch: boardlab.agents.cartographers.strong.workspace).

    Parameters
    ----------
    bb : numpy.ndarray
        uint64, shape ``(players, N_PLANES, 2)``: every seat's map planes.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the game's chance and policy streams, advanced in place.
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: the move, filled.
    prm : numpy.ndarray
        float64, shape ``(P_LEN,)``: the agent's parameter row.
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
    """
    code = int(prm[P_CODE])
    if code == A_RANDOM:
        E.random_move(bb, st, rng, mv, rp, cards, forms, form_anchors, masks)
    elif code == A_GREEDY or code == A_PLANNER:
        evaluator_move(bb, st, rng, mv, prm, rp, cards, forms, form_anchors, masks)
    elif code == A_STRONG:
        strong_move(bb, st, rng, mv, prm, rp, cards, forms, form_anchors, masks, vw, ws)
    elif code == A_EXPERT:
        expert_move(bb, st, rng, mv, prm, rp, cards, forms, form_anchors, walk, masks, vw, ws)
    else:  # unknown codes play at random rather than stall a batch
        E.random_move(bb, st, rng, mv, rp, cards, forms, form_anchors, masks)


@njit(cache=True, inline="always")  # inlined into play_games, its one caller
def play_game(policy, bb, st, rng, seed, prms, rp, cards, forms, form_anchors, walk, masks, vw, ws):
    """One game from its seed; seat s's agent is prms[s].

    Parameters
    ----------
    policy : first-class function
        :func:`policy_move`, passed by its address (``play_games``).
    bb : numpy.ndarray
        uint64, shape ``(players, N_PLANES, 2)``: every seat's map planes.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the game's chance and policy streams, advanced in place.
    seed : numpy.uint64
        The game seed.
    prms : numpy.ndarray
        float64, shape ``(players, P_LEN)``: each seat's row.
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
    """
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    E.setup(bb, st, rng, seed, rp, cards, forms, form_anchors, walk, masks)
    while st[E.ST_PHASE] != E.PHASE_DONE:
        prm = prms[st[E.ST_CURRENT]]
        if int(prm[P_CODE]) == A_RANDOM:  # as policy_move plays it, without the call by address (a cheap move)
            E.random_move(bb, st, rng, mv, rp, cards, forms, form_anchors, masks)
        else:
            policy(bb, st, rng, mv, prm, rp, cards, forms, form_anchors, walk, masks, vw, ws)
        E.apply_move(bb, st, rng, mv, rp, cards, forms, form_anchors, walk, masks)


@njit(cache=True)
def play_games(
    policy, seeds, prms, rp, cards, forms, form_anchors, walk, masks, vw, ws, scores, records, coins, edicts, planes
):
    """One game per seed with agents prms (float64[G, players, P_LEN]); vw and ws are the strong agent's
    weights and scratch (policy_move).

    `policy` is :func:`policy_move` as a first-class function (its address; :func:`run_games` passes it): the
    agents' call tree is compiled once, in policy_move, and not again inside this loop
    (docs/architecture/compile-time.md).

    scores int32[G, players, SC_LEN]; records int32[G, players, 4, REC_LEN] (the season records);
    coins int32[G, players] (coins held at the end); edicts int32[G, 4]; planes
    uint64[G, players, N_PLANES, 2] (the final maps).

    Parameters
    ----------
    policy : first-class function
        policy_move, typed by :func:`policy_type`.
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
    records : numpy.ndarray
        int32, shape ``(G, players, N_SEASONS, REC_LEN)``: filled.
    coins : numpy.ndarray
        int32, shape ``(G, players)``: filled.
    edicts : numpy.ndarray
        int32, shape ``(G, 4)``: filled.
    planes : numpy.ndarray
        uint64, shape ``(G, players, N_PLANES, 2)``: filled.
    """
    n = rp[RP_PLAYERS]
    bb = np.zeros((n, E.N_PLANES, 2), dtype=np.uint64)
    st = np.zeros(E.ST_LEN, dtype=np.int32)
    rng = np.zeros(2, dtype=np.uint64)
    for g in range(seeds.shape[0]):
        play_game(policy, bb, st, rng, seeds[g], prms[g], rp, cards, forms, form_anchors, walk, masks, vw, ws)
        E.record_game(bb, st, rp, scores[g], records[g], coins[g], edicts[g], planes[g])


def run_games(seeds: np.ndarray, prms: np.ndarray, tables, weights: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Python convenience: allocate the outputs and play (prms float64[G, players, P_LEN]; weights: the strong
    agent's learned weights, default the committed ones).

    Parameters
    ----------
    seeds : numpy.ndarray
        uint64, shape ``(G,)``: one seed per game.
    prms : numpy.ndarray
        float64, shape ``(G, players, P_LEN)``: each game's seats' rows.
    tables : Tables
        The rule set's tables (boardlab.sim.cartographers.tables).
    weights : numpy.ndarray or None
        strong's learned weights (None: the committed ones).

    Returns
    -------
    dict of str to numpy.ndarray
        ``scores``, ``records``, ``coins``, ``edicts``, ``planes``.
    """
    g, n = prms.shape[0], prms.shape[1]
    out = E.new_results(g, n)
    prms = np.ascontiguousarray(prms, dtype=np.float64)
    tail = (*tables.kernel_args(), _weights(weights), workspace())
    args = (np.ascontiguousarray(seeds, dtype=np.uint64), prms, *tail, *out.values())
    with_policy(play_games, tail, args)
    return out


def with_policy(loop, tail: tuple, args: tuple) -> None:
    """Call `loop` (a kernel whose first parameter is the policy) with :func:`policy_move` by its address and
    `args`, compiled once per process and types for :func:`policy_type` (then a lookup; or loaded from numba's
    cache): the game loop and the self-play loop.

    Parameters
    ----------
    loop : numba dispatcher
        The kernel.
    tail : tuple
        ``(*tables.kernel_args(), weights, workspace())``, as the policy takes them.
    args : tuple
        The loop's other arguments, in order.
    """
    sig = (policy_type(tail), *(typeof(a) for a in args))
    loop.compile(sig)
    loop.overloads[sig].entry_point(policy_move, *args)  # policy_move converts to its address


def policy_type(tail: tuple) -> types.FunctionType:
    """The first-class function type of :func:`policy_move` as play_games calls it: the game loop's own arrays
    (maps, state, streams, move, an agent's row), then `tail` (the tables' arrays, weights, scratch).

    Parameters
    ----------
    tail : tuple
        ``(*tables.kernel_args(), weights, workspace())``, as play_games takes them.

    Returns
    -------
    numba.types.FunctionType
        ``none(bb, st, rng, mv, row, *tail)``.
    """
    own = (types.uint64[:, :, ::1], types.int32[::1], types.uint64[::1], types.int32[::1], types.float64[::1])
    return types.FunctionType(types.none(*own, *(typeof(a) for a in tail)))


_POLICY_ENTRIES: dict = {}  # types_key of a tail -> policy_move's compiled function for its policy_type


def policy_entry(tail: tuple):
    """policy_move's machine code as play_games calls it, for Python callers that move one seat at a time (the
    per-move player, :func:`choose_move`): compiled for :func:`policy_type` (or loaded from numba's cache) once per
    process, the same code as every game loop's.  Called from Python with the kernel itself, numba would compile a
    specialization of its own for those argument types.

    Parameters
    ----------
    tail : tuple
        ``(*tables.kernel_args(), weights, workspace())``: the weights writable float64 (``_weights``).

    Returns
    -------
    callable
        ``policy(bb, st, rng, mv, row, *tail)``: fills mv with row's move, advancing the policy stream.
    """
    key = types_key(tail)  # typing the arguments costs about 1 ms a call: it is done once per key
    entry = _POLICY_ENTRIES.get(key)
    if entry is None:
        ftype = policy_type(tail)
        entry = _POLICY_ENTRIES[key] = policy_move.get_compile_result(ftype.signature).entry_point
    return entry


def _weights(weights) -> np.ndarray:
    # always a writable copy: numba compiles read-only arrays apart, so one type keeps one compilation
    return np.array(STRONG_WEIGHTS if weights is None else weights, dtype=np.float64)


def choose_move(game, prm: np.ndarray, weights: np.ndarray | None = None):
    """The move agent row prm (float64[P_LEN]) plays in a public-API position (boardlab.sim.cartographers.api.Game).

    Draws from the game's policy stream (game.rng advances) as the game loop would; the game is not moved.

    Parameters
    ----------
    game : boardlab.sim.cartographers.api.Game
        The position.
    prm : numpy.ndarray
        float64, shape ``(P_LEN,)``: the agent's row.
    weights : numpy.ndarray or None
        strong's learned weights (None: the committed ones).
    """
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    tb = game.tables
    row = np.ascontiguousarray(prm, dtype=np.float64)
    tail = (*tb.kernel_args(), _weights(weights), workspace())
    policy_entry(tail)(game.bb, game.st, game.rng, mv, row, *tail)
    return game.decode(mv)
