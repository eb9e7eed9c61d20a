"""The expert tier: flat Monte Carlo (agent flatmc), its tiers, its memo and its candidates, the restricted
expert-specialists, and the bench figure."""

from __future__ import annotations

import random

import numpy as np
import pytest

from boardlab.agents.citywright import flatmc as F
from boardlab.agents.citywright import kernels as K
from boardlab.agents.citywright.play import search_move
from boardlab.agents.citywright.registry import (
    EXPERT_LEVERS,
    EXPERT_V1,
    TIERS,
    AgentError,
    parse_agent,
    rows,
    split_specs,
)
from boardlab.agents.citywright.strong import STRONG_WEIGHTS, new_ruler_memo
from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.api import Game
from boardlab.sim.citywright.rules import load_rules
from boardlab.sim.citywright.tables import tables_for
from tests.citywright.by_address import by_address

# --- specs and tiers -----------------------------------------------------------------


def test_flatmc_spec_round_trips_and_fills_its_row():
    a = parse_agent("flatmc:budget=30,k=10,per_slot=2,select=ucb,crn=off,memo=off,horizon=2,reward=win")
    assert parse_agent(str(a)) == a
    r = a.row()
    assert r[K.P_CODE] == K.A_FLATMC and r[K.P_ITERS] == 30 and r[K.P_K] == 10 and r[K.P_PER_SLOT] == 2
    assert r[K.P_SELECT] == F.SELECT_UCB and r[K.P_CRN] == 0 and r[K.P_MEMO] == 0 and r[K.P_HORIZON] == 2
    assert r[K.P_MARGIN] == 0 and r[K.P_ROLLOUT] == K.A_GREEDY
    assert list(r[K.P_W : K.P_W + 4]) == [1.0, 1.0, 1.0, 1.0] and r[K.P_PROGRESS_DISTRICT] == -1


def test_expert_specialist_has_the_specialist_objective():
    tilted = parse_agent("expert-specialist:P,weight=2,progress=0.25").row()
    plain = parse_agent("specialist:P,weight=2,progress=0.25").row()
    for off in (K.P_W, K.P_W + 1, K.P_W + 2, K.P_W + 3, K.P_W_ACH, K.P_PROGRESS, K.P_PROGRESS_DISTRICT):
        assert tilted[off] == plain[off]


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("flatmc:select=best", "select must be one of halving, ucb, uniform"),
        ("expert-specialist:X", "district must be one of R, C, P, I"),
        ("flatmc:budget=0", "budget must be in"),
        ("expert:budget=3", "a tier takes no parameters"),
        ("expert-specialist", "needs district"),
        ("flatmc:district=R", "unknown parameter 'district'"),
    ],
)
def test_bad_expert_specs_name_the_valid_choices(spec, fragment):
    with pytest.raises(AgentError) as e:
        parse_agent(spec)
    assert fragment in str(e.value)


def test_the_expert_tier_is_a_full_flatmc_spec_and_its_specialists_the_same_search():
    e = parse_agent("expert")
    assert e.name == "flatmc" and e.tier == "expert" and str(e) == TIERS["expert"][0]
    # flatmc's defaults are the v1 tier's search (the stored specs read as they were); the tier sets its levers
    v1 = parse_agent("flatmc")
    assert str(v1) == EXPERT_V1 and parse_agent(f"flatmc:{EXPERT_LEVERS}").params == e.params
    for d in "RCPI":
        s = parse_agent(f"expert-specialist:{d.lower()}")  # case aside
        assert s.params["district"] == "RCPI".index(d)
        # the same search as flatmc's, only with a specialist's objective; with the levers, the tier's
        assert {k: v for k, v in s.params.items() if k not in ("district", "weight", "progress")} == v1.params
        s = parse_agent(f"expert-specialist:{d},{EXPERT_LEVERS}")
        assert {k: v for k, v in s.params.items() if k not in ("district", "weight", "progress")} == e.params
    assert split_specs("expert,greedy,expert-specialist:C,flatmc:budget=4,k=2") == [
        "expert",
        "greedy",
        "expert-specialist:C",
        "flatmc:budget=4,k=2",
    ]


# --- the search ----------------------------------------------------------------------


def _position(seed: int, players: int, moves: int, rules="v1.1") -> Game:
    g = Game(players, rules, seed)
    for _ in range(moves):
        g.apply(g.random_move())
    return g


