"""The `strong` agent: its features against a naive oracle, its moves, its restriction, its training."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from boardlab.agents.citywright import kernels as K
from boardlab.agents.citywright import strong as S
from boardlab.agents.citywright import value as V
from boardlab.agents.citywright.registry import TIERS, parse_agent, rows
from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.api import Game
from boardlab.sim.citywright.rules import load_rules
from boardlab.sim.citywright.tables import MAX_SHAPES, tables_for

# --- the features, cell by cell ------------------------------------------------------------


def _cells(b) -> set[tuple[int, int]]:
    return {(i // 8, i % 8) for i in range(64) if (int(b) >> i) & 1}


def _nbrs(r, c):
    return [(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)) if 0 <= r + dr < 7 and 0 <= c + dc < 7]


def _clusters(cells):
    left, out = set(cells), []
    while left:
        stack, comp = [left.pop()], set()
        while stack:
            x = stack.pop()
            comp.add(x)
            for y in _nbrs(*x):
                if y in left:
                    left.remove(y)
                    stack.append(y)
        out.append(comp)
    return sorted(out, key=len, reverse=True)


def naive_features(boards, p, placed, rules, players) -> dict[str, float]:
    """FEATURES of seat p's board, from their definitions, one cell at a time."""
    from boardlab.sim.citywright.reference import score_board

    R, C, P, IND = (_cells(boards[p, d]) for d in range(4))
    board = {(r, c) for r in range(7) for c in range(7)}
    emp = board - R - C - P - IND
    f = dict.fromkeys(V.FEATURES, 0.0)
    f["bias"] = 1.0
    cl = _clusters(R)
    s1, s2 = (len(cl[0]) if cl else 0), (len(cl[1]) if len(cl) > 1 else 0)
    f.update(r_largest=s1, r_largest_odd=s1 % 2, r_second=s2, r_stray=len(R) - s1 - s2)
    f["r_room"] = max(
        (sum(1 for x in emp if any(y in big for y in _nbrs(*x))) for big in cl if len(big) == s1), default=0
    )
    n = len(C)
    f["c_count_15_plus" if n >= 15 else f"c_count_{n}"] = 1.0
    f["c_beyond"] = max(n - 15, 0)
    f["c_isolated"] = sum(1 for x in C if not any(y in C for y in _nbrs(*x)))
    f["c_iso_room"] = sum(1 for x in emp if not any(y in C for y in _nbrs(*x)))
    f["p_rows_open"] = sum(
        1 for r in range(7) if not any((r, c) in P for c in range(7)) and any((r, c) in emp for c in range(7))
    )
    f["p_cols_open"] = sum(
        1 for c in range(7) if not any((r, c) in P for r in range(7)) and any((r, c) in emp for r in range(7))
    )
    src = R | C  # v1.1: parks score next to residential or commercial
    f["p_lonely_room"] = sum(1 for x in P if not any(y in src for y in _nbrs(*x)) and any(y in emp for y in _nbrs(*x)))
    f["p_adj_room"] = sum(1 for x in emp if any(y in src for y in _nbrs(*x)))
    f["i_odd"] = len(IND) % 2
    f["i_ring_room"] = sum(1 for r, c in emp if r in (0, 6) or c in (0, 6))
    f["empty"] = len(emp)
    k = {x: sum(1 for y in _nbrs(*x) if y in emp) for x in emp}
    f["empty_holes"] = sum(1 for v in k.values() if v == 0)
    f["empty_dead_ends"] = sum(1 for v in k.values() if v == 1)
    f["empty_squares"] = sum(1 for r, c in emp if {(r + 1, c), (r, c + 1), (r + 1, c + 1)} <= emp)
    f["empty_lines"] = sum(1 for r, c in emp if {(r, c + 1), (r, c + 2), (r, c + 3)} <= emp) + sum(
        1 for r, c in emp if {(r + 1, c), (r + 2, c), (r + 3, c)} <= emp
    )
    # v1.1 cards: 6 distinct shapes, 4 of one shape, highest park score
    distinct = sum(1 for s in placed if s > 0)
    f[f"ach_distinct_missing_{min(max(6 - distinct, 0), 3)}"] = 1.0
    f[f"ach_same_missing_{min(max(4 - max(placed), 0), 2)}"] = 1.0

    def park(q):
        cells = "".join(
            "RCPI"[next(d for d in range(4) if (int(boards[q, d]) >> (8 * r + c)) & 1)]
            if any((int(boards[q, d]) >> (8 * r + c)) & 1 for d in range(4))
            else "."
            for r in range(7)
            for c in range(7)
        )
        return score_board(cells, rules)["park"]

    if players > 1:
        lead = park(p) - max(park(q) for q in range(players) if q != p)
        f["ach_highest_lead"] = min(max(lead, -10), 10)
        f["ach_highest_ahead"] = float(lead >= 0)
    return f


