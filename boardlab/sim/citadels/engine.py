"""Citadels' numba kernels: the whole game over a few fixed-shape arrays.

Design notes: docs/games/citadels/engine.md#kernels-module.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from boardlab.sim.layout import Layout
from boardlab.sim.rng import CHANCE, POLICY, rng_next

from .rules import (
    ARCHITECT,
    ASSASSIN,
    BISHOP,
    BLUE,
    GREEN,
    KING,
    MAGICIAN,
    MAX_DECK,
    MAX_PLAYERS,
    MAX_TYPES,
    MERCHANT,
    N_RANKS,
    RED,
    THIEF,
    WARLORD,
    YELLOW,
)
from .tables import (
    DT_COLOUR,
    DT_COPIES,
    DT_COST,
    DT_POINTS,
    RP_ABCCBA,
    RP_ARCH_DISCOUNT,
    RP_BANK,
    RP_BANK_UNLIMITED,
    RP_BISHOP_VS_OWN,
    RP_BLIND,
    RP_COMPLETE,
    RP_EMPTY_DRAW,
    RP_FACEDOWN,
    RP_FACEUP,
    RP_FACEUP_FIRST,
    RP_FIRST_CROWN,
    RP_GRAVE_SELF,
    RP_GRAVEYARD,
    RP_HAUNTED,
    RP_KEEP,
    RP_LAB,
    RP_LIB_OBS_KEEP,
    RP_LIBRARY,
    RP_MAX_ROUNDS,
    RP_N_CARDS,
    RP_N_TYPES,
    RP_OBSERVATORY,
    RP_PLAYERS,
    RP_REMOVE_DESTROYED,
    RP_REMOVE_LAB,
    RP_REMOVE_ROUND1,
    RP_REVEAL_ALL,
    RP_ROTATE_CROWN,
    RP_SCHOOL,
    RP_SEAT_POINTS,
    RP_SMITHY,
    RP_START_GOLD,
    RP_START_HAND,
    RP_TARGET_ANY,
    RP_TIEBREAK,
    RP_WALL,
    RP_WALL_VS_OWN,
    RP_WARLORD_ANYTIME,
    RP_WARLORD_OWN,
    TIE_COST_GOLD,
    TIE_DISTRICTS_GOLD_DRAW,
    TIE_SHARED,
)

RANDOM_PLAYER_XOR = np.uint64(0xA5A5A5A5A5A5A5A5)  # §8: the reference random player's stream
N_COLOURS = 5
HIST_ROUNDS = 100  # rounds whose history is kept (the default round cap)

# --- phases and where a character card is ------------------------------------------------------
PH_PICK, PH_DISCARD, PH_TURN, PH_GRAVE, PH_DONE = range(5)
CH_PILE, CH_HELD, CH_FACEUP, CH_REMOVED, CH_FACEDOWN = range(5)  # removed: face down at §4.1
# The automatic steps between decisions.  Each step names the next one in st[ST_NEXT] and
# advance() runs them in a loop: the kernels never call back up the round's chain
# (selection -> calling -> end of round -> next round), because numba's cache cannot hold
# mutually recursive functions.
NX_NONE, NX_SELECTION, NX_CALL, NX_END_ROUND, NX_START_ROUND = range(5)

# --- move kinds (§8) --------------------------------------------------------------------------------
K_PICK = 0
K_DISCARD_CHAR = 1
K_GOLD = 2
K_DRAW = 3
K_KEEP = 4
K_INCOME = 5
K_KILL = 6
K_ROB = 7
K_SWAP = 8
K_REDRAW = 9
K_LAB = 10
K_SMITHY = 11
K_BUILD = 12
K_DESTROY = 13
K_END = 14
K_GRAVE_TAKE = 15
K_GRAVE_PASS = 16
K_REDRAW_DONE = 17
N_KINDS = 18
MV_KIND, MV_A, MV_B, MV_LEN = range(4)
# The longest legal list: DESTROY over every other city plus BUILD and LAB over a hand's types.
MAX_MOVES = MAX_PLAYERS * MAX_TYPES + 2 * MAX_TYPES + 32

# --- events (§7.3 of docs/games/citadels.md) ----------------------------------------------------------
# One row per event: VIS (-1 public, else the one seat that sees it), KIND (E_*), up to four
# integer arguments A..D in the documented order.  An event carrying card or rank lists gives their
# lengths in its arguments (noted "n items") and is followed by that many E_ITEM rows (A = the value),
# which share its audience.  boardlab.sim.citadels.api turns rows back into the documented tuples.
EV_VIS, EV_KIND, EV_A, EV_B, EV_C, EV_D, EV_LEN = range(7)
E_START = 0  # ("start", players, crown)
E_HAND = 1  # ("hand", cards): private; A = n items
E_ROUND = 2  # ("round", round, crown)
E_FACEDOWN = 3  # ("facedown", count)
E_KING_RETURNED = 4  # ("king_returned",)
E_FACEUP = 5  # ("faceup", rank)
E_FACEDOWN_SEEN = 6  # ("facedown_seen", rank): private, the 7th chooser
E_OFFER = 7  # ("offer", ranks): private; A = n items
E_PICK = 8  # ("pick", rank): private
E_CHOSE = 9  # ("chose", seat)
E_DISCARD = 10  # ("discard", rank): private
E_DISCARDED = 11  # ("discarded", seat)
E_CALL = 12  # ("call", rank, seat); seat -1: no reveal
E_ROBBED = 13  # ("robbed", thief, victim, amount)
E_CROWN = 14  # ("crown", seat)
E_GOLD = 15  # ("gold", seat, gained)
E_DRAW = 16  # ("draw", seat, m, k)
E_DRAWN = 17  # ("drawn", cards): private; A = n items
E_KEEP = 18  # ("keep", seat, k)
E_KEPT = 19  # ("kept", kept, bottom): private; A = n kept, B = n bottom items
E_MERCHANT_BONUS = 20  # ("merchant_bonus", seat, gained)
E_ARCHITECT_DRAW = 21  # ("architect_draw", seat, count)
E_INCOME = 22  # ("income", seat, gained)
E_KILL = 23  # ("kill", seat, rank)
E_ROB = 24  # ("rob", seat, rank)
E_SWAP = 25  # ("swap", seat, q)
E_RECEIVED = 26  # ("received", cards): private to each of the two; A = n items
E_REDRAW = 27  # ("redraw", seat, count)
E_REDREW = 28  # ("redrew", sent, drawn): private; A = n sent, B = n drawn items
E_LAB = 29  # ("lab", seat, gained)
E_LAB_CARD = 30  # ("lab_card", card): private
E_SMITHY = 31  # ("smithy", seat, count)
E_BUILD = 32  # ("build", seat, card, price)
E_COMPLETE = 33  # ("complete", seat)
E_DESTROY = 34  # ("destroy", seat, q, card, paid)
E_GRAVE = 35  # ("grave", owner, card, took)
E_END = 36  # ("end", seat)
E_HEIR = 37  # ("heir", seat)
E_GAME_END = 38  # ("game_end", capped, totals): the totals are the final scores (added by the API)
E_MURDERED_REVEALED = 39  # ("murdered_revealed", rank, seat): reveal_murdered = all_at_round_end
E_HIDDEN_REVEALED = 40  # ("hidden_revealed", rank): likewise, a face-down rank
E_ITEM = 41  # a list item of the event before (A = the value)

# --- history per round -----------------------------------------------------------------------------
_hs = Layout("hist")
HS_HELD = _hs.add("ranks held by each seat (bit r - 1)", MAX_PLAYERS)
HS_KILLED = _hs.add("murdered rank (0: none named)")
HS_KILLED_SEAT = _hs.add("its holder (-1: nobody)")
HS_ROBBED = _hs.add("robbed rank (0: none named)")
HS_ROBBED_SEAT = _hs.add("its holder (-1: nobody)")
HS_STOLEN = _hs.add("gold the Thief took")
HS_CROWN = _hs.add("the crown's seat at the round's start (the first chooser)")
HS_FACEUP = _hs.add("ranks removed face up at the removal step (bit r - 1)")
HS_FACEDOWN = _hs.add("ranks removed face down at the removal step (bit r - 1)")
HS_CITY = _hs.add("city size of each seat at the round's start", MAX_PLAYERS)
HS_GOLD = _hs.add("gold of each seat at the round's start", MAX_PLAYERS)
HS_LEN = _hs.size

# --- state layout ---------------------------------------------------------------------------------
_st = Layout("st")
ST_PLAYERS = _st.add("players")
ST_PHASE = _st.add("phase (PH_*)")
ST_CURRENT = _st.add("seat to decide, -1 when done")
ST_ROUND = _st.add("round, 1-based")
ST_CROWN = _st.add("crown holder")
ST_ROUND_CROWN = _st.add("crown holder at the round's start")
ST_BANK = _st.add("gold in the bank")
ST_LOG = _st.add("1: write the event log")
ST_N_EVENTS = _st.add("events written")
ST_FINAL = _st.add("final_round set")
ST_CAPPED = _st.add("ended by the round cap")
ST_FIRST_COMPLETER = _st.add("first seat to complete its city, -1")
ST_N_COMPLETED = _st.add("seats with a complete city")
ST_DECISIONS = _st.add("decisions taken")
ST_NEXT = _st.add("the automatic step to run next (NX_*)")
ST_DECK_TOP = _st.add("ring index of the deck's top")
ST_DECK_LEN = _st.add("cards in the deck")
ST_DECK = _st.add("the deck ring", MAX_DECK)
ST_OUT = _st.add("cards out of the game, per type", MAX_TYPES)
ST_GOLD = _st.add("gold per seat", MAX_PLAYERS)
ST_HAND_N = _st.add("hand size per seat", MAX_PLAYERS)
ST_HAND = _st.add("hand: count per seat and type", MAX_PLAYERS * MAX_TYPES)
ST_HAND_MASK = _st.add("hand: bit per type held", MAX_PLAYERS)
ST_CITY_N = _st.add("city size per seat", MAX_PLAYERS)
ST_CITY = _st.add("city: types in build order", MAX_PLAYERS * MAX_TYPES)
ST_CITY_ROUND = _st.add("city: build round of each", MAX_PLAYERS * MAX_TYPES)
ST_CITY_MASK = _st.add("city: bit per type", MAX_PLAYERS)
ST_CITY_COLOUR = _st.add("city: districts per colour", MAX_PLAYERS * N_COLOURS)
ST_COMPLETE_ORDER = _st.add("completion order per seat (0: not complete)", MAX_PLAYERS)
ST_HOLDER = _st.add("holder of rank r (index r; -1 nobody)", N_RANKS + 1)
ST_WHERE = _st.add("where rank r is (CH_*)", N_RANKS + 1)
ST_REVEALED = _st.add("rank r revealed this round", N_RANKS + 1)
ST_PILE = _st.add("character pile P, top first", N_RANKS)
ST_PILE_N = _st.add("its size")
ST_FD = _st.add("ranks removed face down", N_RANKS)
ST_FD_N = _st.add("how many")
ST_FU = _st.add("ranks removed face up, in order", N_RANKS)
ST_FU_N = _st.add("how many")
ST_SEL_STEP = _st.add("selection step")
ST_SEL_SEAT = _st.add("its chooser")
ST_OFFER = _st.add("ranks offered, ascending", N_RANKS)
ST_OFFER_N = _st.add("how many")
ST_CALL = _st.add("rank called (0 before the calls)")
ST_KILLED = _st.add("murdered rank, 0 none")
ST_ROBBED = _st.add("robbed rank, 0 none")
ST_TURN_SEAT = _st.add("seat whose turn it is")
ST_TURN_CHAR = _st.add("its character")
ST_ACTED = _st.add("acted")
ST_ABILITY = _st.add("ability_used")
ST_INCOME_TAKEN = _st.add("income_taken")
ST_LAB_USED = _st.add("lab_used")
ST_SMITHY_USED = _st.add("smithy_used")
ST_DESTROY_USED = _st.add("destroy_used (warlord_timing = any_time)")
ST_BUILT = _st.add("built this turn")
ST_LIMIT = _st.add("build limit")
ST_PEND = _st.add("drawn cards awaiting KEEP, draw order", 3)
ST_PEND_N = _st.add("how many (m)")
ST_KEEP_K = _st.add("how many to keep (k)")
ST_REDRAW = _st.add("pending redraw S, count per type", MAX_TYPES)
ST_REDRAW_N = _st.add("|S|")
ST_REDRAW_MAX = _st.add("max(S)")
ST_GRAVE_CARD = _st.add("the destroyed card in the Graveyard window")
ST_GRAVE_OWNER = _st.add("the Graveyard's owner deciding")
ST_HIST = _st.add("history per round (HS_*), round r at (r - 1) * HS_LEN", HIST_ROUNDS * HS_LEN)
ST_LEN = _st.size

# --- final scores ------------------------------------------------------------------------------------
_sc = Layout("sc")
SC_DISTRICT_POINTS = _sc.add("points of the city's districts (Dragon Gate, University 8)")
SC_COLOUR_BONUS = _sc.add("3 for five colours")
SC_COMPLETE_BONUS = _sc.add("4 first to complete, 2 other complete cities")
SC_TOTAL = _sc.add("score")
SC_DISTRICTS = _sc.add("districts built")
SC_GOLD = _sc.add("gold")
SC_HAND = _sc.add("cards in hand")
SC_COST = _sc.add("printed cost of the city's districts")
SC_RANK = _sc.add("rank: 1 + the number of players strictly ahead")
SC_WINNER = _sc.add("1 for each of the winners (each credited 1 / their number)")
SC_SEAT_POINTS = _sc.add("the seat's seat_points (in the score)")
SC_LEN = _sc.size

# --- per seat results of play_random_games ---------------------------------------------------------
IN_COMPLETE_ORDER, IN_ROUNDS, IN_CAPPED, IN_DECISIONS, IN_BUILT = range(5)  # IN_BUILT + t: build round of type t
IN_LEN = IN_BUILT + MAX_TYPES  # (0: not in the city at the end)

_U1 = np.uint64(1)

# The small helpers' argument types, given up front: each compiles once, for these types, and callers' int32,
# int64 and literal arguments convert to them (docs/architecture/compile-time.md#why-a-kernel-compiles-once).
_S = types.int32[::1]  # st, rp
_EV = types.int32[:, ::1]  # ev, dt, a move list
_RNG = types.uint64[::1]
_I = types.int64
_B = types.boolean


# --- chance (§1) -------------------------------------------------------------------------------------
@njit((_RNG, _I, _I), cache=True, _nrt=False)
def rand_mod(rng, stream, k):
    """§1's rand_below(k) = next() mod k on stream `stream`.

    Parameters
    ----------
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    stream : int
        CHANCE or POLICY.
    k : int
        The number of values.

    Returns
    -------
    numpy.int64
        The draw, 0..k-1.
    """
    return np.int64(rng_next(rng, stream) % np.uint64(k))


@njit((_S, _I, _I, _RNG), cache=True, _nrt=False)
def _shuffle(st, off, length, rng):
    """§1's shuffle of st[off : off + length]: for i = len-1 down to 1, swap a[i], a[rand_below(i+1)]."""
    for i in range(length - 1, 0, -1):
        j = rand_mod(rng, CHANCE, i + 1)
        x = st[off + i]
        st[off + i] = st[off + j]
        st[off + j] = x


