"""Citadels' information sets (boardlab/sim/citadels/infoset.py): a redeal for seat p keeps all that p sees and
replaces all that it does not.

From random positions of every phase (pick, discard, turn, keep, redraw, graveyard), 2-8 players, both
presets, for every seat: the seat's observation (without the log) is unchanged, every multiset and size
is kept, the canonical redeal is a function of the seat's view (the same from two redeals of one
position), a random redeal is reproducible from its state and varies with it, the game plays on to its
end; the kernel agrees with a plain-Python oracle written from its docstring (``oracle_redeal`` below);
the offers a seat saw are respected; the deal is uniform (chi-square, and a planted bias fails); and
mutation-minded checks that the chance stream and every other hand are redrawn.
"""

from __future__ import annotations

import functools
import random
from collections import Counter

import numpy as np
from scipy import stats

from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels import infoset as I
from boardlab.sim.citadels.api import Game, parse_move
from boardlab.sim.citadels.game import invariants
from boardlab.sim.citadels.rules import DECKS, MAX_TYPES, N_RANKS
from boardlab.sim.citadels.tables import RP_ABCCBA, RP_BLIND, RP_FACEDOWN, RP_N_CARDS, RP_REMOVE_LAB, RP_REMOVE_ROUND1

CONFIGS = [("official", n) for n in range(2, 8)] + [("seed-summary", n) for n in range(2, 9)]
T = {d.name: d.id for d in DECKS["classic66"]}
MASK64 = (1 << 64) - 1


# --- positions ------------------------------------------------------------------------------------
def positions(rules: str, players: int, seed: int, every: int, offset: int = 0):
    """Copies of a random game at every `every`-th decision."""
    g = Game(players, rules, seed)
    k = 0
    while not g.done:
        if k % every == offset % every:
            yield g.copy()
        g.apply(g.random_move())
        k += 1


def decision_kind(g: Game) -> str:
    return g._decision(g.current)["kind"]


@functools.cache
def _every_decision() -> tuple:
    """One random game per configuration, a copy at every decision."""
    return tuple(g for i, (rules, n) in enumerate(CONFIGS) for g in positions(rules, n, 1000 * i, 1))


RARE = ("discard", "graveyard", "redraw")


def sample(every: int) -> list[Game]:
    """Every `every`-th decision, and every 2-player discard, Graveyard window and every other redraw."""
    out = []
    for i, g in enumerate(_every_decision()):
        kind = decision_kind(g)
        if i % every == 0 or (kind in RARE and (kind != "redraw" or i % 2 == 0)):
            out.append(g)
    return out


def view(g: Game, p: int) -> dict:
    """What p sees, without the log (the kernel reads the current state only)."""
    d = g._observed(p)
    d.pop("log")
    return d


def districts(g: Game) -> Counter:
    """Every district in play or out of it, per type."""
    st = g.st
    c = Counter(g.deck())
    for q in range(g.players):
        c.update(g.hand(q))
        c.update(t for t, _ in g.city(q))
    c.update(int(t) for t in st[E.ST_PEND : E.ST_PEND + st[E.ST_PEND_N]])
    c.update({t: int(st[E.ST_OUT + t]) for t in range(MAX_TYPES)})
    if g.phase == "graveyard":
        c[int(st[E.ST_GRAVE_CARD])] += 1
    return +c


def places(g: Game) -> dict:
    """Sizes and multisets that a redeal keeps."""
    st = g.st
    where = Counter(int(st[E.ST_WHERE + r]) for r in range(1, N_RANKS + 1))
    where[E.CH_FACEDOWN] += where.pop(E.CH_REMOVED, 0)  # 7 players: whether the 7th took the removed card is hidden
    return {
        "districts": districts(g),
        "hands": [int(x) for x in st[E.ST_HAND_N : E.ST_HAND_N + g.players]],
        "deck": int(st[E.ST_DECK_LEN]),
        "pending": int(st[E.ST_PEND_N]),
        "pile": int(st[E.ST_PILE_N]),
        "offer": int(st[E.ST_OFFER_N]),
        "held": Counter(g.holder(r) for r in range(1, N_RANKS + 1)),
        "where": where,
        "faceup": [int(x) for x in st[E.ST_FU : E.ST_FU + st[E.ST_FU_N]]],
        "revealed": [int(x) for x in st[E.ST_REVEALED : E.ST_REVEALED + N_RANKS + 1]],
    }


