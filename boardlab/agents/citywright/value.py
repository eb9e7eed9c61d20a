"""A learned position value for the `strong` agent: board-potential features and their weights.

The value of a position for one player is a linear function of features of that player's
board (and a few facts about the game), with one weight vector per number of own turns
left, fitted by ridge regression to the points the player still went on to score in
self-play (:mod:`boardlab.experiments.citywright.train`)::

    value(position) = weights[turns_left] . features(position)

It estimates "final points - points already decided", so `objective + value` estimates a
player's final total; the `strong` agent adds the value of the position after each
candidate move to the move's immediate worth (:mod:`boardlab.agents.citywright.strong`).

Features are counts of the board's geometry -- what each district could still grow into --
not points, so the weights carry the scoring rules they were fitted under (v1.1).
:data:`FEATURES` names them in order; the weight file stores that list and is refused if it
differs.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from numba import njit

from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.engine import neighbours, popcount
from boardlab.sim.citywright.rules import KIND_DISTINCT_SHAPES, KIND_HIGHEST_DISTRICT, KIND_SAME_SHAPE
from boardlab.sim.citywright.tables import (
    ACH_DISTRICT,
    ACH_KIND,
    ACH_THRESHOLD,
    RING,
    RP_N_ACH,
    RP_N_SHAPES,
    VALID,
)
from boardlab.sim.layout import Layout

_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_VALID = np.uint64(VALID)
_RING = np.uint64(RING)
_LOW7 = np.uint64(0x007F7F7F7F7F7F7F)
_HIGH7 = np.uint64(0x0080808080808080)
_ROW0 = np.uint64(0x7F)

# One weight vector per number of own turns left after the move (0..TURN_BUCKETS-1; more
# turns left, as in longer rule sets, use the last vector).
TURN_BUCKETS = 12
C_COUNT_MAX = 15  # commercial tiles: one feature per count 0..14, then one for 15 and more

DISTINCT_MISSING = 4  # distinct shapes still missing for the distinct-shapes card: 0, 1, 2, 3 or more
SAME_MISSING = 3  # copies of one shape still missing for the same-shape card: 0, 1, 2 or more
LEAD_CLIP = 10

# The features, in the order of the weights (boardlab.sim.layout assigns the offsets).  A field of several
# entries is one-hot.  Counts are on the mover's board after the move.
_f = Layout("features")
F_BIAS = _f.add("bias")
# residential
F_R_LARGEST = _f.add("r_largest")  # tiles in the largest cluster
F_R_LARGEST_ODD = _f.add("r_largest_odd")  # 1 when one more tile completes a pair
F_R_SECOND = _f.add("r_second")  # tiles in the second-largest cluster
F_R_STRAY = _f.add("r_stray")  # residential tiles in neither (they score nothing)
F_R_ROOM = _f.add("r_room")  # empty cells next to the largest cluster (the most among equally large ones)
# commercial
F_C_COUNT = _f.add("c_count", C_COUNT_MAX + 1)  # commercial tiles 0, 1, ..., C_COUNT_MAX or more
F_C_BEYOND = _f.add("c_beyond")  # tiles beyond C_COUNT_MAX
F_C_ISOLATED = _f.add("c_isolated")  # commercial tiles with no commercial neighbour
F_C_ISO_ROOM = _f.add("c_iso_room")  # empty cells with no commercial neighbour
# park
F_P_ROWS_OPEN = _f.add("p_rows_open")  # rows without a park that still have an empty cell
F_P_COLS_OPEN = _f.add("p_cols_open")  # columns likewise
F_P_LONELY_ROOM = _f.add("p_lonely_room")  # parks with no neighbour they score by, but an empty one
F_P_ADJ_ROOM = _f.add("p_adj_room")  # empty cells next to a district parks score by (v1.1: R or C)
# industrial
F_I_ODD = _f.add("i_odd")  # 1 when one more industrial tile completes a pair
F_I_RING_ROOM = _f.add("i_ring_room")  # empty cells on the outer ring
# room for rulers
F_EMPTY = _f.add("empty")
F_EMPTY_HOLES = _f.add("empty_holes")  # empty cells with no empty neighbour
F_EMPTY_DEAD_ENDS = _f.add("empty_dead_ends")  # empty cells with exactly one empty neighbour
F_EMPTY_SQUARES = _f.add("empty_squares")  # empty 2x2 squares
F_EMPTY_LINES = _f.add("empty_lines")  # empty 1x4 segments, across and down
# achievements (the first card of each kind in the rule set)
F_ACH_DISTINCT = _f.add("ach_distinct_missing", DISTINCT_MISSING)
F_ACH_SAME = _f.add("ach_same_missing", SAME_MISSING)
F_ACH_LEAD = _f.add("ach_highest_lead")  # own score - best opponent's, highest-district card's district, clipped
F_ACH_AHEAD = _f.add("ach_highest_ahead")  # 1 when that lead is >= 0
N_FEATURES = _f.size
LAYOUTS = (_f,)


def _names() -> tuple[str, ...]:
    out = []
    for name, _, size in _f.fields:
        if size == 1:
            out.append(name)
        elif name == "c_count":
            out += [f"c_count_{n}" for n in range(size - 1)] + [f"c_count_{size - 1}_plus"]
        else:
            out += [f"{name}_{n}" for n in range(size)]
    return tuple(out)


FEATURES: tuple[str, ...] = _names()  # one name per weight, as the weight file lists them

WEIGHTS_DIR = Path(__file__).parent / "weights"


@njit(cache=True)
def _largest_cluster(r, emp):
    """(size of the largest residential cluster, of the second-largest, empty cells next to the largest
    -- the most among equally large ones)."""
    s1 = 0
    s2 = 0
    room = 0
    rem = r
    while rem != _ZERO:
        c = rem & (~rem + _ONE)
        while True:
            nx = (c | neighbours(c)) & rem
            if nx == c:
                break
            c = nx
        rem &= ~c
        sz = popcount(c)
        rm = popcount(neighbours(c) & emp)
        if sz > s1:
            s2 = s1
            s1 = sz
            room = rm
        elif sz == s1:
            s2 = sz
            room = max(room, rm)
        elif sz > s2:
            s2 = sz
    return s1, s2, room


@njit(cache=True)
def board_features(b0, b1, b2, b3, placed, opp_best, rp, ach, f):
    """Fill f float64[N_FEATURES] for a board (R, C, P, I bitboards) and its recorded shapes.

    placed : int32[MAX_SHAPES] the player's placed count per shape.
    opp_best : int64[4] the best opponent score per district (-1 when there is no opponent).

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
    opp_best : numpy.ndarray
        int64, shape ``(4,)``: the best opponent score per district.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    ach : numpy.ndarray
        int32, shape ``(cards, ACH_LEN)``: the achievements in force.
    f : numpy.ndarray
        float64, shape ``(N_FEATURES,)``: filled.
    """
    occ = b0 | b1 | b2 | b3
    emp = _VALID & ~occ
    f[:] = 0.0
    f[F_BIAS] = 1.0
    # residential
    s1, s2, room = _largest_cluster(b0, emp)
    f[F_R_LARGEST] = s1
    f[F_R_LARGEST_ODD] = s1 & 1
    f[F_R_SECOND] = s2
    f[F_R_STRAY] = popcount(b0) - s1 - s2
    f[F_R_ROOM] = room
    # commercial
    nc = popcount(b1)
    f[F_C_COUNT + min(nc, C_COUNT_MAX)] = 1.0
    f[F_C_BEYOND] = max(nc - C_COUNT_MAX, 0)
    cn = neighbours(b1)
    f[F_C_ISOLATED] = popcount(b1 & ~cn)
    f[F_C_ISO_ROOM] = popcount(emp & ~cn)
    # park
    rows_p = (b2 + _LOW7) & _HIGH7  # the top bit of each row's byte: the row holds a park
    rows_e = (emp + _LOW7) & _HIGH7
    f[F_P_ROWS_OPEN] = popcount(rows_e & ~rows_p)
    cp = b2 | (b2 >> np.uint64(8))
    cp |= cp >> np.uint64(16)
    cp |= cp >> np.uint64(32)
    ce = emp | (emp >> np.uint64(8))
    ce |= ce >> np.uint64(16)
    ce |= ce >> np.uint64(32)
    f[F_P_COLS_OPEN] = popcount(ce & ~cp & _ROW0)
    src = E.park_neighbour_source(b0, b1, b2, b3, rp)
    lonely = b2 & ~neighbours(src)
    f[F_P_LONELY_ROOM] = popcount(lonely & neighbours(emp))
    f[F_P_ADJ_ROOM] = popcount(emp & neighbours(src))
    # industrial
    f[F_I_ODD] = popcount(b3) & 1
    f[F_I_RING_ROOM] = popcount(emp & _RING)
    # room for rulers
    ne1 = emp & neighbours(emp)
    east = emp & (emp >> _ONE)
    south = emp & (emp >> np.uint64(8))
    west = emp & (emp << _ONE)
    north = emp & (emp << np.uint64(8))
    two = (east & west) | (south & north) | ((east | west) & (south | north))
    f[F_EMPTY] = popcount(emp)
    f[F_EMPTY_HOLES] = popcount(emp & ~ne1)
    f[F_EMPTY_DEAD_ENDS] = popcount(ne1 & ~two)
    f[F_EMPTY_SQUARES] = popcount(east & south & (east >> np.uint64(8)))
    h4 = east & (east >> _ONE) & (east >> np.uint64(2))
    v4 = south & (south >> np.uint64(8)) & (south >> np.uint64(16))
    f[F_EMPTY_LINES] = popcount(h4) + popcount(v4)
    # achievements
    ns = rp[RP_N_SHAPES]
    distinct = 0
    most = 0
    for s in range(ns):
        if placed[s] > 0:
            distinct += 1
        most = max(most, placed[s])
    seen0 = False
    seen1 = False
    seen6 = False
    for a in range(rp[RP_N_ACH]):
        kind = ach[a, ACH_KIND]
        thr = ach[a, ACH_THRESHOLD]
        if kind == KIND_DISTINCT_SHAPES and not seen0:
            seen0 = True
            f[F_ACH_DISTINCT + min(max(thr - distinct, 0), DISTINCT_MISSING - 1)] = 1.0
        elif kind == KIND_SAME_SHAPE and not seen1:
            seen1 = True
            f[F_ACH_SAME + min(max(thr - most, 0), SAME_MISSING - 1)] = 1.0
        elif kind == KIND_HIGHEST_DISTRICT and not seen6 and opp_best[0] >= 0:
            seen6 = True
            d = ach[a, ACH_DISTRICT]
            if d == 0:
                own = E.residential_score(b0, rp)
            elif d == 1:
                own = E.commercial_score(b1, rp)
            elif d == 2:
                own = E.park_score(b0, b1, b2, b3, rp)
            else:
                own = E.industrial_score(b3, rp)
            lead = own - opp_best[d]
            f[F_ACH_LEAD] = min(max(lead, -LEAD_CLIP), LEAD_CLIP)
            f[F_ACH_AHEAD] = 1.0 if lead >= 0 else 0.0


@njit(cache=True)
def opponents_best(boards, p, rp, out):
    """out int64[4]: the best score per district among seats other than p (-1 everywhere at one player).

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(players, 4)``: each seat's R, C, P, I bitboards.
    p : int
        The seat.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    out : numpy.ndarray
        int64, shape ``(4,)``: filled.
    """
    out[:] = -1
    for q in range(boards.shape[0]):
        if q == p:
            continue
        r, c, k, i, _ = E.score_districts(boards[q, 0], boards[q, 1], boards[q, 2], boards[q, 3], rp)
        out[0] = max(out[0], r)
        out[1] = max(out[1], c)
        out[2] = max(out[2], k)
        out[3] = max(out[3], i)


@njit(cache=True, inline="always")
def turn_bucket(turns_left):
    """The weights' bucket of a number of own turns left.

    Parameters
    ----------
    turns_left : int
        Own turns left.
    """
    return min(max(turns_left, 0), TURN_BUCKETS - 1)


@njit(cache=True)
def turns_left_after(st, rp, p):
    """Own turns player p has left once the move being chosen is played.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    p : int
        The seat.
    """
    return rp[E.RP_ROUNDS] * rp[E.RP_TURNS] - st[E.ST_TURNS + p] - 1


def load_weights(path: Path) -> tuple[np.ndarray, dict]:
    """float64[TURN_BUCKETS, N_FEATURES] and the file's metadata, from a weight file
    (`citywright train` writes them); refused when its feature list is not FEATURES.

    Parameters
    ----------
    path : pathlib.Path
        The weight file.

    Returns
    -------
    tuple of (numpy.ndarray, dict)
        The weights and the file's metadata.
    """
    data = json.loads(Path(path).read_text())
    if tuple(data.get("features", ())) != FEATURES:
        raise ValueError(f"{path}: its feature list is not this version's (boardlab.agents.citywright.value.FEATURES)")
    w = np.array(data["weights"], dtype=np.float64)
    if w.shape != (TURN_BUCKETS, N_FEATURES):
        raise ValueError(f"{path}: weights of shape {w.shape}, expected {(TURN_BUCKETS, N_FEATURES)}")
    meta = {k: v for k, v in data.items() if k != "weights"}
    return w, meta