# --- small helpers -----------------------------------------------------------------------------------
@intrinsic
def _lowest_bit(typingctx, x):
    """Index of the lowest set bit of an int64 (LLVM cttz); undefined for 0."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        import llvmlite.ir as ir

        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@njit((_S, _EV, _I, _I, _I, _I, _I, _I), cache=True, _nrt=False)
def _log(st, ev, vis, kind, a, b, c, d):
    if st[ST_LOG] == 0:
        return
    i = st[ST_N_EVENTS]
    if i >= ev.shape[0]:  # the API keeps room for a move's events; a full log stops logging
        st[ST_LOG] = 0
        return
    ev[i, EV_VIS] = vis
    ev[i, EV_KIND] = kind
    ev[i, EV_A] = a
    ev[i, EV_B] = b
    ev[i, EV_C] = c
    ev[i, EV_D] = d
    st[ST_N_EVENTS] = i + 1


@njit((_S, _EV, _I, _I), cache=True, _nrt=False)
def _item(st, ev, vis, value):
    _log(st, ev, vis, E_ITEM, value, 0, 0, 0)


@njit((_S, _EV, _I, _I), cache=True, _nrt=False)
def _log_hand(st, ev, kind, p):
    """An event carrying p's whole hand, sorted (hand, received), private to p."""
    _log(st, ev, p, kind, st[ST_HAND_N + p], 0, 0, 0)
    for t in range(MAX_TYPES):
        for _ in range(st[ST_HAND + p * MAX_TYPES + t]):
            _item(st, ev, p, t)


