"""Cartographers' `strong` agent (boardlab/agents/cartographers/strong.py, value.py, selfplay.py) and its training
(boardlab/experiments/cartographers/train.py): the features and the move against the slow oracle, every tier's
information, the coin cap, determinism, the registry and the weights."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from boardlab.agents.cartographers import kernels as K
from boardlab.agents.cartographers import oracle
from boardlab.agents.cartographers import strong as S
from boardlab.agents.cartographers import value as V
from boardlab.agents.cartographers.play import choose_move, run_games
from boardlab.agents.cartographers.registry import available_agents, builtin_player, parse_agent, rows
from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.api import Game
from boardlab.sim.cartographers.rules import preset
from boardlab.sim.cartographers.tables import tables_for
from boardlab.sim.rng import POLICY

TIERS = ("random", "greedy", "planner", "strong")
RNG = np.array([0x9E3779B97F4A7C15, 0xD1B54A32D192ED03], dtype=np.uint64)  # one fixed pair of streams


def positions(n_games: int, every: int = 4, first_seed: int = 0, agent: str = "planner"):
    """Positions (copies) of games at 1-5 players on both sides, played by `agent` in every seat (so maps fill
    as they do in real play): every `every`-th decision and every monster phase."""
    for seed in range(first_seed, first_seed + n_games):
        g = Game(1 + seed % 5, "base-b" if seed % 2 else "base-a", seed)
        row = parse_agent(agent).row()
        step = 0
        while not g.done:
            if step % every == 1 or g.phase == "monster":
                yield g.copy()
            g.apply(choose_move(g, row))
            step += 1


def kernel_features(g: Game, m) -> tuple[np.ndarray, int]:
    """The kernel's map after move m (value.map_features of it) and its coins."""
    tb = g.tables
    rp, cards, forms, _, _, masks = tb.kernel_args()
    mv = g._encode(m).copy()
    pl = np.zeros((E.N_PLANES, 2), dtype=np.uint64)
    coins = int(S.map_after(g.bb, g.st, rp, cards, forms, masks, mv, pl))
    w = np.zeros(K.W_LEN, dtype=np.int64)
    K.objective_weights(g.st, rp, K.A_PLANNER, w)
    f = np.zeros(V.N_FEATURES, dtype=np.float64)
    V.map_features(pl, coins, w, g.st, rp, masks, f)
    return f, coins


# --- the features and the move against the oracle ------------------------------------------------------------


def test_features_equal_the_slow_oracle_on_many_maps():
    """value.map_features (bitboards) equals oracle.strong_features (cell by cell, from the module doc) on the
    map after two legal moves of each of 600 positions; every feature is non-zero somewhere."""
    rng = np.random.default_rng(3)
    nonzero = np.zeros(V.N_FEATURES, dtype=int)
    checked = 0
    for g in positions(200, every=8):
        moves = g.legal_moves()
        for i in rng.choice(len(moves), size=min(2, len(moves)), replace=False):
            f, coins = kernel_features(g, moves[i])
            grid, want_coins, paid = oracle.map_after(g, moves[i])
            assert coins == want_coins, (g.snapshot(), moves[i])
            want = oracle.strong_features(g, grid, want_coins, paid)
            assert f.tolist() == want, {V.FEATURES[j]: (f[j], want[j]) for j in range(V.N_FEATURES) if f[j] != want[j]}
            nonzero += f != 0
            checked += 1
        if checked >= 1200:
            break
    assert checked >= 1200
    never = [V.FEATURES[j] for j in range(V.N_FEATURES) if nonzero[j] == 0]
    assert not never, never


@pytest.mark.parametrize("spec", ["strong", "strong:k=3,margin=4", "strong:k=1,margin=0"])
def test_strong_plays_the_oracles_move(spec):
    """The kernel's move and its draws from the policy stream are the oracle's (oracle.strong_best: planner
    values from the public API, the slow features, the committed weights), draws and ambushes alike."""
    a = parse_agent(spec)
    row = a.row()
    checked = monsters = 0
    for g in positions(30, every=5, first_seed=100):
        h = g.copy()
        fast = choose_move(h, row)
        rng = g.rng.copy()
        slow = oracle.strong_best(g, rng, S.STRONG_WEIGHTS, a.params["k"], a.params["margin"])
        assert (rng == h.rng).all(), "the same draws"
        assert fast == slow and g.is_legal(fast), (spec, g.snapshot())
        checked += 1
        monsters += g.phase == "monster"
        if checked >= 120:
            break
    assert checked == 120 and monsters >= 6


# --- information: every tier's move depends only on what its seat sees ----------------------------------------