def kernel(g: Game, p: int, arng_state: int | None):
    """The kernel on copies of g's arrays: (st, rng, arng after, status)."""
    st, rng = g.st.copy(), g.rng.copy()
    arng = np.array([0 if arng_state is None else arng_state], dtype=np.uint64)
    scratch = np.zeros(I.SCRATCH_LEN, dtype=np.int32)
    I.redeal(st, rng, g.tables.rp, np.int32(p), arng, arng_state is None, scratch)
    return st, rng, int(arng[0]), int(scratch[I.WK_STATUS])


# --- the plain-Python oracle ------------------------------------------------------------------------
class SplitMix64:
    """boardlab.sim.rng's generator on Python ints: the agent's stream 0."""

    def __init__(self, state: int):
        self.state = int(state) & MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, k: int) -> int:
        return self.next() % k


INF = 99  # a card never taken from the pile: offered at every step


def oracle_redeal(st0, rng0, rp, p: int, arng_state: int | None):
    """What infoset.redeal does, from its docstring, in plain Python: (st, rng, arng state after)."""
    st = [int(x) for x in st0]
    canonical = arng_state is None
    draw = SplitMix64(0 if canonical else arng_state)
    n = st[E.ST_PLAYERS]

    # districts: the unseen cards, pooled and dealt back keeping every size
    cards = int(rp[RP_N_CARDS])
    if st[E.ST_REDRAW_N] > 0 and st[E.ST_TURN_SEAT] != p:
        st[E.ST_DECISIONS] -= st[E.ST_REDRAW_N]
        st[E.ST_REDRAW : E.ST_REDRAW + MAX_TYPES] = [0] * MAX_TYPES
        st[E.ST_REDRAW_N] = st[E.ST_REDRAW_MAX] = 0
    others = [q for q in range(n) if q != p]
    top, dlen = st[E.ST_DECK_TOP], st[E.ST_DECK_LEN]
    pending = st[E.ST_PEND_N] if st[E.ST_PHASE] == E.PH_TURN and st[E.ST_TURN_SEAT] != p else 0
    sizes = {q: st[E.ST_HAND_N + q] for q in others}
    pool = [st[E.ST_DECK + (top + i) % cards] for i in range(dlen)]
    for q in others:
        pool += [t for t in range(MAX_TYPES) for _ in range(st[E.ST_HAND + q * MAX_TYPES + t])]
    pool += st[E.ST_PEND : E.ST_PEND + pending]
    out = []
    if rp[RP_REMOVE_LAB]:
        out = [t for t in range(MAX_TYPES) for _ in range(st[E.ST_OUT + t])]
    pool += out
    pool.sort()  # the true order is not the seat's to see
    if not canonical:
        for i in range(len(pool) - 1, 0, -1):
            j = draw.below(i + 1)
            pool[i], pool[j] = pool[j], pool[i]
    deal = iter(pool)
    for i in range(cards):
        st[E.ST_DECK + (top + i) % cards] = next(deal) if i < dlen else 0
    for q in others:
        hand = [0] * MAX_TYPES
        for _ in range(sizes[q]):
            hand[next(deal)] += 1
        st[E.ST_HAND + q * MAX_TYPES : E.ST_HAND + (q + 1) * MAX_TYPES] = hand
        st[E.ST_HAND_MASK + q] = sum(1 << t for t in range(MAX_TYPES) if hand[t])
    for i in range(pending):
        st[E.ST_PEND + i] = next(deal)
    for i in range(st[E.ST_PEND_N], 3):
        st[E.ST_PEND + i] = 0
    if rp[RP_REMOVE_LAB]:
        st[E.ST_OUT : E.ST_OUT + MAX_TYPES] = [0] * MAX_TYPES
        for t in deal:
            st[E.ST_OUT + t] += 1

    _oracle_characters(st, rp, p, draw, canonical)
    rng = [0, 0] if canonical else [draw.next(), draw.next()]
    return np.array(st, dtype=np.int32), np.array(rng, dtype=np.uint64), draw.state


