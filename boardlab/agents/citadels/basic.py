"""numba agents for Citadels: the agent codes, the parameter rows, the seat memory and the ``basic``
rule-based player (with its restricted-play specialists).

The game loop that dispatches to every agent is boardlab.agents.citadels.kernels; the expert's search
(boardlab.agents.citadels.search) builds on this module.  Design notes: docs/games/citadels/agents.md#basic-and-loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from boardlab.agents.citadels import strong as S
from boardlab.sim.citadels import engine as E
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
    PURPLE,
    RED,
    THIEF,
    WARLORD,
    YELLOW,
)
from boardlab.sim.citadels.tables import (
    DT_COLOUR,
    DT_COST,
    DT_POINTS,
    RP_BLIND,
    RP_COMPLETE,
    RP_SCHOOL,
)
from boardlab.sim.layout import Layout
from boardlab.sim.rng import GOLDEN_GAMMA, rand_below, rng_next

# --- agent codes and the parameter row ----------------------------------------------------------------------
A_RANDOM = 0
A_BASIC = 1
A_STRONG = 2  # boardlab.agents.citadels.strong
A_EXPERT = 3  # boardlab.agents.citadels.search

_p = Layout("agent row")
P_CODE = _p.add("agent code (A_*)")
# basic's parameters (boardlab.agents.citadels.registry documents each; BASIC_PARAMS maps their names here)
P_ARCH_HAND = _p.add("Architect: buildable cards in hand that make it worth arch_bonus more")
P_ARCH_BONUS = _p.add("Architect: its worth with arch_hand buildable cards")
P_DRAW_BELOW = _p.add("DRAW when fewer buildable cards in hand")
P_RICH = _p.add("Thief: a rival this rich makes it worth half his gold")
P_SWAP_GAIN = _p.add("Magician: swap when the biggest other hand has this many more cards than its useful ones")
P_THREAT = _p.add("a rival this many districts or fewer from completing is about to complete")
P_URGENT = _p.add("Assassin / Warlord: extra worth against a rival about to complete")
P_SHIELD = _p.add("Bishop: extra worth when leading and the Warlord is not face up")
P_CROWN = _p.add("King: the crown's worth")
P_DESTROY_MAX = _p.add("Warlord: the most it pays for a destroy (any it can, against a rival close to completing)")
P_GRAVE_MIN = _p.add("Graveyard: take a destroyed card of at least this cost")
P_SMITHY_HAND = _p.add("Smithy: used with at most this many buildable cards")
P_HAND_MAX = _p.add("Laboratory: used on the worst card of a hand bigger than this")
P_REACH = _p.add("card worth: a price above gold + reach costs its excess")
P_PURPLE = _p.add("card worth: extra for a purple district")
P_NEW_COLOUR = _p.add("card worth: extra for a colour the city lacks (twice in the final stretch)")
# restricted play (basic, strong, expert): the specialists of docs/games/citadels.md's report
P_PREFERS = _p.add("specialist: the rank taken whenever offered, never discarded (0: none)")
# strong's parameters (boardlab.agents.citadels.strong; it reads basic's above where it lets basic decide)
P_WEIGHTS = _p.add("strong: the learned value's weights (boardlab.agents.citadels.strong.FEATURES)", S.N_FEATURES)
# the expert's parameters (boardlab.agents.citadels.search)
P_BUDGET = _p.add("expert: playouts per decision")
P_K = _p.add("expert: candidates kept (basic's move and the prior's best)")
P_HORIZON = _p.add("expert: round changes a playout covers (0: to the end of the game)")
P_REWARD = _p.add("expert: 0 win share, 1 score margin (boardlab.agents.citadels.search.REWARD_*)")
P_LEN = _p.size

BASIC_PARAMS = {
    "arch_hand": P_ARCH_HAND,
    "arch_bonus": P_ARCH_BONUS,
    "draw_below": P_DRAW_BELOW,
    "rich": P_RICH,
    "swap_gain": P_SWAP_GAIN,
    "threat": P_THREAT,
    "urgent": P_URGENT,
    "shield": P_SHIELD,
    "crown": P_CROWN,
    "destroy_max": P_DESTROY_MAX,
    "grave_min": P_GRAVE_MIN,
    "smithy_hand": P_SMITHY_HAND,
    "hand_max": P_HAND_MAX,
    "reach": P_REACH,
    "purple": P_PURPLE,
    "new_colour": P_NEW_COLOUR,
    "prefers": P_PREFERS,  # expert / specialists: basic-prefers
}

# --- the agents' own streams --------------------------------------------------------------------------------
AGENT_XOR = np.uint64(0xD1B54A32D192ED03)
DECISION_STEP = np.uint64((int(GOLDEN_GAMMA) << 16) & ((1 << 64) - 1))  # 2**16 outputs per decision

# --- a seat's memory ----------------------------------------------------------------------------------------
_m = Layout("memory")
M_ROUND = _m.add("round the memory is of (0: none)")
M_PICKS = _m.add("picks recorded this round")
M_OFFER = _m.add("ranks offered at each pick, a mask (bit r: rank r)", 2)
M_LEN = _m.size

# The helpers' argument types, given up front: each compiles once, for these types, and callers' int32, int64
# and literal arguments convert to them (docs/architecture/compile-time.md#why-a-kernel-compiles-once).
_S = types.int32[::1]  # st, rp
_EV = types.int32[:, ::1]  # dt, a move list
_F = types.float64[::1]  # an agent's parameter row
_I = types.int64

_NEG = -1.0e18
_SMALL = 0.5  # the worth of an ability with nothing particular to aim at (below one gold of income)
_EXTRA_COPY = 0.25  # the worth of a second copy of a hand card: Laboratory / redraw fodder


@njit(cache=True, _nrt=False, inline="always")
def position_stream(arng, seed, p, decisions):
    """Set arng[0] to seat p's stream as it stands at the game's decision number `decisions` (arng[1] is
    scratch): seat_seed(seed, p) = the output of a SplitMix64 step from (seed ^ AGENT_XOR) + p * GAMMA.

    Parameters
    ----------
    arng : numpy.ndarray
        uint64, shape ``(2,)``: seat p's own stream (arng[1] scratch).
    seed : numpy.uint64
        The game seed.
    p : int
        The seat deciding.
    decisions : int
        The game's decision count.
    """
    arng[1] = (seed ^ AGENT_XOR) + np.uint64(p) * GOLDEN_GAMMA
    arng[0] = rng_next(arng, 1) + np.uint64(decisions) * DECISION_STEP


# --- small readings of the state ----------------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def _popcount(m):
    k = 0
    while m != 0:
        m &= m - 1
        k += 1
    return k


@njit(cache=True, _nrt=False, inline="always")
def _in_city(st, p, t):
    return t >= 0 and (st[E.ST_CITY_MASK + p] >> t) & 1 == 1


@njit(cache=True, _nrt=False, inline="always")
def _hand(st, p, t):
    return st[E.ST_HAND + p * MAX_TYPES + t]


@njit(cache=True, _nrt=False, inline="always")
def _useful(st, p):
    """Distinct types in p's own hand that its city lacks: what it could still build."""
    return _popcount(np.int64(st[E.ST_HAND_MASK + p]) & ~np.int64(st[E.ST_CITY_MASK + p]))


