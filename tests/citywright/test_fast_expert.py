"""The faster expert's levers (docs/games/citywright/search.md, "A faster expert"): each exact lever against the
search it replaces, each approximate one against its definition."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from boardlab.agents.citywright import flatmc as F
from boardlab.agents.citywright import kernels as K
from boardlab.agents.citywright.play import search_move
from boardlab.agents.citywright.registry import EXPERT_LEVERS, EXPERT_V1, TIERS, parse_agent
from boardlab.agents.citywright.strong import STRONG_WEIGHTS, _ruler_lookup, new_ruler_memo, ruler_key, strong_move
from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.api import Game
from tests.citywright.by_address import by_address
from tests.citywright.golden import rules_named

EXPERT = EXPERT_V1  # the levers are measured against the expert without them (the tier before its levers)


def _expert(extra: str = "") -> str:
    """The expert's full spec with some parameters changed or added: _expert(",budget=12,own_memo=on")."""
    name, args = EXPERT.split(":", 1)
    params = dict(kv.split("=") for kv in args.split(","))
    params.update(kv.split("=") for kv in extra.split(",") if kv)
    return name + ":" + ",".join(f"{k}={v}" for k, v in params.items())


def _position(seed: int, players: int, moves: int, rules="v1.1") -> Game:
    g = Game(players, rules, seed)
    for _ in range(moves):
        if g.done:
            break
        g.apply(g.random_move())
    return g


def _positions(n: int, seed: int, rules_names=("v1.1", "v1.0-depletes")):
    """n positions from random play, 1-4 players, anywhere in the game (round ends included)."""
    rnd = random.Random(seed)
    out = []
    while len(out) < n:
        players = rnd.randint(1, 4)
        rules = rules_named(rnd.choice(rules_names))
        g = _position(rnd.randrange(10**6), players, rnd.randrange(0, 12 * players), rules)
        if not g.done:
            out.append(g)
    return out


def _last_turns(n: int, seed: int):
    """n positions from random play where the mover has its last turn (its playouts: the others' replies only)."""
    rnd = random.Random(seed)
    out = []
    while len(out) < n:
        players = rnd.randint(2, 4)
        g = _position(rnd.randrange(10**6), players, 11 * players + rnd.randrange(players))
        if not g.done:
            out.append(g)
    return out


def _search(g: Game, prm: np.ndarray):
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    rng = g.rng.copy()
    counters = np.zeros(F.N_COUNTERS, dtype=np.int64)
    played = search_move(g.boards.copy(), g.st.copy(), rng, mv, prm, g.tables.kernel_args(), STRONG_WEIGHTS, counters)
    return mv, rng, played, counters


# The kernels below are called with the argument types the search itself passes (the committed weights read-only,
# a ruler memo of no entries for none, arrays for the stamps, trace and counters, the mover as int32), so the tests
# run the compiled code the agents run instead of compiling other signatures of it (docs/architecture.md,
# "Compile time").
NO_RULERS = new_ruler_memo(0, 1)


def _playout(b, st, rng, me, own, grow, memo, offer, tb, own_turns, own_strong, own_memo, stamp=None, trace=None,
             counters=None, strong_last_round=-1, later_turns=-1, cut_at_move=False):  # fmt: skip
    """F.playout, greedy rollouts, every seat's slots, to the end of the game, not shared; (moved, clean)."""
    return by_address(
        F.playout, b, st, rng, np.int32(me), own, grow, K.A_GREEDY, 1_000_000, 0, *memo, np.uint64(offer),
        tb.kernel_args(), int(own_turns), own_strong, own_memo,
        np.zeros(0, dtype=np.int64) if stamp is None else stamp,
        np.zeros(F._TRACE, dtype=np.int64) if trace is None else trace,
        np.zeros(F.N_COUNTERS, dtype=np.int64) if counters is None else counters,
        False, int(strong_last_round), NO_RULERS, int(later_turns), cut_at_move, STRONG_WEIGHTS,
    )  # fmt: skip


# --- specs ---------------------------------------------------------------------------------------