def _oracle_characters(st, rp, p, draw, canonical):
    n = st[E.ST_PLAYERS]
    phase = st[E.ST_PHASE]
    selecting = phase in (E.PH_PICK, E.PH_DISCARD)
    blind = bool(rp[RP_BLIND])
    done = st[E.ST_SEL_STEP]
    steps = n if n >= 4 else 6
    a = st[E.ST_ROUND_CROWN]  # the selection's order (§4.2), from the round's first crown holder
    if n >= 4:
        seat_of = [(a + t) % n for t in range(steps)]
    elif n == 3:
        order = (0, 1, 2, 2, 1, 0) if rp[RP_ABCCBA] else (0, 1, 2, 0, 1, 2)
        seat_of = [(a + k) % 3 for k in order]
    else:
        seat_of = [a, 1 - a, 1 - a, a, a, 1 - a]
    discard = [n == 2 and t in (2, 4) for t in range(steps)]
    where = {r: st[E.ST_WHERE + r] for r in range(1, N_RANKS + 1)}
    holder = {r: st[E.ST_HOLDER + r] for r in range(1, N_RANKS + 1)}
    removal = st[E.ST_ROUND] > 1 or rp[RP_REMOVE_ROUND1] == 1
    seventh = n == 7 and removal and rp[RP_FACEDOWN] > 0
    seat7 = seat_of[6] if n == 7 else None
    special = seventh and not selecting
    hidden = [r for r in range(1, N_RANKS + 1) if where[r] != E.CH_FACEUP and holder[r] != p]
    facedown = sum(where[r] in (E.CH_REMOVED, E.CH_FACEDOWN) for r in range(1, N_RANKS + 1))

    # the places, each (kind, seat, step or index)
    pl = []
    fd_n = 0 if special else st[E.ST_FD_N]
    pl += [("removed", -1, i) for i in range(fd_n)]
    for t in range(done):
        if discard[t]:
            pl.append(("discard", seat_of[t], t))
        elif seat_of[t] != p:
            pl.append(("pick", seat_of[t], t))
    leftover = 0
    if selecting:
        pl += [("pile", -1, i) for i in range(st[E.ST_PILE_N])]
    else:
        leftover = facedown - fd_n - sum(discard[:done]) - special
        pl += [("leftover", -1, i) for i in range(leftover)]
    offered_fd = seventh and selecting and done == 6
    fd_ranks = set(st[E.ST_FD : E.ST_FD + st[E.ST_FD_N]])
    if selecting and blind:
        popped = st[E.ST_OFFER_N] - (len(fd_ranks) if offered_fd else 0)
        pl += [("offer", -1, i) for i in range(popped)]
    if special:
        pl.append(("seventh_fd", -1, 6))
    assert len(pl) == len(hidden), (pl, hidden)
    allowed = [set(hidden) for _ in pl]

    def confine(inside, ranks):
        for i in range(len(pl)):
            allowed[i] &= ranks if i in inside else set(hidden) - ranks

    if not selecting:  # the calls: a seat holds its revealed ranks, uncalled ones or the murdered one
        called, killed = st[E.ST_CALL], st[E.ST_KILLED]
        revealed = {r for r in hidden if st[E.ST_REVEALED + r]}
        may_hide = {r for r in hidden if r not in revealed and (r > called or r == killed)}
        for i, (kind, seat, _) in enumerate(pl):
            if kind == "pick":
                allowed[i] &= {r for r in revealed if holder[r] == seat} | may_hide
            else:
                allowed[i] &= set(hidden) - revealed
    if selecting and st[E.ST_CURRENT] == p:  # p's offer now
        offer = set(st[E.ST_OFFER : E.ST_OFFER + st[E.ST_OFFER_N]])
        shown_fd = fd_ranks if offered_fd else set()
        confine({i for i, x in enumerate(pl) if x[0] == ("offer" if blind else "pile")}, offer - shown_fd)
        if shown_fd:
            confine({i for i, x in enumerate(pl) if x[0] == "removed"}, shown_fd)

    def origins(r):
        """The steps at which rank r may have left the pile (INF never; 'fd': the removed card)."""
        if where[r] == E.CH_PILE:
            return {INF}
        if where[r] == E.CH_REMOVED:
            return {"fd"}
        if where[r] == E.CH_FACEDOWN:
            return {t for t in range(done) if discard[t]} | ({INF} if leftover > 0 or special else set())
        q = holder[r]
        if special and q == seat7:
            return {6} if st[E.ST_FD_N] == 1 else {"fd"}
        return {t for t in range(done) if seat_of[t] == q and not discard[t]}

    def offered(origin, s):
        if origin == "fd":
            return n == 7 and s == 6
        return origin >= s

    p_offer = None
    if not blind:
        for s in range(done):
            if seat_of[s] != p:
                continue
            answers = {r: {offered(o, s) for o in origins(r)} for r in hidden}
            if any(len(a) != 1 for a in answers.values()):
                continue  # the state does not say whether r was in this offer
            passed = {r for r, a in answers.items() if a == {True}}
            p_offer = passed
            for i, (kind, _, t) in enumerate(pl):
                if kind in ("pick", "discard"):
                    if special and t == 6 and s < 6:
                        continue
                    after = t >= s
                elif kind == "removed":
                    after = n == 7 and s == 6
                elif kind == "seventh_fd":
                    if s < 6:
                        continue
                    after = True
                else:
                    after = True
                allowed[i] &= passed if after else set(hidden) - passed
    elif not selecting and seat_of[steps - 1] == p and (special or leftover <= 1):
        seen = {r for r in hidden if where[r] == E.CH_FACEDOWN or (special and where[r] == E.CH_REMOVED)}
        confine({i for i, x in enumerate(pl) if x[0] == ("seventh_fd" if special else "leftover")}, seen)

    @functools.cache
    def count(i, left):
        if i == len(pl):
            return 1
        return sum(count(i + 1, left - {r}) for r in sorted(left) if r in allowed[i])

    full = frozenset(hidden)
    total = count(0, full)
    assert total > 0
    u = 0 if canonical else draw.below(total)
    rank_at, left = [], full
    for i in range(len(pl)):
        for r in sorted(left):
            if r not in allowed[i]:
                continue
            c = count(i + 1, left - {r})
            if u < c:
                rank_at.append(r)
                left = left - {r}
                break
            u -= c
    removed_7th = st[E.ST_FD_N] == 1
    if special and seat7 != p:
        r7 = rank_at[-1]
        if not blind:
            removed_7th = r7 not in p_offer
        else:
            removed_7th = True if canonical else draw.below(2) == 0

    fd, offer = [], []
    for (kind, seat, idx), r in zip(pl, rank_at, strict=True):
        st[E.ST_HOLDER + r] = -1
        if kind == "pick":
            st[E.ST_HOLDER + r], st[E.ST_WHERE + r] = seat, E.CH_HELD
        elif kind == "removed" or (kind == "seventh_fd" and removed_7th):
            st[E.ST_WHERE + r] = E.CH_REMOVED
            fd.append(r)
        elif kind == "pile":
            st[E.ST_WHERE + r] = E.CH_PILE
            st[E.ST_PILE + idx] = r
        elif kind == "offer":
            st[E.ST_WHERE + r] = E.CH_PILE
            offer.append(r)
        else:
            st[E.ST_WHERE + r] = E.CH_FACEDOWN
    pile = st[E.ST_PILE : E.ST_PILE + st[E.ST_PILE_N]]
    st[E.ST_FD_N] = len(fd)
    st[E.ST_FD : E.ST_FD + N_RANKS] = fd + [0] * (N_RANKS - len(fd))
    if selecting:
        offer = sorted(offer + ([] if blind else pile) + (fd if offered_fd else []))
        st[E.ST_OFFER_N] = len(offer)
    st[E.ST_OFFER : E.ST_OFFER + N_RANKS] = offer + [0] * (N_RANKS - len(offer))
    st[E.ST_PILE : E.ST_PILE + N_RANKS] = pile + [0] * (N_RANKS - len(pile))
    fu = st[E.ST_FU : E.ST_FU + st[E.ST_FU_N]]
    st[E.ST_FU : E.ST_FU + N_RANKS] = fu + [0] * (N_RANKS - len(fu))
    rnd = st[E.ST_ROUND]
    # the history (result bookkeeping) of the earlier rounds, and this round's removed ranks: blanked
    st[E.ST_HIST : E.ST_HIST + min(rnd - 1, E.HIST_ROUNDS) * E.HS_LEN] = [0] * (min(rnd - 1, E.HIST_ROUNDS) * E.HS_LEN)
    if 1 <= rnd <= E.HIST_ROUNDS:
        st[E.ST_HIST + (rnd - 1) * E.HS_LEN + E.HS_FACEDOWN] = 0
    if not selecting and 1 <= rnd <= E.HIST_ROUNDS:
        h = E.ST_HIST + (rnd - 1) * E.HS_LEN
        for q in range(n):
            st[h + E.HS_HELD + q] = sum(1 << (r - 1) for r in range(1, N_RANKS + 1) if st[E.ST_HOLDER + r] == q)
        if st[h + E.HS_KILLED]:
            st[h + E.HS_KILLED_SEAT] = st[E.ST_HOLDER + st[h + E.HS_KILLED]]
        if st[h + E.HS_ROBBED]:
            st[h + E.HS_ROBBED_SEAT] = st[E.ST_HOLDER + st[h + E.HS_ROBBED]]


