"""Cartographers' `expert` agent (boardlab/agents/cartographers/expert.py): its redeal draws only decks the seat
could be facing, its move depends only on what the seat has seen, it is a Python oracle's search step for step,
successive halving keeps the better half, and it is deterministic."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.agents.cartographers import expert as X
from boardlab.agents.cartographers import kernels as K
from boardlab.agents.cartographers import oracle
from boardlab.agents.cartographers.play import choose_move, run_games
from boardlab.agents.cartographers.registry import available_agents, builtin_player, parse_agent, rows
from boardlab.agents.cartographers.strong import STRONG_K, STRONG_MARGIN, STRONG_WEIGHTS, WEIGHTS_VERSION
from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.api import Game
from boardlab.sim.cartographers.rules import preset
from boardlab.sim.cartographers.tables import CARD_AMBUSH, CD_KIND, MAX_DECK, N_AMBUSH, tables_for
from boardlab.sim.rng import CHANCE, POLICY, rand_below, rng_next

RNG = np.array([0x9E3779B97F4A7C15, 0xD1B54A32D192ED03], dtype=np.uint64)  # one fixed pair of streams
SMALL = "expert:budget=8,k=3"


def positions(n_games: int, every: int = 4, first_seed: int = 0, agent: str = "planner", draws_only: bool = False):
    """Positions (copies) of games at 1-5 players on both sides, `agent` in every seat: every `every`-th
    decision and every monster phase (draws only: no monster phases)."""
    row = parse_agent(agent).row()
    for seed in range(first_seed, first_seed + n_games):
        g = Game(1 + seed % 5, "base-b" if seed % 2 else "base-a", seed)
        step = 0
        while not g.done:
            if (step % every == 1 and g.phase == "draw") or (g.phase == "monster" and not draws_only):
                yield g.copy()
            g.apply(choose_move(g, row))
            step += 1


def is_ambush(g: Game, card: int) -> bool:
    return int(g.tables.cards[card, CD_KIND]) == CARD_AMBUSH


def kernel_redeal(g: Game, chance: int) -> Game:
    """A copy of g redealt by expert.redeal from a chance stream at `chance`."""
    h = g.copy()
    rng = np.array([chance, 0], dtype=np.uint64)
    X.redeal(h.st, rng, g.tables.cards, np.zeros(MAX_DECK + N_AMBUSH, dtype=np.int32))
    return h


# --- the redeal -------------------------------------------------------------------------------------------------


def test_the_redeal_draws_only_decks_consistent_with_what_the_seat_has_seen():
    """expert.redeal keeps every public fact (the seat's observation, the explore cards still in the deck, how
    many ambushes it holds, the ambushes out) and changes only the order of the deck and which unseen ambushes
    are where; it is a function of the public facts (two API redeals give the same deck), and it does shuffle
    (most positions see several decks over 8 streams, and ambushes move between the two decks)."""
    checked = varied = moved = 0
    for g in positions(30, every=3, first_seed=500, agent="random"):
        p = g.current
        snap = g.snapshot()
        decks = set()
        for c in range(8):
            h = kernel_redeal(g, 1000 + c)
            assert h.observation(p) == g.observation(p)
            s = h.snapshot()
            assert sorted(s["deck"] + s["ambush_deck"]) == sorted(snap["deck"] + snap["ambush_deck"])
            assert sorted(x for x in s["deck"] if not is_ambush(g, x)) == sorted(
                x for x in snap["deck"] if not is_ambush(g, x)
            )
            assert len(s["deck"]) == len(snap["deck"]) and len(s["ambush_deck"]) == len(snap["ambush_deck"])
            rest = np.ones(E.ST_LEN, dtype=bool)  # everything outside the two decks is untouched
            rest[E.ST_DECK : E.ST_DECK + MAX_DECK] = False
            rest[E.ST_AMBUSH : E.ST_AMBUSH + N_AMBUSH] = False
            assert (h.st[rest] == g.st[rest]).all() and (h.bb == g.bb).all()
            decks.add(tuple(s["deck"]))
            moved += sorted(s["ambush_deck"]) != sorted(snap["ambush_deck"])
        a, b = g.redeal(p, 11), g.redeal(p, 12)  # other true orders, the same public facts: the same deals
        for c in (1000, 1003):
            assert kernel_redeal(a, c).snapshot() == kernel_redeal(b, c).snapshot() == kernel_redeal(g, c).snapshot()
        varied += len(decks) > 1
        checked += 1
    assert checked > 300 and varied > checked // 2 and moved > 0


def test_the_redeal_is_uniform_over_the_ambushes():
    """Over 4,000 streams each unseen ambush is the deck's one about equally often (a position with the ambush
    of the season still in the deck and two or more unseen)."""
    for g in positions(40, every=2, first_seed=700, agent="random"):
        s = g.snapshot()
        unseen = sorted(x for x in s["deck"] + s["ambush_deck"] if is_ambush(g, x))
        if sum(is_ambush(g, x) for x in s["deck"]) == 1 and len(unseen) >= 3:
            break
    else:
        pytest.fail("no position with an ambush in the deck and 3 unseen")
    counts = dict.fromkeys(unseen, 0)
    for c in range(4000):
        (x,) = [y for y in kernel_redeal(g, c).snapshot()["deck"] if is_ambush(g, y)]
        counts[x] += 1
    expected = 4000 / len(unseen)
    assert all(abs(n - expected) < 5 * np.sqrt(expected) for n in counts.values()), counts


# --- information -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", [SMALL, "expert:budget=6,k=2,horizon=2,seats=all"])
def test_the_expert_moves_the_same_in_two_redeals(spec):
    """Two redeals of a position for the deciding seat (the explore deck in another order, the unseen ambushes
    dealt anew between the deck and the ambush deck, another chance stream) give, with the same policy stream,
    the same move as the true position and the same draws from that stream.  Draws and monster phases at 1-5
    players; most pairs differ in what the seat cannot see."""
    row = parse_agent(spec).row()
    checked = differ = 0
    for g in positions(20, every=4, first_seed=300, agent="random"):
        p = g.current
        a, b = g.redeal(p, 11), g.redeal(p, 12)
        sa, sb = a.snapshot(), b.snapshot()
        differ += (sa["deck"], sa["ambush_deck"]) != (sb["deck"], sb["ambush_deck"])
        moves, draws = [], []
        for h in (a, b, g.copy()):
            h.rng[POLICY] = RNG[POLICY]  # the chance streams stay as they are: a, b fresh, g the true one
            moves.append(choose_move(h, row))
            draws.append(int(h.rng[POLICY]))
        assert moves[0] == moves[1] == moves[2], (spec, g.snapshot())
        assert draws[0] == draws[1] == draws[2]
        checked += 1
    assert checked > 200 and differ > checked // 2


# --- a readable oracle --------------------------------------------------------------------------------------------


class Oracle:
    """The expert's move by a Python loop (expert.py's docstring): strong's shortlist and strong's value from the
    public API and the slow features (oracle.move_values, oracle.strong_features), the k best; the redeal with
    Python lists; successive halving with common random numbers.  Only strong's moves inside a playout are the
    kernels' (strong is held to its own oracle in test_cartographers_strong.py)."""

    def __init__(self, g: Game, spec: str):
        a = parse_agent(spec)
        self.g, self.q = g, a.params
        self.rng = g.rng.copy()
        self.me = g.current
        self.prow = parse_agent(f"strong:k={self.q['rollout_k']},ambush={self.q['ambush']}").row()
        self.pairs: list[tuple[int, int]] = []
        self.cands, self.values = ([], []) if g.phase == "monster" else self.candidates(int(self.q["k"]))

    def candidates(self, k: int):
        """strong's shortlist (oracle.strong_best's steps, the same draws), valued by planner value + learned
        value, the k best (ties in listing order)."""
        g, rng = self.g, self.rng
        moves, values = oracle.move_values(g, "planner")
        best = max(values)
        gaps = [best - v for v in values]
        short, margin = STRONG_K, STRONG_MARGIN
        above, level = 0, margin
        for d in range(margin + 1):
            at = gaps.count(d)
            if above + at >= short or d == margin:
                level = d
                break
            above += at
        cand = [i for i, d in enumerate(gaps) if d < level]
        slots, seen = short - above, 0
        for i, d in enumerate(gaps):
            if d != level:
                continue
            if seen < slots:
                cand.append(i)
            else:
                j = int(rand_below(rng, POLICY, seen + 1))
                if j < slots:
                    cand[above + j] = i
            seen += 1
        snap = g.snapshot()
        b = 2 * snap["season"] + (2 * snap["time"] >= g.rules.seasons[snap["season"]].threshold)
        scored = []
        for i in sorted(cand):
            f = oracle.strong_features(g, *oracle.map_after(g, moves[i]))
            scored.append((values[i] + sum(float(x) * y for x, y in zip(STRONG_WEIGHTS[b], f, strict=True)), i))
        top = sorted(scored, key=lambda t: -t[0])[:k]  # stable: ties in listing order
        return [moves[i] for _, i in top], [v for v, _ in top]

    def pair(self, j: int) -> tuple[int, int]:
        while len(self.pairs) <= j:  # drawn from the policy stream in order, on first use
            self.pairs.append((int(rng_next(self.rng, POLICY)), int(rng_next(self.rng, POLICY))))
        return self.pairs[j]

    def redealt(self, chance: np.ndarray) -> Game:
        """The position dealt afresh from the public facts: unseen ambushes sorted then shuffled, the deck's
        share of them with the explore cards (sorted), shuffled; the rest the ambush deck."""
        g = self.g
        h = g.copy()
        s = g.snapshot()
        cards = sorted(x for x in s["deck"] if not is_ambush(g, x))
        ambushes = sorted([x for x in s["deck"] if is_ambush(g, x)] + s["ambush_deck"])
        in_deck = len(s["deck"]) - len(cards)

        def shuffle(xs):
            for i in range(len(xs) - 1, 0, -1):
                j = int(rand_below(chance, CHANCE, i + 1))
                xs[i], xs[j] = xs[j], xs[i]

        shuffle(ambushes)
        deck = cards + ambushes[:in_deck]
        shuffle(deck)
        st = h.st
        pos, apos = int(st[E.ST_DECK_POS]), int(st[E.ST_AMBUSH_POS])
        st[E.ST_DECK : E.ST_DECK + MAX_DECK] = 0
        st[E.ST_DECK + pos : E.ST_DECK + pos + len(deck)] = deck
        st[E.ST_AMBUSH : E.ST_AMBUSH + N_AMBUSH] = 0
        st[E.ST_AMBUSH + apos : E.ST_AMBUSH + apos + len(ambushes) - in_deck] = ambushes[in_deck:]
        return h

    def reward(self, h: Game, scored: int) -> float:
        """The mover's points of the seasons scored since the root, plus at the cut planner value + learned
        value of its map (oracle.weights, the engine's scoring functions, oracle.strong_features)."""
        s = h.snapshot()
        me = self.me
        v = float(sum(r["total"] for r in s["seasons"][me][scored:]))
        if s["done"]:
            return v
        w, wc, wm = oracle.weights(h, "planner")
        tb = h.tables
        pl = h.bb[me]
        v += wc * s["coins"][me] - wm * int(E.monster_penalty(pl, tb.rp, tb.masks))
        v += sum(w[e] * int(E.score_card(np.int32(s["edicts"][e]), pl, tb.rp, tb.masks)) for e in range(4) if w[e])
        b = 2 * s["season"] + (2 * s["time"] >= h.rules.seasons[s["season"]].threshold)
        f = oracle.strong_features(h, s["grids"][me], s["coins"][me], set(s["mountains_paid"][me]))
        return v + sum(float(x) * y for x, y in zip(STRONG_WEIGHTS[b], f, strict=True))

    def rewards(self, j: int, which: list[int]) -> list[float]:
        """Playout j of each candidate in `which` (one redeal and one pair of streams for all of them)."""
        c, p = self.pair(j)
        out = []
        for i in which:
            rng = np.array([c, p], dtype=np.uint64)
            h = self.redealt(rng)
            h.rng[:] = rng
            season, scored, horizon, draws = h.snapshot()["season"], int(h.st[E.ST_SCORED]), self.q["horizon"], 0
            h.apply(self.cands[i])
            while not h.done and int(h.st[E.ST_SEASON]) == season:
                if h.phase == "draw" and int(h.st[E.ST_K]) == 0:
                    if horizon > 0 and draws >= horizon:
                        break
                    draws += 1
                if self.q["seats"] == "all" or h.target == self.me:
                    h.apply(choose_move(h, self.prow))
                else:  # a draw that cannot reach the mover's map: skipped
                    skip = np.array([E.K_SKIP, h.target, -1, -1, -1, 0], dtype=np.int32)
                    E.apply_move(h.bb, h.st, h.rng, skip, *h.tables.kernel_args())
            out.append(self.reward(h, scored))
        return out

    def move(self, flip: bool = False):
        """flip: keep the worse half instead (the comparison a broken halving would make)."""
        if self.g.phase == "monster":
            return oracle.strong_best(self.g, self.rng, STRONG_WEIGHTS, STRONG_K, STRONG_MARGIN)
        n = len(self.cands)
        if n <= 1:
            return self.cands[0]
        budget = int(self.q["budget"])
        total = [0.0] * n
        visits = [0] * n
        alive = list(range(n))
        played = 0
        while len(alive) > 1:
            rounds = (len(alive) - 1).bit_length()
            for _ in range(max(1, (budget - played) // (len(alive) * rounds))):
                j = visits[alive[0]]
                for i, v in zip(alive, self.rewards(j, alive), strict=True):
                    total[i] += v
                    visits[i] += 1
                    played += 1
            alive.sort(key=lambda i: total[i], reverse=not flip)  # stable: ties keep the candidates' order
            alive = alive[: (len(alive) + 1) // 2]
        return self.cands[alive[0]]


ORACLE_SPECS = ["expert:budget=8,k=3", "expert:budget=6,k=4,horizon=2,seats=all,rollout_k=2"]


@pytest.mark.parametrize("spec", ORACLE_SPECS)
def test_the_expert_equals_a_python_oracle(spec):
    """The kernel's move and its draws from the policy stream are the oracle's on 12 positions (draws and
    monster phases, 1-5 players); 40 more in the slow run."""
    _check_oracle(spec, 12, first_seed=40)


@pytest.mark.slow
@pytest.mark.parametrize("spec", ORACLE_SPECS)
def test_the_expert_equals_a_python_oracle_on_more_positions(spec):
    _check_oracle(spec, 40, first_seed=900)


def _check_oracle(spec: str, count: int, first_seed: int):
    row = parse_agent(spec).row()
    checked = 0
    for g in positions(40, every=7, first_seed=first_seed):
        h = g.copy()
        fast = choose_move(h, row)
        o = Oracle(g, spec)
        slow = o.move()
        assert fast == slow and g.is_legal(fast), (spec, g.snapshot())
        assert (o.rng == h.rng).all(), "the same draws"
        checked += 1
        if checked == count:
            break
    assert checked == count


def test_the_candidates_are_strongs_best_and_strongs_move_is_among_them():
    """expert.candidates: the k best by strong's value, best first; strong's own move is the first's value."""
    checked = 0
    for g in positions(20, every=5, first_seed=60, draws_only=True):
        o = Oracle(g, "expert:k=5")
        args = g.tables.kernel_args()
        rp, cards, forms, form_anchors, _, masks = args
        cmv = np.zeros((5, E.MV_LEN), dtype=np.int32)
        ctot = np.zeros(5)
        rng = g.rng.copy()
        n = X.candidates(g.bb, g.st, rng, parse_agent("expert:k=5").row(), rp, cards, forms, form_anchors, masks,
                         np.array(STRONG_WEIGHTS), _ws(), cmv, ctot)  # fmt: skip
        assert [g.decode(cmv[i]) for i in range(n)] == o.cands
        assert np.allclose(ctot[:n], o.values) and all(np.diff(ctot[:n]) <= 0)
        strong = choose_move(g.copy(), parse_agent("strong").row())
        tied = [g.decode(cmv[i]) for i in range(n) if abs(ctot[i] - ctot[0]) < 1e-9]
        assert strong in tied or len(tied) == n
        checked += 1
    assert checked > 40


# --- successive halving -------------------------------------------------------------------------------------------


def kernel_rewards(g: Game, spec: str, cands: list, pairs: list[tuple[int, int]]) -> np.ndarray:
    """Each candidate's rewards over the playouts of the given stream pairs, by the kernels (expert.redeal,
    playout, reward: what the oracle test holds to the Python loop)."""
    q = parse_agent(spec).params
    prow = parse_agent(f"strong:k={q['rollout_k']}").row()
    args = g.tables.kernel_args()
    vw, ws = np.array(STRONG_WEIGHTS), _ws()
    pool, mv = np.zeros(MAX_DECK + N_AMBUSH, dtype=np.int32), np.zeros(E.MV_LEN, dtype=np.int32)
    me, season, scored = g.current, int(g.st[E.ST_SEASON]), int(g.st[E.ST_SCORED])
    out = np.zeros((len(cands), len(pairs)))
    for j, pair in enumerate(pairs):
        for i, c in enumerate(cands):
            bb, st, rng = g.bb.copy(), g.st.copy(), np.array(pair, dtype=np.uint64)
            X.redeal(st, rng, g.tables.cards, pool)
            E.apply_move(bb, st, rng, g._encode(c).copy(), *args)
            X.playout(
                bb,
                st,
                rng,
                np.int32(me),
                np.int32(season),
                prow,
                int(q["horizon"]),
                q["seats"] == "all",
                *args,
                vw,
                ws,
                mv,
            )
            out[i, j] = X.reward(bb, st, me, scored, args[0], args[5], vw, ws)
    return out


def test_successive_halving_keeps_the_better_half():
    """Planted: positions where one of 4 candidates beats every other in each of the search's own playouts
    (the pairs it draws from the policy stream, rewards by the kernels); halving on 24 playouts plays it (the
    oracle's loop and the kernel), a flipped comparison (keeping the worse half) does not, and in some of
    them it is not the first candidate (so keeping the candidates' order would fail too)."""
    spec = "expert:budget=24,k=4"
    row = parse_agent(spec).row()
    planted = not_first = 0
    for g in positions(80, every=5, first_seed=80, draws_only=True):
        o = Oracle(g, spec)
        if len(o.cands) < 4:
            continue
        r = kernel_rewards(g, spec, o.cands, [o.pair(j) for j in range(12)])  # a survivor plays at most 9
        best = int(np.argmax(r[:, 0]))
        if not all(r[best, j] > max(r[i, j] for i in range(4) if i != best) for j in range(12)):
            continue
        want = o.cands[best]
        assert Oracle(g, spec).move() == want and choose_move(g.copy(), row) == want
        assert Oracle(g, spec).move(flip=True) != want
        planted += 1
        not_first += best > 0
        if planted == 4:
            break
    assert planted == 4 and not_first >= 1


@pytest.mark.slow  # expert_move has no machine code of its own (inlined into policy_move): compiled for this test
def test_halving_runs_the_budget_as_the_docstring_says():
    """The playouts run: each round gives every survivor (budget left) // (survivors x rounds left), at least 1."""
    g = next(positions(1, every=3, first_seed=5, draws_only=True))
    for budget, k in ((8, 3), (24, 4), (5, 8)):
        prm = parse_agent(f"expert:budget={budget},k={k}").row()
        mv = np.zeros(E.MV_LEN, dtype=np.int32)
        args = g.tables.kernel_args()
        played = X.expert_move(g.bb.copy(), g.st.copy(), g.rng.copy(), mv, prm, *args, np.array(STRONG_WEIGHTS),
                               _ws())  # fmt: skip
        want, n = 0, k
        while n > 1:
            rounds = (n - 1).bit_length()
            want += n * max(1, (budget - want) // (n * rounds))
            n = (n + 1) // 2
        assert played == want


def _ws():
    from boardlab.agents.cartographers.strong import workspace

    return workspace()


# --- determinism, the registry ------------------------------------------------------------------------------------


def test_the_expert_is_deterministic_and_the_api_plays_the_loops_game():
    """Same seeds, same games (the loop twice); a game played move by move through the public API with
    builtin_player ends with the loop's scores; a decision leaves the game and its chance stream unmoved."""
    tb = tables_for(preset("base-b"), 3)
    specs = [parse_agent(SMALL), parse_agent("planner"), parse_agent("expert:budget=4,k=2,ambush=random")]
    prm = rows(specs)
    seeds = np.arange(3, dtype=np.uint64)
    a = run_games(seeds, np.tile(prm, (3, 1, 1)), tb)
    b = run_games(seeds, np.tile(prm, (3, 1, 1)), tb)
    for key in a:
        assert (a[key] == b[key]).all()
    players = [builtin_player(s) for s in specs]
    for s in range(3):
        g = Game(3, "base-b", s)
        while not g.done:
            if g.current == 0:
                bb, st, chance = g.bb.copy(), g.st.copy(), g.rng[CHANCE]
                choose_move(g.copy(), prm[0])
                h = g.copy()
                choose_move(h, prm[0])
                assert (h.bb == bb).all() and (h.st == st).all() and h.rng[CHANCE] == chance
            players[g.current](g)
        assert [d["total"] for d in g.scores()] == list(a["scores"][s, :, E.SC_TOTAL])


def test_registry_lists_the_expert_with_its_parameters():
    assert "expert" in [d.name for d in available_agents()]
    a = parse_agent("expert")
    assert str(a) == (
        f"expert:ambush=adversarial,budget={X.EXPERT_BUDGET},k={X.EXPERT_CANDS},horizon={X.EXPERT_HORIZON},"
        f"rollout_k={X.EXPERT_ROLLOUT_K},seats=own,weights={WEIGHTS_VERSION}"
    )
    r = parse_agent("expert:budget=9,k=5,horizon=3,rollout_k=2,seats=all,ambush=random").row()
    assert r[K.P_CODE] == K.A_EXPERT and r[K.P_AMBUSH] == K.AMBUSH_RANDOM
    assert (r[K.P_BUDGET], r[K.P_CANDS], r[K.P_HORIZON], r[K.P_ROLLOUT_K], r[K.P_SEATS]) == (9, 5, 3, 2, X.SEATS_ALL)
    assert (r[K.P_K], r[K.P_MARGIN]) == (STRONG_K, STRONG_MARGIN)