def test_the_new_levers_are_quiet_so_the_v1_expert_reads_as_before():
    """A lever at its default is left out of the canonical spec: the v1 tier's string (every stored result's
    agent column before the levers) is unchanged; set, it is printed and reads back."""
    e = parse_agent(EXPERT_V1)
    assert str(e) == EXPERT and "own_memo" not in EXPERT
    assert e.params["own_memo"] == "off" and e.params["repeat"] == "off" and e.params["share_setup"] == "off"
    assert e.params["own_k"] == 3
    fast = parse_agent(_expert(",own_memo=on,own_k=2,repeat=on,share_setup=on"))
    assert str(fast).endswith(",own_memo=on,own_k=2,repeat=on,share_setup=on")
    assert parse_agent(str(fast)) == fast
    r = fast.row()
    assert r[K.P_OWN_MEMO] == 1 and r[K.P_OWN_K] == 2 and r[K.P_REPEAT] == 1 and r[K.P_SHARE] == 1
    r0 = e.row()
    assert r0[K.P_OWN_MEMO] == 0 and r0[K.P_OWN_K] == 3 and r0[K.P_REPEAT] == 0 and r0[K.P_SHARE] == 0


def test_the_expert_tier_is_the_v1_expert_with_its_levers():
    """TIERS["expert"] (docs/games/citywright/search.md, "A faster expert") reads back as itself and differs from the v1
    tier in the budget and the five levers only; its canonical text is EXPERT_V1 with EXPERT_LEVERS appended."""
    fast, e = parse_agent("expert"), parse_agent(EXPERT_V1)
    assert str(fast) == TIERS["expert"][0] and fast.tier == "expert"
    assert TIERS["expert"][0] == _expert("," + EXPERT_LEVERS)
    changed = {k: v for k, v in fast.params.items() if v != e.params[k]}
    assert changed == {
        "budget": 24,
        "own_memo": "on",
        "repeat": "on",
        "cut": "move",
        "ruler_memo": "on",
        "share_setup": "on",
    }


def test_the_skill_reports_expert_specialists_search_as_the_tier():
    """The skill report's expert-specialists take the tier's levers: the same flatmc row as the tier's, only
    the objective (the district's weight and progress) differs."""
    from boardlab.experiments.citywright.skill import TIERS as SKILL_TIERS

    t = {x.name: x for x in SKILL_TIERS}["expert"]
    tier = parse_agent("expert").row()
    for spec in t.specialists():
        r = parse_agent(spec).row()
        same = np.ones(K.P_LEN, dtype=bool)
        same[[K.P_CODE, K.P_PROGRESS, K.P_PROGRESS_DISTRICT]] = False
        same[K.P_W : K.P_W + 4] = False
        assert np.array_equal(r[same], tier[same]), spec


# --- share_setup: one setup of the board for every ruler's search (exact) ------------------------


def test_shared_setup_is_the_same_strong_move_and_the_same_candidates():
    """strong_move and candidates_by_value with one search_setup for all rulers give the moves, values and
    random draws of one evaluator_search per ruler."""
    specs = ["strong", "strong:k=1", "strong-specialist:P", "strong-specialist:I,weight=1,progress=2"]
    for i, g in enumerate(_positions(60, 1, ("v1.1", "v1.0-depletes", "v1.1-extra-cards"))):
        prm = parse_agent(specs[i % len(specs)]).row()
        tb = g.tables
        out = []
        for shared in (False, True):
            mv = np.zeros(E.MV_LEN, dtype=np.int32)
            rng = g.rng.copy()
            v = strong_move(g.boards, g.st, rng, mv, prm, tb.kernel_args(), STRONG_WEIGHTS, shared, NO_RULERS)
            cand = np.zeros((5, E.MV_LEN), dtype=np.int32)
            val = np.zeros(5)
            n = by_address(
                F.candidates_by_value, g.boards, g.st, rng, mv, prm, 1 + i % 3, tb.kernel_args(), cand, val, shared,
                STRONG_WEIGHTS, strong=False,
            )  # fmt: skip
            out.append((v, mv.copy(), rng.copy(), n, cand[:n].copy(), val[:n].copy()))
        (v0, m0, r0, n0, c0, w0), (v1, m1, r1, n1, c1, w1) = out
        assert v0 == v1 and (m0 == m1).all() and (r0 == r1).all()
        assert n0 == n1 and (c0 == c1).all() and (w0 == w1).all()