# --- what a redeal keeps --------------------------------------------------------------------------------
def test_the_positions_cover_every_phase():
    kinds = Counter(decision_kind(g) for g in sample(13))
    assert set(kinds) >= {"pick", "discard", "turn", "keep", "redraw", "graveyard"}, kinds


def test_a_redeal_keeps_the_seats_view_and_every_size():
    for g in sample(19):
        before = places(g)
        assert invariants(g) == [] and sum(before["districts"].values()) == 66  # the checker counts every card
        for p in range(g.players):
            mine = view(g, p)
            for rng in (None, 3 + p):
                h = g.redeal(p, rng)
                where = f"{g.rules.name} n={g.players} round {g.round} {decision_kind(g)} p={p} rng={rng}"
                assert view(h, p) == mine, where
                assert invariants(h) == [], (where, invariants(h))
                got = places(h)
                assert got == before, (where, {k: (before[k], got[k]) for k in got if got[k] != before[k]})
                if h.current == p or h.current < 0:
                    assert h.legal_moves() == g.legal_moves(), where
                else:
                    assert len(h.legal_moves()) > 0, where


def test_the_canonical_redeal_is_a_function_of_the_view():
    """Two positions that agree on what p sees (two redeals of one position for p) have one canonical form."""
    for g in sample(19):
        for p in range(g.players):
            canon = g.redeal(p)
            for s in (1, 2):
                other = g.redeal(p, s).redeal(p)
                assert np.array_equal(other.st, canon.st), (g.rules.name, g.players, p, s)
                assert np.array_equal(other.rng, canon.rng) and not canon.rng.any()