@njit(cache=True, _nrt=False, inline="always")
def _colour_count(st, q, c):
    return st[E.ST_CITY_COLOUR + q * E.N_COLOURS + c]


@njit((_S, _EV, _I), cache=True, _nrt=False)
def city_points(st, dt, q):
    """The points of q's city (public).

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    q : int
        The seat.
    """
    s = 0
    base = E.ST_CITY + q * MAX_TYPES
    for i in range(st[E.ST_CITY_N + q]):
        s += dt[st[base + i], DT_POINTS]
    return s


@njit((_S, _I), cache=True, _nrt=False)
def _faceup(st, r):
    for i in range(st[E.ST_FU_N]):
        if st[E.ST_FU + i] == r:
            return True
    return False


@njit((_S, _I, _I), cache=True, _nrt=False)
def _max_other(st, off, q):
    """max over seats s != q of st[off + s] (a public per-seat number)."""
    best = 0
    for s in range(st[E.ST_PLAYERS]):
        if s != q and st[off + s] > best:
            best = st[off + s]
    return best


@njit((_S, _S), cache=True, _nrt=False)
def _final_stretch(st, rp):
    """The last round, or a city within 2 districts of completing."""
    if st[E.ST_FINAL] == 1:
        return True
    for s in range(st[E.ST_PLAYERS]):
        if st[E.ST_CITY_N + s] >= rp[RP_COMPLETE] - 2:
            return True
    return False