@pytest.mark.parametrize("spec", [*TIERS, "greedy:ambush=random", "strong:ambush=random"])
def test_every_tier_moves_the_same_in_two_redeals(spec):
    """Two redeals of a position for the deciding seat (the explore deck in another order, the unseen ambushes
    dealt anew between the deck and the ambush deck) have equal observations and, with the same policy
    stream, give the same move -- that of the true position with that stream.  Positions at 1-5 players,
    draws and monster phases; most redeal pairs do differ in what the seat cannot see."""
    row = parse_agent(spec).row()
    checked = differ = 0
    for g in positions(10, every=3, first_seed=300, agent="random"):
        p = g.current
        a, b = g.redeal(p, 11), g.redeal(p, 12)
        assert a.observation(p) == b.observation(p) == g.observation(p)
        sa, sb = a.snapshot(), b.snapshot()
        differ += (sa["deck"], sa["ambush_deck"]) != (sb["deck"], sb["ambush_deck"])
        moves, draws = [], []
        for h in (a, b, g.copy()):
            h.rng[:] = RNG
            moves.append(choose_move(h, row))
            draws.append(int(h.rng[POLICY]))
        assert moves[0] == moves[1] == moves[2], (spec, g.snapshot())
        assert draws[0] == draws[1] == draws[2]
        checked += 1
    assert checked > 100 and differ > checked // 2


# --- the coin cap ---------------------------------------------------------------------------------------------


def cap_positions(rules, players: int, seeds: range):
    """Positions of planner games under `rules` whose target map's coins are at the cap (copies)."""
    cap = rules.coins["cap"]
    row = parse_agent("planner").row()
    for seed in seeds:
        g = Game(players, rules, seed)
        while not g.done:
            if g.snapshot()["coins"][g.target] >= cap:
                yield g.copy()
            g.apply(choose_move(g, row))


@pytest.mark.parametrize("players", [1, 3])
def test_no_agent_values_a_coin_past_a_low_cap(players):
    """coins.cap = 2, reached early: at a full coin track a move that would earn a coin (a coin shape or a
    surrounded mountain) is worth exactly the same map without the coin, for the planner's kernel values
    (kernels.move_value, what greedy, planner and strong rank by) and strong's map after the move; the kernels'
    values equal the oracle's, which recounts coins up to the cap."""
    rules = preset("base-a").with_overrides({"coins.cap": 2})
    earning = checked = 0
    for g in cap_positions(rules, players, range(12)):
        tb = g.tables
        rp, cards, forms, form_anchors, _, masks = tb.kernel_args()
        moves = g.legal_moves()
        w = np.empty(K.W_LEN, dtype=np.int64)
        K.objective_weights(g.st, rp, K.A_PLANNER, w)
        out = np.empty((E.MAX_MOVES, E.MV_LEN), dtype=np.int32)
        vals = np.empty(E.MAX_MOVES, dtype=np.int64)
        n = K.evaluate_moves(g.bb, g.st, rp, cards, forms, form_anchors, masks, w, 1, out, vals)
        _, expected = oracle.move_values(g, "planner", moves)
        assert [int(v) for v in vals[:n]] == expected, g.snapshot()
        pl = np.zeros((E.N_PLANES, 2), dtype=np.uint64)
        paid0 = len(g.snapshot()["mountains_paid"][g.target])
        for i in range(n):
            _, coins, paid = oracle.map_after(g, moves[i])
            assert coins == 2
            assert S.map_after(g.bb, g.st, rp, cards, forms, masks, out[i], pl) == 2
            newly_paid = len(paid) > paid0
            earning += (g.coin_shape(moves[i]) and g.current == g.target) or newly_paid
        checked += 1
        if checked >= 40:
            break
    assert checked == 40 and earning >= 200, (checked, earning)


# --- determinism, the loop and the API -------------------------------------------------------------------------


def test_strong_is_deterministic_and_the_api_plays_the_loops_game():
    """Same seeds, same games (the loop twice); a game played move by move through the public API with
    builtin_player, strong beside planner and random, ends with the loop's scores."""
    tb = tables_for(preset("base-b"), 3)
    specs = [parse_agent("strong"), parse_agent("planner"), parse_agent("strong:k=4,ambush=random")]
    prm = rows(specs)
    seeds = np.arange(4, dtype=np.uint64)
    a = run_games(seeds, np.tile(prm, (4, 1, 1)), tb)
    b = run_games(seeds, np.tile(prm, (4, 1, 1)), tb)
    for key in a:
        assert (a[key] == b[key]).all()
    players = [builtin_player(s) for s in specs]
    for s in range(4):
        g = Game(3, "base-b", s)
        while not g.done:
            players[g.current](g)
        assert [d["total"] for d in g.scores()] == list(a["scores"][s, :, E.SC_TOTAL])