def _positions(n, seed, players=None):
    rnd = random.Random(seed)
    rules = load_rules("v1.1")
    out = []
    while len(out) < n:
        pl = players or rnd.randint(1, 4)
        g = Game(pl, rules, rnd.getrandbits(63))
        for _ in range(rnd.randrange(0, 12 * pl)):
            g.apply(g.random_move())
        if not g.done:
            out.append(g)
    return out


def test_features_match_their_definitions_on_random_boards():
    rules = load_rules("v1.1")
    f = np.zeros(V.N_FEATURES)
    opp = np.zeros(4, dtype=np.int64)
    for g in _positions(150, 11):
        tb = g.tables
        for p in range(g.players):
            placed = g.st[E.ST_PLACED + p * MAX_SHAPES : E.ST_PLACED + (p + 1) * MAX_SHAPES].copy()
            V.opponents_best(g.boards, p, tb.rp, opp)
            V.board_features(*g.boards[p], placed, opp, tb.rp, tb.ach, f)
            want = naive_features(g.boards, p, list(placed[: len(rules.shapes)]), rules, g.players)
            got = dict(zip(V.FEATURES, f, strict=True))
            assert got == pytest.approx(want), {k: (got[k], want[k]) for k in V.FEATURES if got[k] != want[k]}


# --- moves -----------------------------------------------------------------------------------


def _strong(g, prm, vw=None):
    tb = g.tables
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    rng = g.rng.copy()
    weights = S.readonly_weights(S.STRONG_WEIGHTS if vw is None else vw)
    S.strong_move(g.boards, g.st, rng, mv, prm, tb.kernel_args(), weights, False, S.new_ruler_memo(0, 1))
    return mv


def _k_best(g, prm, k, slot=None):
    """The k best moves by the agent's worth and their worths (of one slot's ruler alone, if given)."""
    tb = g.tables
    st = g.st.copy()
    if slot is not None:
        for s in range(20):
            if s != slot:
                st[E.ST_SLOTS + s] = -1
    cand = np.zeros((k, E.MV_LEN), dtype=np.int32)
    val = np.zeros(k)
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    _, n = K.evaluator_search(g.boards, st, g.rng.copy(), mv, prm, tb.kernel_args(), cand, val)
    return cand[:n], val[:n]


def _worth(g, mv, prm) -> float:
    """The move's worth under the agent's objective (value after - value before), by the oracle's objective."""
    p = g.current
    placed = g.st[E.ST_PLACED + p * MAX_SHAPES : E.ST_PLACED + (p + 1) * MAX_SHAPES].copy()
    before = K.objective(*g.boards[p], placed, prm, g.tables.rp, g.tables.ach)
    h = g.copy()
    h.apply(g.decode(mv))
    placed = h.st[E.ST_PLACED + p * MAX_SHAPES : E.ST_PLACED + (p + 1) * MAX_SHAPES].copy()
    return K.objective(*h.boards[p], placed, prm, g.tables.rp, g.tables.ach) - before


@pytest.mark.parametrize("spec", ["strong", "strong-specialist:C", "strong-specialist:P,weight=1,progress=0,k=5"])
def test_strong_plays_a_legal_move_among_its_rulers_k_best_by_its_worth(spec):
    """The restriction: whatever the learned value says, the move is one of the k best of its ruler by the
    agent's own worth (for a specialist, its tilted objective); it is legal, and the board it leads to is
    the one the re-ranking valued."""
    a = parse_agent(spec)
    prm = a.row()
    k = a.params["k"]
    for g in _positions(40, 12):
        mv = _strong(g, prm)
        move = g.decode(mv)
        assert g.is_legal(move), move
        if mv[E.MV_KIND] == E.K_PASS:
            continue
        _, vals = _k_best(g, prm, k, slot=int(mv[E.MV_SLOT]))
        assert _worth(g, mv, prm) >= vals[-1] - 1e-9, move
        p = g.current
        nb = np.zeros(4, dtype=np.uint64)
        placed = np.zeros(MAX_SHAPES, dtype=np.int32)
        S.board_after(g.boards, g.st, p, mv, g.tables.shp, g.tables.pl_info, nb, placed)
        h = g.copy()
        h.apply(move)
        assert (h.boards[p] == nb).all()
        assert (h.st[E.ST_PLACED + p * MAX_SHAPES : E.ST_PLACED + (p + 1) * MAX_SHAPES] == placed).all()


def test_with_zero_weights_strong_plays_a_move_worth_greedys_best():
    """The learned value only re-ranks: without it the move is worth what greedy's best move is worth."""
    prm = parse_agent("strong").row()
    zero = np.zeros_like(S.STRONG_WEIGHTS)
    for g in _positions(30, 13):
        mv = _strong(g, prm, zero)
        _, best = _k_best(g, prm, 1)
        assert _worth(g, mv, prm) == pytest.approx(best[0])