# --- own_memo: the mover's strong moves by way of the memo ----------------------------------------


def _fresh_strong(h: Game, prm: np.ndarray, rng: np.ndarray, only=None):
    """strong_move on h (with only the slots `only` open, if given) from a copy of rng: (move, value, rng after)."""
    st = h.st.copy()
    if only is not None:
        for s in range(20):
            if s not in only:
                st[E.ST_SLOTS + s] = -1
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    r = rng.copy()
    v = strong_move(h.boards, st, r, mv, prm, h.tables.kernel_args(), STRONG_WEIGHTS, False, NO_RULERS)
    return mv, v, r


@pytest.mark.parametrize("rules", ["v1.1", "v1.0-depletes"])
def test_the_memo_keeps_the_best_strong_move_of_the_slots_it_covers(rules):
    """_memo_move with strong=True, against strong_move run as the memo's rule says it should be (the same
    draws): a new position is searched in full; a remembered move whose slot is closed, in full again; slots
    open now that the entry does not cover, alone, and the better of that and the remembered move kept; all
    covered, the remembered move without a draw.  A change of the mover's turns or of an opponent's board is
    another position, and greedy moves (strong=False) are other entries.  (Which moves tie into a ruler's k
    best depends on the draws, so a strong move is only the best of its own search: hence same-draw oracles.)"""
    rs = rules_named(rules)
    rnd = random.Random(6)
    key = np.zeros(F._MEMO_SIZE, dtype=np.uint64)
    opened = np.zeros(F._MEMO_SIZE, dtype=np.int64)
    val = np.zeros(F._MEMO_SIZE, dtype=np.float64)
    moves = np.zeros((F._MEMO_SIZE, E.MV_LEN), dtype=np.int32)
    stamp = np.zeros(F._MEMO_SIZE + 1, dtype=np.int64)
    trace = np.zeros(F._TRACE, dtype=np.int64)
    counters = np.zeros(F.N_COUNTERS, dtype=np.int64)
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    st_tmp = np.zeros(E.ST_LEN, dtype=np.int32)
    prm = parse_agent("strong").row()
    cases = set()

    def lookup(h, strong=True):
        rng = h.rng.copy()
        by_address(
            F._memo_move, h.boards, h.st, rng, mv, prm, key, opened, val, moves, offer, st_tmp,
            h.tables.kernel_args(), strong, stamp, trace, counters, False, NO_RULERS, STRONG_WEIGHTS,
        )  # fmt: skip
        return mv.copy(), rng

    for trial in range(30):
        g = _position(2000 + trial, rnd.randint(2, 4), rnd.randrange(0, 20), rs)
        if g.done:
            continue
        offer = np.uint64(F._offer_key(g.st))
        all_open = [s for s in range(20) if g.st[E.ST_SLOTS + s] >= 0]
        first = g.copy()
        open1 = set(rnd.sample(all_open, rnd.randint(1, len(all_open))))
        for s in set(all_open) - open1:
            first.st[E.ST_SLOTS + s] = -1
        got, rng = lookup(first)
        want, v1, rng_want = _fresh_strong(first, prm, first.rng)
        assert (got == want).all() and (rng == rng_want).all()
        kept = want
        for _ in range(3):
            h = g.copy()
            open2 = set(rnd.sample(all_open, rnd.randint(1, len(all_open))))
            for s in set(all_open) - open2:
                h.st[E.ST_SLOTS + s] = -1
            got, rng = lookup(h)
            slot = int(kept[E.MV_SLOT])
            if slot not in open2:
                cases.add("closed")
                want, _, rng_want = _fresh_strong(h, prm, h.rng)
                assert (got == want).all() and (rng == rng_want).all()
                break  # the entry now holds another search's move
            extra = open2 - open1
            if not extra:
                cases.add("covered")
                assert (got == kept).all() and (rng == h.rng).all()
                continue
            cases.add("extra")
            m2, v2, rng_want = _fresh_strong(h, prm, h.rng, only=extra)
            assert (rng == rng_want).all()
            if v2 > v1 + 1e-9:
                kept, v1 = m2, v2
            assert (got == kept).all()
            open1 |= open2
        # another position: the mover's turns, an opponent's board; and the greedy moves' entries
        other = g.copy()
        q = (other.current + 1) % other.players
        empty = ~(other.boards[q, 0] | other.boards[q, 1] | other.boards[q, 2] | other.boards[q, 3]) & K.VALID
        other.boards[q, 2] |= empty & (~empty + np.uint64(1))  # a park on the opponent's first empty cell
        for h in (other, g) if other.players > 1 else (g,):
            searches = counters[F.C_OWN_SEARCHES] + counters[F.C_OPP_SEARCHES]
            got, rng = lookup(h, strong=h is not g)  # (g: its greedy move, a new entry)
            assert counters[F.C_OWN_SEARCHES] + counters[F.C_OPP_SEARCHES] == searches + 1
    assert cases == {"closed", "covered", "extra"}
    assert stamp[-1] == counters[F.C_OWN_SEARCHES] + counters[F.C_OPP_SEARCHES]  # every search wrote its entry