@njit((_S, _EV, _I), cache=True, _nrt=False)
def _leads(st, dt, q):
    """Whether q has the most city points (ties included) and some."""
    mine = city_points(st, dt, q)
    if mine == 0:
        return False
    for s in range(st[E.ST_PLAYERS]):
        if s != q and city_points(st, dt, s) > mine:
            return False
    return True


@njit((_S, _S, _I, _I), cache=True, _nrt=False)
def _rival_within(st, rp, q, k):
    """Whether a seat other than q is k or fewer districts from completing."""
    return _max_other(st, E.ST_CITY_N, q) >= rp[RP_COMPLETE] - k


@njit(cache=True, _nrt=False)
def _leader(st, rp, dt, p, prm):
    """The rival to strike: the one with most districts among those within `threat` of completing, else the
    one with most city points (ties: more districts, then the lower seat)."""
    best = -1
    key = -1
    near = rp[RP_COMPLETE] - int(prm[P_THREAT])
    for s in range(st[E.ST_PLAYERS]):
        if s == p:
            continue
        size = st[E.ST_CITY_N + s]
        pts = city_points(st, dt, s)
        k = (1 << 30) + size * (1 << 16) + pts if size >= near else pts * 64 + size
        if k > key:
            key = k
            best = s
    return best


# --- choosing among listed moves ----------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _argmax(vals, n, arng):
    """The index of the best of vals[:n] (-1 if none beats _NEG); ties: the k-th in listing order,
    k = rand_below(ties) from the seat's stream (drawn only when there is a tie)."""
    best = _NEG
    ties = 0
    for i in range(n):
        if vals[i] > best:
            best = vals[i]
            ties = 1
        elif vals[i] == best and best > _NEG:
            ties += 1
    if ties == 0:
        return -1
    k = 0 if ties == 1 else rand_below(arng, 0, ties)
    for i in range(n):
        if vals[i] == best:
            if k == 0:
                return i
            k -= 1
    return -1


@njit((_EV, _I, _I, _I), cache=True, _nrt=False)
def _find(moves, n, kind, a):
    """The index of the listed move (kind, a) (a = -1: the first of that kind), -1 if not listed."""
    for i in range(n):
        if moves[i, E.MV_KIND] == kind and (a < 0 or moves[i, E.MV_A] == a):
            return i
    return -1


# --- worth of characters and cards --------------------------------------------------------------------------
@njit((_S, _S, _EV, _F, _I, _I, _I), cache=True, _nrt=False)
def rank_worth(st, rp, dt, prm, p, q, r):
    """What rank r would bring seat q this round, in gold, as seat p judges it (the selection rule of the
    module docstring).  For q != p only q's public position is read: its hand size stands for its
    buildable cards.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    prm : numpy.ndarray
        float64, shape ``(P_LEN,)``: the agent's parameter row.
    p : int
        The seat deciding.
    q : int
        The seat judged.
    r : int
        The character rank, 1..8.
    """
    useful = _useful(st, q) if q == p else st[E.ST_HAND_N + q]
    school = 1 if _in_city(st, q, rp[RP_SCHOOL]) else 0
    if r == ASSASSIN:
        v = _SMALL
        if _rival_within(st, rp, q, int(prm[P_THREAT])):
            v += prm[P_URGENT]
        return v
    if r == THIEF:
        g = _max_other(st, E.ST_GOLD, q)
        return 0.5 * g if g >= prm[P_RICH] else _SMALL
    if r == MAGICIAN:
        gain = _max_other(st, E.ST_HAND_N, q) - useful
        return float(gain) if gain >= prm[P_SWAP_GAIN] else _SMALL
    if r == KING:
        return _colour_count(st, q, YELLOW) + school + prm[P_CROWN]
    if r == BISHOP:
        v = float(_colour_count(st, q, BLUE) + school)
        fears = not _faceup(st, WARLORD) and not (q == p and st[E.ST_HOLDER + WARLORD] == p)
        if fears and _leads(st, dt, q):
            v += prm[P_SHIELD]
        return v
    if r == MERCHANT:
        return float(_colour_count(st, q, GREEN) + school + 1)
    if r == ARCHITECT:
        return 1.0 + (prm[P_ARCH_BONUS] if useful >= prm[P_ARCH_HAND] else 0.0)
    if r == WARLORD:
        v = _colour_count(st, q, RED) + school + _SMALL
        if _rival_within(st, rp, q, int(prm[P_THREAT]) + 1):
            v += prm[P_URGENT]
        return v
    return 0.0


