"""Citadels' ``strong`` agent: the character by one-move lookahead on its own view, scored by a learned value.

Design notes: docs/games/citadels/agents.md#strong-module.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from numba import njit

from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels import infoset as I
from boardlab.sim.citadels.rules import (
    ARCHITECT,
    ASSASSIN,
    BISHOP,
    BLUE,
    GREEN,
    KING,
    MAGICIAN,
    MAX_TYPES,
    MERCHANT,
    N_RANKS,
    RED,
    THIEF,
    WARLORD,
    YELLOW,
)
from boardlab.sim.citadels.tables import DT_COST, DT_POINTS, RP_COMPLETE, RP_SCHOOL
from boardlab.sim.layout import Layout
from boardlab.sim.rng import rand_below

# --- the features -------------------------------------------------------------------------------------------
_f = Layout("strong features")
F_BIAS = _f.add("bias")
F_POINTS = _f.add("points")
F_DISTRICTS = _f.add("districts")
F_COLOURS = _f.add("colours")
F_FIVE = _f.add("five_colours")
F_COMPLETE = _f.add("complete")
F_FIRST = _f.add("first_complete")
F_GOLD = _f.add("gold")
F_HAND = _f.add("hand")
F_USEFUL = _f.add("useful")
F_AFFORD = _f.add("affordable")
F_PENDING = _f.add("pending_keep")
F_CROWN = _f.add("crown")
F_RIVAL_POINTS_MAX = _f.add("rival_points_max")
F_RIVAL_POINTS_SUM = _f.add("rival_points_sum")
F_RIVAL_DISTRICTS_MAX = _f.add("rival_districts_max")
F_RIVAL_GOLD_MAX = _f.add("rival_gold_max")
F_RIVAL_HAND_MAX = _f.add("rival_hand_max")
F_RIVAL_NEAR = _f.add("rival_near")
F_FINAL = _f.add("final_round")
F_ROUND = _f.add("round")
F_HOLD = _f.add("hold", N_RANKS)  # hold_1 .. hold_8
F_KING_YELLOW = _f.add("king_yellow")
F_BISHOP_BLUE = _f.add("bishop_blue")
F_MERCHANT_GREEN = _f.add("merchant_green")
F_WARLORD_RED = _f.add("warlord_red")
F_ARCH_USEFUL = _f.add("architect_useful")
F_ARCH_GOLD = _f.add("architect_gold")
F_THIEF_GOLD = _f.add("thief_gold")
F_MAGICIAN_GAIN = _f.add("magician_gain")
F_ASSASSIN_NEAR = _f.add("assassin_near")
F_WARLORD_NEAR = _f.add("warlord_near")
F_BISHOP_LEAD = _f.add("bishop_lead")
F_INCOME_LEFT = _f.add("income_left")
F_ACTION_LEFT = _f.add("action_left")
N_FEATURES = _f.size

ARCH_GOLD_CAP = 12  # architect_gold counts gold up to this (three builds rarely cost more)


def _names() -> tuple[str, ...]:
    out = []
    for name, _, size in _f.fields:
        out += [name] if size == 1 else [f"{name}_{r}" for r in range(1, size + 1)]
    return tuple(out)


FEATURES: tuple[str, ...] = _names()  # one name per weight, as the weight file lists them

WEIGHTS_DIR = Path(__file__).parent / "weights"
WEIGHTS_VERSION = "strong-v1"  # the committed weights the default spec reads


def weight_versions() -> tuple[str, ...]:
    """The weight files present (their versions: file names without .json), sorted.

    Returns
    -------
    tuple of str
        The versions.
    """
    return tuple(sorted(p.stem for p in WEIGHTS_DIR.glob("*.json")))


def load_weights(version: str = WEIGHTS_VERSION) -> np.ndarray:
    """The weights float64[N_FEATURES] of weight file `version`; refused (ValueError) when its feature list is
    not :data:`FEATURES`.

    Parameters
    ----------
    version : str
        The weight file's version.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(N_FEATURES,)``.
    """
    data = json.loads((WEIGHTS_DIR / f"{version}.json").read_text())
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"weights {version}: its features are not strong's ({len(data['features'])} listed)")
    return np.array(data["weights"], dtype=np.float64)


# --- the features of a position for one seat ----------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def _popcount(m):
    k = 0
    while m != 0:
        m &= m - 1
        k += 1
    return k


@njit(cache=True, _nrt=False)
def _city_points(st, dt, q):
    s = 0
    base = E.ST_CITY + q * MAX_TYPES
    for i in range(st[E.ST_CITY_N + q]):
        s += dt[st[base + i], DT_POINTS]
    return s


@njit(cache=True, _nrt=False, inline="always")
def _colour_income(st, rp, p, c):
    """Districts of colour c in p's city, + 1 with the School of Magic (the income of c's character)."""
    k = st[E.ST_CITY_COLOUR + p * E.N_COLOURS + c]
    t = rp[RP_SCHOOL]
    if t >= 0 and (st[E.ST_CITY_MASK + p] >> t) & 1 == 1:
        k += 1
    return k


@njit(cache=True, _nrt=False)
def features(st, rp, dt, p, f):
    """Fill f float64[N_FEATURES] with seat p's features of position st (module docstring); reads only what p
    sees.

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
    f : numpy.ndarray
        float64, shape ``(N_FEATURES,)``: filled (or scratch).
    """
    n = st[E.ST_PLAYERS]
    for i in range(N_FEATURES):
        f[i] = 0.0
    f[F_BIAS] = 1.0
    pts = _city_points(st, dt, p)
    f[F_POINTS] = pts
    f[F_DISTRICTS] = st[E.ST_CITY_N + p]
    colours = 0
    for c in range(E.N_COLOURS):
        if st[E.ST_CITY_COLOUR + p * E.N_COLOURS + c] > 0:
            colours += 1
    f[F_COLOURS] = colours
    f[F_FIVE] = 1.0 if colours == E.N_COLOURS else 0.0
    order = st[E.ST_COMPLETE_ORDER + p]
    f[F_COMPLETE] = 1.0 if order > 0 else 0.0
    f[F_FIRST] = 1.0 if order == 1 else 0.0
    gold = st[E.ST_GOLD + p]
    f[F_GOLD] = gold
    f[F_HAND] = st[E.ST_HAND_N + p]
    m = np.int64(st[E.ST_HAND_MASK + p]) & ~np.int64(st[E.ST_CITY_MASK + p])
    useful = _popcount(m)
    f[F_USEFUL] = useful
    afford = 0
    for t in range(MAX_TYPES):
        if (m >> t) & 1 == 1 and dt[t, DT_COST] <= gold:
            afford += 1
    f[F_AFFORD] = afford
    in_turn = (st[E.ST_PHASE] == E.PH_TURN or st[E.ST_PHASE] == E.PH_GRAVE) and st[E.ST_TURN_SEAT] == p
    if in_turn and st[E.ST_PEND_N] > 0:
        f[F_PENDING] = st[E.ST_KEEP_K]
    f[F_CROWN] = 1.0 if st[E.ST_CROWN] == p else 0.0
    rp_max = 0
    rp_sum = 0
    rd_max = 0
    rg_max = 0
    rh_max = 0
    lead = pts > 0
    for q in range(n):
        if q == p:
            continue
        qp = _city_points(st, dt, q)
        rp_sum += qp
        rp_max = max(rp_max, qp)
        rd_max = max(rd_max, st[E.ST_CITY_N + q])
        rg_max = max(rg_max, st[E.ST_GOLD + q])
        rh_max = max(rh_max, st[E.ST_HAND_N + q])
        if qp > pts:
            lead = False
    f[F_RIVAL_POINTS_MAX] = rp_max
    f[F_RIVAL_POINTS_SUM] = rp_sum
    f[F_RIVAL_DISTRICTS_MAX] = rd_max
    f[F_RIVAL_GOLD_MAX] = rg_max
    f[F_RIVAL_HAND_MAX] = rh_max
    near1 = rd_max >= rp[RP_COMPLETE] - 1
    near2 = rd_max >= rp[RP_COMPLETE] - 2
    f[F_RIVAL_NEAR] = 1.0 if near1 else 0.0
    f[F_FINAL] = st[E.ST_FINAL]
    f[F_ROUND] = st[E.ST_ROUND]
    called = st[E.ST_CALL]
    for r in range(called + 1, N_RANKS + 1):
        if st[E.ST_HOLDER + r] != p:
            continue
        f[F_HOLD + r - 1] = 1.0
        if r == KING:
            f[F_KING_YELLOW] = _colour_income(st, rp, p, YELLOW)
        elif r == BISHOP:
            f[F_BISHOP_BLUE] = _colour_income(st, rp, p, BLUE)
            f[F_BISHOP_LEAD] = 1.0 if lead else 0.0
        elif r == MERCHANT:
            f[F_MERCHANT_GREEN] = _colour_income(st, rp, p, GREEN)
        elif r == WARLORD:
            f[F_WARLORD_RED] = _colour_income(st, rp, p, RED)
            f[F_WARLORD_NEAR] = 1.0 if near2 else 0.0
        elif r == ARCHITECT:
            f[F_ARCH_USEFUL] = useful
            f[F_ARCH_GOLD] = min(gold, ARCH_GOLD_CAP)
        elif r == THIEF:
            f[F_THIEF_GOLD] = rg_max
        elif r == MAGICIAN:
            f[F_MAGICIAN_GAIN] = max(0, rh_max - useful)
        elif r == ASSASSIN:
            f[F_ASSASSIN_NEAR] = 1.0 if near1 else 0.0
    if in_turn and st[E.ST_PHASE] == E.PH_TURN:
        c = st[E.ST_TURN_CHAR]
        if st[E.ST_INCOME_TAKEN] == 0:
            f[F_INCOME_LEFT] = E.income_amount(st, rp, dt, p, c)
        if st[E.ST_ACTED] == 0:
            f[F_ACTION_LEFT] = 1.0


@njit(cache=True, _nrt=False)
def value(st, rp, dt, p, w, f):
    """weights . features(st, p) (f is scratch).

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
    w : numpy.ndarray
        float64, shape ``(N_FEATURES,)``: the weights.
    f : numpy.ndarray
        float64, shape ``(N_FEATURES,)``: filled (or scratch).
    """
    features(st, rp, dt, p, f)
    v = 0.0
    for i in range(N_FEATURES):
        v += w[i] * f[i]
    return v


# --- the move -----------------------------------------------------------------------------------------------
# The work array of strong_move (int32[WORK_LEN]): the seat's view and one candidate's position.  Only the
# state before the history rows is copied: the history is bookkeeping, never read by play.
W_VIEW = 0
W_POS = E.ST_LEN
W_SCRATCH = 2 * E.ST_LEN
WORK_LEN = 2 * E.ST_LEN + I.SCRATCH_LEN
_PLAY_LEN = E.ST_HIST  # the part of a state play reads


@njit(cache=True, _nrt=False, inline="always")  # one caller (choose_move): no machine code of its own
def strong_move(st, rp, dt, p, w, arng, moves, n, vals, f, work, wrng, ev):
    """The index of the listed move (moves[:n], n >= 1) of best value for seat p (module docstring); -1 when
    the redeal could not read the position (infoset's status: never seen in tests; the caller then plays
    basic, rather than decide on a view that may hold what p cannot see).

    w: the weights float64[N_FEATURES]; arng: p's stream, positioned (ties); f float64[N_FEATURES], work
    int32[WORK_LEN], wrng uint64[2] and vals float64[>= n] are scratch; ev: any int32[:, EV_LEN] (the copies
    keep no log, so it is never written).

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
    w : numpy.ndarray
        float64, shape ``(N_FEATURES,)``: the weights.
    arng : numpy.ndarray
        uint64, shape ``(2,)``: seat p's own stream (arng[1] scratch).
    moves : numpy.ndarray
        int32, shape ``(MAX_MOVES, MV_LEN)``: the listed moves.
    n : int
        The listed moves, at least 1.
    vals : numpy.ndarray
        float64, shape ``(>= n,)``: scratch.
    f : numpy.ndarray
        float64, shape ``(N_FEATURES,)``: filled (or scratch).
    work : numpy.ndarray
        int32, shape ``(WORK_LEN,)``: scratch.
    wrng : numpy.ndarray
        uint64, shape ``(2,)``: scratch.
    ev : numpy.ndarray
        int32, shape ``(rows, EV_LEN)``: any log (never written).
    """
    if n == 1:
        return 0
    view = work[W_VIEW : W_VIEW + E.ST_LEN]
    pos = work[W_POS : W_POS + E.ST_LEN]
    for j in range(_PLAY_LEN):
        view[j] = st[j]
    view[E.ST_LOG] = 0
    wrng[0] = 0
    wrng[1] = 0
    I.redeal(view, wrng, rp, p, wrng, np.bool_(True), work[W_SCRATCH : W_SCRATCH + I.SCRATCH_LEN])
    if work[W_SCRATCH + I.WK_STATUS] != 0:
        return -1
    for i in range(n):
        for j in range(_PLAY_LEN):
            pos[j] = view[j]
        wrng[0] = 0
        wrng[1] = 0
        E.apply_move(pos, wrng, ev, rp, dt, moves[i])
        vals[i] = value(pos, rp, dt, p, w, f)
    best = vals[0]
    ties = 1
    for i in range(1, n):
        if vals[i] > best:
            best = vals[i]
            ties = 1
        elif vals[i] == best:
            ties += 1
    k = 0 if ties == 1 else rand_below(arng, 0, ties)
    for i in range(n):
        if vals[i] == best:
            if k == 0:
                return i
            k -= 1
    return 0