# --- repeat: a clean playout counted again instead of played (exact) -----------------------------


def test_a_clean_playout_is_a_function_of_its_start_and_the_memo():
    """The oracle of `clean`: a playout that reports it drew nothing before its last move plays the same moves
    to the same boards and reward from the same start under other random streams (the memo left as it was)."""
    prm = parse_agent(_expert(",own_memo=on")).row()
    own = prm.copy()
    own[K.P_K] = 3
    grow = parse_agent("greedy").row()
    clean_seen = unclean_seen = 0
    for g in _positions(40, 2):
        tb = g.tables
        rp, ach = tb.rp, tb.ach
        p = g.current
        memo = [np.zeros(F._MEMO_SIZE, dtype=t) for t in (np.uint64, np.int64, np.float64)]
        memo.append(np.zeros((F._MEMO_SIZE, E.MV_LEN), dtype=np.int32))
        stamp = np.zeros(F._MEMO_SIZE + 1, dtype=np.int64)
        offer = np.uint64(F._offer_key(g.st))
        results = []
        for seed in (1, 2, 3):  # seed 1 fills the memo, 2 and 3 read it (and fill it further where unclean)
            b, st = g.boards.copy(), g.st.copy()
            rng = np.array([seed * 7919, seed * 104729], dtype=np.uint64)
            trace = np.zeros(F._TRACE, dtype=np.int64)
            writes = stamp[-1]
            _, clean = _playout(b, st, rng, p, own, grow, memo, offer, tb, 2, True, True, stamp, trace)
            est = np.zeros(g.players)
            out = np.zeros((g.players, E.SC_LEN), dtype=np.int32)
            reward = F._reward(b, st, np.int32(p), True, True, out, est, rp, ach, STRONG_WEIGHTS)
            results.append((clean, stamp[-1] == writes, b, st[E.ST_TURNS : E.ST_TURNS + 4].copy(), reward))
        for (clean, no_writes, b, turns, reward), later in itertools.pairwise(results):
            if clean:
                clean_seen += 1
                assert no_writes  # a memo write means a search, and every search draws
                assert (later[2] == b).all() and (later[3] == turns).all() and later[4] == reward
            else:
                unclean_seen += 1
    assert clean_seen >= 5 and unclean_seen >= 5


def test_unchanged_sees_a_write_after_the_serial():
    stamp = np.zeros(10, dtype=np.int64)
    entries = np.array([3, 5, 7], dtype=np.int64)
    stamp[[3, 5, 7]] = [2, 4, 4]
    assert F._unchanged(stamp, entries, 3, 4)
    stamp[5] = 5
    assert not F._unchanged(stamp, entries, 3, 4)
    assert F._unchanged(stamp, entries, 1, 4)  # only the first n entries count