def test_strong_is_deterministic_given_the_seed():
    from boardlab.agents.citywright.play import run_games

    prms = np.tile(rows([parse_agent(s) for s in ("strong", "greedy", "strong-specialist:R")]), (3, 1, 1))
    tb = tables_for(load_rules("v1.1"), 3)
    a = run_games(np.arange(3, dtype=np.uint64), prms, tb, log_moves=True)
    b = run_games(np.arange(3, dtype=np.uint64), prms, tb, log_moves=True)
    assert all((x == y).all() for x, y in zip(a, b, strict=True))


# --- registry ----------------------------------------------------------------------------------


def test_strong_tier_is_the_full_spec_and_the_agent_takes_parameters():
    a = parse_agent("strong")
    assert a.tier == "strong" and str(a) == TIERS["strong"][0] == f"strong:k={S.STRONG_K},weights=auto"
    b = parse_agent("strong:k=8")
    assert b.tier == "" and b.params["k"] == 8
    assert parse_agent(str(a)) == parse_agent(TIERS["strong"][0])
    r = parse_agent("strong-specialist:I,weight=2").row()
    assert r[K.P_CODE] == K.A_STRONG and list(r[K.P_W : K.P_W + 4]) == [1.0, 1.0, 1.0, 3.0]
    assert r[K.P_PROGRESS_DISTRICT] == 3 and r[K.P_K] == S.STRONG_K
    assert parse_agent("strong").row()[K.P_PROGRESS_DISTRICT] == -1


# --- the strong-specialists in games --------------------------------------------------------


def _table(specs, players, games, seed=2000):
    from boardlab.agents.citywright.play import run_games

    prms = np.tile(rows([parse_agent(s) for s in specs]), (games, 1, 1))
    return run_games(np.arange(games, dtype=np.uint64) + seed, prms, tables_for(load_rules("v1.1"), players))


@pytest.mark.parametrize(("district", "col"), [("R", E.SC_R), ("C", E.SC_C), ("P", E.SC_P), ("I", E.SC_I)])
def test_strong_specialist_scores_more_in_its_district_than_strong(district, col):
    scores, *_ = _table([f"strong-specialist:{district}", "strong"], 2, 40)
    assert scores[:, 0, col].mean() > scores[:, 1, col].mean()


# --- the weights -------------------------------------------------------------------------------


def test_committed_weights_name_the_command_that_made_them():
    meta = S.STRONG_WEIGHTS_META
    assert meta["version"] == S.WEIGHTS_VERSION
    assert meta["command"].startswith(f"citywright train --seed {meta['seed']} --games ")
    assert tuple(meta["features"]) == V.FEATURES
    assert meta["games"] == [int(x) for x in meta["command"].split("--games ")[1].split()[0].split(",")]


SMALL = {"seed": 5, "games": (24, 16), "k": 4, "ridge": 1e-3}


@pytest.mark.slow  # a training run (compiles self-play)
def test_training_is_deterministic_and_matches_the_committed_small_run(tmp_path):
    """A small `citywright train` gives, byte for byte, the committed small reference, on 1 and 2 processes."""
    from boardlab.experiments.citywright import train as T
    from boardlab.experiments.cli import main

    ref = (__import__("pathlib").Path(__file__).parent / "data" / "strong-small.json").read_text()
    out1 = tmp_path / "w1.json"
    T.TRAINER.write(T.TRAINING.train(SMALL["seed"], SMALL["games"], SMALL["k"], SMALL["ridge"], jobs=1), out1)
    args = ["train", "--seed", "5", "--games", "24,16", "--k", "4", "--jobs", "2", "--quiet", "--out"]
    try:
        main([*args, str(tmp_path / "w2.json")])
    except SystemExit as e:
        assert not e.code
    assert out1.read_text() == (tmp_path / "w2.json").read_text() == ref
    assert json.loads(ref)["command"] == "citywright train --seed 5 --games 24,16 --k 4 --ridge 0.001"


# --- strength ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_strong_beats_three_greedy_players():
    """1 strong + 3 greedy at 4 players, seats rotated: strong's win share interval is above the fair 25%."""
    from boardlab.sim.stats import wilson

    games = 200
    wins = 0.0
    for seat in range(4):
        specs = ["greedy"] * 4
        specs[seat] = "strong"
        scores, *_ = _table(specs, 4, games // 4, seed=7000 + 100 * seat)
        rank1 = scores[:, :, E.SC_RANK] == 1
        wins += (rank1[:, seat] / rank1.sum(axis=1)).sum()
    lo, _ = wilson(wins, games)
    assert lo > 0.25, (wins / games, lo)


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--games", "10,x"], "--games: comma-separated numbers of games"),
        (["--games", "0"], "--games: one positive number of games per round"),
        (["--out", "/no/such/dir/w.json"], "--out: directory /no/such/dir does not exist"),
    ],
)
def test_train_errors_are_one_line(args, fragment, capsys):
    from boardlab.experiments.cli import main

    with pytest.raises(SystemExit) as e:
        main(["train", "--quiet", *args])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1
