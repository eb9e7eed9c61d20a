"""Citadels' information sets in numba: a position redealt for one seat, in place and allocation-free.

Design notes: docs/games/citadels/engine.md#information-sets.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from boardlab.sim.layout import Layout
from boardlab.sim.rng import CHANCE, POLICY, rng_next

from . import engine as E
from .engine import _hist, _is_discard_step, _selection_steps
from .rules import MAX_DECK, MAX_TYPES, N_RANKS
from .tables import RP_ABCCBA, RP_BLIND, RP_FACEDOWN, RP_N_CARDS, RP_REMOVE_LAB, RP_REMOVE_ROUND1

# --- the scratch array (int32[SCRATCH_LEN]) -------------------------------------------------------
_wk = Layout("infoset scratch")
WK_STATUS = _wk.add("0, or ERR_* when the state was not one the kernel knows (nothing hidden was dealt)")
WK_POOL = _wk.add("the pool of unseen districts", MAX_DECK)
WK_COUNT = _wk.add("valid deals of the remaining places per set of ranks (index bits over WK_HIDDEN)", 1 << N_RANKS)
WK_HIDDEN = _wk.add("the ranks dealt, ascending", N_RANKS)
WK_KIND = _wk.add("each place's kind (PL_*)", N_RANKS)
WK_SEAT = _wk.add("its seat (a pick), the chooser (a discard), else -1", N_RANKS)
WK_STEP = _wk.add("its selection step (a pick, a discard), its index (pile, offer), else -1", N_RANKS)
WK_ALLOW = _wk.add("the ranks it may hold (bit r - 1)", N_RANKS)
WK_RANK = _wk.add("the rank dealt to it", N_RANKS)
SCRATCH_LEN = _wk.size

ERR_PLACES = 1  # the places do not match the ranks to deal
ERR_NO_DEAL = 2  # no deal is consistent (the truth always is: a state the kernel misreads)

# The places a rank can be in (the order of the deal).
PL_REMOVED, PL_PICK, PL_DISCARD, PL_PILE, PL_LEFTOVER, PL_OFFER, PL_SEVENTH_FD = range(7)


# _confine's and _offer_after's argument types, given up front: each compiles once
_S = types.int32[::1]  # st, rp, scratch
_I = types.int64
_B = types.boolean


@njit(cache=True, _nrt=False)
def redeal(st, rng, rp, p, arng, canonical, scratch):
    """Replace, in place, everything of the position (st, rng) that seat p cannot see (module docstring).

    Parameters
    ----------
    st : ndarray(int32, ndim=1)
        A copy of the true state (boardlab.sim.citadels.engine ``ST_*``), changed in place.
    rng : ndarray(uint64, ndim=1)
        Its two streams (CHANCE, POLICY): set to 0 (canonical) or redrawn from `arng`.
    rp : ndarray(int32, ndim=1)
        The rule parameters (boardlab.sim.citadels.tables ``RP_*``).
    p : int
        The seat whose view is kept.
    arng : ndarray(uint64, ndim=1)
        The agent's SplitMix64 state (length 1 or 2; stream 0 is advanced); unused when canonical.
    canonical : bool
        Canonical order and zero streams instead of a uniform draw.
    scratch : ndarray(int32, ndim=1)
        Work space of SCRATCH_LEN entries; ``scratch[WK_STATUS]`` is 0 afterwards unless the state was
        not one the kernel knows (ERR_*; tests check it).
    """
    scratch[WK_STATUS] = 0
    _redeal_districts(st, rp, p, arng, canonical, scratch)
    _redeal_characters(st, rp, p, arng, canonical, scratch)
    if canonical:
        rng[CHANCE] = 0
        rng[POLICY] = 0
    else:
        rng[CHANCE] = rng_next(arng, 0)
        rng[POLICY] = rng_next(arng, 0)


@njit(cache=True, _nrt=False, inline="always")
def _below(arng, k):
    """next(arng) mod k (k >= 1)."""
    return np.int64(rng_next(arng, 0) % np.uint64(k))


# --- districts --------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _redeal_districts(st, rp, p, arng, canonical, scratch):
    cards = rp[RP_N_CARDS]
    n = st[E.ST_PLAYERS]
    if st[E.ST_REDRAW_N] > 0 and st[E.ST_TURN_SEAT] != p:  # another seat's redraw in progress: undone
        st[E.ST_DECISIONS] -= st[E.ST_REDRAW_N]
        for t in range(MAX_TYPES):
            st[E.ST_REDRAW + t] = 0
        st[E.ST_REDRAW_N] = 0
        st[E.ST_REDRAW_MAX] = 0
    pend = 0  # another seat's cards awaiting KEEP
    if st[E.ST_PHASE] == E.PH_TURN and st[E.ST_TURN_SEAT] != p:
        pend = st[E.ST_PEND_N]
    lab_out = rp[RP_REMOVE_LAB] == 1
    top = st[E.ST_DECK_TOP]
    dlen = st[E.ST_DECK_LEN]
    pool = WK_POOL
    k = 0
    for i in range(dlen):
        scratch[pool + k] = st[E.ST_DECK + (top + i) % cards]
        k += 1
    for q in range(n):
        if q != p:
            for t in range(MAX_TYPES):
                for _ in range(st[E.ST_HAND + q * MAX_TYPES + t]):
                    scratch[pool + k] = t
                    k += 1
    for i in range(pend):
        scratch[pool + k] = st[E.ST_PEND + i]
        k += 1
    if lab_out:
        for t in range(MAX_TYPES):
            for _ in range(st[E.ST_OUT + t]):
                scratch[pool + k] = t
                k += 1
            st[E.ST_OUT + t] = 0
    size = k
    # Sorted first, always: the pool's order so far is the true one (deck order, then hands), which the seat
    # does not see; a shuffle of it would make the redeal, and every move searched over it, depend on it.
    for i in range(1, size):  # insertion sort: a deck of cards at most
        x = scratch[pool + i]
        j = i - 1
        while j >= 0 and scratch[pool + j] > x:
            scratch[pool + j + 1] = scratch[pool + j]
            j -= 1
        scratch[pool + j + 1] = x
    if not canonical:
        for i in range(size - 1, 0, -1):  # §9's shuffle
            j = _below(arng, i + 1)
            x = scratch[pool + i]
            scratch[pool + i] = scratch[pool + j]
            scratch[pool + j] = x
    for i in range(cards):  # the ring beyond the deck holds stale cards: zeroed
        st[E.ST_DECK + (top + i) % cards] = scratch[pool + i] if i < dlen else 0
    k = dlen
    for q in range(n):
        if q == p:
            continue
        base = E.ST_HAND + q * MAX_TYPES
        for t in range(MAX_TYPES):
            st[base + t] = 0
        mask = 0
        for _ in range(st[E.ST_HAND_N + q]):
            t = scratch[pool + k]
            st[base + t] += 1
            mask |= 1 << t
            k += 1
        st[E.ST_HAND_MASK + q] = mask
    for i in range(pend):
        st[E.ST_PEND + i] = scratch[pool + k]
        k += 1
    for i in range(st[E.ST_PEND_N], 3):
        st[E.ST_PEND + i] = 0
    while k < size:  # lab_out: the rest are the cards out of the game
        st[E.ST_OUT + scratch[pool + k]] += 1
        k += 1


# --- characters -------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline="always")
def _bit(r):
    return 1 << (r - 1)


@njit(cache=True, _nrt=False, inline="always")
def _chooser(st, rp, step):
    """The seat of selection step `step` this round (§4.2; engine._step_seat), counted from the round's first
    crown holder: a revealed King has taken the crown since."""
    n = st[E.ST_PLAYERS]
    crown = st[E.ST_ROUND_CROWN]
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
def _add_place(scratch, m, kind, seat, step):
    scratch[WK_KIND + m] = kind
    scratch[WK_SEAT + m] = seat
    scratch[WK_STEP + m] = step
    scratch[WK_ALLOW + m] = 0xFF
    return m + 1


@njit((_S, _I, _I, _I), cache=True, _nrt=False)
def _confine(scratch, m, inside, ranks):
    """Places whose bit is set in `inside` hold exactly `ranks` of the dealt ranks: confine both ways."""
    for i in range(m):
        if (inside >> i) & 1 == 1:
            scratch[WK_ALLOW + i] &= ranks
        else:
            scratch[WK_ALLOW + i] &= ~ranks


@njit(cache=True, _nrt=False)
def _pick_steps_side(st, rp, q, s, done):
    """Whether seat q picked before step s (bit 0) and at or after it (bit 1), over the steps done."""
    side = 0
    for t in range(done):
        if _chooser(st, rp, t) == q and not _is_discard_step(st, t):
            side |= 1 if t < s else 2
    return side


@njit((_S, _S, _I, _I, _I, _B, _I, _I), cache=True, _nrt=False)
def _offer_after(st, rp, p, s, hidden, special, seat7, leftover):
    """The dealt ranks that p's open offer at step s held and p did not take (bits), or -1 when the
    state does not determine them (module docstring)."""
    n = st[E.ST_PLAYERS]
    done = st[E.ST_SEL_STEP]
    # where the face-down cards (2-player discards, the left-over cards, the 7th chooser's) came from
    fd_side = 0
    for t in range(done):
        if _is_discard_step(st, t):
            fd_side |= 1 if t < s else 2
    if leftover > 0 or special:
        fd_side |= 2
    after = 0
    for r in range(1, N_RANKS + 1):
        if (hidden >> (r - 1)) & 1 == 0:
            continue
        w = st[E.ST_WHERE + r]
        if w == E.CH_PILE:
            side = 2
        elif w == E.CH_REMOVED:
            side = 2 if n == 7 and s == 6 else 1
        elif w == E.CH_FACEDOWN:
            side = fd_side
        else:
            q = st[E.ST_HOLDER + r]
            if special and q == seat7:  # he took the pile's card, or the removed one (then FD is empty)
                side = 2 if st[E.ST_FD_N] == 1 else 1
            else:
                side = _pick_steps_side(st, rp, q, s, done)
        if side == 3 or side == 0:  # both sides (or none): not determined by the state
            return -1
        if side == 2:
            after |= _bit(r)
    return after


@njit(cache=True, _nrt=False)
def _redeal_characters(st, rp, p, arng, canonical, scratch):
    n = st[E.ST_PLAYERS]
    ph = st[E.ST_PHASE]
    selecting = ph == E.PH_PICK or ph == E.PH_DISCARD
    blind = rp[RP_BLIND] == 1
    done = st[E.ST_SEL_STEP]  # selection steps done (all of them during the calls)
    removal = st[E.ST_ROUND] > 1 or rp[RP_REMOVE_ROUND1] == 1
    seventh = n == 7 and removal and rp[RP_FACEDOWN] > 0  # step 6 is offered the face-down card
    seat7 = _chooser(st, rp, 6) if n == 7 else -1
    special = seventh and not selecting  # the 7th chooser took the pile's card or the removed one
    # the ranks to deal: neither face up nor p's
    hidden = 0
    nh = 0
    facedown = 0  # face-down cards (removed, discarded, left over)
    for r in range(1, N_RANKS + 1):
        w = st[E.ST_WHERE + r]
        if w == E.CH_REMOVED or w == E.CH_FACEDOWN:
            facedown += 1
        if w != E.CH_FACEUP and st[E.ST_HOLDER + r] != p:
            hidden |= _bit(r)
            scratch[WK_HIDDEN + nh] = r
            nh += 1
    # the places, in the deal's order
    m = 0
    n_removed = 0 if special else st[E.ST_FD_N]
    for i in range(n_removed):
        m = _add_place(scratch, m, PL_REMOVED, -1, i)
    n_discards = 0
    for t in range(done):
        q = _chooser(st, rp, t)
        if _is_discard_step(st, t):
            m = _add_place(scratch, m, PL_DISCARD, q, t)
            n_discards += 1
        elif q != p:
            m = _add_place(scratch, m, PL_PICK, q, t)
    leftover = 0
    if selecting:
        for i in range(st[E.ST_PILE_N]):
            m = _add_place(scratch, m, PL_PILE, -1, i)
    else:
        leftover = facedown - n_removed - n_discards - (1 if special else 0)
        for i in range(leftover):
            m = _add_place(scratch, m, PL_LEFTOVER, -1, i)
    offered_fd = seventh and selecting and done == 6  # the 7th chooser's offer holds the removed card
    popped = 0
    if selecting and blind:
        popped = st[E.ST_OFFER_N] - (st[E.ST_FD_N] if offered_fd else 0)
        for i in range(popped):
            m = _add_place(scratch, m, PL_OFFER, -1, i)
    if special:
        m = _add_place(scratch, m, PL_SEVENTH_FD, -1, 6)
    if m != nh or leftover < 0:
        scratch[WK_STATUS] = ERR_PLACES
        return
    # what each place may hold: the public facts of the calls
    if not selecting:
        called = st[E.ST_CALL]
        killed = st[E.ST_KILLED]
        free = 0  # may be held without having been revealed: not called yet, or murdered
        unrevealed = 0
        for r in range(1, N_RANKS + 1):
            if (hidden >> (r - 1)) & 1 == 1 and st[E.ST_REVEALED + r] == 0:
                unrevealed |= _bit(r)
                if r > called or r == killed:
                    free |= _bit(r)
        for i in range(m):
            kind = scratch[WK_KIND + i]
            if kind == PL_PICK:
                mine = 0
                for r in range(1, N_RANKS + 1):
                    if st[E.ST_REVEALED + r] == 1 and st[E.ST_HOLDER + r] == scratch[WK_SEAT + i]:
                        mine |= _bit(r)
                scratch[WK_ALLOW + i] &= mine | free
            else:
                scratch[WK_ALLOW + i] &= unrevealed
    # what p's offers tell
    if selecting and st[E.ST_CURRENT] == p:  # p is choosing: its offer is the pile (open) or its draw
        fd = 0
        if offered_fd:
            for i in range(st[E.ST_FD_N]):
                fd |= _bit(st[E.ST_FD + i])
        offer = 0
        for i in range(st[E.ST_OFFER_N]):
            offer |= _bit(st[E.ST_OFFER + i])
        inside = 0
        for i in range(m):
            if scratch[WK_KIND + i] == (PL_OFFER if blind else PL_PILE):
                inside |= 1 << i
        _confine(scratch, m, inside, offer & ~fd)
        if fd != 0:  # shown which card is the face-down one
            inside = 0
            for i in range(m):
                if scratch[WK_KIND + i] == PL_REMOVED:
                    inside |= 1 << i
            _confine(scratch, m, inside, fd)
    p_after = -1  # 7 players: the ranks p's offer passed on
    if not blind:
        for s in range(done):
            if _chooser(st, rp, s) != p:
                continue
            after = _offer_after(st, rp, p, s, hidden, special, seat7, leftover)
            if after < 0:
                continue
            p_after = after
            for i in range(m):
                kind = scratch[WK_KIND + i]
                t = scratch[WK_STEP + i]
                if kind == PL_PICK or kind == PL_DISCARD:
                    if special and t == 6 and s < 6:
                        continue  # the 7th chooser's card: the pile's or the removed one
                    is_after = t >= s
                elif kind == PL_REMOVED:
                    is_after = n == 7 and s == 6
                elif kind == PL_SEVENTH_FD:
                    if s < 6:
                        continue
                    is_after = True
                else:  # the pile, the left-over cards
                    is_after = True
                if is_after:
                    scratch[WK_ALLOW + i] &= after
                else:
                    scratch[WK_ALLOW + i] &= ~after
    elif not selecting and _chooser(st, rp, _selection_steps(n) - 1) == p:
        # the last chooser of a blind selection knows the cards left over from his draw if it emptied the pile
        kinds = PL_SEVENTH_FD if special else PL_LEFTOVER
        if special or leftover <= 1:
            ranks = 0
            for r in range(1, N_RANKS + 1):
                w = st[E.ST_WHERE + r]
                if w == E.CH_FACEDOWN or (special and w == E.CH_REMOVED):
                    ranks |= _bit(r)
            inside = 0
            for i in range(m):
                if scratch[WK_KIND + i] == kinds:
                    inside |= 1 << i
            _confine(scratch, m, inside, ranks & hidden)
    # deal: the u-th valid deal in lexicographic order
    if not _deal(scratch, m, arng, canonical):
        scratch[WK_STATUS] = ERR_NO_DEAL
        return
    removed_7th = st[E.ST_FD_N] == 1  # p as the 7th chooser knows
    if special and seat7 != p:
        r7 = 0
        for i in range(m):
            if scratch[WK_KIND + i] == PL_SEVENTH_FD:
                r7 = scratch[WK_RANK + i]
        if not blind:
            removed_7th = (p_after >> (r7 - 1)) & 1 == 0  # a rank p was not offered: the removed card
        elif canonical:
            removed_7th = True
        else:
            removed_7th = _below(arng, 2) == 0
    _write_characters(st, rp, p, scratch, m, selecting, blind, offered_fd, removed_7th)


@njit(cache=True, _nrt=False)
def _deal(scratch, m, arng, canonical):
    """Deal the hidden ranks to the m places: the valid deal number 0 (canonical) or next(arng) mod count.

    WK_COUNT[set] = the valid deals of the last |set| places with exactly the ranks of `set` (bits index
    WK_HIDDEN), built up from the empty set."""
    full = (1 << m) - 1
    cnt = WK_COUNT
    scratch[cnt] = 1
    for sub in range(1, full + 1):
        size = 0
        x = sub
        while x != 0:
            size += 1
            x &= x - 1
        place = m - size
        allow = scratch[WK_ALLOW + place]
        c = 0
        for i in range(m):
            if (sub >> i) & 1 == 1 and (allow >> (scratch[WK_HIDDEN + i] - 1)) & 1 == 1:
                c += scratch[cnt + (sub ^ (1 << i))]
        scratch[cnt + sub] = c
    total = scratch[cnt + full]
    if total == 0:
        return False
    u = 0 if canonical else _below(arng, total)
    left = full
    for place in range(m):
        allow = scratch[WK_ALLOW + place]
        for i in range(m):
            if (left >> i) & 1 == 0 or (allow >> (scratch[WK_HIDDEN + i] - 1)) & 1 == 0:
                continue
            c = scratch[cnt + (left ^ (1 << i))]
            if u < c:
                scratch[WK_RANK + place] = scratch[WK_HIDDEN + i]
                left ^= 1 << i
                break
            u -= c
    return True


@njit(cache=True, _nrt=False)
def _write_characters(st, rp, p, scratch, m, selecting, blind, offered_fd, removed_7th):
    n = st[E.ST_PLAYERS]
    n_fd = 0
    n_offer = 0
    for i in range(m):
        kind = scratch[WK_KIND + i]
        r = scratch[WK_RANK + i]
        st[E.ST_HOLDER + r] = -1
        if kind == PL_PICK:
            st[E.ST_HOLDER + r] = scratch[WK_SEAT + i]
            st[E.ST_WHERE + r] = E.CH_HELD
        elif kind == PL_REMOVED or (kind == PL_SEVENTH_FD and removed_7th):
            st[E.ST_WHERE + r] = E.CH_REMOVED
            st[E.ST_FD + n_fd] = r
            n_fd += 1
        elif kind == PL_PILE:
            st[E.ST_WHERE + r] = E.CH_PILE
            st[E.ST_PILE + scratch[WK_STEP + i]] = r
        elif kind == PL_OFFER:
            st[E.ST_WHERE + r] = E.CH_PILE
            st[E.ST_OFFER + n_offer] = r
            n_offer += 1
        else:  # discarded, left over, or the 7th chooser's card from the pile
            st[E.ST_WHERE + r] = E.CH_FACEDOWN
    st[E.ST_FD_N] = n_fd
    if selecting:  # the chooser's offer: the pile (open) or his draw, and the removed card for the 7th
        if not blind:
            for i in range(st[E.ST_PILE_N]):
                st[E.ST_OFFER + n_offer] = st[E.ST_PILE + i]
                n_offer += 1
        if offered_fd:
            for i in range(n_fd):
                st[E.ST_OFFER + n_offer] = st[E.ST_FD + i]
                n_offer += 1
        st[E.ST_OFFER_N] = n_offer
        E._sort_offer(st)
    for i in range(st[E.ST_PILE_N], N_RANKS):  # stale entries would tell earlier ranks
        st[E.ST_PILE + i] = 0
    for i in range(n_fd, N_RANKS):
        st[E.ST_FD + i] = 0
    for i in range(st[E.ST_OFFER_N], N_RANKS):
        st[E.ST_OFFER + i] = 0
    for i in range(st[E.ST_FU_N], N_RANKS):
        st[E.ST_FU + i] = 0
    # The history (result bookkeeping, never read by play) of the earlier rounds holds what was never shown
    # (who held a murdered rank, the face-down cards): blanked; this round's face-down ranks too.
    for i in range(min(st[E.ST_ROUND] - 1, E.HIST_ROUNDS) * E.HS_LEN):
        st[E.ST_HIST + i] = 0
    h = _hist(st, E.HS_FACEDOWN)
    if h >= 0:
        st[h] = 0
    if not selecting:  # the round's history: the ranks each seat holds, who holds the murdered, the robbed
        h = _hist(st, E.HS_HELD)
        if h >= 0:
            for q in range(n):
                st[h + q] = 0
            for r in range(1, N_RANKS + 1):
                q = st[E.ST_HOLDER + r]
                if q >= 0:
                    st[h + q] |= _bit(r)
            k = st[h - E.HS_HELD + E.HS_KILLED]
            if k > 0:
                st[h - E.HS_HELD + E.HS_KILLED_SEAT] = st[E.ST_HOLDER + k]
            k = st[h - E.HS_HELD + E.HS_ROBBED]
            if k > 0:
                st[h - E.HS_HELD + E.HS_ROBBED_SEAT] = st[E.ST_HOLDER + k]