@njit((_S, _S, _I, _I), cache=True, _nrt=False)
def _gain(st, rp, p, g):
    """Gain g from the bank: min(g, bank) (I1, partial), or g with an unlimited bank."""
    amt = g
    if rp[RP_BANK_UNLIMITED] == 0 and amt > st[ST_BANK]:
        amt = st[ST_BANK]
    st[ST_BANK] -= amt
    st[ST_GOLD + p] += amt
    return amt


@njit((_S, _I, _I), cache=True, _nrt=False)
def _pay(st, p, g):
    st[ST_GOLD + p] -= g
    st[ST_BANK] += g


@njit((_S, _S), cache=True, _nrt=False)
def _deck_draw(st, rp):
    """The top card of the deck (the caller checks the deck is not empty)."""
    top = st[ST_DECK_TOP]
    t = st[ST_DECK + top]
    st[ST_DECK_TOP] = (top + 1) % rp[RP_N_CARDS]
    st[ST_DECK_LEN] -= 1
    return t


@njit((_S, _S, _I), cache=True, _nrt=False)
def _deck_bottom(st, rp, t):
    st[ST_DECK + (st[ST_DECK_TOP] + st[ST_DECK_LEN]) % rp[RP_N_CARDS]] = t
    st[ST_DECK_LEN] += 1


@njit((_S, _I, _I), cache=True, _nrt=False)
def _hand_add(st, p, t):
    st[ST_HAND + p * MAX_TYPES + t] += 1
    st[ST_HAND_N + p] += 1
    st[ST_HAND_MASK + p] |= 1 << t


@njit((_S, _I, _I), cache=True, _nrt=False)
def _hand_remove(st, p, t):
    i = ST_HAND + p * MAX_TYPES + t
    st[i] -= 1
    st[ST_HAND_N + p] -= 1
    if st[i] == 0:
        st[ST_HAND_MASK + p] &= ~(1 << t)


@njit((_S, _EV, _S, _I, _I, _B), cache=True, _nrt=False)
def _draw_to_hand(st, ev, rp, p, wanted, log):
    """Draw min(wanted, deck) cards into p's hand (§5.4), with their ("drawn", cards) if log; returns how many."""
    m = min(wanted, st[ST_DECK_LEN])
    if log:
        _log(st, ev, p, E_DRAWN, m, 0, 0, 0)
    for _ in range(m):
        t = _deck_draw(st, rp)
        _hand_add(st, p, t)
        if log:
            _item(st, ev, p, t)
    return m


@njit((_S, _I, _I), cache=True, _nrt=False)
def _has(st, p, t):
    """Whether type t (-1: not in the deck) stands in p's city."""
    return t >= 0 and (st[ST_CITY_MASK + p] >> t) & 1 == 1


@njit((_S, _EV, _I, _I, _I), cache=True, _nrt=False)
def _city_add(st, dt, p, t, rnd):
    i = st[ST_CITY_N + p]
    st[ST_CITY + p * MAX_TYPES + i] = t
    st[ST_CITY_ROUND + p * MAX_TYPES + i] = rnd
    st[ST_CITY_N + p] = i + 1
    st[ST_CITY_MASK + p] |= 1 << t
    st[ST_CITY_COLOUR + p * N_COLOURS + dt[t, DT_COLOUR]] += 1


@njit((_S, _EV, _I, _I), cache=True, _nrt=False)
def _city_remove(st, dt, p, t):
    n = st[ST_CITY_N + p]
    base = p * MAX_TYPES
    j = 0
    for i in range(n):
        x = st[ST_CITY + base + i]
        if x != t:
            st[ST_CITY + base + j] = x
            st[ST_CITY_ROUND + base + j] = st[ST_CITY_ROUND + base + i]
            j += 1
    st[ST_CITY_N + p] = j
    st[ST_CITY_MASK + p] &= ~(1 << t)
    st[ST_CITY_COLOUR + p * N_COLOURS + dt[t, DT_COLOUR]] -= 1


@njit((_S, _I), cache=True, _nrt=False)
def _hist(st, field):
    """Offset of this round's history field (-1 beyond HIST_ROUNDS)."""
    r = st[ST_ROUND]
    if r < 1 or r > HIST_ROUNDS:
        return -1
    return ST_HIST + (r - 1) * HS_LEN + field


@njit((_S,), cache=True, _nrt=False)
def _pile_pop(st):
    c = st[ST_PILE]
    n = st[ST_PILE_N]
    for i in range(n - 1):
        st[ST_PILE + i] = st[ST_PILE + i + 1]
    st[ST_PILE_N] = n - 1
    return c


@njit((_S, _I), cache=True, _nrt=False)
def _pile_remove(st, r):
    """Take rank r out of the pile; False if it is not there."""
    n = st[ST_PILE_N]
    found = False
    for i in range(n):
        if found:
            st[ST_PILE + i - 1] = st[ST_PILE + i]
        elif st[ST_PILE + i] == r:
            found = True
    if found:
        st[ST_PILE_N] = n - 1
    return found


@njit((_S, _I), cache=True, _nrt=False)
def _fd_remove(st, r):
    n = st[ST_FD_N]
    found = False
    for i in range(n):
        if found:
            st[ST_FD + i - 1] = st[ST_FD + i]
        elif st[ST_FD + i] == r:
            found = True
    if found:
        st[ST_FD_N] = n - 1
    return found


# --- setup (§3) and the round (§4) ------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def setup(st, rng, ev, seed, rp, dt, log):
    """A new game from its seed: deck shuffled, hands dealt, round 1 up to its first decision.

    log: 1 to write the event log into ev.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    ev : numpy.ndarray
        int32, shape ``(rows, EV_LEN)``: the event log.
    seed : numpy.uint64
        The game seed.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    log : int
        1: keep the event log.
    """
    st[:] = 0
    n = rp[RP_PLAYERS]
    st[ST_PLAYERS] = n
    st[ST_LOG] = log
    rng[CHANCE] = seed
    rng[POLICY] = seed ^ RANDOM_PLAYER_XOR
    st[ST_BANK] = rp[RP_BANK]
    st[ST_FIRST_COMPLETER] = -1
    st[ST_GRAVE_CARD] = -1
    st[ST_GRAVE_OWNER] = -1
    k = 0
    for t in range(rp[RP_N_TYPES]):  # canonical order: type id ascending, copies adjacent
        for _ in range(dt[t, DT_COPIES]):
            st[ST_DECK + k] = t
            k += 1
    st[ST_DECK_LEN] = k
    _shuffle(st, ST_DECK, k, rng)  # chance event a
    st[ST_CROWN] = rp[RP_FIRST_CROWN]
    _log(st, ev, -1, E_START, n, st[ST_CROWN], 0, 0)
    for _ in range(rp[RP_START_HAND]):  # round-robin, one card at a time
        for p in range(n):
            if st[ST_DECK_LEN] > 0:
                _hand_add(st, p, _deck_draw(st, rp))
    for p in range(n):
        _log_hand(st, ev, E_HAND, p)
    for p in range(n):
        _gain(st, rp, p, rp[RP_START_GOLD])
    start_round(st, rng, ev, rp)
    advance(st, rng, ev, rp, dt)


@njit(cache=True, _nrt=False)
def advance(st, rng, ev, rp, dt):
    """Run the automatic steps until a seat has a decision or the game is over.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    ev : numpy.ndarray
        int32, shape ``(rows, EV_LEN)``: the event log.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    """
    while True:
        nx = st[ST_NEXT]
        st[ST_NEXT] = NX_NONE
        if nx == NX_SELECTION:
            _selection(st, rng, ev, rp)
        elif nx == NX_CALL:
            _call_next(st, ev)
        elif nx == NX_END_ROUND:
            _end_round(st, ev, rp)
        elif nx == NX_START_ROUND:
            start_round(st, rng, ev, rp)
        else:
            return


@njit(cache=True, _nrt=False)
def start_round(st, rng, ev, rp):
    """§4.1: a new round: the ranks shuffled (chance event b) into P, the removal; selection is next.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    ev : numpy.ndarray
        int32, shape ``(rows, EV_LEN)``: the event log.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    """
    _round_reset(st, ev)
    for i in range(N_RANKS):
        st[ST_PILE + i] = i + 1
    st[ST_PILE_N] = N_RANKS
    _shuffle(st, ST_PILE, N_RANKS, rng)
    _removal(st, rng, ev, rp)