@njit((_S, _S, _EV, _F, _I, _I, _I), cache=True, _nrt=False)
def card_worth(st, rp, dt, prm, p, t, extra):
    """What card t is worth to p's hand, with `extra` copies of it kept beside the hand (module docstring).

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    prm : numpy.ndarray
        float64, shape ``(P_LEN,)``: the agent's parameter row.
    p : int
        The seat deciding.
    t : int
        The district type.
    extra : int
        Copies of t kept beside the hand.
    """
    if _in_city(st, p, t):
        return -50.0 + dt[t, DT_COST]  # can never be built: the cheapest useless card first
    if _hand(st, p, t) + extra > 0:
        return _EXTRA_COPY
    c = dt[t, DT_COLOUR]
    v = float(dt[t, DT_POINTS])
    if c == PURPLE:
        v += prm[P_PURPLE]
    if _colour_count(st, p, c) == 0:
        v += prm[P_NEW_COLOUR] * (2.0 if _final_stretch(st, rp) else 1.0)
    gap = E.price(st, rp, dt, t) - st[E.ST_GOLD + p] - prm[P_REACH]
    if gap > 0:
        v -= gap
    return v


@njit((_S, _S, _EV, _F, _I, _I), cache=True, _nrt=False)
def build_worth(st, rp, dt, prm, p, t):
    """The worth of building t now: its points, + purple, + 2 x new_colour for a missing colour in the
    final stretch.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    prm : numpy.ndarray
        float64, shape ``(P_LEN,)``: the agent's parameter row.
    p : int
        The seat deciding.
    t : int
        The district type.
    """
    c = dt[t, DT_COLOUR]
    v = float(dt[t, DT_POINTS])
    if c == PURPLE:
        v += prm[P_PURPLE]
    if _colour_count(st, p, c) == 0 and _final_stretch(st, rp):
        v += 2.0 * prm[P_NEW_COLOUR]
    return v


@njit((_S, _S, _EV, _F, _I, _I), cache=True, _nrt=False)
def _best_build_worth(st, rp, dt, prm, p, gold):
    """The worth of the best district p could build with `gold` (_NEG if none), and its colour."""
    best = _NEG
    colour = -1
    m = np.int64(st[E.ST_HAND_MASK + p]) & ~np.int64(st[E.ST_CITY_MASK + p])
    for t in range(MAX_TYPES):
        if (m >> t) & 1 == 1 and E.price(st, rp, dt, t) <= gold:
            v = build_worth(st, rp, dt, prm, p, t)
            if v > best:
                best = v
                colour = dt[t, DT_COLOUR]
    return best, colour


@njit((_S, _I, _I), cache=True, _nrt=False)
def _spare_copies(st, p, t):
    """Copies of t in p's hand that can never be built: all of them if its city has t, else all but one."""
    h = _hand(st, p, t)
    if h == 0:
        return 0
    return h if _in_city(st, p, t) else h - 1


# --- selection ----------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _pick(st, rp, dt, prm, p, arng, mem, moves, n, vals):
    for i in range(n):
        vals[i] = rank_worth(st, rp, dt, prm, p, p, moves[i, E.MV_A])
    # remember what was offered (the state forgets it once picked)
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
    return _argmax(vals, n, arng)


@njit(cache=True, _nrt=False)
def _discard(st, rp, dt, prm, p, arng, moves, n, vals):
    q = 1 - p  # 2 players
    for i in range(n):
        vals[i] = rank_worth(st, rp, dt, prm, p, q, moves[i, E.MV_A])
    return _argmax(vals, n, arng)


# --- the Assassin's and the Thief's target ------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _could_hold(st, rp, p, q, mem):
    """A mask of ranks seat q can hold as far as p's memory of its offer tells (all ranks when it tells
    nothing): open selection with 4+ players, one pick each."""
    n = st[E.ST_PLAYERS]
    if n < 4 or rp[RP_BLIND] == 1 or mem[M_ROUND] != st[E.ST_ROUND] or mem[M_PICKS] < 1:
        return 0x1FF
    crown = st[E.ST_ROUND_CROWN]
    offer = mem[M_OFFER]
    if (q - crown) % n > (p - crown) % n:
        return offer  # q chose after p: from what p was offered (less p's pick, its own rank anyway)
    return 0x1FF & ~offer  # q chose before p: what p was not offered