def test_a_random_redeal_is_a_function_of_the_view_too():
    """Two positions that agree on what p sees give the same random redeal for one seed: the unseen pool's true
    order (deck, then the other hands) must not reach the shuffle, or every searched move would depend on it."""
    for g in sample(23):
        for p in range(g.players):
            for s in (3, 4):
                other = g.redeal(p, 100 + s)  # the hidden part moved, p's view the same
                a, b = g.redeal(p, 7), other.redeal(p, 7)
                assert np.array_equal(a.st, b.st), (g.rules.name, g.players, p, s)
                assert np.array_equal(a.rng, b.rng)


def test_a_random_redeal_follows_its_state_and_varies_with_it():
    differs = Counter()
    for g in sample(17):
        for p in range(g.players):
            a, b, c = g.redeal(p, 11), g.redeal(p, 11), g.redeal(p, 12)
            assert np.array_equal(a.st, b.st) and np.array_equal(a.rng, b.rng)
            differs["state"] += not np.array_equal(a.st, c.st)
            holders = slice(E.ST_HOLDER, E.ST_HOLDER + N_RANKS + 1)
            differs["characters"] += not np.array_equal(a.st[holders], c.st[holders])
            differs["positions"] += 1
    assert differs["state"] > 0.9 * differs["positions"], differs
    assert differs["characters"] > 0.2 * differs["positions"], differs


def test_the_game_plays_on_after_a_redeal():
    for i, g in enumerate(sample(41)):
        p = i % g.players
        h = g.redeal(p, i)
        k = 0
        while not h.done:
            h.apply(h.random_move())
            k += 1
            if k % 8 == 0:
                assert invariants(h) == []
        assert invariants(h) == []
        scores = h.scores()
        assert len(scores) == g.players and abs(sum(s["win_share"] for s in scores) - 1) < 1e-9


def test_the_kernel_agrees_with_the_plain_python_oracle():
    n = 0
    for g in sample(19):
        for p in range(g.players):
            for state in (None, 77 + p):
                st, rng, arng, status = kernel(g, p, state)
                assert status == 0
                ost, orng, oarng = oracle_redeal(g.st, g.rng, g.tables.rp, p, state)
                diff = np.flatnonzero(st != ost)
                assert diff.size == 0, (g.rules.name, g.players, decision_kind(g), p, state, diff[:8])
                assert np.array_equal(rng, orng) and (state is None or arng == oarng)
                n += 1
    assert n > 1500


VARIANTS = [
    ({"base": "official", "lab_discard_to": "removed", "destroyed_to": "removed"}, (3, 4)),  # cards out of the game
    ({"base": "official", "three_player_order": "ABCCBA"}, (3,)),
    (
        {"base": "seed-summary", "selection_mode": "open", "players_allowed": [2, 3, 4, 5, 6, 7]},
        (4, 7),
    ),  # face up first
    ({"base": "official", "selection_mode": "blind_draw2"}, (5, 7)),  # blind selection with a face-down card
]


def test_rule_variants_redeal_as_the_oracle_does_and_keep_the_view():
    out_of_game = 0
    for rules, counts in VARIANTS:
        for n in counts:
            for seed in range(2):
                for i, g in enumerate(positions(rules, n, 40 + seed, 14, offset=seed)):
                    out_of_game += int(g.st[E.ST_OUT : E.ST_OUT + MAX_TYPES].sum()) > 0
                    before = places(g)
                    for p in range(n):
                        state = None if (i + p) % 2 else 9 + p
                        st, rng, _, status = kernel(g, p, state)
                        ost, orng, _ = oracle_redeal(g.st, g.rng, g.tables.rp, p, state)
                        assert status == 0 and np.array_equal(st, ost) and np.array_equal(rng, orng), (rules, n, p)
                        h = g.redeal(p, state)
                        assert view(h, p) == view(g, p) and places(h) == before and invariants(h) == [], (rules, n, p)
    assert out_of_game > 10  # the cards out of the game are pooled (Laboratory) and kept (destroyed)