@njit(cache=True, _nrt=False)
def start_round_with(st, rng, ev, rp, ranks):
    """start_round with the rank shuffle given (int32[8], top first): for tests and worked examples.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    ev : numpy.ndarray
        int32, shape ``(rows, EV_LEN)``: the event log.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    ranks : numpy.ndarray
        int32, shape ``(8,)``: the shuffle, top first.
    """
    _round_reset(st, ev)
    for i in range(N_RANKS):
        st[ST_PILE + i] = ranks[i]
    st[ST_PILE_N] = N_RANKS
    _removal(st, rng, ev, rp)


@njit(cache=True, _nrt=False)
def _round_reset(st, ev):
    st[ST_ROUND] += 1
    st[ST_ROUND_CROWN] = st[ST_CROWN]
    st[ST_PHASE] = PH_PICK
    for r in range(N_RANKS + 1):
        st[ST_HOLDER + r] = -1
        st[ST_WHERE + r] = CH_PILE
        st[ST_REVEALED + r] = 0
    st[ST_KILLED] = 0
    st[ST_ROBBED] = 0
    st[ST_CALL] = 0
    st[ST_FD_N] = 0
    st[ST_FU_N] = 0
    st[ST_SEL_STEP] = 0
    h = _hist(st, 0)
    if h >= 0:
        for i in range(HS_LEN):
            st[h + i] = 0
        st[h + HS_KILLED_SEAT] = -1
        st[h + HS_ROBBED_SEAT] = -1
        st[h + HS_CROWN] = st[ST_CROWN]
        for p in range(st[ST_PLAYERS]):
            st[h + HS_CITY + p] = st[ST_CITY_N + p]
            st[h + HS_GOLD + p] = st[ST_GOLD + p]
    _log(st, ev, -1, E_ROUND, st[ST_ROUND], st[ST_CROWN], 0, 0)


@njit(cache=True, _nrt=False)
def _removal(st, rng, ev, rp):
    if st[ST_ROUND] > 1 or rp[RP_REMOVE_ROUND1] == 1:
        if rp[RP_FACEUP_FIRST] == 1:
            _remove_faceup(st, rng, ev, rp)
            _remove_facedown(st, ev, rp)
        else:
            _remove_facedown(st, ev, rp)
            _remove_faceup(st, rng, ev, rp)
    h = _hist(st, HS_FACEUP)
    if h >= 0:
        for i in range(st[ST_FU_N]):
            st[h] |= 1 << (st[ST_FU + i] - 1)
        for i in range(st[ST_FD_N]):
            st[h + HS_FACEDOWN - HS_FACEUP] |= 1 << (st[ST_FD + i] - 1)
    st[ST_NEXT] = NX_SELECTION


@njit(cache=True, _nrt=False)
def _remove_facedown(st, ev, rp):
    k = rp[RP_FACEDOWN]
    for _ in range(k):
        c = _pile_pop(st)
        st[ST_WHERE + c] = CH_REMOVED
        st[ST_FD + st[ST_FD_N]] = c
        st[ST_FD_N] += 1
    if k > 0:
        _log(st, ev, -1, E_FACEDOWN, k, 0, 0, 0)


@njit(cache=True, _nrt=False)
def _remove_faceup(st, rng, ev, rp):
    """§4.1: the King never ends face up: the next card replaces it, and it is shuffled back (event c)."""
    for _ in range(rp[RP_FACEUP]):
        c = _pile_pop(st)
        if c == KING:
            _log(st, ev, -1, E_KING_RETURNED, 0, 0, 0, 0)
            c = _pile_pop(st)
            st[ST_PILE + st[ST_PILE_N]] = KING
            st[ST_PILE_N] += 1
            _shuffle(st, ST_PILE, st[ST_PILE_N], rng)
        st[ST_WHERE + c] = CH_FACEUP
        st[ST_FU + st[ST_FU_N]] = c
        st[ST_FU_N] += 1
        _log(st, ev, -1, E_FACEUP, c, 0, 0, 0)


@njit(cache=True, _nrt=False, inline="always")
def _selection_steps(n):
    return n if n >= 4 else 6


@njit((_S, _S, _I), cache=True, _nrt=False)
def _step_seat(st, rp, step):
    """The chooser of selection step `step` (§4.2): crown, crown+1, ...; 3p A B C A B C (I17); 2p A B B A A B."""
    n = st[ST_PLAYERS]
    crown = st[ST_CROWN]
    if n >= 4:
        return (crown + step) % n
    if n == 3:
        k = step % 3
        if rp[RP_ABCCBA] == 1 and step >= 3:
            k = 5 - step
        return (crown + k) % 3
    if step == 0 or step == 3 or step == 4:
        return crown
    return 1 - crown


@njit(cache=True, _nrt=False, inline="always")
def _is_discard_step(st, step):
    return st[ST_PLAYERS] == 2 and (step == 2 or step == 4)


@njit((_S,), cache=True, _nrt=False)
def _sort_offer(st):
    n = st[ST_OFFER_N]
    for i in range(1, n):
        x = st[ST_OFFER + i]
        j = i - 1
        while j >= 0 and st[ST_OFFER + j] > x:
            st[ST_OFFER + j + 1] = st[ST_OFFER + j]
            j -= 1
        st[ST_OFFER + j + 1] = x


@njit(cache=True, _nrt=False)
def _selection(st, rng, ev, rp):
    """Run the selection until a chooser has a decision (a single card is taken without asking, §8)."""
    n = st[ST_PLAYERS]
    blind = rp[RP_BLIND] == 1
    while True:
        step = st[ST_SEL_STEP]
        if step >= _selection_steps(n):
            for i in range(st[ST_PILE_N]):  # every card left goes face down
                st[ST_WHERE + st[ST_PILE + i]] = CH_FACEDOWN
            st[ST_PILE_N] = 0
            h = _hist(st, HS_HELD)
            if h >= 0:
                for r in range(1, N_RANKS + 1):
                    p = st[ST_HOLDER + r]
                    if p >= 0:
                        st[h + p] |= 1 << (r - 1)
            st[ST_NEXT] = NX_CALL
            return
        seat = _step_seat(st, rp, step)
        st[ST_SEL_SEAT] = seat
        seventh = n == 7 and step == 6
        st[ST_OFFER_N] = 0
        if blind:
            take = 1 if step == 0 else min(2, st[ST_PILE_N])
            for _ in range(take):
                st[ST_OFFER + st[ST_OFFER_N]] = _pile_pop(st)
                st[ST_OFFER_N] += 1
        else:
            for i in range(st[ST_PILE_N]):
                st[ST_OFFER + i] = st[ST_PILE + i]
            st[ST_OFFER_N] = st[ST_PILE_N]
        if seventh:  # the 7-player rule: the face-down removed card joins the offer
            for i in range(st[ST_FD_N]):
                st[ST_OFFER + st[ST_OFFER_N]] = st[ST_FD + i]
                st[ST_OFFER_N] += 1
                _log(st, ev, seat, E_FACEDOWN_SEEN, st[ST_FD + i], 0, 0, 0)
        _sort_offer(st)
        if not _is_discard_step(st, step):  # a discard's set is the last offer less the pick: no event
            _log(st, ev, seat, E_OFFER, st[ST_OFFER_N], 0, 0, 0)
            for i in range(st[ST_OFFER_N]):
                _item(st, ev, seat, st[ST_OFFER + i])
        if st[ST_OFFER_N] == 1:
            _select(st, rng, ev, rp, st[ST_OFFER], _is_discard_step(st, step))
            continue
        st[ST_PHASE] = PH_DISCARD if _is_discard_step(st, step) else PH_PICK
        st[ST_CURRENT] = seat
        return


@njit(cache=True, _nrt=False)
def _select(st, rng, ev, rp, r, discard):
    """The chooser keeps (or, 2p, discards) offered rank r; the selection moves on one step."""
    n = st[ST_PLAYERS]
    step = st[ST_SEL_STEP]
    seat = st[ST_SEL_SEAT]
    if not _pile_remove(st, r):
        _fd_remove(st, r)
    if discard:
        st[ST_WHERE + r] = CH_FACEDOWN
        _log(st, ev, seat, E_DISCARD, r, 0, 0, 0)
        _log(st, ev, -1, E_DISCARDED, seat, 0, 0, 0)
    else:
        st[ST_HOLDER + r] = seat
        st[ST_WHERE + r] = CH_HELD
        _log(st, ev, seat, E_PICK, r, 0, 0, 0)
        _log(st, ev, -1, E_CHOSE, seat, 0, 0, 0)
    if rp[RP_BLIND] == 1:  # §4.3: the cards not kept go back (and P is shuffled) or face down
        last = step == n - 1
        returned = 0
        for i in range(st[ST_OFFER_N]):
            c = st[ST_OFFER + i]
            if c == r or st[ST_WHERE + c] != CH_PILE:
                continue  # the kept card, or the 7th chooser's face-down card left where it lies
            if last:
                st[ST_WHERE + c] = CH_FACEDOWN
            else:
                st[ST_PILE + st[ST_PILE_N]] = c
                st[ST_PILE_N] += 1
                returned += 1
        if returned > 0:  # the crown holder's blind take returns nothing, so nothing is shuffled
            _shuffle(st, ST_PILE, st[ST_PILE_N], rng)  # chance event d
    st[ST_OFFER_N] = 0
    st[ST_SEL_STEP] = step + 1