@njit(cache=True, _nrt=False)
def _strike(st, rp, dt, prm, p, q, kind, arng, mem, moves, n, vals):
    """The listed KILL / ROB (kind) of the rank seat q most likely holds, or -1."""
    allowed = _could_hold(st, rp, p, q, mem)
    for attempt in range(2):  # with what p's memory rules out, then (nothing left) without
        any_rank = False
        for i in range(n):
            vals[i] = _NEG
            if moves[i, E.MV_KIND] != kind:
                continue
            r = moves[i, E.MV_A]
            if st[E.ST_HOLDER + r] == p or _faceup(st, r) or r <= st[E.ST_CALL]:
                continue
            if attempt == 0 and (allowed >> r) & 1 == 0:
                continue
            vals[i] = rank_worth(st, rp, dt, prm, p, q, r)
            any_rank = True
        if any_rank:
            return _argmax(vals, n, arng)
    return -1


@njit(cache=True, _nrt=False)
def _revealed_seat(st, q):
    """Whether q was revealed this round (a revealed rank's holder is public)."""
    for r in range(1, st[E.ST_CALL] + 1):
        if st[E.ST_REVEALED + r] == 1 and st[E.ST_HOLDER + r] == q:
            return True
    return False


@njit(cache=True, _nrt=False)
def _richest(st, rp, dt, p):
    """The rival with the most gold that can still be robbed (ties: more city points, then the lower seat)."""
    best = -1
    key = -1
    one_rank = st[E.ST_PLAYERS] >= 4
    for s in range(st[E.ST_PLAYERS]):
        if s == p or (one_rank and _revealed_seat(st, s)):
            continue
        k = st[E.ST_GOLD + s] * 4096 + city_points(st, dt, s)
        if k > key:
            key = k
            best = s
    return best


# --- the turn -----------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _keep(st, rp, dt, prm, p, arng, moves, n, vals):
    for i in range(n):
        a = moves[i, E.MV_A]
        b = moves[i, E.MV_B]
        v = card_worth(st, rp, dt, prm, p, a, 0)
        if b >= 0:
            v += card_worth(st, rp, dt, prm, p, b, 1 if b == a else 0)
        vals[i] = v
    return _argmax(vals, n, arng)


@njit(cache=True, _nrt=False)
def _redraw_step(st, moves, n, p):
    """Go on with a redraw: the next spare copy in ascending type order, else REDRAW_DONE."""
    for t in range(st[E.ST_REDRAW_MAX], MAX_TYPES):
        if st[E.ST_REDRAW + t] < _spare_copies(st, p, t):
            i = _find(moves, n, E.K_REDRAW, t)
            if i >= 0:
                return i
    return _find(moves, n, E.K_REDRAW_DONE, -1)


@njit(cache=True, _nrt=False)
def _magician(st, rp, dt, prm, p, arng, moves, n, vals):
    useful = _useful(st, p)
    for i in range(n):
        vals[i] = _NEG
        if moves[i, E.MV_KIND] == E.K_SWAP:
            q = moves[i, E.MV_A]
            if st[E.ST_HAND_N + q] - useful >= prm[P_SWAP_GAIN]:
                vals[i] = float(st[E.ST_HAND_N + q])
    i = _argmax(vals, n, arng)
    if i >= 0:
        return i
    for t in range(MAX_TYPES):  # start a redraw with the first spare card
        if _spare_copies(st, p, t) > 0:
            return _find(moves, n, E.K_REDRAW, t)
    return -1


@njit(cache=True, _nrt=False)
def _lab_spare(st, moves, n, p):
    """LAB on a card that can never be built, or -1."""
    for t in range(MAX_TYPES):
        if _spare_copies(st, p, t) > 0:
            i = _find(moves, n, E.K_LAB, t)
            if i >= 0:
                return i
    return -1


@njit((_S, _S, _EV, _F, _I, _EV, _I, _I), cache=True, _nrt=False)
def _lab_worst(st, rp, dt, prm, p, moves, n, keep):
    """LAB on the least worth hand card other than type `keep`, or -1."""
    best = -1
    worst = -_NEG
    for i in range(n):
        if moves[i, E.MV_KIND] != E.K_LAB:
            continue
        t = moves[i, E.MV_A]
        if t == keep:
            continue
        v = card_worth(st, rp, dt, prm, p, t, -1)  # as if this copy were its only one
        if v < worst:
            worst = v
            best = i
    return best