def _search(g: Game, spec: str):
    tb = g.tables
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    rng = g.rng.copy()
    n = search_move(g.boards, g.st, rng, mv, parse_agent(spec).row(), tb.kernel_args(), STRONG_WEIGHTS)
    return g.decode(mv), n, rng


@pytest.mark.parametrize(
    "spec",
    [
        "flatmc:budget=12,k=6",
        "flatmc:budget=12,k=6,per_slot=0,horizon=0",
        "flatmc:budget=12,k=6,per_slot=1,prune=2,taper=1",
        "flatmc:budget=12,k=6,select=ucb",
        "flatmc:budget=12,k=6,select=uniform,crn=off,memo=off",
        "flatmc:budget=12,k=6,horizon=1,rollout=random,reward=win",
        "flatmc:budget=12,k=6,rank=worth,leaf=points,turns=-1,own=greedy,horizon=2",
        "flatmc:budget=12,k=6,turns=0,leaf=value",
        "expert-specialist:C,budget=12,k=6",
    ],
)
def test_flatmc_is_deterministic_legal_and_keeps_its_budget(spec):
    for players, moves in ((4, 13), (2, 5), (1, 3)):
        g = _position(77 + players, players, moves)
        a, n, rng_a = _search(g, spec)
        b, _, rng_b = _search(g, spec)
        assert a == b and (rng_a == rng_b).all()
        assert g.is_legal(a), a
        assert n <= 12 + 6  # halving gives every arm of a round a playout at least


def test_flatmc_with_ucb_and_independent_playouts_is_todays_mcts():
    """select=ucb, crn=off, memo=off over the evaluator's k best is the mcts agent, move for move: with the
    win reward under v1.1, and with the margin reward where there is no compensation (flatmc's margin is of
    board points, mcts's of totals)."""
    no_comp = load_rules("v1.1").with_overrides({"game.compensation.3": [0, 0, 0]})
    for rollout in ("greedy", "random"):
        for reward, rules in (("win", "v1.1"), ("margin", no_comp)):
            for seed in (3, 4):
                g = _position(seed, 3, 7, rules)
                tb = g.tables
                moves = []
                for spec in (
                    f"mcts:iters=15,k=5,c=0.7,rollout={rollout},reward={reward}",
                    "flatmc:budget=15,k=5,c=0.7,select=ucb,crn=off,memo=off,per_slot=0,horizon=0,turns=-1,own=greedy,"
                    f"rank=worth,leaf=points,rollout={rollout},reward={reward}",
                ):
                    mv = np.zeros(E.MV_LEN, dtype=np.int32)
                    rng = g.rng.copy()
                    row = parse_agent(spec).row()
                    search_move(g.boards, g.st, rng, mv, row, tb.kernel_args(), STRONG_WEIGHTS)
                    moves.append((mv.copy(), rng.copy()))
                assert (moves[0][0] == moves[1][0]).all() and (moves[0][1] == moves[1][1]).all(), (rollout, reward)