@pytest.mark.parametrize(
    "extra",
    [
        ",budget=12,k=3",
        ",budget=12,k=3,own_memo=on",
        ",budget=16,k=4,own_memo=on,own_k=1,share_setup=on",
        ",budget=16,k=4,own_memo=on,ruler_memo=on",
        ",budget=12,k=3,ruler_memo=on",
        ",budget=10,k=3,own_memo=on,turns=-1,horizon=1",
        ",budget=10,k=3,own=greedy,turns=0,leaf=points",
        ",budget=10,k=3,select=uniform,own_memo=on",
        ",budget=10,k=3,select=ucb,own_memo=on,crn=off",
    ],
)
def test_repeat_is_the_same_search_with_fewer_playouts(extra):
    """repeat=on chooses the move, returns the playout count and leaves the policy stream exactly as the same
    search playing every playout out; and it does skip playouts."""
    prm = parse_agent(_expert(extra)).row()
    fast = parse_agent(_expert(extra + ",repeat=on")).row()
    repeated = 0
    for g in _positions(30, 3) + _last_turns(6, 3):
        mv0, rng0, n0, c0 = _search(g, prm)
        mv1, rng1, n1, c1 = _search(g, fast)
        assert (mv0 == mv1).all() and (rng0 == rng1).all() and n0 == n1
        assert c1[F.C_PLAYOUTS] + c1[F.C_REPEATED] == n1 and c0[F.C_REPEATED] == 0
        repeated += c1[F.C_REPEATED]
    assert repeated > 0


def test_repeat_and_shared_setup_keep_the_expert_specialists_search():
    for d in "RCPI":
        base = f"expert-specialist:{d},budget=12,own_memo=on"
        prm = parse_agent(base).row()
        fast = parse_agent(base + ",repeat=on,share_setup=on").row()
        for g in _positions(6, 10 + "RCPI".index(d), ("v1.1",)):
            mv0, rng0, n0, _ = _search(g, prm)
            mv1, rng1, n1, _ = _search(g, fast)
            assert (mv0 == mv1).all() and (rng0 == rng1).all() and n0 == n1


# --- own_rounds: the mover strong in its playouts for the first rounds only -----------------------


def test_own_rounds_changes_only_the_moves_after_its_rounds():
    """Playouts that never leave the first own_rounds rounds (the game's last round, or horizon=1) are the
    search with the mover strong throughout; a playout started after its rounds is the greedy playout."""
    for extra in (",budget=10,k=3", ",budget=10,k=3,horizon=1,own_memo=on"):
        prm = parse_agent(_expert(extra)).row()
        short = parse_agent(_expert(extra + ",own_rounds=1")).row()
        checked = 0
        for g in _positions(40, 4, ("v1.1",)):
            if g.st[E.ST_ROUND] != g.tables.rp[E.RP_ROUNDS] - 1 and ",horizon=1" not in extra:
                continue
            mv0, rng0, n0, _ = _search(g, prm)
            mv1, rng1, n1, _ = _search(g, short)
            assert (mv0 == mv1).all() and (rng0 == rng1).all() and n0 == n1
            checked += 1
        assert checked >= 5
    own = parse_agent("strong").row()
    grow = parse_agent("greedy").row()
    for g in _positions(30, 5, ("v1.1",)):
        if g.st[E.ST_ROUND] == 0:
            continue  # (strong_last_round -1: strong in every round)
        tb = g.tables
        out = []
        for own_strong, last in ((True, g.st[E.ST_ROUND] - 1), (False, -1)):
            b, st, rng = g.boards.copy(), g.st.copy(), g.rng.copy()
            memo = [np.zeros(0, dtype=t) for t in (np.uint64, np.int64, np.float64)]
            memo.append(np.zeros((0, E.MV_LEN), dtype=np.int32))
            _playout(b, st, rng, g.current, own, grow, memo, 1, tb, 2, own_strong, False, strong_last_round=last)
            out.append((b, st, rng))
        assert all((x == y).all() for x, y in zip(out[0], out[1], strict=True))


# --- ruler_memo: one-ruler searches remembered by board and ruler ---------------------------------


def _ruler_search(g: Game, slot: int, prm: np.ndarray):
    """evaluator_search of g with only `slot` on offer: (the k best moves, their worths)."""
    st = g.st.copy()
    for s in range(20):
        if s != slot:
            st[E.ST_SLOTS + s] = -1
    k = int(prm[K.P_K])
    cand = np.zeros((k, E.MV_LEN), dtype=np.int32)
    val = np.zeros(k)
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    _, n = K.evaluator_search(g.boards, st, g.rng.copy(), mv, prm, g.tables.kernel_args(), cand, val)
    return cand[:n], val[:n]