# --- calling (§4.4) and the end of the round (§4.5) ---------------------------------------------------
@njit(cache=True, _nrt=False)
def _call_next(st, ev):
    """Call the ranks after the current one until a revealed holder plays; then end the round."""
    r = st[ST_CALL] + 1
    while r <= N_RANKS:
        st[ST_CALL] = r
        p = st[ST_HOLDER + r]
        if p < 0 or r == st[ST_KILLED]:
            _log(st, ev, -1, E_CALL, r, -1, 0, 0)
            r += 1
            continue
        st[ST_REVEALED + r] = 1
        _log(st, ev, -1, E_CALL, r, p, 0, 0)
        if r == st[ST_ROBBED]:
            thief = st[ST_HOLDER + THIEF]
            amt = 0
            if thief != p:
                amt = st[ST_GOLD + p]
                st[ST_GOLD + thief] += amt
                st[ST_GOLD + p] = 0
                h = _hist(st, HS_STOLEN)
                if h >= 0:
                    st[h] = amt
            _log(st, ev, -1, E_ROBBED, thief, p, amt, 0)
        if r == KING:
            st[ST_CROWN] = p
            _log(st, ev, -1, E_CROWN, p, 0, 0, 0)
        _start_turn(st, p, r)
        return
    st[ST_NEXT] = NX_END_ROUND


@njit(cache=True, _nrt=False)
def _end_round(st, ev, rp):
    n = st[ST_PLAYERS]
    killed = st[ST_KILLED]
    if killed > 0 and st[ST_HOLDER + killed] >= 0:
        p = st[ST_HOLDER + killed]
        if killed == KING:  # the heir (§4.5.1)
            st[ST_CROWN] = p
            _log(st, ev, -1, E_HEIR, p, 0, 0, 0)
            _log(st, ev, -1, E_CROWN, p, 0, 0, 0)
        elif rp[RP_REVEAL_ALL] == 1:
            _log(st, ev, -1, E_MURDERED_REVEALED, killed, p, 0, 0)
    if rp[RP_REVEAL_ALL] == 1:  # I11 alternative: every secret card is shown at the round's end
        for r in range(1, N_RANKS + 1):
            w = st[ST_WHERE + r]
            if w == CH_REMOVED or w == CH_FACEDOWN:
                _log(st, ev, -1, E_HIDDEN_REVEALED, r, 0, 0, 0)
    if rp[RP_ROTATE_CROWN] == 1 and st[ST_HOLDER + KING] < 0:
        st[ST_CROWN] = (st[ST_ROUND_CROWN] + 1) % n
        _log(st, ev, -1, E_CROWN, st[ST_CROWN], 0, 0, 0)
    if st[ST_FINAL] == 1 or st[ST_ROUND] >= rp[RP_MAX_ROUNDS]:
        st[ST_CAPPED] = 1 - st[ST_FINAL]
        st[ST_PHASE] = PH_DONE
        st[ST_CURRENT] = -1
        _log(st, ev, -1, E_GAME_END, st[ST_CAPPED], 0, 0, 0)
        return
    st[ST_NEXT] = NX_START_ROUND


# --- a turn (§5) -----------------------------------------------------------------------------------------
@njit((_S, _I, _I), cache=True, _nrt=False)
def _start_turn(st, p, c):
    st[ST_PHASE] = PH_TURN
    st[ST_CURRENT] = p
    st[ST_TURN_SEAT] = p
    st[ST_TURN_CHAR] = c
    st[ST_ACTED] = 0
    st[ST_ABILITY] = 0
    st[ST_INCOME_TAKEN] = 0
    st[ST_LAB_USED] = 0
    st[ST_SMITHY_USED] = 0
    st[ST_DESTROY_USED] = 0
    st[ST_BUILT] = 0
    st[ST_LIMIT] = 3 if c == ARCHITECT else 1
    st[ST_PEND_N] = 0
    st[ST_REDRAW_N] = 0


@njit(cache=True, _nrt=False, inline="always")
def _char_colour(c):
    """The income colour of King, Bishop, Merchant and Warlord (§2.1)."""
    if c == KING:
        return YELLOW
    if c == BISHOP:
        return BLUE
    if c == MERCHANT:
        return GREEN
    return RED


@njit((_S, _S, _EV, _I, _I), cache=True, _nrt=False)
def income_amount(st, rp, dt, p, c):
    """§5.2 INCOME: districts of the character's colour, plus the School of Magic (I16); 0 without income.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    p : int
        The seat.
    c : int
        The character's rank.

    Returns
    -------
    int
        The gold.
    """
    if c == KING or c == BISHOP or c == MERCHANT or c == WARLORD:
        colour = _char_colour(c)
        amt = st[ST_CITY_COLOUR + p * N_COLOURS + colour]
        if _has(st, p, rp[RP_SCHOOL]):
            amt += 1
        return amt
    return 0


@njit((_S, _S, _EV, _I), cache=True, _nrt=False)
def price(st, rp, dt, t):
    """§5.2: cost, less architect_discount for the Architect.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    t : int
        The district type.

    Returns
    -------
    int
        The price, at least 0.
    """
    x = dt[t, DT_COST]
    if st[ST_TURN_CHAR] == ARCHITECT:
        x -= rp[RP_ARCH_DISCOUNT]
    return max(0, x)


@njit((_S, _S, _EV, _I, _I), cache=True, _nrt=False)
def destroy_cost(st, rp, dt, q, t):
    """§5.3 dcost: cost - 1 (min 0), +1 where a Great Wall stands and t is another district (I10).

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    q : int
        The seat whose city it is.
    t : int
        The district type.

    Returns
    -------
    int
        The gold the Warlord pays.
    """
    x = max(dt[t, DT_COST] - 1, 0)
    wall = rp[RP_WALL]
    if t != wall and _has(st, q, wall):
        if q != st[ST_TURN_SEAT] or rp[RP_WALL_VS_OWN] == 1:
            x += 1
    return x


@njit((_S, _S, _I, _I), cache=True, _nrt=False)
def _city_targetable(st, rp, p, q):
    """§5.3: whether the Warlord p may destroy in q's city at all."""
    if st[ST_CITY_N + q] >= rp[RP_COMPLETE]:
        return False
    if q == p and rp[RP_WARLORD_OWN] == 0:
        return False
    if st[ST_HOLDER + BISHOP] == q and st[ST_REVEALED + BISHOP] == 1:  # revealed implies not murdered
        if q != p or rp[RP_BISHOP_VS_OWN] == 1:
            return False
    return True


@njit(cache=True, _nrt=False, inline="always")
def _deck_allows_draw(st, rp):
    return st[ST_DECK_LEN] >= 1 or rp[RP_EMPTY_DRAW] == 1


@njit((_S, _EV, _S, _I, _I), cache=True, _nrt=False)
def _after_action(st, ev, rp, p, c):
    """The action is complete: post-action effects (I6)."""
    st[ST_ACTED] = 1
    if c == MERCHANT:
        amt = _gain(st, rp, p, 1)
        _log(st, ev, -1, E_MERCHANT_BONUS, p, amt, 0, 0)
    elif c == ARCHITECT:
        _log(st, ev, -1, E_ARCHITECT_DRAW, p, min(2, st[ST_DECK_LEN]), 0, 0)
        _draw_to_hand(st, ev, rp, p, 2, True)


@njit((_S, _EV), cache=True, _nrt=False)
def _end_turn(st, ev):
    _log(st, ev, -1, E_END, st[ST_TURN_SEAT], 0, 0, 0)
    st[ST_NEXT] = NX_CALL


@njit((_S, _S, _I), cache=True, _nrt=False)
def _destroyed_card_away(st, rp, t):
    if rp[RP_REMOVE_DESTROYED] == 1:
        st[ST_OUT + t] += 1
    else:
        _deck_bottom(st, rp, t)


