"""numba kernels: the whole game over a few fixed-shape arrays.

Everything here is ``@njit(cache=True)`` over plain arrays; the Python API in
:mod:`boardlab.sim.citywright.api` validates input and turns moves into readable objects.  The
contract both this module and the reference implement is docs/games/citywright/engine.md.

A game's state is three arrays:

``boards`` uint64[players, 4]
    one bitboard per district (layout in :mod:`boardlab.sim.citywright.tables`).
``st`` int32[ST_LEN]
    every other number, at the ``ST_*`` offsets below: round, turn within the
    round, seat to move, done flag, market (16 cells, -1 = tile gone), slots
    (20 shape indices, -1 = empty), per-shape counts of deck, discard pile,
    rulers used this round and rulers out of the game, and per seat: waste,
    tiles taken, forced discards, turns, placed count per shape.
``rng`` uint64[2]
    SplitMix64 states (:mod:`boardlab.sim.rng`): [0] chance (market, decks), [1] policy (agents).

Copying a game (for search) is copying these three arrays.

A move is int32[MV_LEN]: kind, slot, then for a placement the placement index,
the district put on each of the shape's 4 plain cells (NONE_TILE = no tile) and
the free pick's district (-1 without a star); for a swap the board bit and the
district.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from boardlab.sim.bits import popcount
from boardlab.sim.layout import Layout
from boardlab.sim.rng import CHANCE, POLICY, POLICY_STREAM_XOR, rand_below

from .rules import (
    DISTRICTS,
    KIND_DISTINCT_SHAPES,
    KIND_DISTRICT_COUNT,
    KIND_FULL_LINE,
    KIND_HIGHEST_DISTRICT,
    KIND_NO_EMPTY,
    KIND_SAME_SHAPE,
    KIND_SHAPE_COUNT,
    MAX_PLAYERS,
    N_EDGE_SLOTS,
    N_SLOTS,
    RANKING,
)
from .tables import (
    ACH_DISTRICT,
    ACH_KIND,
    ACH_POINTS,
    ACH_SHAPE,
    ACH_SOLO,
    ACH_THRESHOLD,
    BOARD_CELLS,
    MARKET_CELLS,
    MAX_SHAPES,
    NONE_TILE,
    OPPOSITE_SLOT,
    PL_BITS,
    PLAIN_CELLS,
    RING,
    RP_C_ISO,
    RP_C_TABLE,
    RP_COMP,
    RP_DECK_N,
    RP_DECK_SHAPES,
    RP_DEPLETES,
    RP_I_PAIR,
    RP_I_RING,
    RP_INIT_DECK,
    RP_INIT_REMOVED,
    RP_N_ACH,
    RP_N_SHAPES,
    RP_P_ADJ,
    RP_P_ADJ_MASK,
    RP_P_COL,
    RP_P_ROW,
    RP_PLAYERS,
    RP_RES_BIG,
    RP_RES_SECOND_TILE_PTS,
    RP_ROUNDS,
    RP_SOLO_RIVAL,
    RP_TIE_SECOND_SEAT,
    RP_TURNS,
    SHP_PL_END,
    SHP_PL_START,
    SHP_PLAIN,
    SHP_STAR,
    SLOT_CELLS,
    VALID,
)

# --- state layout ------------------------------------------------------------------
# Offsets into st, in this order (boardlab.sim.layout assigns them).
_st = Layout("st")
ST_ROUND = _st.add("round")
ST_TURN = _st.add("turn")  # turns taken this round
ST_CUR = _st.add("current")  # seat to move, -1 when done
ST_DONE = _st.add("done")
ST_PLAYERS = _st.add("players")
_st.add(None, 3)  # unused (keeps the offsets below as they have always been)
ST_MARKET = _st.add("market", MARKET_CELLS)  # district per cell, -1 = tile gone
ST_SLOTS = _st.add("slots", N_SLOTS)  # shape per slot, -1 = empty
ST_DECK = _st.add("deck", MAX_SHAPES)  # counts per shape
ST_DISC = _st.add("discard", MAX_SHAPES)
ST_USED = _st.add("used", MAX_SHAPES)  # rulers used this round
ST_REMOVED = _st.add("removed", MAX_SHAPES)  # rulers out of the game
ST_WASTE = _st.add("waste", MAX_PLAYERS)  # per seat
ST_TAKEN = _st.add("taken", MAX_PLAYERS)
ST_FORCED = _st.add("forced", MAX_PLAYERS)
ST_TURNS = _st.add("turns", MAX_PLAYERS)
ST_PLACED = _st.add("placed", MAX_PLAYERS * MAX_SHAPES)  # per seat, MAX_SHAPES counts each
ST_LEN = _st.size

# --- moves ---------------------------------------------------------------------------
_mv = Layout("mv")
MV_KIND = _mv.add("kind")
MV_SLOT = _mv.add("slot")
MV_PL = _mv.add("placement")  # placement index; swap: board bit
MV_TILES = _mv.add("tiles", PLAIN_CELLS)  # district per plain cell; swap: MV_TILES is the district
MV_FREE = _mv.add("free")
MV_LEN = _mv.size
K_PLACE = 0
K_DISCARD = 1
K_SWAP = 2
K_PASS = 3

# --- score breakdown ----------------------------------------------------------------
_sc = Layout("sc")
SC_R = _sc.add("residential")  # SC_R..SC_I are the district indices 0..3
SC_C = _sc.add("commercial")
SC_P = _sc.add("park")
SC_I = _sc.add("industrial")
SC_DISTRICTS = _sc.add("districts")
SC_ACH = _sc.add("achievements")
SC_COMP = _sc.add("compensation")
SC_TOTAL = _sc.add("total")
SC_EMPTY = _sc.add("empty")
SC_DISTINCT = _sc.add("shapes_distinct")
SC_RANK = _sc.add("rank")
SC_LEN = _sc.size
# rules.RANKING on the score sheet: the columns compared in turn, +1 where more is better
RANK_COLUMNS = tuple(_sc.offset(name) for name, _ in RANKING)
RANK_SIGNS = tuple(1 if more_is_better else -1 for _, more_is_better in RANKING)

# --- end-of-game statistics per seat (play_random_games fills the first four) ------------
_stat = Layout("stats")
STAT_TAKEN = _stat.add("tiles_taken")
STAT_WASTE = _stat.add("waste")
STAT_FORCED = _stat.add("forced_discards")
STAT_TURNS = _stat.add("turns")
STAT_PLACED = _stat.add("placed", MAX_SHAPES)  # placed count per shape
N_STATS = _stat.size
LAYOUTS = (_st, _mv, _sc, _stat)

_VALID = np.uint64(VALID)
_RING = np.uint64(RING)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_TILES_PER_DISTRICT = MARKET_CELLS // len(DISTRICTS)  # in a fresh market (game.market_tiles_per_district)
_ROW0 = np.uint64(0x7F)  # the cells of row 0
_ROW_PADS = np.uint64(0x0080808080808080)  # the padding bit (column 7) of rows 0..6


# --- scoring -------------------------------------------------------------------------


@njit(cache=True, inline="always")
def neighbours(b):
    """The cells next to a bitboard's cells (up, down, left, right), on the board.

    Parameters
    ----------
    b : numpy.uint64
        A uint64 bitboard (7 x 7 cells, row r at bits 8r..8r+6).

    Returns
    -------
    numpy.uint64
        The cells edge-adjacent to a cell of `b`, on the board.
    """
    return ((b << _ONE) | (b >> _ONE) | (b << np.uint64(8)) | (b >> np.uint64(8))) & _VALID


@njit(cache=True)
def residential_score(r, rp):
    """Largest and second-largest edge-connected clusters.

    Single tiles and two-tile clusters are counted in bulk with bit tricks;
    only clusters of three or more are flood-filled.

    Parameters
    ----------
    r : numpy.uint64
        The residential bitboard.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters (Tables.rp).

    Returns
    -------
    int
        Residential's points.
    """
    if r == _ZERO:
        return 0
    east = r & (r >> _ONE)  # has a neighbour to the east (column 7 is always empty)
    west = r & (r << _ONE)
    south = r & (r >> np.uint64(8))
    north = r & (r << np.uint64(8))
    anyn = east | west | south | north
    two = (east & west) | (south & north) | ((east | west) & (south | north))
    one = anyn & ~two  # exactly one neighbour
    h_pair = one & east & ((one & west) >> _ONE)  # west cell of an isolated horizontal pair
    v_pair = one & south & ((one & north) >> np.uint64(8))
    singles = r & ~anyn
    n_single = popcount(singles)
    n_pair = popcount(h_pair) + popcount(v_pair)
    # the two largest among the isolated pairs and single tiles
    s1 = 2 if n_pair > 0 else min(n_single, 1)
    s2 = 2 if n_pair > 1 else (1 if n_pair + n_single > 1 else 0)
    rem = r & ~(singles | h_pair | (h_pair << _ONE) | v_pair | (v_pair << np.uint64(8)))
    while rem != _ZERO:
        c = rem & (~rem + _ONE)
        while True:  # two growth steps per test: fewer unpredictable branches
            n = (c | neighbours(c)) & rem
            n2 = (n | neighbours(n)) & rem
            if n2 == n:
                break
            c = n2
        rem &= ~n2
        sz = popcount(n2)
        if sz > s1:
            s2 = s1
            s1 = sz
        elif sz > s2:
            s2 = sz
    return rp[RP_RES_BIG + s1] + s2 * rp[RP_RES_SECOND_TILE_PTS]


@njit(cache=True)
def commercial_score(c, rp):
    """Tier and extra points by count (a table built from the rule set) + isolated tiles.

    Parameters
    ----------
    c : numpy.uint64
        The commercial bitboard.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters (Tables.rp).

    Returns
    -------
    int
        Commercial's points.
    """
    iso = c & ~neighbours(c)
    return rp[RP_C_TABLE + popcount(c)] + popcount(iso) * rp[RP_C_ISO]


@njit(cache=True, inline="always")
def park_neighbour_source(b0, b1, b2, b3, rp):
    """Tiles of the districts a park must touch to score adjacency (rule `park.adjacent_to`).

    Parameters
    ----------
    b0, b1, b2, b3 : numpy.uint64
        The board's R, C, P, I bitboards.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters (Tables.rp).

    Returns
    -------
    numpy.uint64
        The union of those districts' bitboards.
    """
    m = rp[RP_P_ADJ_MASK]
    src = _ZERO
    if m & 1:
        src |= b0
    if m & 2:
        src |= b1
    if m & 4:
        src |= b2
    if m & 8:
        src |= b3
    return src


@njit(cache=True, inline="always")
def rows_with(b):
    """A bit per row holding a tile of b (the row's padding bit, column 7).

    Parameters
    ----------
    b : numpy.uint64
        A bitboard.

    Returns
    -------
    numpy.uint64
        One bit per row holding a tile.
    """
    # a row's byte is 0..0x7F; adding 0x7F sets its padding bit exactly when it is non-zero
    return (b + _VALID) & _ROW_PADS


@njit(cache=True, inline="always")
def columns_with(b):
    """A bit per column holding a tile of b (the column's cell in row 0).

    Parameters
    ----------
    b : numpy.uint64
        A bitboard.

    Returns
    -------
    numpy.uint64
        One bit per column holding a tile.
    """
    cols = b | (b >> np.uint64(8))
    cols |= cols >> np.uint64(16)
    cols |= cols >> np.uint64(32)
    return cols & _ROW0


@njit(cache=True)
def park_score(b0, b1, b2, b3, rp):
    """Park's points (docs/games/citywright.md, district scoring).

    Parameters
    ----------
    b0, b1, b2, b3 : numpy.uint64
        The board's R, C, P, I bitboards.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters (Tables.rp).

    Returns
    -------
    int
        Park's points: adjacency, columns and rows.
    """
    p = b2
    if p == _ZERO:
        return 0
    pts = popcount(p & neighbours(park_neighbour_source(b0, b1, b2, b3, rp))) * rp[RP_P_ADJ]
    pts += popcount(columns_with(p)) * rp[RP_P_COL]
    rows = popcount(rows_with(p))
    return pts + rows * rp[RP_P_ROW]


@njit(cache=True)
def industrial_score(i, rp):
    """Industrial's points (docs/games/citywright.md, district scoring).

    Parameters
    ----------
    i : numpy.uint64
        The industrial bitboard.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters (Tables.rp).

    Returns
    -------
    int
        Industrial's points: the ring's tiles and pairs.
    """
    return popcount(i & _RING) * rp[RP_I_RING] + (popcount(i) // 2) * rp[RP_I_PAIR]


@njit(cache=True)
def score_districts(b0, b1, b2, b3, rp):
    """(R, C, P, I points, empty cells) of one board.

    Parameters
    ----------
    b0, b1, b2, b3 : numpy.uint64
        The board's R, C, P, I bitboards.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters (Tables.rp).

    Returns
    -------
    tuple of int
        (R, C, P, I points, empty cells).
    """
    return (
        residential_score(b0, rp),
        commercial_score(b1, rp),
        park_score(b0, b1, b2, b3, rp),
        industrial_score(b3, rp),
        BOARD_CELLS - popcount(b0 | b1 | b2 | b3),
    )


@njit(cache=True)
def score_boards(boards, rp, out):
    """Score many boards: boards uint64[n, 4] -> out int32[n, 5] (R, C, P, I, empty).

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(n, 4)``.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters (Tables.rp).
    out : numpy.ndarray
        int32, shape ``(n, 5)``: filled.
    """
    for k in range(boards.shape[0]):
        r, c, p, i, e = score_districts(boards[k, 0], boards[k, 1], boards[k, 2], boards[k, 3], rp)
        out[k, 0] = r
        out[k, 1] = c
        out[k, 2] = p
        out[k, 3] = i
        out[k, 4] = e


@njit(cache=True)
def _full_line(b):
    for r in range(7):
        if (b >> np.uint64(8 * r)) & _ROW0 == _ROW0:
            return True
    col = _ONE | (_ONE << np.uint64(8)) | (_ONE << np.uint64(16)) | (_ONE << np.uint64(24))
    col |= (_ONE << np.uint64(32)) | (_ONE << np.uint64(40)) | (_ONE << np.uint64(48))
    for c in range(7):
        m = col << np.uint64(c)
        if b & m == m:
            return True
    return False


@njit(cache=True)
def final_scores(boards, st, rp, ach, out):
    """Fill out int32[players, SC_LEN]: breakdown, achievements, compensation, total, rank.

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(players, 4)``: each seat's R, C, P, I bitboards.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters (Tables.rp).
    ach : numpy.ndarray
        int32, shape ``(cards, ACH_LEN)``: the achievements in force.
    out : numpy.ndarray
        int32, shape ``(players, SC_LEN)``: filled.
    """
    n = boards.shape[0]
    ns = rp[RP_N_SHAPES]
    for p in range(n):
        r, c, pk, i, e = score_districts(boards[p, 0], boards[p, 1], boards[p, 2], boards[p, 3], rp)
        out[p, SC_R] = r
        out[p, SC_C] = c
        out[p, SC_P] = pk
        out[p, SC_I] = i
        out[p, SC_DISTRICTS] = r + c + pk + i
        out[p, SC_EMPTY] = e
        distinct = 0
        for s in range(ns):
            if st[ST_PLACED + p * MAX_SHAPES + s] > 0:
                distinct += 1
        out[p, SC_DISTINCT] = distinct
    for p in range(n):
        pts = 0
        for a in range(rp[RP_N_ACH]):
            kind = ach[a, ACH_KIND]
            thr = ach[a, ACH_THRESHOLD]
            d = ach[a, ACH_DISTRICT]
            got = False
            if kind == KIND_DISTINCT_SHAPES:
                got = out[p, SC_DISTINCT] >= thr
            elif kind == KIND_SAME_SHAPE:
                for s in range(ns):
                    if st[ST_PLACED + p * MAX_SHAPES + s] >= thr:
                        got = True
            elif kind == KIND_SHAPE_COUNT:
                got = st[ST_PLACED + p * MAX_SHAPES + ach[a, ACH_SHAPE]] >= thr
            elif kind == KIND_DISTRICT_COUNT:
                got = popcount(boards[p, d]) >= thr
            elif kind == KIND_FULL_LINE:
                if d < 0:
                    got = _full_line(boards[p, 0] | boards[p, 1] | boards[p, 2] | boards[p, 3])
                else:
                    got = _full_line(boards[p, d])
            elif kind == KIND_NO_EMPTY:
                got = out[p, SC_EMPTY] == 0
            elif kind == KIND_HIGHEST_DISTRICT:  # district points are out[:, d] (SC_R..SC_I)
                if n == 1:
                    got = out[p, d] >= ach[a, ACH_SOLO]
                else:
                    best = out[0, d]
                    for q in range(1, n):
                        if out[q, d] > best:
                            best = out[q, d]
                    got = out[p, d] == best
            if got:
                pts += ach[a, ACH_POINTS]
        out[p, SC_ACH] = pts
        out[p, SC_COMP] = rp[RP_COMP + p]
        out[p, SC_TOTAL] = out[p, SC_DISTRICTS] + pts + rp[RP_COMP + p]
    seat_last = rp[RP_TIE_SECOND_SEAT] != 0  # set only for 2 players (tables.py)
    for p in range(n):
        ahead = 0
        for q in range(n):
            if _better(out, q, p, seat_last):
                ahead += 1
        out[p, SC_RANK] = 1 + ahead


@njit(cache=True, inline="always")
def _better(out, q, p, seat_last):
    """Seat q strictly ahead of seat p (rules.RANKING: total, then fewer empty cells, then more shapes;
    with seat_last, rule `game.two_player_tie` = "second_seat", the later seat instead of the shapes)."""
    last = len(RANK_COLUMNS) - 1
    for j in range(len(RANK_COLUMNS)):
        if j == last and seat_last:
            return q > p
        col = RANK_COLUMNS[j]
        if out[q, col] != out[p, col]:
            return (out[q, col] - out[p, col]) * RANK_SIGNS[j] > 0
    return False


# --- setup, dealing, cleanup ---------------------------------------------------------


@njit(cache=True)
def market_fill(st, rng):
    """Fill the 16-tile market (four of each district) and shuffle it with the chance stream.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    """
    for i in range(MARKET_CELLS):
        st[ST_MARKET + i] = i // _TILES_PER_DISTRICT  # 0,0,0,0, 1,1,1,1, ...
    for i in range(MARKET_CELLS - 1, 0, -1):
        j = rand_below(rng, CHANCE, i + 1)
        t = st[ST_MARKET + i]
        st[ST_MARKET + i] = st[ST_MARKET + j]
        st[ST_MARKET + j] = t


@njit(cache=True)
def _deck_total(st, rp, deck):
    total = 0
    base = RP_DECK_SHAPES + deck * MAX_SHAPES
    for j in range(rp[RP_DECK_N + deck]):
        total += st[ST_DECK + rp[base + j]]
    return total


@njit(cache=True)
def _draw(st, rng, rp, deck, total):
    """Draw one ruler of `deck` (holding `total`); returns the shape or -1 if none is left."""
    base = RP_DECK_SHAPES + deck * MAX_SHAPES
    n = rp[RP_DECK_N + deck]
    if total == 0:  # the reshuffle: the discard pile becomes the deck
        for j in range(n):
            s = rp[base + j]
            st[ST_DECK + s] += st[ST_DISC + s]
            total += st[ST_DISC + s]
            st[ST_DISC + s] = 0
        if total == 0:
            return -1
    x = rand_below(rng, CHANCE, total)
    for j in range(n):
        s = rp[base + j]
        c = st[ST_DECK + s]
        if x < c:
            st[ST_DECK + s] = c - 1
            return s
        x -= c
    return -1  # unreachable


@njit(cache=True)
def deal(st, rng, rp, shp):
    """Deal slots 0..19 in order: edges from the tetromino deck, corners from the pentomino deck.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters (Tables.rp).
    shp : numpy.ndarray
        int32, shape ``(shapes, SHP_LEN)``: the shape table.
    """
    for deck in range(2):
        total = _deck_total(st, rp, deck)
        lo = 0 if deck == 0 else N_EDGE_SLOTS
        hi = N_EDGE_SLOTS if deck == 0 else N_SLOTS
        for slot in range(lo, hi):
            if total == 0:
                total = _deck_total(st, rp, deck)  # 0 unless a reshuffle is due
            s = _draw(st, rng, rp, deck, total)
            st[ST_SLOTS + slot] = s
            if s >= 0:
                total = _deck_total(st, rp, deck) if total == 0 else total - 1


@njit(cache=True)
def setup(boards, st, rng, seed, rp, shp):
    """A new game: boards and st are overwritten, rng seeded from the game seed.

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(players, 4)``: each seat's R, C, P, I bitboards.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    seed : numpy.uint64
        The game seed.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters (Tables.rp).
    shp : numpy.ndarray
        int32, shape ``(shapes, SHP_LEN)``: the shape table.
    """
    boards[:, :] = _ZERO
    st[:] = 0
    rng[CHANCE] = np.uint64(seed)
    rng[POLICY] = np.uint64(seed) ^ POLICY_STREAM_XOR
    st[ST_PLAYERS] = rp[RP_PLAYERS]
    for s in range(rp[RP_N_SHAPES]):
        st[ST_DECK + s] = rp[RP_INIT_DECK + s]
        st[ST_REMOVED + s] = rp[RP_INIT_REMOVED + s]
    market_fill(st, rng)
    deal(st, rng, rp, shp)


@njit(cache=True)
def _cleanup(st, rng, rp, shp):
    for slot in range(N_SLOTS):
        s = st[ST_SLOTS + slot]
        if s >= 0:
            st[ST_DISC + s] += 1
            st[ST_SLOTS + slot] = -1
    for s in range(rp[RP_N_SHAPES]):
        st[ST_DISC + s] += st[ST_USED + s]
        st[ST_USED + s] = 0
    market_fill(st, rng)
    deal(st, rng, rp, shp)


@njit(cache=True)
def end_turn(st, rng, rp, shp):
    """Count the turn and pass it on: at a round's end clean up and start the next round, or end the game.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters (Tables.rp).
    shp : numpy.ndarray
        int32, shape ``(shapes, SHP_LEN)``: the shape table.
    """
    n = rp[RP_PLAYERS]
    p = st[ST_CUR]
    st[ST_TURNS + p] += 1
    st[ST_TURN] += 1
    if st[ST_TURN] == n * rp[RP_TURNS]:
        if st[ST_ROUND] == rp[RP_ROUNDS] - 1:
            st[ST_DONE] = 1
            st[ST_CUR] = -1
            return
        _cleanup(st, rng, rp, shp)
        st[ST_ROUND] += 1
        st[ST_TURN] = 0
    st[ST_CUR] = (st[ST_ROUND] + st[ST_TURN]) % n


# --- moves ---------------------------------------------------------------------------


@njit(cache=True, inline="always")
def occupied(boards, p):
    """A seat's filled cells.

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(players, 4)``: each seat's R, C, P, I bitboards.
    p : int
        The seat.

    Returns
    -------
    numpy.uint64
        The seat's filled cells.
    """
    return boards[p, 0] | boards[p, 1] | boards[p, 2] | boards[p, 3]


@njit(types.int64(types.int64, types.int64), cache=True)  # typed: called with int32 and int64 slots alike
def line_cell(slot, k):
    """Market cell index (4r + c) of the k-th tile of a slot's line (rules.slot_line).

    Parameters
    ----------
    slot : int
        The slot.
    k : int
        The tile, 0..3.

    Returns
    -------
    int
        The market cell.
    """
    return SLOT_CELLS[slot, k]


@njit(cache=True)
def has_placement(occ, shape, shp, pl_mask):
    """Whether a shape has a free placement on a board.

    Parameters
    ----------
    occ : numpy.uint64
        The board's filled cells.
    shape : int
        The shape's index.
    shp : numpy.ndarray
        int32, shape ``(shapes, SHP_LEN)``: the shape table.
    pl_mask : numpy.ndarray
        uint64, shape ``(placements,)``: each placement's cells.

    Returns
    -------
    bool
        True when some placement of the shape is free.
    """
    for i in range(shp[shape, SHP_PL_START], shp[shape, SHP_PL_END]):
        if pl_mask[i] & occ == _ZERO:
            return True
    return False


@njit(cache=True)
def _rival(st, rp, slot):
    if rp[RP_PLAYERS] == 1 and rp[RP_SOLO_RIVAL]:
        o = OPPOSITE_SLOT[slot]
        s = st[ST_SLOTS + o]
        if s >= 0:
            st[ST_USED + s] += 1
            st[ST_SLOTS + o] = -1


@njit(cache=True)
def apply_move(boards, st, rng, mv, rp, shp, pl_info):
    """Apply a move (trusted legal: boardlab.sim.citywright.api checks moves from people) and advance the game.

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(players, 4)``: each seat's R, C, P, I bitboards.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: a kernel move.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters (Tables.rp).
    shp : numpy.ndarray
        int32, shape ``(shapes, SHP_LEN)``: the shape table.
    pl_info : numpy.ndarray
        int16, shape ``(placements, PL_LEN)``: each placement's shape, bits and star.
    """
    p = st[ST_CUR]
    kind = mv[MV_KIND]
    slot = mv[MV_SLOT]
    if kind == K_PLACE:
        shape = st[ST_SLOTS + slot]
        st[ST_SLOTS + slot] = -1
        st[ST_USED + shape] += 1
        pl = mv[MV_PL]
        taken = 0
        wasted = 0
        landed = 0
        depletes = rp[RP_DEPLETES]
        for k in range(4):
            d = mv[MV_TILES + k]
            if depletes:
                st[ST_MARKET + line_cell(slot, k)] = -1
            if d == NONE_TILE:
                continue
            taken += 1
            b = pl_info[pl, PL_BITS + shp[shape, SHP_PLAIN + k]]
            if b < 0:
                wasted += 1
            else:
                boards[p, d] |= _ONE << np.uint64(b)
                landed += 1
        star = shp[shape, SHP_STAR]
        if star >= 0:
            d = mv[MV_FREE]
            if d >= 0 and d != NONE_TILE:
                if depletes:
                    for c in range(MARKET_CELLS):
                        if st[ST_MARKET + c] == d:
                            st[ST_MARKET + c] = -1
                            break
                taken += 1
                b = pl_info[pl, PL_BITS + star]
                if b < 0:
                    wasted += 1
                else:
                    boards[p, d] |= _ONE << np.uint64(b)
                    landed += 1
        st[ST_TAKEN + p] += taken
        st[ST_WASTE + p] += wasted
        if landed > 0:
            st[ST_PLACED + p * MAX_SHAPES + shape] += 1
        _rival(st, rp, slot)
    elif kind == K_DISCARD:
        shape = st[ST_SLOTS + slot]
        st[ST_SLOTS + slot] = -1
        st[ST_USED + shape] += 1
        n = 0
        for k in range(4):
            cell = line_cell(slot, k)
            if st[ST_MARKET + cell] >= 0:
                n += 1
                if rp[RP_DEPLETES]:
                    st[ST_MARKET + cell] = -1
        if shp[shape, SHP_STAR] >= 0:
            for c in range(MARKET_CELLS):
                if st[ST_MARKET + c] >= 0:
                    n += 1
                    if rp[RP_DEPLETES]:
                        st[ST_MARKET + c] = -1
                    break
        st[ST_TAKEN + p] += n
        st[ST_WASTE + p] += n
        st[ST_FORCED + p] += 1
        _rival(st, rp, slot)
    elif kind == K_SWAP:
        shape = st[ST_SLOTS + slot]
        st[ST_SLOTS + slot] = -1
        st[ST_REMOVED + shape] += 1
        if mv[MV_PL] >= 0:  # -1: a full board where the rules let the swap place nothing
            boards[p, mv[MV_TILES]] |= _ONE << np.uint64(mv[MV_PL])
    end_turn(st, rng, rp, shp)


# --- the uniform-random policy (also the MCTS rollout policy) -----------------------


@njit(cache=True)
def random_move(boards, st, rng, mv, rp, shp, pl_mask):
    """Fill mv with a uniformly random move for the seat to move (docs: agents 'random').

    Uniform over non-empty slots; uniform over legal placements of that ruler
    (rejection sampling for a few tries, then enumeration: both uniform over
    the legal set); a uniformly random bijection of the line's tiles to the
    plain cells; the free pick uniform over the districts (still) on the market.
    Never swaps.

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(players, 4)``: each seat's R, C, P, I bitboards.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: filled.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters (Tables.rp).
    shp : numpy.ndarray
        int32, shape ``(shapes, SHP_LEN)``: the shape table.
    pl_mask : numpy.ndarray
        uint64, shape ``(placements,)``: each placement's cells.
    """
    p = st[ST_CUR]
    n_open = 0
    for s in range(N_SLOTS):
        if st[ST_SLOTS + s] >= 0:
            n_open += 1
    mv[MV_FREE] = -1
    if n_open == 0:
        mv[MV_KIND] = K_PASS
        mv[MV_SLOT] = -1
        return
    k = rand_below(rng, POLICY, n_open)
    slot = -1
    for s in range(N_SLOTS):
        if st[ST_SLOTS + s] >= 0:
            if k == 0:
                slot = s
                break
            k -= 1
    mv[MV_SLOT] = slot
    shape = st[ST_SLOTS + slot]
    occ = occupied(boards, p)
    lo = shp[shape, SHP_PL_START]
    hi = shp[shape, SHP_PL_END]
    pl = -1
    for _ in range(8):
        i = lo + rand_below(rng, POLICY, hi - lo)
        if pl_mask[i] & occ == _ZERO:
            pl = i
            break
    if pl < 0:  # a crowded board: list the legal placements and pick one
        legal = np.empty(hi - lo, dtype=np.int32)
        cnt = 0
        for i in range(lo, hi):
            legal[cnt] = i
            cnt += pl_mask[i] & occ == _ZERO
        if cnt == 0:
            mv[MV_KIND] = K_DISCARD
            return
        pl = legal[rand_below(rng, POLICY, cnt)]
    mv[MV_KIND] = K_PLACE
    mv[MV_PL] = pl
    for j in range(4):
        d = st[ST_MARKET + line_cell(slot, j)]
        mv[MV_TILES + j] = d if d >= 0 else NONE_TILE
    for j in range(3, 0, -1):
        q = rand_below(rng, POLICY, j + 1)
        t = mv[MV_TILES + j]
        mv[MV_TILES + j] = mv[MV_TILES + q]
        mv[MV_TILES + q] = t
    if shp[shape, SHP_STAR] >= 0:
        if rp[RP_DEPLETES]:
            # districts still on the market once this line's tiles have left it
            present = 0
            for c in range(MARKET_CELLS):
                d = st[ST_MARKET + c]
                if d >= 0:
                    on_line = False
                    for j in range(4):
                        if line_cell(slot, j) == c:
                            on_line = True
                    if not on_line:
                        present |= 1 << d
            cnt = 0
            for d in range(4):
                if present & (1 << d):
                    cnt += 1
            if cnt == 0:
                mv[MV_FREE] = NONE_TILE
            else:
                k = rand_below(rng, POLICY, cnt)
                for d in range(4):
                    if present & (1 << d):
                        if k == 0:
                            mv[MV_FREE] = d
                            break
                        k -= 1
        else:
            mv[MV_FREE] = rand_below(rng, POLICY, 4)


# --- whole games -------------------------------------------------------------------


@njit(cache=True)
def play_random_game(boards, st, rng, seed, rp, shp, pl_mask, pl_info):
    """Play one whole game of uniform-random moves from `seed` (boards, st and rng overwritten).

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(players, 4)``: each seat's R, C, P, I bitboards.
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    seed : numpy.uint64
        The game seed.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters (Tables.rp).
    shp : numpy.ndarray
        int32, shape ``(shapes, SHP_LEN)``: the shape table.
    pl_mask : numpy.ndarray
        uint64, shape ``(placements,)``: each placement's cells.
    pl_info : numpy.ndarray
        int16, shape ``(placements, PL_LEN)``: each placement's shape, bits and star.
    """
    mv = np.zeros(MV_LEN, dtype=np.int32)
    setup(boards, st, rng, seed, rp, shp)
    while st[ST_DONE] == 0:
        random_move(boards, st, rng, mv, rp, shp, pl_mask)
        apply_move(boards, st, rng, mv, rp, shp, pl_info)


@njit(cache=True, nogil=True)  # releases the GIL: a thread may encode results meanwhile
def play_random_games(seeds, rp, shp, pl_mask, pl_info, ach, scores, boards_out, stats):
    """Play one uniform-random game per seed.

    scores int32[G, players, SC_LEN]; boards_out uint64[G, players, 4];
    stats int32[G, players, STAT_PLACED or more]: tiles taken, waste, forced discards, turns.

    Parameters
    ----------
    seeds : numpy.ndarray
        uint64, shape ``(G,)``.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters (Tables.rp).
    shp : numpy.ndarray
        int32, shape ``(shapes, SHP_LEN)``: the shape table.
    pl_mask : numpy.ndarray
        uint64, shape ``(placements,)``: each placement's cells.
    pl_info : numpy.ndarray
        int16, shape ``(placements, PL_LEN)``: each placement's shape, bits and star.
    ach : numpy.ndarray
        int32, shape ``(cards, ACH_LEN)``: the achievements in force.
    scores, boards_out, stats : numpy.ndarray
        Filled, as above.
    """
    n = rp[RP_PLAYERS]
    boards = np.zeros((n, 4), dtype=np.uint64)
    st = np.zeros(ST_LEN, dtype=np.int32)
    rng = np.zeros(2, dtype=np.uint64)
    for g in range(seeds.shape[0]):
        play_random_game(boards, st, rng, seeds[g], rp, shp, pl_mask, pl_info)
        final_scores(boards, st, rp, ach, scores[g])
        for p in range(n):
            for d in range(4):
                boards_out[g, p, d] = boards[p, d]
            stats[g, p, STAT_TAKEN] = st[ST_TAKEN + p]
            stats[g, p, STAT_WASTE] = st[ST_WASTE + p]
            stats[g, p, STAT_FORCED] = st[ST_FORCED + p]
            stats[g, p, STAT_TURNS] = st[ST_TURNS + p]
