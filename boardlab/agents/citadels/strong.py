"""Citadels' ``strong`` agent: the character by one-move lookahead on its own view, scored by a learned value.

Selection is where Citadels is decided, and where ``basic``'s rules of thumb are crudest, so ``strong`` is
``basic`` everywhere but at its selection decisions (PICK with two ranks or more offered).  There it copies
the position, redeals the copy canonically for the deciding seat (:func:`boardlab.sim.citadels.infoset.redeal`: every
part it cannot see replaced by a fixed one, both random streams zeroed -- so what follows is a function of
its view alone, docs/games/citadels.md §7.1), then for each offered rank plays the pick on a fresh copy of
that view with the automatic steps after it (:func:`boardlab.sim.citadels.engine.apply_move`) and scores the position
reached::

    value(pick) = weights . features(position after the pick, for the deciding seat)

and takes the best; ties are broken by the seat's own stream (``rand_below(ties)``, drawn only on a tie).
After PICK r the seat holds r, and the value sees it through the ``hold_*`` features and the per-character
features that weigh a rank against the seat's situation (the King against its yellow districts, the
Architect against its buildable cards and gold, the Thief against the richest rival's gold, the Assassin
and the Warlord against a rival about to complete, ...).  A rank counts while its turn is still to come
this round (``r > called``): once played its effect is in the gold, the hand and the city.

The weights are fitted on self-play by ``boardlab train --game citadels`` (:mod:`boardlab.experiments.citadels.train`:
least squares of the seat's final score margin over its best rival on the features after each of its
picks, some of the picks made at random so that the weights measure what a rank brings, not what ``basic``
takes it for) and travel in the agent's parameter row (``boardlab.agents.citadels.kernels.P_WEIGHTS``): a weight file
is a parameter (``strong:weights=VERSION``), not code.

Why not every decision: a value of the same kind fitted on every decision of self-play (tried first) rates
gold about as high as the points it buys and a card in hand below nothing, so it hoards gold and stops
drawing -- its 1 strong + 3 basic win share was 19.8% +- 0.9% (8,000 games), below basic's 25%.  The turn's
rules stay basic's (:mod:`boardlab.agents.citadels.kernels`).

**Measured** (weights strong-v1; 1 strong seat, rotating, against basic; win share and its 95% interval;
fair share 1/players): 4 players 0.451 +- 0.007 (20,000 games); 2 players 0.830 +- 0.007, 3 players
0.606 +- 0.010, 5 players 0.418 +- 0.010, 7 players 0.334 +- 0.009 (10,000 games each).  The weights are
fitted at 4 players (``rival_points_sum`` grows with the count; the others do not depend on it).  Speed:
about 3,200 four-player games per CPU second with strong in all four seats (``boardlab bench``), against
basic's 9,000.

**The features** (:data:`FEATURES`, in the weights' order), all small integers, for seat p; "rivals" are
the other seats; "to come" means p holds the rank and it has not been called yet::

    bias                      1
    points                    p's city points (the districts' printed points)
    districts                 p's city size
    colours                   colours in p's city (0..5)
    five_colours              1 when all five
    complete                  1 when p's city is complete
    first_complete            1 when p completed first
    gold                      p's gold
    hand                      p's hand size
    useful                    distinct types in p's hand its city lacks (what it could still build)
    affordable                those of them whose printed cost is at most p's gold
    pending_keep              cards p is about to keep from a draw (KEEP pending), else 0
    crown                     1 when p has the crown
    rival_points_max          the best rival's city points
    rival_points_sum          the rivals' city points summed
    rival_districts_max       the largest rival city
    rival_gold_max            the richest rival's gold
    rival_hand_max            the largest rival hand
    rival_near                1 when a rival is 1 district or fewer from completing
    final_round               1 in the final round (a city is complete)
    round                     the round number
    hold_1 .. hold_8          1 when rank r is p's and to come
    king_yellow               King to come x (yellow districts + School of Magic)
    bishop_blue               Bishop to come x (blue + School)
    merchant_green            Merchant to come x (green + School)
    warlord_red               Warlord to come x (red + School)
    architect_useful          Architect to come x useful
    architect_gold            Architect to come x min(gold, 12)
    thief_gold                Thief to come x rival_gold_max
    magician_gain             Magician to come x max(0, rival_hand_max - useful)
    assassin_near             Assassin to come x a rival within 1 of completing
    warlord_near              Warlord to come x a rival within 2 of completing
    bishop_lead               Bishop to come x (p leads on city points and has some)
    income_left               p's turn and its income (INCOME) not taken yet: its amount
    action_left               p's turn and its action (gold or cards) not taken yet

Every one is read from what the seat's observation shows (boardlab.sim.citadels.api.Game.observation: public state,
own hand, characters and pending decision); tests/citadels/test_strong.py checks them against a plain-Python
computation from the observation.
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
    """The weight files present (their versions: file names without .json), sorted."""
    return tuple(sorted(p.stem for p in WEIGHTS_DIR.glob("*.json")))


def load_weights(version: str = WEIGHTS_VERSION) -> np.ndarray:
    """The weights float64[N_FEATURES] of weight file `version`; refused (ValueError) when its feature list is
    not :data:`FEATURES`."""
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
    sees."""
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
    """weights . features(st, p) (f is scratch)."""
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


@njit(cache=True, _nrt=False)
def strong_move(st, rp, dt, p, w, arng, moves, n, vals, f, work, wrng, ev):
    """The index of the listed move (moves[:n], n >= 1) of best value for seat p (module docstring); -1 when
    the redeal could not read the position (infoset's status: never seen in tests; the caller then plays
    basic, rather than decide on a view that may hold what p cannot see).

    w: the weights float64[N_FEATURES]; arng: p's stream, positioned (ties); f float64[N_FEATURES], work
    int32[WORK_LEN], wrng uint64[2] and vals float64[>= n] are scratch; ev: any int32[:, EV_LEN] (the copies
    keep no log, so it is never written)."""
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