@njit(cache=True, _nrt=False)
def _after_destroy(st, ev, rp):
    """DESTROY ends the turn (I7), or the turn goes on (warlord_timing = any_time)."""
    st[ST_GRAVE_CARD] = -1
    st[ST_GRAVE_OWNER] = -1
    if rp[RP_WARLORD_ANYTIME] == 1:
        st[ST_PHASE] = PH_TURN
        st[ST_CURRENT] = st[ST_TURN_SEAT]
    else:
        _end_turn(st, ev)


@njit(cache=True, _nrt=False)
def _graveyard_owner(st, rp, q, t):
    """§5.3 / I8: the seat that may take the destroyed card t into hand, or -1."""
    gy = rp[RP_GRAVEYARD]
    if gy < 0:
        return -1
    g = -1
    if t == gy:
        if rp[RP_GRAVE_SELF] == 1:
            g = q
    else:
        for s in range(st[ST_PLAYERS]):
            if _has(st, s, gy):
                g = s
    if g < 0 or st[ST_HOLDER + WARLORD] == g or st[ST_GOLD + g] < 1:
        return -1
    return g


# --- legal moves (§5.2, §8) ---------------------------------------------------------------------------
@njit((_EV, _I, _I, _I, _I), cache=True, _nrt=False)
def _put(out, n, kind, a, b):
    out[n, MV_KIND] = kind
    out[n, MV_A] = a
    out[n, MV_B] = b
    return n + 1


@njit(cache=True, _nrt=False)
def legal_moves(st, rp, dt, out):
    """Fill out[:count] (int32[MAX_MOVES, MV_LEN]) with the canonical legal list (§8); return count.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    out : numpy.ndarray
        int32, shape ``(MAX_MOVES, MV_LEN)``: filled.

    Returns
    -------
    int
        The number of legal moves.
    """
    ph = st[ST_PHASE]
    n = 0
    if ph == PH_DONE:
        return 0
    if ph == PH_PICK or ph == PH_DISCARD:
        kind = K_PICK if ph == PH_PICK else K_DISCARD_CHAR
        for i in range(st[ST_OFFER_N]):
            n = _put(out, n, kind, st[ST_OFFER + i], -1)
        return n
    if ph == PH_GRAVE:
        n = _put(out, n, K_GRAVE_TAKE, -1, -1)
        return _put(out, n, K_GRAVE_PASS, -1, -1)
    p = st[ST_TURN_SEAT]
    c = st[ST_TURN_CHAR]
    hand = ST_HAND + p * MAX_TYPES
    n_types = rp[RP_N_TYPES]
    if st[ST_REDRAW_N] > 0:  # a redraw once started must be finished
        for t in range(st[ST_REDRAW_MAX], n_types):
            if st[hand + t] - st[ST_REDRAW + t] > 0:
                n = _put(out, n, K_REDRAW, t, -1)
        return _put(out, n, K_REDRAW_DONE, -1, -1)
    if st[ST_PEND_N] > 0:
        return _keep_moves(st, out)
    acted = st[ST_ACTED] == 1
    if not acted:
        n = _put(out, n, K_GOLD, -1, -1)
        if _deck_allows_draw(st, rp):
            n = _put(out, n, K_DRAW, -1, -1)
    if st[ST_INCOME_TAKEN] == 0 and income_amount(st, rp, dt, p, c) >= 1:
        n = _put(out, n, K_INCOME, -1, -1)
    if st[ST_ABILITY] == 0:
        if c == ASSASSIN:
            for r in range(2, N_RANKS + 1):
                if _may_target(st, rp, p, r):
                    n = _put(out, n, K_KILL, r, -1)
        elif c == THIEF:
            for r in range(3, N_RANKS + 1):
                if r != st[ST_KILLED] and _may_target(st, rp, p, r):
                    n = _put(out, n, K_ROB, r, -1)
        elif c == MAGICIAN:
            for q in range(st[ST_PLAYERS]):
                if q != p:
                    n = _put(out, n, K_SWAP, q, -1)
            m = np.int64(st[ST_HAND_MASK + p])
            while m != 0:
                t = _lowest_bit(m)
                n = _put(out, n, K_REDRAW, t, -1)
                m &= m - 1
    if st[ST_LAB_USED] == 0 and _has(st, p, rp[RP_LAB]):
        m = np.int64(st[ST_HAND_MASK + p])
        while m != 0:
            t = _lowest_bit(m)
            n = _put(out, n, K_LAB, t, -1)
            m &= m - 1
    if st[ST_SMITHY_USED] == 0 and _has(st, p, rp[RP_SMITHY]) and st[ST_GOLD + p] >= 2 and _deck_allows_draw(st, rp):
        n = _put(out, n, K_SMITHY, -1, -1)
    if acted and st[ST_BUILT] < st[ST_LIMIT]:
        gold = st[ST_GOLD + p]
        m = np.int64(st[ST_HAND_MASK + p]) & ~np.int64(st[ST_CITY_MASK + p])
        while m != 0:
            t = _lowest_bit(m)
            if gold >= price(st, rp, dt, t):
                n = _put(out, n, K_BUILD, t, -1)
            m &= m - 1
    if c == WARLORD:
        if (rp[RP_WARLORD_ANYTIME] == 0 and acted) or (rp[RP_WARLORD_ANYTIME] == 1 and st[ST_DESTROY_USED] == 0):
            n = _destroy_moves(st, rp, dt, p, out, n)
    if acted:
        n = _put(out, n, K_END, -1, -1)
    return n


@njit((_S, _S, _I, _I), cache=True, _nrt=False)
def _may_target(st, rp, p, r):
    """I14: any rank (target_any_rank), or not a face-up removed rank nor one of p's own."""
    if rp[RP_TARGET_ANY] == 1:
        return True
    return st[ST_WHERE + r] != CH_FACEUP and st[ST_HOLDER + r] != p


@njit(cache=True, _nrt=False)
def _destroy_moves(st, rp, dt, p, out, n):
    gold = st[ST_GOLD + p]
    keep = rp[RP_KEEP]
    for q in range(st[ST_PLAYERS]):
        if not _city_targetable(st, rp, p, q):
            continue
        m = np.int64(st[ST_CITY_MASK + q])
        while m != 0:
            t = _lowest_bit(m)
            if t != keep and gold >= destroy_cost(st, rp, dt, q, t):
                n = _put(out, n, K_DESTROY, q, t)
            m &= m - 1
    return n