# --- information -------------------------------------------------------------------------------------
def _passive_move(legal: list[tuple]) -> tuple:
    """Take gold, keep the first card, finish what is pending, end the turn."""
    for kind in (E.K_GOLD, E.K_KEEP, E.K_REDRAW_DONE, E.K_GRAVE_PASS, E.K_END):
        for m in legal:
            if m[0] == kind:
                return m
    return legal[0]


def test_two_positions_built_apart_that_agree_on_a_view_have_one_canonical_form():
    """test_engine's pair: they differ in P2's hand, the deck's order, the removed card (3 or 6) and P0's
    pick (6 or 3); for P1 and P3 nothing differs until rank 3 is called -- nor may their canonical forms."""
    common = dict(gold=[2] * 4, cities=[[T["Manor"]], [], [T["Temple"]], []])
    castle, tavern, manor = T["Castle"], T["Tavern"], T["Manor"]
    a = Game.from_position(4, "official", 1, hands=[[], [castle], [castle, T["Temple"], T["Docks"]], []],
                           deck_top=[tavern, tavern], ranks=[3, 5, 2, 6, 1, 4, 7, 8], **common)  # fmt: skip
    b = Game.from_position(4, "official", 1, hands=[[], [castle], [T["Palace"], T["Market"], T["Watchtower"]], []],
                           deck_top=[manor, manor], ranks=[6, 5, 2, 3, 1, 4, 7, 8], **common)  # fmt: skip
    a.apply(parse_move("PICK 6"))
    b.apply(parse_move("PICK 3"))
    steps = 0
    while a.snapshot()["called"] < 3:
        for p in (1, 3):
            ca, cb = a.redeal(p), b.redeal(p)
            assert np.array_equal(ca.st, cb.st) and np.array_equal(ca.rng, cb.rng), (steps, p)
        assert not np.array_equal(a.redeal(0).st, b.redeal(0).st)  # P0 holds 6 in one, 3 in the other
        m = _passive_move(a.legal_moves())
        a.apply(m)
        b.apply(m)
        steps += 1
    assert steps == 5
    assert not np.array_equal(a.redeal(1).st, b.redeal(1).st)  # ("call", 3, -1) against ("call", 3, 0)


def round_log(g: Game, p: int) -> list[tuple]:
    log = g.observation(p)["log"]
    start = max(i for i, e in enumerate(log) if e[0] == "round")
    return log[start:]


def chooser_step(g: Game, seat: int) -> int:
    """4+ players: the selection step at which `seat` chose this round."""
    return (seat - int(g.st[E.ST_ROUND_CROWN])) % g.players


def offer_respected(h: Game, p: int, offer: set, pick: int, step: int) -> bool:
    """4+ players, open selection: the ranks p was offered at `step` and did not keep are with later choosers,
    in the pile or face down; those it was not offered (not face up) are with earlier choosers or face down."""
    n = h.players
    st = h.st
    for r in range(1, N_RANKS + 1):
        w, q = int(st[E.ST_WHERE + r]), h.holder(r)
        if w == E.CH_FACEUP or r == pick:
            continue
        seventh = n == 7 and q >= 0 and chooser_step(h, q) == 6
        if r in offer:
            ok = w in (E.CH_PILE, E.CH_FACEDOWN) or (q >= 0 and chooser_step(h, q) > step)
            ok |= w == E.CH_REMOVED and n == 7 and step == 6
        else:
            ok = w == E.CH_REMOVED or (q >= 0 and (chooser_step(h, q) < step or seventh))
        if not ok:
            return False
    return True


def test_open_offers_with_4_players_or_more_are_respected():
    checked = 0
    for n in range(4, 8):
        for g in positions("official", n, 50 + n, 5):
            for p in range(n):
                log = round_log(g, p)
                offers = [set(e[1]) for e in log if e[0] == "offer"]
                picks = [e[1] for e in log if e[0] == "pick"]
                if not picks:
                    continue
                step = chooser_step(g, p)
                assert offer_respected(g, p, offers[0], picks[0], step)  # the checker holds for the truth
                for rng in (None, 5, 6):
                    assert offer_respected(g.redeal(p, rng), p, offers[0], picks[0], step), (n, p, rng)
                    checked += 1
    assert checked > 200