def _halving_playouts(n: int, budget: int) -> int:
    """The playouts successive halving runs over n candidates (the module doc): each round gives each of its
    survivors (the budget left) // (survivors x rounds left) playouts, at least one, and keeps ceil(half)."""
    played = 0
    while n > 1:
        rounds = int(np.ceil(np.log2(n)))
        played += n * max(1, (budget - played) // (n * rounds))
        n = (n + 1) // 2
    return played


@pytest.mark.parametrize(
    ("k", "extra"), [(3, ""), (5, ""), (7, ""), (5, ",repeat=on"), (7, ",repeat=on,own_memo=on,cut=move")]
)
def test_halving_keeps_the_better_half(k, extra):
    """Candidates of known values: solo with turns=0 a playout ends right after its candidate, so every playout
    of a candidate is worth exactly its board points after it (margin reward, solo: points / 100).  The
    candidates' objective counts industrial tiles only, so the evaluator's order says nothing of those values
    and the best is often not first.  Successive halving plays the best candidate (ties to the evaluator's
    order) and runs the playouts of ceil(n / 2) survivors a round; a search that kept the worse half, sorted
    wrong or kept one too few fails.  (With repeat, every playout after a candidate's first is counted again.)"""
    prm = parse_agent(f"flatmc:budget=30,k={k},per_slot=0,rank=worth,turns=0,leaf=points,own=greedy{extra}").row()
    assert prm[K.P_SELECT] == F.SELECT_HALVING and prm[K.P_MARGIN] == 1 and prm[K.P_PRUNE] < 0
    prm[K.P_W : K.P_W + 4] = 0.0
    prm[K.P_W_ACH] = 0.0
    prm[K.P_PROGRESS] = 1.0
    prm[K.P_PROGRESS_DISTRICT] = 3  # industrial
    checked = best_not_first = 0
    for seed in range(3):
        g = Game(1, "v1.1", seed)
        tb = g.tables
        for _ in range(10):
            cand = np.zeros((k, E.MV_LEN), dtype=np.int32)
            scratch = np.zeros(E.MV_LEN, dtype=np.int32)
            _, n = K.evaluator_search(g.boards, g.st, g.rng.copy(), scratch, prm, tb.kernel_args(), cand, np.zeros(k))
            assert n == k
            values = []
            for i in range(n):
                h = g.copy()
                h.apply(h.decode(cand[i]))
                values.append(h.scores()[0]["total"])
            best = values.index(max(values))
            mv = np.zeros(E.MV_LEN, dtype=np.int32)
            played = search_move(g.boards.copy(), g.st.copy(), g.rng.copy(), mv, prm, tb.kernel_args(), STRONG_WEIGHTS)
            chosen = [i for i in range(n) if (cand[i] == mv).all()]
            assert chosen == [best], (values, chosen)
            assert played == _halving_playouts(k, 30)
            checked += 1
            best_not_first += best > 0
            g.apply(g.random_move())
    assert checked == 30 and best_not_first >= 10


def _worth(g: Game, mv: np.ndarray, prm: np.ndarray) -> float:
    """The objective's change by a kernel move (what the evaluator maximises)."""
    tb = g.tables
    p = g.current
    placed = g.st[E.ST_PLACED + 16 * p : E.ST_PLACED + 16 * (p + 1)].copy()
    before = K.objective(*g.boards[p], placed, prm, tb.rp, tb.ach)
    b, st, rng = g.boards.copy(), g.st.copy(), g.rng.copy()
    E.apply_move(b, st, rng, mv, tb.rp, tb.shp, tb.pl_info)
    after = K.objective(*b[p], st[E.ST_PLACED + 16 * p : E.ST_PLACED + 16 * (p + 1)], prm, tb.rp, tb.ach)
    return after - before


@pytest.mark.parametrize("rules", ["v1.1", "v1.0-depletes"])
def test_the_memo_returns_a_best_move_whatever_the_open_slots(rules):
    """The memo's move is worth the evaluator's best over the open slots, as slots close and reopen."""
    from tests.citywright.golden import rules_named

    rs = rules_named(rules)
    rnd = random.Random(5)
    key = np.zeros(F._MEMO_SIZE, dtype=np.uint64)
    opened = np.zeros(F._MEMO_SIZE, dtype=np.int64)
    val = np.zeros(F._MEMO_SIZE, dtype=np.float64)
    moves = np.zeros((F._MEMO_SIZE, E.MV_LEN), dtype=np.int32)
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    best_mv = np.zeros(E.MV_LEN, dtype=np.int32)
    st_tmp = np.zeros(E.ST_LEN, dtype=np.int32)
    hits = 0
    for trial in range(40):
        g = _position(1000 + trial, rnd.randint(2, 4), rnd.randrange(0, 20), rs)
        if g.done:
            continue
        tb = g.tables
        prm = parse_agent("greedy").row()
        offer = np.uint64(F._offer_key(g.st))
        open_slots = [s for s in range(20) if g.st[E.ST_SLOTS + s] >= 0]
        for _ in range(6):
            h = g.copy()
            for s in rnd.sample(open_slots, rnd.randrange(0, len(open_slots))):
                h.st[E.ST_SLOTS + s] = -1
            known = int((key != 0).sum())
            by_address(
                F._memo_move, h.boards, h.st, h.rng, mv, prm, key, opened, val, moves, offer, st_tmp,
                tb.kernel_args(), False, np.zeros(0, dtype=np.int64), np.zeros(F._TRACE, dtype=np.int64),
                np.zeros(F.N_COUNTERS, dtype=np.int64), False, new_ruler_memo(0, 1), STRONG_WEIGHTS,
            )  # fmt: skip
            hits += int((key != 0).sum()) == known
            best = K.evaluator_move(
                h.boards, h.st, h.rng.copy(), best_mv, prm, tb.kernel_args(),
            )  # fmt: skip
            assert h.is_legal(h.decode(mv))
            assert _worth(h, mv, prm) == pytest.approx(best)
    assert hits > 100  # the memo was used, not only filled


def test_candidates_per_slot_are_the_best_per_slot():
    rnd = random.Random(8)
    for trial in range(30):
        players = rnd.randint(1, 4)
        g = _position(500 + trial, players, rnd.randrange(0, 10 * players))
        if g.done:
            continue
        tb = g.tables
        prm = parse_agent(rnd.choice(["greedy", "specialist:R"])).row()
        per_slot = rnd.choice([1, 2])
        cand = np.zeros((10, E.MV_LEN), dtype=np.int32)
        val = np.zeros(10)
        mv = np.zeros(E.MV_LEN, dtype=np.int32)
        n = by_address(
            F.candidates_per_slot, g.boards, g.st, g.rng.copy(), mv, prm, per_slot, tb.kernel_args(), cand, val,
            strong=False,
        )  # fmt: skip
        best = K.evaluator_move(
            g.boards, g.st, g.rng.copy(), mv, prm, tb.kernel_args(),
        )  # fmt: skip
        assert n >= 1 and val[0] == pytest.approx(best)
        assert all(val[i] >= val[i + 1] for i in range(n - 1))
        slots = [int(cand[i, E.MV_SLOT]) for i in range(n) if cand[i, E.MV_KIND] != E.K_SWAP]
        assert max(slots.count(s) for s in set(slots)) <= per_slot if slots else True
        for i in range(n):
            assert g.is_legal(g.decode(cand[i]))
            assert _worth(g, cand[i], prm) == pytest.approx(val[i])


def test_candidates_by_value_are_worth_plus_learned_value_best_first():
    """Each candidate's value is its worth plus the learned value of the mover's board after it, recomputed
    here from the objective and the features; best first; legal; at most per_slot per ruler."""
    from boardlab.agents.citywright.strong import board_after
    from boardlab.agents.citywright.value import (
        N_FEATURES,
        board_features,
        opponents_best,
        turn_bucket,
        turns_left_after,
    )

    rnd = random.Random(9)
    checked = 0
    for trial in range(30):
        players = rnd.randint(1, 4)
        g = _position(700 + trial, players, rnd.randrange(0, 10 * players))
        if g.done:
            continue
        tb = g.tables
        prm = parse_agent(rnd.choice(["greedy", "specialist:C"])).row()
        per_slot = rnd.choice([1, 2, 3])
        cand = np.zeros((12, E.MV_LEN), dtype=np.int32)
        val = np.zeros(12)
        mv = np.zeros(E.MV_LEN, dtype=np.int32)
        n = by_address(
            F.candidates_by_value, g.boards, g.st, g.rng.copy(), mv, prm, per_slot, tb.kernel_args(), cand, val,
            False, STRONG_WEIGHTS, strong=False,
        )  # fmt: skip
        p = g.current
        opp = np.zeros(4, dtype=np.int64)
        opponents_best(g.boards, p, tb.rp, opp)
        w = STRONG_WEIGHTS[turn_bucket(turns_left_after(g.st, tb.rp, np.int32(p)))]  # the loops' seat type
        nb = np.zeros(4, dtype=np.uint64)
        placed = np.zeros(16, dtype=np.int32)
        f = np.zeros(N_FEATURES)
        assert n >= 1 and all(val[i] >= val[i + 1] for i in range(n - 1))
        for i in range(n):
            assert g.is_legal(g.decode(cand[i]))
            board_after(g.boards, g.st, np.int32(p), cand[i], tb.shp, tb.pl_info, nb, placed)
            board_features(nb[0], nb[1], nb[2], nb[3], placed, opp, tb.rp, tb.ach, f)
            assert val[i] == pytest.approx(_worth(g, cand[i], prm) + float(w @ f))
        slots = [int(cand[i, E.MV_SLOT]) for i in range(n) if cand[i, E.MV_KIND] != E.K_SWAP]
        assert not slots or max(slots.count(s) for s in set(slots)) <= per_slot
        checked += 1
    assert checked > 20


# --- the restricted specialists -------------------------------------------------------


@pytest.mark.parametrize("district", list("RCPI"))
def test_expert_specialist_plays_only_its_specialist_candidates(district):
    """Its move is one of the candidates its specialist objective ranks best (k of them)."""
    spec = parse_agent(f"expert-specialist:{district}")
    prm = spec.row()
    k = spec.params["k"]
    per_slot = spec.params["per_slot"]
    for seed in range(3):
        g = _position(40 + seed, 4, 4 * seed + 2)
        tb = g.tables
        mv = np.zeros(E.MV_LEN, dtype=np.int32)
        search_move(g.boards, g.st, g.rng.copy(), mv, prm, tb.kernel_args(), STRONG_WEIGHTS)
        cand = np.zeros((k, E.MV_LEN), dtype=np.int32)
        val = np.zeros(k)
        scratch = np.zeros(E.MV_LEN, dtype=np.int32)
        args = (tb.kernel_args(), cand, val)
        if spec.params["rank"] == "value":
            n = by_address(
                F.candidates_by_value, g.boards, g.st, g.rng.copy(), scratch, prm, per_slot, *args, False,
                STRONG_WEIGHTS, strong=False,
            )  # fmt: skip
        elif per_slot > 0:
            n = by_address(F.candidates_per_slot, g.boards, g.st, g.rng.copy(), scratch, prm, per_slot, *args,
                           strong=False)  # fmt: skip
        else:
            _, n = K.evaluator_search(g.boards, g.st, g.rng.copy(), scratch, prm, *args)
        assert any((cand[i] == mv).all() for i in range(n))


def _district_tiles(specs, players, games, seed=3000):
    prms = np.tile(rows([parse_agent(s) for s in specs]), (games, 1, 1))
    from boardlab.agents.citywright.play import run_games

    seeds = np.arange(games, dtype=np.uint64) + seed
    _, boards, _, _ = run_games(seeds, prms, tables_for(load_rules("v1.1"), players))
    return boards


@pytest.mark.slow
@pytest.mark.parametrize("district", list("RCPI"))
def test_expert_specialist_places_more_of_its_district_than_the_expert(district):
    d = "RCPI".index(district)
    count = np.vectorize(lambda b: bin(int(b)).count("1"))
    spec_boards = _district_tiles([f"expert-specialist:{district}", "greedy"], 2, 30)
    expert_boards = _district_tiles(["expert", "greedy"], 2, 30)
    assert count(spec_boards[:, 0, d]).mean() > count(expert_boards[:, 0, d]).mean()


# --- the bench figure --------------------------------------------------------------------


def test_bench_reports_the_experts_time_per_move():
    from boardlab.experiments.citywright.bench import expert_figures

    res = expert_figures(load_rules("v1.1"), spec="flatmc:budget=4,k=3", games=1, before=None, rounds=1)
    assert set(res) == {"expert_ms_per_move_mean", "expert_ms_per_move_max"}
    assert 0 < res["expert_ms_per_move_mean"] <= res["expert_ms_per_move_max"]


def test_bench_times_the_v1_expert_beside_the_tier():
    from boardlab.experiments.citywright.bench import expert_figures

    res = expert_figures(
        load_rules("v1.1"), spec="flatmc:budget=2,k=2", games=2, before="flatmc:budget=4,k=3", rounds=1
    )
    assert set(res) == {
        "expert_ms_per_move_mean",
        "expert_ms_per_move_max",
        "expert_v1_ms_per_move_mean",
        "expert_v1_ms_per_move_max",
        "expert_vs_v1",
    }
    assert 0 < res["expert_v1_ms_per_move_mean"] <= res["expert_v1_ms_per_move_max"]
    ratio = res["expert_ms_per_move_mean"] / res["expert_v1_ms_per_move_mean"]
    assert res["expert_vs_v1"] == round(ratio, 3)


def test_the_margin_reward_never_sees_compensation():
    """Play does not depend on compensation (the margin is of board points), so seat tables of expert games
    re-ranked under another vector are exact: the same seeds give the same boards under v1.1's vector and none."""
    from boardlab.agents.citywright.play import run_games

    rules = load_rules("v1.1")
    none = rules.with_overrides({f"game.compensation.{n}": [0] * n for n in (2, 3, 4)})
    # (the first set's two games changed when the reward still counted compensation)
    for players, specs in ((4, ["expert", "greedy", "expert-specialist:C", "strong"]),
                           (3, ["flatmc:budget=6,k=3", "greedy", "expert-specialist:P,budget=4,k=2"]),
                           (2, ["flatmc:budget=6,k=3,turns=-1,horizon=1,leaf=points", "strong"])):  # fmt: skip
        prms = np.tile(rows([parse_agent(s) for s in specs]), (2, 1, 1))
        seeds = np.arange(2, dtype=np.uint64) + (117 if players == 4 else 50)
        with_comp = run_games(seeds, prms, tables_for(rules, players))[1]
        without = run_games(seeds, prms, tables_for(none, players))[1]
        assert rules.data["game"]["compensation"][str(players)] != [0] * players
        np.testing.assert_array_equal(with_comp, without)