def test_strong_outscores_planner_at_one_table():
    """1 strong + 3 planner, 4 players, 60 games, seats rotated: strong's mean total is above the planners'."""
    tb = tables_for(preset("base-a"), 4)
    specs = [parse_agent("strong"), parse_agent("planner")]
    g = 60
    order = np.ones((g, 4), dtype=int)
    order[np.arange(g), np.arange(g) % 4] = 0
    sc = run_games(np.arange(7000, 7000 + g, dtype=np.uint64), rows(specs)[order], tb)["scores"][:, :, E.SC_TOTAL]
    mine = order == 0
    assert sc[mine].mean() > sc[~mine].mean() + 1.0, (sc[mine].mean(), sc[~mine].mean())


def test_registry_lists_strong_with_its_parameters():
    assert "strong" in [d.name for d in available_agents()]
    a = parse_agent("strong")
    assert str(a) == f"strong:ambush=adversarial,k={S.STRONG_K},margin={S.STRONG_MARGIN},weights={S.WEIGHTS_VERSION}"
    r = parse_agent("strong:k=7,margin=3,ambush=random").row()
    assert (r[K.P_CODE], r[K.P_K], r[K.P_MARGIN], r[K.P_AMBUSH]) == (K.A_STRONG, 7, 3, K.AMBUSH_RANDOM)


# --- the weights and their training -----------------------------------------------------------------------------


def test_committed_weights_name_the_command_that_made_them():
    meta = S.STRONG_WEIGHTS_META
    assert meta["version"] == S.WEIGHTS_VERSION and tuple(meta["features"]) == V.FEATURES
    assert meta["command"] == (
        f"boardlab train --game cartographers --seed {meta['seed']} --games {','.join(map(str, meta['games']))}"
        f" --k {meta['k']} --ridge {meta['ridge']:g}"
    )
    assert S.STRONG_WEIGHTS.shape == (V.BUCKETS, V.N_FEATURES) and np.abs(S.STRONG_WEIGHTS).sum() > 0


SMALL = {"seed": 5, "games": (30, 20), "k": 6, "ridge": 1e-3}
# sha256 of the weight file `boardlab train --game cartographers --seed 5 --games 30,20 --k 6` writes
SMALL_SHA256 = "d54e899469a0dc01721c3129d71746adc975a3756889348efe4c7ea79ad7b030"


@pytest.mark.slow  # a training run (compiles self-play)
def test_training_is_deterministic_and_matches_the_committed_small_run(tmp_path):
    """The same small run twice (in process, and through the CLI) writes the same bytes, those of the small
    reference run; another seed gives other weights."""
    from boardlab.experiments.cartographers import train as T
    from boardlab.experiments.cli import main

    out1 = tmp_path / "w1.json"
    content = T.TRAINING.train(SMALL["seed"], SMALL["games"], SMALL["k"], SMALL["ridge"])
    T.TRAINER.write(content, out1)
    args = ["train", "--game", "cartographers", "--seed", "5", "--games", "30,20", "--k", "6", "--quiet", "--out"]
    try:
        main([*args, str(tmp_path / "w2.json")])
    except SystemExit as e:
        assert not e.code
    text = out1.read_text()
    assert text == (tmp_path / "w2.json").read_text()
    assert hashlib.sha256(text.encode()).hexdigest() == SMALL_SHA256
    data = json.loads(text)
    assert data["command"] == "boardlab train --game cartographers --seed 5 --games 30,20 --k 6 --ridge 0.001"
    assert [r["agent"] for r in data["rounds"]] == ["planner", "strong:k=6"]
    assert V.load_weights(out1)[0].shape == (V.BUCKETS, V.N_FEATURES)
    assert T.TRAINING.train(6, SMALL["games"], SMALL["k"], SMALL["ridge"])["weights"] != content["weights"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--games", "10,x"], "--games: comma-separated numbers of games"),
        (["--games", "0"], "--games: one positive number of games per round"),
        (["--backend", "dask"], "--backend: Cartographers' training runs on local processes only"),
    ],
)
def test_train_errors_are_one_line(args, fragment, capsys, tmp_path):
    from boardlab.experiments.cli import main

    with pytest.raises(SystemExit) as e:
        main(["train", "--game", "cartographers", "--quiet", "--out", str(tmp_path / "w.json"), *args])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1, err
    assert not (tmp_path / "w.json").exists()