def test_small_games_keep_the_removed_card_the_first_chooser_saw_and_the_left_over_card_the_last_saw():
    """2-3 players: the first chooser's offer is every rank but the removed one; with 3 players the last
    chooser's last offer is his pick and the left-over card (with 2, the discards hide which is which)."""
    checked = 0

    def ranks(x: Game, where: int) -> list[int]:
        return [r for r in range(1, N_RANKS + 1) if x.st[E.ST_WHERE + r] == where]

    for rules in ("official", "seed-summary"):
        for n in (2, 3):
            for g in positions(rules, n, 7 + n, 2):
                first = int(g.st[E.ST_ROUND_CROWN])
                if g.phase == "select" and int(g.st[E.ST_SEL_STEP]) == 0:
                    continue  # the first chooser has not chosen yet
                for rng in (None, 1, 2):
                    assert ranks(g.redeal(first, rng), E.CH_REMOVED) == ranks(g, E.CH_REMOVED), (rules, n, rng)
                    if n == 3 and g.phase in ("turn", "graveyard"):
                        last = (first + 2) % 3
                        assert ranks(g.redeal(last, rng), E.CH_FACEDOWN) == ranks(g, E.CH_FACEDOWN)
                    checked += 1
    assert checked > 100


def test_the_current_offer_is_what_the_chooser_sees_and_others_do_not():
    seen = Counter()
    for g in sample(5):
        if g.phase not in ("select", "discard"):
            continue
        c = g.current
        offer = g._decision(c)["offer"]
        for rng in (None, 8):
            assert g.redeal(c, rng)._decision(c)["offer"] == offer
        others = {tuple(g.redeal((c + 1) % g.players, s)._decision(c)["offer"]) for s in range(8)}
        seen["varies"] += len(others) > 1
        seen["offers"] += 1
    assert seen["varies"] > 0.5 * seen["offers"], seen


def test_a_redraw_of_another_seat_is_undone_and_ones_own_kept():
    found = 0
    for g in _every_decision():
        if decision_kind(g) != "redraw" or not g.st[E.ST_REDRAW_N]:
            continue
        m = g.current
        other = (m + 1) % g.players
        h = g.redeal(other, 3)
        assert h.st[E.ST_REDRAW_N] == 0 and not h.st[E.ST_REDRAW : E.ST_REDRAW + MAX_TYPES].any()
        assert h.st[E.ST_DECISIONS] == g.st[E.ST_DECISIONS] - g.st[E.ST_REDRAW_N]
        own = g.redeal(m, 3)
        assert np.array_equal(
            own.st[E.ST_REDRAW : E.ST_REDRAW + MAX_TYPES], g.st[E.ST_REDRAW : E.ST_REDRAW + MAX_TYPES]
        )
        assert own.hand(m) == g.hand(m) and own._decision(m) == g._decision(m)
        found += 1
    assert found > 5


def test_another_seats_drawn_cards_are_redealt_and_ones_own_kept():
    found = 0
    for g in _every_decision():
        if decision_kind(g) != "keep":
            continue
        c = g.current
        pend = slice(E.ST_PEND, E.ST_PEND + int(g.st[E.ST_PEND_N]))
        assert np.array_equal(g.redeal(c, 4).st[pend], g.st[pend])
        changed = any(not np.array_equal(g.redeal((c + 1) % g.players, s).st[pend], g.st[pend]) for s in range(6))
        found += changed
        if found > 20:
            break
    assert found > 20


# --- uniformity ---------------------------------------------------------------------------------------------
def _four_player_position() -> Game:
    """4 players, round 2: the crown holder (seat 0) chose first from 5 ranks and passed 4 on; the 2nd chooser
    has chosen, the 3rd chooses.  For seat 0 the removed card is known, the 4 ranks it passed on are dealt
    between the 2nd chooser and the pile: 24 deals, equally likely."""
    g = Game.from_position(4, "official", 5, round=2, gold=[2] * 4, hands=[[]] * 4, cities=[[]] * 4,
                           ranks=[3, 1, 5, 2, 6, 4, 7, 8])  # fmt: skip
    assert g.snapshot()["faceup"] == [1, 5] and g.snapshot()["facedown_removed"] == [3]
    g.apply(parse_move("PICK 2"))
    g.apply(parse_move("PICK 7"))
    assert g.current == 2
    return g


def _deal_of(st) -> tuple:
    """The pile, top first (the 2nd chooser holds the fourth rank)."""
    return tuple(int(x) for x in st[E.ST_PILE : E.ST_PILE + 3])


def _chi_square_p(deals: list[tuple]) -> float:
    c = Counter(deals)
    assert len(c) <= 24
    counts = [c.get(k, 0) for k in sorted(c)] + [0] * (24 - len(c))
    return float(stats.chisquare(counts).pvalue)