def _other_end(slot: int) -> int:
    """The edge slot at the other end of the same market line (the same tiles)."""
    line = sorted(E.line_cell(slot, j) for j in range(4))
    return next(s for s in range(16) if s != slot and sorted(E.line_cell(s, j) for j in range(4)) == line)


@pytest.mark.parametrize("rules", ["v1.1", "v1.0-depletes"])
def test_the_ruler_memo_gives_a_rulers_k_best_wherever_it_is_dealt(rules):
    """A strong move with the memo searches each ruler once: the same move, value and draws as without it the
    first time; asked again, every ruler comes from the memo (no search draws, the same value).  The same
    ruler in another slot (a row's other end: the same shape and tiles) is taken from the memo with its slot:
    legal moves with the worths a search of that slot finds (which of equal moves is kept is the draws')."""
    prm = parse_agent("strong").row()
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    moved = 0
    for g in _positions(30, 7, (rules,)):
        tb = g.tables
        memo = new_ruler_memo(4096, 3)  # (roomy: no entry evicted)
        rng = g.rng.copy()
        v0 = strong_move(g.boards, g.st, rng, mv, prm, tb.kernel_args(), STRONG_WEIGHTS, False, memo)
        m0 = mv.copy()
        rng_plain = g.rng.copy()
        v = strong_move(g.boards, g.st, rng_plain, mv, prm, tb.kernel_args(), STRONG_WEIGHTS, False, NO_RULERS)
        assert v == v0 and (mv == m0).all() and (rng == rng_plain).all()
        stored = memo[4][0]
        assert memo[4][1] == 0 and stored > 0
        v1 = strong_move(g.boards, g.st, g.rng.copy(), mv, prm, tb.kernel_args(), STRONG_WEIGHTS, True, memo)
        assert v1 == v0 and memo[4][0] == stored and memo[4][1] == stored
        # a ruler moved to the other end of its line
        for left in range(16):
            shape = g.st[E.ST_SLOTS + left]
            if shape < 0:
                continue
            right = _other_end(left)
            h = g.copy()
            h.st[E.ST_SLOTS + right] = shape
            h.st[E.ST_SLOTS + left] = -1
            hits = memo[4][1]
            strong_move(h.boards, h.st, h.rng.copy(), mv, prm, tb.kernel_args(), STRONG_WEIGHTS, False, memo)
            assert memo[4][1] > hits
            cand = np.zeros((3, E.MV_LEN), dtype=np.int32)
            val = np.zeros(3)
            at, n = _ruler_lookup(
                memo, h.boards, h.st, np.int32(h.current), right, ruler_key(h.st, right, shape), tb.rp, cand, val
            )
            assert at >= 0
            _, fresh = _ruler_search(h, right, prm)
            assert list(val[:n]) == pytest.approx(list(fresh))
            for c in range(n):
                assert cand[c, E.MV_SLOT] == right and h.is_legal(h.decode(cand[c]))
            moved += 1
            break
    assert moved >= 10


# --- later_turns: own moves in later rounds ---------------------------------------------------------


def test_later_turns_cuts_only_own_moves_in_later_rounds():
    """later_turns >= turns, or a position in the game's last round, is the search without the limit; a
    playout with the limit stops with the mover to move, after at most that many own moves past its round."""
    plain = parse_agent(_expert(",budget=10,k=3,own_memo=on")).row()
    as_many = parse_agent(_expert(",budget=10,k=3,own_memo=on,later_turns=2")).row()
    none_later = parse_agent(_expert(",budget=10,k=3,own_memo=on,later_turns=0")).row()
    last_round = 0
    for g in _positions(30, 8, ("v1.1",)) + _last_turns(4, 8):
        mv0, rng0, n0, _ = _search(g, plain)
        mv1, rng1, n1, _ = _search(g, as_many)
        assert (mv0 == mv1).all() and (rng0 == rng1).all() and n0 == n1
        if g.st[E.ST_ROUND] == g.tables.rp[E.RP_ROUNDS] - 1:
            mv2, rng2, n2, _ = _search(g, none_later)
            assert (mv0 == mv2).all() and (rng0 == rng2).all() and n0 == n2
            last_round += 1
    assert last_round >= 5
    own = parse_agent("strong").row()
    grow = parse_agent("greedy").row()
    cut = 0
    for g in _positions(30, 9, ("v1.1",)):
        tb = g.tables
        for later in (0, 1):
            b, st, rng = g.boards.copy(), g.st.copy(), g.rng.copy()
            memo = [np.zeros(0, dtype=t) for t in (np.uint64, np.int64, np.float64)]
            memo.append(np.zeros((0, E.MV_LEN), dtype=np.int32))
            turns0 = g.st[E.ST_TURNS + g.current]
            _playout(b, st, rng, g.current, own, grow, memo, 1, tb, 3, True, False, later_turns=later)
            own_moves = st[E.ST_TURNS + g.current] - turns0
            if st[E.ST_DONE] == 0 and own_moves < 3:  # stopped by the limit, not by turns
                assert st[E.ST_CUR] == g.current and st[E.ST_ROUND] > g.st[E.ST_ROUND]
                per_round = tb.rp[E.RP_TURNS]
                later_moves = own_moves - (per_round - turns0 % per_round)
                assert later_moves == later
                cut += 1
    assert cut >= 10