@njit(cache=True, _nrt=False)
def _keep_moves(st, out):
    """KEEP(T): every distinct sorted sub-multiset of k drawn cards (k = 1, or 2 of 3), ascending."""
    m = st[ST_PEND_N]
    k = st[ST_KEEP_K]
    n = 0
    if k == 1:  # the distinct drawn types, ascending (m = 2 or 3)
        t0, t1 = st[ST_PEND], st[ST_PEND + 1]
        t2 = st[ST_PEND + 2] if m == 3 else t1
        if t0 > t1:
            t0, t1 = t1, t0
        if t1 > t2:
            t1, t2 = t2, t1
        if t0 > t1:
            t0, t1 = t1, t0
        n = _put(out, n, K_KEEP, t0, -1)
        if t1 != t0:
            n = _put(out, n, K_KEEP, t1, -1)
        if t2 != t1:
            n = _put(out, n, K_KEEP, t2, -1)
        return n
    # k = 2 of m = 3: the three pairs, each as x * MAX_TYPES + y (x <= y), sorted, repeats dropped
    t0, t1, t2 = st[ST_PEND], st[ST_PEND + 1], st[ST_PEND + 2]
    p0 = _pair(t0, t1)
    p1 = _pair(t0, t2)
    p2 = _pair(t1, t2)
    if p0 > p1:
        p0, p1 = p1, p0
    if p1 > p2:
        p1, p2 = p2, p1
    if p0 > p1:
        p0, p1 = p1, p0
    n = _put(out, n, K_KEEP, p0 // MAX_TYPES, p0 % MAX_TYPES)
    if p1 != p0:
        n = _put(out, n, K_KEEP, p1 // MAX_TYPES, p1 % MAX_TYPES)
    if p2 != p1:
        n = _put(out, n, K_KEEP, p2 // MAX_TYPES, p2 % MAX_TYPES)
    return n


@njit(cache=True, _nrt=False, inline="always")
def _pair(x, y):
    return x * MAX_TYPES + y if x <= y else y * MAX_TYPES + x


# --- applying a move ---------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def apply_move(st, rng, ev, rp, dt, mv):
    """Play move mv (int32[MV_LEN], legal: the API checks) and every automatic step after it.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    ev : numpy.ndarray
        int32, shape ``(rows, EV_LEN)``: the event log.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: the move.
    """
    kind = mv[MV_KIND]
    a = mv[MV_A]
    b = mv[MV_B]
    st[ST_DECISIONS] += 1
    ph = st[ST_PHASE]
    if ph == PH_PICK or ph == PH_DISCARD:
        _select(st, rng, ev, rp, a, ph == PH_DISCARD)
        st[ST_NEXT] = NX_SELECTION
    elif ph == PH_GRAVE:
        _graveyard(st, ev, rp, kind)
    else:
        _turn_move(st, ev, rp, dt, kind, a, b)
    advance(st, rng, ev, rp, dt)


@njit(cache=True, _nrt=False)
def _graveyard(st, ev, rp, kind):
    g = st[ST_GRAVE_OWNER]
    t = st[ST_GRAVE_CARD]
    if kind == K_GRAVE_TAKE:
        _pay(st, g, 1)
        _hand_add(st, g, t)
        _log(st, ev, -1, E_GRAVE, g, t, 1, 0)
    else:
        _destroyed_card_away(st, rp, t)
        _log(st, ev, -1, E_GRAVE, g, t, 0, 0)
    _after_destroy(st, ev, rp)


@njit(cache=True, _nrt=False)
def _turn_move(st, ev, rp, dt, kind, a, b):
    p = st[ST_TURN_SEAT]
    c = st[ST_TURN_CHAR]
    if kind == K_GOLD:
        amt = _gain(st, rp, p, 2)
        _log(st, ev, -1, E_GOLD, p, amt, 0, 0)
        _after_action(st, ev, rp, p, c)
    elif kind == K_DRAW:
        obs = _has(st, p, rp[RP_OBSERVATORY])
        lib = _has(st, p, rp[RP_LIBRARY])
        m = min(st[ST_DECK_LEN], 3 if obs else 2)
        keep = 1
        if lib:
            keep = rp[RP_LIB_OBS_KEEP] if obs else m
        k = min(m, keep)
        _log(st, ev, -1, E_DRAW, p, m, k, 0)
        if k == m:  # keep all: not a decision (§8)
            _draw_to_hand(st, ev, rp, p, m, True)
            _after_action(st, ev, rp, p, c)
        else:
            _log(st, ev, p, E_DRAWN, m, 0, 0, 0)
            for i in range(m):
                t = _deck_draw(st, rp)
                st[ST_PEND + i] = t
                _item(st, ev, p, t)
            st[ST_PEND_N] = m
            st[ST_KEEP_K] = k
    elif kind == K_KEEP:
        _keep(st, ev, rp, p, a, b)
        _after_action(st, ev, rp, p, c)
    elif kind == K_INCOME:
        amt = income_amount(st, rp, dt, p, c)
        got = _gain(st, rp, p, amt)
        st[ST_INCOME_TAKEN] = 1
        _log(st, ev, -1, E_INCOME, p, got, 0, 0)
    elif kind == K_KILL:
        st[ST_KILLED] = a
        st[ST_ABILITY] = 1
        _log(st, ev, -1, E_KILL, p, a, 0, 0)
        h = _hist(st, HS_KILLED)
        if h >= 0:
            st[h] = a
            st[h + HS_KILLED_SEAT - HS_KILLED] = st[ST_HOLDER + a]
    elif kind == K_ROB:
        st[ST_ROBBED] = a
        st[ST_ABILITY] = 1
        _log(st, ev, -1, E_ROB, p, a, 0, 0)
        h = _hist(st, HS_ROBBED)
        if h >= 0:
            st[h] = a
            st[h + HS_ROBBED_SEAT - HS_ROBBED] = st[ST_HOLDER + a]
    elif kind == K_SWAP:
        _swap_hands(st, ev, rp, p, a)
        st[ST_ABILITY] = 1
    elif kind == K_REDRAW:
        st[ST_REDRAW + a] += 1
        st[ST_REDRAW_N] += 1
        st[ST_REDRAW_MAX] = a
    elif kind == K_REDRAW_DONE:
        s = st[ST_REDRAW_N]
        _log(st, ev, -1, E_REDRAW, p, s, 0, 0)
        _log(st, ev, p, E_REDREW, s, s, 0, 0)
        for t in range(rp[RP_N_TYPES]):  # to the bottom in type-ascending order (I4)
            for _ in range(st[ST_REDRAW + t]):
                _hand_remove(st, p, t)
                _deck_bottom(st, rp, t)
                _item(st, ev, p, t)
            st[ST_REDRAW + t] = 0
        st[ST_REDRAW_N] = 0
        st[ST_REDRAW_MAX] = 0
        for _ in range(s):  # never short: the cards went under the deck first
            t = _deck_draw(st, rp)
            _hand_add(st, p, t)
            _item(st, ev, p, t)
        st[ST_ABILITY] = 1
    elif kind == K_LAB:
        _hand_remove(st, p, a)
        if rp[RP_REMOVE_LAB] == 1:
            st[ST_OUT + a] += 1
        else:
            _deck_bottom(st, rp, a)
        amt = _gain(st, rp, p, 1)
        st[ST_LAB_USED] = 1
        _log(st, ev, -1, E_LAB, p, amt, 0, 0)
        _log(st, ev, p, E_LAB_CARD, a, 0, 0, 0)
    elif kind == K_SMITHY:
        _pay(st, p, 2)
        st[ST_SMITHY_USED] = 1
        _log(st, ev, -1, E_SMITHY, p, min(3, st[ST_DECK_LEN]), 0, 0)
        _draw_to_hand(st, ev, rp, p, 3, True)
    elif kind == K_BUILD:
        x = price(st, rp, dt, a)
        _pay(st, p, x)
        _hand_remove(st, p, a)
        _city_add(st, dt, p, a, st[ST_ROUND])
        st[ST_BUILT] += 1
        _log(st, ev, -1, E_BUILD, p, a, x, 0)
        if st[ST_CITY_N + p] == rp[RP_COMPLETE] and st[ST_COMPLETE_ORDER + p] == 0:
            _log(st, ev, -1, E_COMPLETE, p, 0, 0, 0)
            st[ST_FINAL] = 1
            if st[ST_FIRST_COMPLETER] < 0:
                st[ST_FIRST_COMPLETER] = p
            st[ST_N_COMPLETED] += 1
            st[ST_COMPLETE_ORDER + p] = st[ST_N_COMPLETED]
    elif kind == K_DESTROY:
        x = destroy_cost(st, rp, dt, a, b)
        _pay(st, p, x)
        _city_remove(st, dt, a, b)
        st[ST_DESTROY_USED] = 1
        _log(st, ev, -1, E_DESTROY, p, a, b, x)
        g = _graveyard_owner(st, rp, a, b)
        if g >= 0:
            st[ST_PHASE] = PH_GRAVE
            st[ST_CURRENT] = g
            st[ST_GRAVE_CARD] = b
            st[ST_GRAVE_OWNER] = g
            return
        _destroyed_card_away(st, rp, b)
        _after_destroy(st, ev, rp)
    elif kind == K_END:
        _end_turn(st, ev)


@njit(cache=True, _nrt=False)
def _keep(st, ev, rp, p, a, b):
    """KEEP(T): T to hand; the rest to the bottom in draw order, the earliest copy of a kept type kept."""
    m = st[ST_PEND_N]
    k = st[ST_KEEP_K]
    _log(st, ev, -1, E_KEEP, p, k, 0, 0)
    _log(st, ev, p, E_KEPT, k, m - k, 0, 0)
    used = 0  # bit i: drawn card i is kept
    for want in (a, b):
        if want < 0:
            continue
        _item(st, ev, p, want)
        for i in range(m):
            if (used >> i) & 1 == 0 and st[ST_PEND + i] == want:
                used |= 1 << i
                _hand_add(st, p, want)
                break
    for i in range(m):
        if (used >> i) & 1 == 0:
            t = st[ST_PEND + i]
            _deck_bottom(st, rp, t)
            _item(st, ev, p, t)
    st[ST_PEND_N] = 0


@njit(cache=True, _nrt=False)
def _swap_hands(st, ev, rp, p, q):
    hp = ST_HAND + p * MAX_TYPES
    hq = ST_HAND + q * MAX_TYPES
    for t in range(MAX_TYPES):
        x = st[hp + t]
        st[hp + t] = st[hq + t]
        st[hq + t] = x
    x = st[ST_HAND_N + p]
    st[ST_HAND_N + p] = st[ST_HAND_N + q]
    st[ST_HAND_N + q] = x
    x = st[ST_HAND_MASK + p]
    st[ST_HAND_MASK + p] = st[ST_HAND_MASK + q]
    st[ST_HAND_MASK + q] = x
    _log(st, ev, -1, E_SWAP, p, q, 0, 0)
    _log_hand(st, ev, E_RECEIVED, p)  # each sees the hand it receives
    _log_hand(st, ev, E_RECEIVED, q)


# --- scoring (§6) -------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def final_scores(st, rp, dt, out):
    """out int32[players, SC_LEN]: score parts, gold and rank per seat (§6; capped games as they stand).

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    out : numpy.ndarray
        int32, shape ``(players, SC_LEN)``: filled.
    """
    n = st[ST_PLAYERS]
    final_round = st[ST_ROUND]
    hc = rp[RP_HAUNTED]
    for p in range(n):
        base = p * MAX_TYPES
        pts = 0
        cost = 0
        colours = 0
        hc_free = False
        for i in range(st[ST_CITY_N + p]):
            t = st[ST_CITY + base + i]
            pts += dt[t, DT_POINTS]
            cost += dt[t, DT_COST]
            if t == hc and st[ST_CITY_ROUND + base + i] < final_round:
                hc_free = True  # counts as any one colour (I16: the missing one)
            else:
                colours |= 1 << dt[t, DT_COLOUR]
        n_colours = 0
        for k in range(N_COLOURS):
            n_colours += (colours >> k) & 1
        bonus = 3 if n_colours == N_COLOURS or (hc_free and n_colours >= N_COLOURS - 1) else 0
        complete = 0
        if st[ST_FIRST_COMPLETER] == p:
            complete = 4
        elif st[ST_CITY_N + p] >= rp[RP_COMPLETE]:
            complete = 2
        out[p, SC_DISTRICT_POINTS] = pts
        out[p, SC_COLOUR_BONUS] = bonus
        out[p, SC_COMPLETE_BONUS] = complete
        out[p, SC_SEAT_POINTS] = rp[RP_SEAT_POINTS + p]
        out[p, SC_TOTAL] = pts + bonus + complete + rp[RP_SEAT_POINTS + p]
        out[p, SC_DISTRICTS] = st[ST_CITY_N + p]
        out[p, SC_GOLD] = st[ST_GOLD + p]
        out[p, SC_HAND] = st[ST_HAND_N + p]
        out[p, SC_COST] = cost
    tie = rp[RP_TIEBREAK]
    firsts = 0
    for p in range(n):
        ahead = 0
        for q in range(n):
            if _better(out, q, p, tie):
                ahead += 1
        out[p, SC_RANK] = 1 + ahead
        if ahead == 0:
            firsts += 1
    for p in range(n):  # districts_gold_draw (I13 alternative): a tie that remains has no winner
        out[p, SC_WINNER] = 1 if out[p, SC_RANK] == 1 and (firsts == 1 or tie != TIE_DISTRICTS_GOLD_DRAW) else 0


@njit(cache=True, _nrt=False)
def _better(out, q, p, tie):
    """Whether q finishes strictly ahead of p: score, then (tiebreak, I12) district points or printed
    cost, then gold."""
    if out[q, SC_TOTAL] != out[p, SC_TOTAL]:
        return out[q, SC_TOTAL] > out[p, SC_TOTAL]
    if tie == TIE_SHARED:
        return False
    key = SC_COST if tie == TIE_COST_GOLD else SC_DISTRICT_POINTS
    if out[q, key] != out[p, key]:
        return out[q, key] > out[p, key]
    return out[q, SC_GOLD] > out[p, SC_GOLD]


# --- the reference random player (§8) ----------------------------------------------------------------
@njit(cache=True, _nrt=False)
def random_move(st, rng, rp, dt, moves, mv):
    """legal[rand_below(len(legal))] from the POLICY stream into mv; moves is a MAX_MOVES x MV_LEN scratch.

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: the chance and policy streams, advanced in place.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    moves : numpy.ndarray
        int32, shape ``(MAX_MOVES, MV_LEN)``: scratch.
    mv : numpy.ndarray
        int32, shape ``(MV_LEN,)``: filled.
    """
    n = legal_moves(st, rp, dt, moves)
    i = rand_mod(rng, POLICY, n)
    for j in range(MV_LEN):
        mv[j] = moves[i, j]


def play_random_games(
    seeds: np.ndarray, rp: np.ndarray, dt: np.ndarray, scores: np.ndarray, info: np.ndarray, hist: np.ndarray
) -> None:
    """One game of the reference random player per seed, filling preallocated results.

    A Python function: the loop is compiled once, in ``_play_random_games`` (which releases the GIL, so a thread
    may build the previous chunk's rows meanwhile), not again inside a compiled wrapper.

    Parameters
    ----------
    seeds : ndarray(uint64, ndim=1)
        One seed per game.
    rp : ndarray(int32, ndim=1)
        The rule parameters (``boardlab.sim.citadels.tables`` ``RP_*``).
    dt : ndarray(int32, ndim=2)
        The district types' table (``DT_*``).
    scores : ndarray(int32, ndim=3)
        ``[G, players, SC_LEN]``, filled (final_scores).
    info : ndarray(int32, ndim=3)
        ``[G, players, IN_LEN]``, filled: per seat, completion order and the build round of each district type
        in its final city; per game, repeated on every seat, rounds, capped, decisions.
    hist : ndarray(int32, ndim=3)
        ``[HIST_ROUNDS, G, HS_LEN]``, zeroed, filled per round played: ranks held, murdered and robbed ranks and
        seats, gold stolen, the crown, the removed ranks, each seat's city size and gold at the round's start --
        round-major, so a batch of short games touches only its first rounds' memory.

    Returns
    -------
    None
    """
    st = np.zeros(ST_LEN, dtype=np.int32)
    rng = np.zeros(2, dtype=np.uint64)
    ev = np.zeros((1, EV_LEN), dtype=np.int32)
    moves = np.zeros((MAX_MOVES, MV_LEN), dtype=np.int32)
    mv = np.zeros(MV_LEN, dtype=np.int32)
    _play_random_games(seeds, rp, dt, scores, info, hist, st, rng, ev, moves, mv)


@njit(cache=True, nogil=True, _nrt=False)
def _play_random_games(seeds, rp, dt, scores, info, hist, st, rng, ev, moves, mv):
    for g in range(seeds.shape[0]):
        setup(st, rng, ev, seeds[g], rp, dt, 0)
        while st[ST_PHASE] != PH_DONE:
            random_move(st, rng, rp, dt, moves, mv)
            apply_move(st, rng, ev, rp, dt, mv)
        record_results(st, rp, dt, g, scores, info, hist)


@njit(cache=True, _nrt=False)
def record_results(st, rp, dt, g, scores, info, hist):
    """A finished game's results into row g of the result arrays of play_random_games (every game loop's).

    Parameters
    ----------
    st : numpy.ndarray
        int32, shape ``(ST_LEN,)``: the game state.
    rp : numpy.ndarray
        int32, shape ``(RP_LEN,)``: the rule parameters.
    dt : numpy.ndarray
        int32, shape ``(n_types, DT_LEN)``: the district types.
    g : int
        The game's row.
    scores, info, hist : numpy.ndarray
        int32, shapes ``(G, players, SC_LEN)``, ``(G, players, IN_LEN)``, ``(HIST_ROUNDS, G, HS_LEN)``.
    """
    final_scores(st, rp, dt, scores[g])
    for p in range(rp[RP_PLAYERS]):
        info[g, p, IN_COMPLETE_ORDER] = st[ST_COMPLETE_ORDER + p]
        info[g, p, IN_ROUNDS] = st[ST_ROUND]
        info[g, p, IN_CAPPED] = st[ST_CAPPED]
        info[g, p, IN_DECISIONS] = st[ST_DECISIONS]
        for t in range(MAX_TYPES):
            info[g, p, IN_BUILT + t] = 0
        for i in range(st[ST_CITY_N + p]):
            info[g, p, IN_BUILT + st[ST_CITY + p * MAX_TYPES + i]] = st[ST_CITY_ROUND + p * MAX_TYPES + i]
    for r in range(min(st[ST_ROUND], HIST_ROUNDS)):  # the rounds played (hist comes zeroed)
        for j in range(HS_LEN):
            hist[r, g, j] = st[ST_HIST + r * HS_LEN + j]