def _redeals(g: Game, p: int, n: int, leak: float = 0.0) -> list[tuple]:
    """n random redeals for p through the kernel; with `leak`, a planted bias: that share keeps the truth."""
    rnd = random.Random(0)
    out = []
    for i in range(n):
        if rnd.random() < leak:
            out.append(_deal_of(g.st))
            continue
        st, _, _, status = kernel(g, p, 1_000_003 * i + 17)
        assert status == 0 and st[E.ST_HOLDER + 3] == -1  # the removed card stays where p knows it is
        out.append(_deal_of(st))
    return out


def test_the_deal_is_uniform_among_the_consistent_ones_and_a_planted_bias_fails():
    g = _four_player_position()
    fair = _redeals(g, 0, 2400)
    assert len(set(fair)) == 24  # the 2nd chooser holds one of 4, 6, 7, 8; the pile the others, in any order
    assert all(set(d) < {4, 6, 7, 8} for d in fair)
    assert _chi_square_p(fair) > 0.01
    assert _chi_square_p(_redeals(g, 0, 2400, leak=0.08)) < 1e-6


def test_the_districts_are_dealt_uniformly():
    """2 players: the opponent's hand is a uniform draw from the unseen cards (hypergeometric counts)."""
    g = Game(2, "official", 3)
    while g.phase != "turn":
        g.apply(g.random_move())
    p = 1 - g.current
    size = len(g.hand(g.current))
    unseen = Counter(g.deck()) + Counter(g.hand(g.current))
    manor = T["Manor"]
    got = Counter()
    for i in range(3000):
        st, _, _, _ = kernel(g, p, 31 * i + 5)
        got[int(st[E.ST_HAND + g.current * MAX_TYPES + manor])] += 1
    dist = stats.hypergeom(sum(unseen.values()), unseen[manor], size)
    expected = [3000 * dist.pmf(0), 3000 * dist.pmf(1), 3000 * dist.sf(1)]  # 0, 1, 2 or more Manors
    observed = [got[0], got[1], sum(v for k, v in got.items() if k >= 2)]
    assert min(expected) > 20
    assert stats.chisquare(observed, expected).pvalue > 0.01


# --- mutation-minded ------------------------------------------------------------------------------------
def test_the_chance_stream_and_the_policy_stream_are_redrawn():
    g = sample(17)[3]
    seen = set()
    for s in range(5):
        h = g.redeal(0, s)
        assert h.rng[0] != g.rng[0] and h.rng[1] != g.rng[1]
        seen.add(tuple(int(x) for x in h.rng))
    assert len(seen) == 5
    # the future differs: the next round's ranks are shuffled from the redrawn chance stream
    futures = set()
    for s in range(6):
        h = g.redeal(0, s)
        r = h.round
        while not h.done and h.round == r:
            h.apply(h.random_move())
        futures.add(tuple(h.snapshot()["pile"] + h.snapshot()["faceup"]))
    assert len(futures) > 1


def test_every_other_hand_and_the_deck_are_redealt():
    checked = 0
    for g in sample(29):
        for p in range(g.players):
            redeals = [g.redeal(p, s) for s in range(8)]
            unseen = g.deck() + [t for x in range(g.players) if x != p for t in g.hand(x)]
            if len(set(unseen)) < 2:
                continue  # nothing unseen could change
            for q in range(g.players):
                if q == p:
                    assert all(h.hand(p) == g.hand(p) for h in redeals)
                elif len(g.hand(q)) >= 2:
                    assert any(h.hand(q) != g.hand(q) for h in redeals), (g.players, p, q)
                    checked += 1
            if len(g.deck()) >= 2:
                assert any(h.deck() != g.deck() for h in redeals)
    assert checked > 150


def test_a_graveyard_window_is_redealt_for_every_seat():
    dock, gy = T["Docks"], T["Graveyard"]
    g = Game.from_position(4, "official", 1, gold=[2, 0, 1, 2], hands=[[T["Manor"]], [], [T["Temple"]], []],
                           cities=[[], [], [gy], [dock]], ranks=[3, 2, 6, 1, 8, 7, 4, 5])  # fmt: skip
    for m in (
        "PICK 1",
        "PICK 8",
        "PICK 7",
        "PICK 4",
        "KILL 7",
        "GOLD",
        "END",
        "GOLD",
        "END",
        "GOLD",
        f"DESTROY 3 {dock}",
    ):
        g.apply(parse_move(m))
    assert g.phase == "graveyard" and g.current == 2
    for p in range(4):
        for rng in (None, 1):
            h = g.redeal(p, rng)
            assert view(h, p) == view(g, p) and invariants(h) == []
            assert h.legal_moves() == g.legal_moves()