# --- cut=move: the leaf right after the mover's last own move -------------------------------------


def test_cut_at_move_ends_the_playout_right_after_the_movers_last_own_move():
    """The same playout as cut=turn up to the mover's last own move (the same draws, no memo): the mover's board
    and turns are those of the cut=turn playout, the others have not replied yet."""
    own = parse_agent("strong").row()
    grow = parse_agent("greedy").row()
    checked = 0
    for g in _positions(30, 11, ("v1.1",)):
        if g.players == 1:
            continue
        tb = g.tables
        p = g.current
        out = {}
        for at_move in (False, True):
            b, st, rng = g.boards.copy(), g.st.copy(), g.rng.copy()
            memo = [np.zeros(0, dtype=t) for t in (np.uint64, np.int64, np.float64)]
            memo.append(np.zeros((0, E.MV_LEN), dtype=np.int32))
            _playout(b, st, rng, p, own, grow, memo, 1, tb, 2, True, False, cut_at_move=at_move)
            out[at_move] = (b, st)
        (b_turn, st_turn), (b_move, st_move) = out[False], out[True]
        if st_move[E.ST_DONE]:
            continue
        assert (b_move[p] == b_turn[p]).all() and st_move[E.ST_TURNS + p] == g.st[E.ST_TURNS + p] + 2
        assert st_move[E.ST_TURNS + p] == st_turn[E.ST_TURNS + p]
        others = [q for q in range(g.players) if q != p]
        assert all(st_move[E.ST_TURNS + q] <= st_turn[E.ST_TURNS + q] for q in others)
        assert any(st_move[E.ST_TURNS + q] < st_turn[E.ST_TURNS + q] for q in others)
        checked += 1
    assert checked >= 10
    # turns=0: the leaf right after the candidate, so every playout of a candidate is the same
    prm = parse_agent(_expert(",budget=12,k=3,turns=0,cut=move,own_memo=on,repeat=on")).row()
    for g in _positions(10, 12, ("v1.1",)):
        _, _, _, c = _search(g, prm)
        assert c[F.C_OPP_SEARCHES] == 0 and c[F.C_OWN_SEARCHES] == 0 and c[F.C_PLAYOUTS] <= 3


# --- the measurement script ---------------------------------------------------------------------


def test_expert_levers_expands_tier_shorthand_and_times_specs_side_by_side():
    from boardlab.experiments.citywright.expert_levers import expand, timing

    assert expand("greedy") == "greedy" and expand("expert-v1") == EXPERT_V1
    assert parse_agent(expand("expert+budget=24,own_memo=on")) == parse_agent(_expert(",budget=24,own_memo=on"))
    df = timing(["expert+budget=2,k=2", "expert+budget=2,k=2,own_memo=on,repeat=on"], rounds=1)
    assert list(df["spec"]) == ["expert+budget=2,k=2", "expert+budget=2,k=2,own_memo=on,repeat=on"]
    assert df["ratio"].iloc[0] == 1.0 and (df["positions"] == 96).all()
    assert (df["playouts"] + df["repeated"] > 0).all() and df["repeated"].iloc[0] == 0