@njit(cache=True, _nrt=False)
def _one_short(st, rp, dt, p):
    """A buildable hand card whose price is exactly one more than p's gold (the highest type id), else -1."""
    gold = st[E.ST_GOLD + p]
    m = np.int64(st[E.ST_HAND_MASK + p]) & ~np.int64(st[E.ST_CITY_MASK + p])
    best = -1
    for t in range(MAX_TYPES):
        if (m >> t) & 1 == 1 and E.price(st, rp, dt, t) == gold + 1:
            best = t
    return best


@njit(cache=True, _nrt=False)
def _destroy(st, rp, dt, prm, p, arng, moves, n, vals):
    target = _leader(st, rp, dt, p, prm)
    close = rp[RP_COMPLETE] - int(prm[P_THREAT]) - 1
    any_target = False
    for i in range(n):
        vals[i] = _NEG
        if moves[i, E.MV_KIND] != E.K_DESTROY:
            continue
        q = moves[i, E.MV_A]
        t = moves[i, E.MV_B]
        if q != target:
            continue
        cost = E.destroy_cost(st, rp, dt, q, t)
        if cost > prm[P_DESTROY_MAX] and st[E.ST_CITY_N + q] < close:
            continue
        vals[i] = -1000.0 * cost + dt[t, DT_POINTS]  # the cheapest, then the most points
        any_target = True
    return _argmax(vals, n, arng) if any_target else -1


@njit(cache=True, _nrt=False, inline="always")
def _income_colour(c):
    if c == KING:
        return YELLOW
    if c == BISHOP:
        return BLUE
    if c == MERCHANT:
        return GREEN
    if c == WARLORD:
        return RED
    return -1


@njit(cache=True, _nrt=False)
def _useful_cost(st, rp, dt, p):
    """What building every buildable hand card would cost p now."""
    m = np.int64(st[E.ST_HAND_MASK + p]) & ~np.int64(st[E.ST_CITY_MASK + p])
    s = 0
    for t in range(MAX_TYPES):
        if (m >> t) & 1 == 1:
            s += E.price(st, rp, dt, t)
    return s


@njit(cache=True, _nrt=False)
def _turn(st, rp, dt, prm, p, arng, mem, moves, n, vals):
    """The turn rules 1-10 of the module docstring: the index of the listed move to play."""
    c = st[E.ST_TURN_CHAR]
    if st[E.ST_REDRAW_N] > 0:
        return _redraw_step(st, moves, n, p)
    if st[E.ST_PEND_N] > 0:
        return _keep(st, rp, dt, prm, p, arng, moves, n, vals)
    if st[E.ST_ABILITY] == 0:
        i = -1
        if c == ASSASSIN:
            i = _strike(st, rp, dt, prm, p, _leader(st, rp, dt, p, prm), E.K_KILL, arng, mem, moves, n, vals)
        elif c == THIEF:
            q = _richest(st, rp, dt, p)
            if q >= 0:
                i = _strike(st, rp, dt, prm, p, q, E.K_ROB, arng, mem, moves, n, vals)
        elif c == MAGICIAN:
            i = _magician(st, rp, dt, prm, p, arng, moves, n, vals)
        if i >= 0:
            return i
    i = _lab_spare(st, moves, n, p)
    if i >= 0:
        return i
    gold = st[E.ST_GOLD + p]
    if st[E.ST_ACTED] == 0:
        d = _find(moves, n, E.K_DRAW, -1)
        if d >= 0 and (_useful(st, p) < prm[P_DRAW_BELOW] or gold >= _useful_cost(st, rp, dt, p)):
            return d
        return _find(moves, n, E.K_GOLD, -1)
    now, now_colour = _best_build_worth(st, rp, dt, prm, p, gold)
    inc = _find(moves, n, E.K_INCOME, -1)
    if inc >= 0:
        more, _ = _best_build_worth(st, rp, dt, prm, p, gold + E.income_amount(st, rp, dt, p, c))
        if now == _NEG or now_colour != _income_colour(c) or more > now:
            return inc
    for i in range(n):
        vals[i] = build_worth(st, rp, dt, prm, p, moves[i, E.MV_A]) if moves[i, E.MV_KIND] == E.K_BUILD else _NEG
    i = _argmax(vals, n, arng)
    if i >= 0:
        return i
    if _find(moves, n, E.K_LAB, -1) >= 0:
        t = _one_short(st, rp, dt, p)
        if t >= 0 and st[E.ST_BUILT] < st[E.ST_LIMIT]:
            i = _lab_worst(st, rp, dt, prm, p, moves, n, t)
            if i >= 0:
                return i
        if st[E.ST_HAND_N + p] > prm[P_HAND_MAX]:
            i = _lab_worst(st, rp, dt, prm, p, moves, n, -1)
            if i >= 0:
                return i
    i = _find(moves, n, E.K_SMITHY, -1)
    if i >= 0 and _useful(st, p) <= prm[P_SMITHY_HAND]:
        return i
    if c == WARLORD:
        i = _destroy(st, rp, dt, prm, p, arng, moves, n, vals)
        if i >= 0:
            return i
    return _find(moves, n, E.K_END, -1)


