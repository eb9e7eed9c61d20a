"""The `strong` agent: each ruler's k best moves by the exact greedy search, re-ranked by a learned value.

A move's value is its immediate worth (the evaluator's objective, as for greedy or a
specialist) plus the learned value of the position it leads to
(:mod:`boardlab.agents.citywright.value`)::

    value(move) = worth(move) + weights[turns left] . features(board after the move)

Two passes, so the greedy search's pruning stays exact and untouched:

1. For each ruler on offer (slots giving the same shape and the same tiles count once),
   :func:`boardlab.agents.citywright.kernels.evaluator_search` keeps that ruler's k best moves by
   worth (``P_K``), exactly, with its bounds: it is run on a copy of the position in which
   every other slot is empty.
2. Every kept move is played on a copy of the mover's board and re-ranked by worth plus
   learned value; ties are broken by the policy stream, as the search breaks its own.

Why per ruler: the k best moves of the whole position are mostly variants of one or two
rulers (early in a game the 64 best span 2.4 rulers and 1.1 points of worth), so a
learned value choosing among them cannot prefer another ruler that leaves a better board.
A move outside its ruler's k best by worth is never chosen, however good its position.
The weights are an argument: :data:`STRONG_WEIGHTS` are the committed ones (``weights/strong-v1.json``,
fitted under v1.1); the game loop passes each seat the weights its spec resolved to for the rules in play
(:func:`boardlab.agents.citywright.registry.for_rules`: the committed ones, or ones trained under a variant).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.rules import N_SLOTS
from boardlab.sim.citywright.tables import MAX_SHAPES, NONE_TILE, PL_BITS, RP_DEPLETES, RP_N_SHAPES, SHP_PLAIN, SHP_STAR
from boardlab.sim.rng import GOLDEN_GAMMA, POLICY, rand_below
from boardlab.sim.rng import _mix as splitmix

from .kernels import P_K, evaluator_search, free_options, search_offer_apart, search_setup
from .value import N_FEATURES, WEIGHTS_DIR, board_features, load_weights, opponents_best, turn_bucket, turns_left_after

_ONE = np.uint64(1)

STRONG_K = 3  # the default k: per ruler (docs/games/citywright/search.md: strength and time by k)
WEIGHTS_VERSION = "strong-v1"
STRONG_WEIGHTS, STRONG_WEIGHTS_META = load_weights(WEIGHTS_DIR / f"{WEIGHTS_VERSION}.json")
STRONG_WEIGHTS.setflags(write=False)


def value_weights(vw):
    """A kernel's optional weights argument: vw, or the committed weights when it is None (or omitted).

    Parameters
    ----------
    vw : numpy.ndarray or None
        Weights, or None.
    """
    return STRONG_WEIGHTS if vw is None else vw


def readonly_weights(w) -> np.ndarray:
    """A C-contiguous float64 read-only copy of weights w, the one type every kernel is given weights in.

    The kernels never write their weights, and the committed weights inside a kernel (`value_weights` of
    None) are a read-only constant: passing every weight set read-only too means numba compiles each kernel
    once for weights, not once for read-only and once for writable arrays (docs/architecture.md, "Compile time").

    Parameters
    ----------
    w : numpy.ndarray
        The weights (any float array).

    Returns
    -------
    numpy.ndarray
        float64, C-contiguous, read-only.
    """
    out = np.array(w, dtype=np.float64, order="C")
    out.setflags(write=False)
    return out


@overload(value_weights)
def _value_weights(vw):
    # chosen when compiling: the omitted argument's kernels read the committed weights as a constant, as before
    if vw is None or isinstance(vw, (types.NoneType, types.Omitted)):
        return lambda vw: STRONG_WEIGHTS
    return lambda vw: vw


@njit(cache=True, inline="always")
def ruler_key(st, slot, shape):
    """A key equal for slots giving the same shape and the same tiles in any order (they offer the same moves).

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    slot : int
        The market slot.
    shape : int
        The ruler's shape index.
    """
    key = shape * 100000
    for j in range(4):
        d = st[E.ST_MARKET + E.line_cell(slot, j)]
        key += 10 ** (4 - (d if d >= 0 else NONE_TILE))
    return key


@njit(cache=True)
def board_after(boards, st, p, mv, shp, pl_info, nb, placed):
    """The mover's board nb uint64[4] and placed counts int32[MAX_SHAPES] after move mv (as apply_move puts them).

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(players, 4)``: each seat's R, C, P, I bitboards.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    p : int
        The seat.
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: the move, filled.
    shp : numpy.ndarray
        int32, shape ``(shapes, SHP_LEN)``: the shape table.
    pl_info : numpy.ndarray
        int16, shape ``(placements, PL_LEN)``: the placement table.
    nb : numpy.ndarray
        uint64, shape ``(4,)``: filled.
    placed : numpy.ndarray
        int32, shape ``(MAX_SHAPES,)``: the player's placed count per shape.
    """
    for d in range(4):
        nb[d] = boards[p, d]
    for s in range(MAX_SHAPES):
        placed[s] = st[E.ST_PLACED + p * MAX_SHAPES + s]
    kind = mv[E.MV_KIND]
    if kind == E.K_PLACE:
        shape = st[E.ST_SLOTS + mv[E.MV_SLOT]]
        pl = mv[E.MV_PL]
        landed = 0
        for k in range(4):
            d = mv[E.MV_TILES + k]
            if d == NONE_TILE:
                continue
            b = pl_info[pl, PL_BITS + shp[shape, SHP_PLAIN + k]]
            if b >= 0:
                nb[d] |= _ONE << np.uint64(b)
                landed += 1
        star = shp[shape, SHP_STAR]
        if star >= 0:
            d = mv[E.MV_FREE]
            if d >= 0 and d != NONE_TILE:
                b = pl_info[pl, PL_BITS + star]
                if b >= 0:
                    nb[d] |= _ONE << np.uint64(b)
                    landed += 1
        if landed > 0:
            placed[shape] += 1
    elif kind == E.K_SWAP and mv[E.MV_PL] >= 0:
        nb[mv[E.MV_TILES]] |= _ONE << np.uint64(mv[E.MV_PL])


@njit(cache=True)
def strong_move(boards, st, rng, mv, prm, tables, vw, shared=False, rulers=None):
    """Fill mv with the best, by worth + learned value, of each ruler's k best moves by worth; return that value.

    tables is ``Tables.kernel_args()``; vw float64[TURN_BUCKETS, N_FEATURES] the value's weights.
    shared: the rulers' searches share one setup of the mover's board (kernels.search_setup) instead of
    each its own; the same moves, worths and draws.
    rulers: a memo of one-ruler searches (new_ruler_memo), so a ruler met again with the same board (in
    another market: the same shape and tiles) takes its k best moves from there, without a search.

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
    shared : bool
        Share the board's setup between the rulers' searches (strong_move's).
    rulers : tuple or None
        A ruler memo (:func:`new_ruler_memo`), or None.
    """
    rp, shp, _, pl_info, _, _, _, ach = tables
    k = max(1, int(prm[P_K]))
    p = st[E.ST_CUR]
    opp = np.empty(4, dtype=np.int64)
    opponents_best(boards, p, rp, opp)
    w = vw[turn_bucket(turns_left_after(st, rp, p))]
    f = np.empty(N_FEATURES, dtype=np.float64)
    nb = np.empty(4, dtype=np.uint64)
    placed = np.empty(MAX_SHAPES, dtype=np.int32)
    cand = np.zeros((k, E.MV_LEN), dtype=np.int32)
    cand_val = np.zeros(k, dtype=np.float64)
    one = st.copy()  # the position with one ruler left on offer

    keys = np.full(N_SLOTS, -1, dtype=np.int64)
    top = -1e300
    seen = 0
    pick = np.zeros(E.MV_LEN, dtype=np.int32)
    searched = 0
    set_up = False
    use_memo = rulers is not None and rulers[0].shape[0] > 0
    for slot in range(N_SLOTS):
        shape = st[E.ST_SLOTS + slot]
        if shape < 0:
            continue
        key = ruler_key(st, slot, shape)
        dup = False
        for s in range(slot):
            if keys[s] == key:
                dup = True
        keys[slot] = key
        if dup:
            continue
        searched += 1
        at = -1
        if use_memo:
            at, ncand = _ruler_lookup(rulers, boards, st, p, slot, key, rp, cand, cand_val)
        if at < 0:  # not remembered: search this ruler alone
            for s in range(N_SLOTS):
                one[E.ST_SLOTS + s] = shape if s == slot else -1
            if shared:
                if not set_up:
                    placed0, board0, ws, base, facts, prunable, ach_open = search_setup(boards, st, prm, tables)
                    set_up = True
                _, ncand = search_offer_apart(one, rng, mv, prm, tables, cand, cand_val, placed0, board0, ws, base,
                                              facts, prunable, ach_open)  # fmt: skip
            else:
                _, ncand = evaluator_search(boards, one, rng, mv, prm, tables, cand, cand_val)
            if use_memo:
                _ruler_store(rulers, -1 - at, cand, cand_val, ncand)
        for j in range(ncand):
            board_after(boards, st, p, cand[j], shp, pl_info, nb, placed)
            board_features(nb[0], nb[1], nb[2], nb[3], placed, opp, rp, ach, f)
            v = cand_val[j]
            for i in range(N_FEATURES):
                v += w[i] * f[i]
            if v > top + 1e-9:
                top = v
                seen = 1
                pick[:] = cand[j]
            elif v > top - 1e-9:
                seen += 1
                if rand_below(rng, POLICY, seen) == 0:
                    pick[:] = cand[j]
    if searched == 0:  # no ruler on offer: the search passes
        return evaluator_search(boards, st, rng, mv, prm, tables, cand, cand_val)[0]
    mv[:] = pick
    return top


# The one-ruler searches' memo (strong_move's `rulers`): open addressing, _RULER_PROBES probes; an entry is a
# (board, recorded shapes, ruler) key and that ruler's k best moves by worth with their worths.
_RULER_PROBES = 4
_RULER_TAG = np.uint64(0x52554C455253)


@njit(cache=True)
def new_ruler_memo(entries, k):
    """An empty memo for strong_move's `rulers` (entries a power of two, or 0: none; k: the k of the searches it
    keeps): (keys uint64[entries], counts int64[entries], moves int32[entries, k, MV_LEN], worths
    float64[entries, k], stats int64[2]: searches stored, rulers taken from it).

    Parameters
    ----------
    entries : int
        Memo entries (a power of two, or 0).
    k : int
        The k of the searches it keeps.
    """
    return (
        np.zeros(entries, dtype=np.uint64),
        np.zeros(entries, dtype=np.int64),
        np.empty((entries, k, E.MV_LEN), dtype=np.int32),
        np.empty((entries, k), dtype=np.float64),
        np.zeros(2, dtype=np.int64),
    )


@njit(cache=True, inline="always")
def _step(h, x):
    return splitmix((h ^ np.uint64(x)) + GOLDEN_GAMMA)


@njit(cache=True)
def _ruler_lookup(rulers, boards, st, p, slot, key, rp, cand, cand_val):
    """A one-ruler search's k best from the memo into cand, cand_val (their slot made `slot`): (entry, count);
    or, not remembered, (-1 - the entry to store it in, 0).

    What such a search depends on: the mover's board and recorded shapes, the ruler's shape and tiles (key),
    and on a depleting market the districts a free pick may take."""
    keys, counts, moves, worths, stats = rulers
    h = _step(_RULER_TAG, key)
    for d in range(4):
        h = _step(h, boards[p, d])
    for s in range(rp[RP_N_SHAPES]):
        h = _step(h, st[E.ST_PLACED + p * MAX_SHAPES + s])
    if rp[RP_DEPLETES]:
        h = _step(h, free_options(st, rp, slot))
    h |= np.uint64(1)  # 0 marks an empty entry
    size = keys.shape[0]
    home = np.int64(h & np.uint64(size - 1))
    at = home
    for i in range(_RULER_PROBES):
        j = (home + i) & (size - 1)
        if keys[j] == h:
            n = counts[j]
            for c in range(n):
                cand[c] = moves[j, c]
                cand[c, E.MV_SLOT] = slot
                cand_val[c] = worths[j, c]
            stats[1] += 1
            return j, n
        if keys[j] == 0:
            at = j
            break
    keys[at] = h  # claimed now, filled by _ruler_store
    counts[at] = 0
    return -1 - at, 0


@njit(cache=True)
def _ruler_store(rulers, at, cand, cand_val, n):
    _, counts, moves, worths, stats = rulers
    counts[at] = n
    for c in range(n):
        moves[at, c] = cand[c]
        worths[at, c] = cand_val[c]
    stats[0] += 1