@njit(cache=True, _nrt=False)
def _graveyard(st, dt, prm, p, moves, n):
    t = st[E.ST_GRAVE_CARD]
    if not _in_city(st, p, t) and _hand(st, p, t) == 0 and dt[t, DT_COST] >= prm[P_GRAVE_MIN]:
        return _find(moves, n, E.K_GRAVE_TAKE, -1)
    return _find(moves, n, E.K_GRAVE_PASS, -1)


@njit(cache=True, _nrt=False)
def basic_move(st, rp, dt, p, prm, arng, mem, moves, vals, mv):
    """basic's move for seat p (the seat to decide) into mv; arng is p's stream, positioned; mem p's memory
    row (updated at its picks); moves int32[MAX_MOVES, MV_LEN] and vals float64[MAX_MOVES] are scratch.

    Reads only what p sees (module docstring); to play on a canonical redeal instead, redeal a copy of st
    for p here and pass the copy on.

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
    prm : numpy.ndarray
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
    """
    n = E.legal_moves(st, rp, dt, moves)
    ph = st[E.ST_PHASE]
    if ph == E.PH_PICK:
        i = _pick(st, rp, dt, prm, p, arng, mem, moves, n, vals)
    elif ph == E.PH_DISCARD:
        i = _discard(st, rp, dt, prm, p, arng, moves, n, vals)
    elif ph == E.PH_GRAVE:
        i = _graveyard(st, dt, prm, p, moves, n)
    else:
        i = _turn(st, rp, dt, prm, p, arng, mem, moves, n, vals)
    if i < 0:  # cannot happen (every branch ends on a listed move); the first listed move keeps play legal
        i = 0
    for j in range(E.MV_LEN):
        mv[j] = moves[i, j]


# --- expert / specialists: restricted play ----------------------------------------------------------------
find_move = _find  # the listed move (kind, a): boardlab.agents.citadels.search reads the list with it


@njit(cache=True, _nrt=False)
def basic_prefers_move(st, rp, dt, p, prm, arng, mem, moves, vals, mv):
    """basic_move, then restricted play (Jaffe et al. 2012) when prm[P_PREFERS] = R > 0: at a selection, the
    pick of R whenever it is offered; at a 2-player discard, never R when another rank can go (the others
    valued as basic values them).  With R = 0 exactly basic_move.

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
    prm : numpy.ndarray
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
    """
    basic_move(st, rp, dt, p, prm, arng, mem, moves, vals, mv)
    r = int(prm[P_PREFERS])
    ph = st[E.ST_PHASE]
    if r <= 0 or (ph != E.PH_PICK and ph != E.PH_DISCARD):
        return
    n = E.legal_moves(st, rp, dt, moves)
    i = -1
    if ph == E.PH_PICK:
        i = _find(moves, n, E.K_PICK, r)
    elif mv[E.MV_A] == r and n > 1:
        for j in range(n):
            a = moves[j, E.MV_A]
            vals[j] = _NEG if a == r else rank_worth(st, rp, dt, prm, p, 1 - p, a)
        i = _argmax(vals, n, arng)
    if i >= 0:
        for j in range(E.MV_LEN):
            mv[j] = moves[i, j]


# --- end expert / specialists -------------------------------------------------------------------------------
