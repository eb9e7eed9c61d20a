"""Agents: registry, the exact greedy search against brute force, specialists, MCTS, Python agents."""

from __future__ import annotations

import random

import numpy as np
import pytest

from boardlab.agents.citywright import kernels as K
from boardlab.agents.citywright.play import run_games, search_move
from boardlab.agents.citywright.python import play_game
from boardlab.agents.citywright.registry import (
    AgentError,
    available_agents,
    parse_agent,
    parse_agents,
    rows,
    split_specs,
)
from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.api import Game
from boardlab.sim.citywright.rules import load_rules
from boardlab.sim.citywright.tables import tables_for

# --- registry ------------------------------------------------------------------


def test_every_agent_is_listed_with_its_parameters():
    names = [d.name for d in available_agents()]
    assert names[:4] == ["random", "greedy", "specialist", "mcts"]
    assert {"strong", "strong-specialist"} <= set(names)
    mcts = next(d for d in available_agents() if d.name == "mcts")
    assert {p.name for p in mcts.params} == {"iters", "k", "c", "rollout", "reward"}


@pytest.mark.parametrize(
    ("spec", "name", "params"),
    [
        ("random", "random", {}),
        ("greedy", "greedy", {}),
        ("specialist:C", "specialist", {"district": 1, "weight": 3.0, "progress": 0.5}),
        ("specialist:residential,weight=5", "specialist", {"district": 0, "weight": 5.0, "progress": 0.5}),
        (
            "mcts:iters=50,k=8,rollout=greedy",
            "mcts",
            {"iters": 50, "k": 8, "c": 0.4, "rollout": "greedy", "reward": "win"},
        ),
    ],
)
def test_specs_parse(spec, name, params):
    a = parse_agent(spec)
    assert a.name == name
    assert a.params == params
    assert parse_agent(str(a)) == a  # the canonical string parses back to the same agent


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("grredy", "valid: random, greedy, specialist, mcts"),
        ("strong:depth=2", "unknown parameter 'depth' (valid: k, weights)"),
        ("strong-specialist:k=3", "needs district"),
        ("specialist", "needs district"),
        ("specialist:X", "district must be one of"),
        ("mcts:iters=lots", "iters must be an integer"),
        ("mcts:depth=3", "unknown parameter 'depth' (valid: iters, k, c, rollout, reward)"),
        ("greedy:weight=2", "it takes no parameters"),
        ("mcts:rollout=smart", "rollout must be one of random, greedy"),
        ("mcts:iters=0", "iters must be in"),
    ],
)
def test_bad_specs_name_the_valid_choices(spec, fragment):
    with pytest.raises(AgentError, match=None) as e:
        parse_agent(spec)
    assert fragment in str(e.value)
    assert "\n" not in str(e.value)


def test_split_specs_and_seat_count():
    assert split_specs("specialist:C,weight=3,greedy,mcts:iters=10,k=4") == [
        "specialist:C,weight=3",
        "greedy",
        "mcts:iters=10,k=4",
    ]
    assert len(parse_agents("greedy", 4)) == 4
    with pytest.raises(AgentError, match="3 agents for 2 players"):
        parse_agents(["greedy", "random", "random"], 2)


def test_specialist_row_weights_its_district():
    r = parse_agent("specialist:P,weight=2,progress=0.25").row()
    assert list(r[K.P_W : K.P_W + 4]) == [1.0, 1.0, 3.0, 1.0]
    assert r[K.P_PROGRESS] == 0.25 and r[K.P_PROGRESS_DISTRICT] == 2


# --- the exact search against brute force ---------------------------------------------


def _random_position(rnd: random.Random, rules, players: int) -> Game:
    g = Game(players, rules, rnd.getrandbits(64))
    for _ in range(rnd.randrange(0, 12 * players)):
        g.apply(g.random_move())
    return g


RULE_SETS = {
    "v1.1": load_rules("v1.1"),
    "v1.0": load_rules("v1.0"),
    # board-decided achievements of every kind, so the bounds for them are exercised
    "board-achievements": load_rules("v1.1").with_overrides(
        {
            "achievements.cards.many_parks": {"kind": "district_count", "district": "P", "threshold": 6, "points": 5},
            "achievements.cards.full_row": {"kind": "full_line", "district": "any", "points": 3},
            "achievements.cards.full_house": {"kind": "no_empty", "points": 7},
            "achievements.cards.ells": {"kind": "shape_count", "shape": "L", "threshold": 2, "points": 2},
        }
    ),
}
AGENT_SPECS = ["greedy", "specialist:R", "specialist:C,weight=10,progress=2", "specialist:P", "specialist:I,weight=0"]


def _greedy_against_the_brute_force(seed, positions):
    rnd = random.Random(seed)
    checked = 0
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    while checked < positions:
        rules = RULE_SETS[rnd.choice(list(RULE_SETS))]
        g = _random_position(rnd, rules, rnd.randint(1, 4))
        if g.done:
            continue
        prm = parse_agent(rnd.choice(AGENT_SPECS)).row()
        tb = g.tables
        rng = g.rng.copy()
        fast = K.evaluator_move(g.boards, g.st, rng, mv, prm, tb.kernel_args())
        brute = K.brute_force_best(g.boards, g.st, prm, tb.kernel_args())
        assert fast == pytest.approx(brute), (rules.name, g.seed)
        # the move it returns is legal and worth exactly what it says
        move = g.decode(mv)
        assert g.is_legal(move), move
        p = g.current
        placed = g.st[E.ST_PLACED + 16 * p : E.ST_PLACED + 16 * (p + 1)].copy()
        before = K.objective(*g.boards[p], placed, prm, tb.rp, tb.ach)
        h = g.copy()
        h.apply(move)
        placed_after = h.st[E.ST_PLACED + 16 * p : E.ST_PLACED + 16 * (p + 1)].copy()
        after = K.objective(*h.boards[p], placed_after, prm, tb.rp, tb.ach)
        assert after - before == pytest.approx(fast), move
        checked += 1


def test_greedy_finds_the_brute_force_best_on_60_positions():
    _greedy_against_the_brute_force(2024, 60)  # 1,000 more with the slow tests


@pytest.mark.slow
def test_greedy_finds_the_brute_force_best_on_1000_more_positions():
    _greedy_against_the_brute_force(2025, 1000)


def test_greedy_swaps_only_in_two_player_games_and_does_swap_there():
    """The swap is one of greedy's candidates at two players (it uses it when nothing fits well) and never elsewhere."""
    from boardlab.agents.citywright.play import LOG_KIND

    for players in (2, 3):
        *_, log = _table(["greedy"] * players, players, 40, log_moves=True)
        swaps = int((log[:, :, LOG_KIND] == E.K_SWAP).sum())
        assert (swaps > 0) if players == 2 else (swaps == 0)


# --- behaviour of the agents in games -------------------------------------------------


def _table(specs, players, games, rules="v1.1", log_moves=False):
    rs = load_rules(rules)
    prms = np.tile(rows([parse_agent(s) for s in specs]), (games, 1, 1))
    return run_games(np.arange(games, dtype=np.uint64) + 1000, prms, tables_for(rs, players), log_moves=log_moves)


@pytest.mark.parametrize(("district", "col"), [("R", E.SC_R), ("C", E.SC_C), ("P", E.SC_P), ("I", E.SC_I)])
def test_specialist_scores_more_in_its_district_than_greedy(district, col):
    scores, *_ = _table([f"specialist:{district}", "greedy"], 2, 60)
    assert scores[:, 0, col].mean() > scores[:, 1, col].mean()


def test_batch_loop_equals_interactive_play():
    """play_games inside numba and the Python loop over the same kernels give the same game."""
    specs = ["greedy", "specialist:C", "random"]
    scores, boards, *_ = _table(specs, 3, 3)
    for g in range(3):
        game = play_game(specs, "v1.1", seed=1000 + g)
        assert [s["total"] for s in game.scores()] == list(scores[g, :, E.SC_TOTAL])
        assert all((game.boards[p] == boards[g, p]).all() for p in range(3))


def test_mcts_is_deterministic_and_legal():
    g = Game(2, "v1.1", 99)
    for _ in range(6):
        g.apply(g.random_move())
    prm = parse_agent("mcts:iters=200,k=8").row()
    tb = g.tables
    moves = []
    for _ in range(2):
        mv = np.zeros(E.MV_LEN, dtype=np.int32)
        it = search_move(g.boards, g.st, g.rng.copy(), mv, prm, tb.kernel_args())
        assert it == 200
        moves.append(g.decode(mv))
    assert moves[0] == moves[1]
    assert g.is_legal(moves[0])


# --- Python agents -------------------------------------------------------------------


class MostTiles:
    """The README's example: the listed move that puts the most tiles on the board."""

    def act(self, game, legal_moves, rng):
        def on_board(m):
            return sum(0 <= r < 7 and 0 <= c < 7 for r, c in m.cells)

        best = max(on_board(m) for m in legal_moves)
        choices = [m for m in legal_moves if on_board(m) == best]
        return choices[rng.integers(len(choices))]


def test_python_agent_plays_against_built_ins_reproducibly():
    a = play_game([MostTiles(), "greedy", "random"], "v1.1", seed=3)
    b = play_game([MostTiles(), "greedy", "random"], "v1.1", seed=3)
    assert a.done and a.snapshot() == b.snapshot()
    assert a.snapshot()["turns"] == [12, 12, 12]
    # it fills its board: far fewer empty cells than the random player
    s = a.scores()
    assert s[0]["empty"] < s[2]["empty"]


def test_python_agent_illegal_move_is_refused():
    from boardlab.sim.citywright.api import IllegalMove

    class Cheater:
        def act(self, game, legal_moves, rng):
            m = legal_moves[0]
            return m.__class__(**{**m.__dict__, "tiles": tuple("R" for _ in m.tiles)})

    with pytest.raises(IllegalMove):
        play_game([Cheater(), "random"], "v1.1", seed=1)


def test_a_tier_is_a_name_for_a_full_spec_and_results_store_both(monkeypatch, tmp_path):
    from boardlab.agents.citywright import registry as REG
    from boardlab.experiments import simulate as S
    from boardlab.sim.citywright.rules import load_rules

    monkeypatch.setitem(REG.TIERS, "steady", ("specialist:P,weight=2", "a test tier"))
    a = REG.parse_agent("steady")
    assert a.tier == "steady" and str(a) == "specialist:P,weight=2,progress=0.5"
    assert REG.split_specs("steady,greedy") == ["steady", "greedy"]
    with pytest.raises(REG.AgentError, match="a tier takes no parameters"):
        REG.parse_agent("steady:weight=3")
    spec = S.make_spec(2, ["steady", "greedy"], 4, 1, load_rules("v1.1"))
    meta = S.run(spec, tmp_path / "t.parquet")
    assert meta["agents"] == ["specialist:P,weight=2,progress=0.5", "greedy"]
    assert meta["agent_tiers"] == {"specialist:P,weight=2,progress=0.5": "steady"}
    assert set(S.read_metadata(tmp_path / "t.parquet")["agent_tiers"].values()) == {"steady"}


def test_the_game_loop_calls_the_searching_agents_through_their_addresses():
    """A table with a searching agent plays in play_games compiled for first-class function movers (never for a
    dispatcher argument, which would link the agent's kernel into the loop); an agent no seat plays is a stand-in
    of its type.  The evaluator agents' search is the last mover, at every table (a stand-in where no seat is
    greedy, a specialist, mcts or flatmc); every table's movers have one type, so the loop compiles once for a
    table of greedy players and a table with strong ones."""
    from numba import types

    from boardlab.agents.citywright import play as PL
    from boardlab.agents.citywright.kernels import evaluator_search
    from boardlab.agents.citywright.strong import strong_move

    tb = tables_for(load_rules(), 2)
    prm = rows([parse_agent("strong"), parse_agent("greedy")])[None]
    movers = PL.movers_for(prm, tb.kernel_args(), PL.default_bank())
    assert movers[1] is strong_move and movers[3] is evaluator_search
    assert all(isinstance(movers[i], types.WrapperAddressProtocol) for i in (0, 2))
    strong_alone = PL.movers_for(rows([parse_agent("strong")] * 2)[None], tb.kernel_args(), PL.default_bank())
    assert isinstance(strong_alone[3], types.WrapperAddressProtocol)
    _, strong_type = PL.movers_and_type(prm, tb.kernel_args(), PL.default_bank())
    for specs, evaluates in ((["specialist:R", "random"], True), (["random", "random"], False)):
        alone, alone_type = PL.movers_and_type(
            rows([parse_agent(s) for s in specs])[None], tb.kernel_args(), PL.default_bank()
        )
        assert len(alone) == 4 and (alone[3] is evaluator_search) == evaluates, specs
        assert all(isinstance(alone[i], types.WrapperAddressProtocol) for i in range(3)), specs
        assert alone_type == strong_type, specs
    scores, *_ = run_games(np.arange(1, dtype=np.uint64), prm, tb)
    assert scores[0, :, E.SC_TOTAL].min() > 0
    sigs = PL.play_games.signatures
    run_games(np.arange(1, dtype=np.uint64), rows([parse_agent("greedy"), parse_agent("random")])[None], tb)
    assert PL.play_games.signatures == sigs  # the greedy table plays in the loop the strong table compiled
    for sig in sigs:
        assert all(isinstance(m, types.FunctionType) for m in sig[-1])
        assert not any(isinstance(a, types.Dispatcher) for a in sig)


def test_the_per_move_player_and_the_recorded_loop_call_the_searching_agents_through_their_addresses():
    """The per-move player (registry.builtin_player, whose kernel is move_by_address) and the recorded loop are
    compiled for first-class function movers, never for a dispatcher argument; a strong seat plays the same game
    per move as in play_games."""
    from numba import types

    from boardlab.agents.citywright import play as PL
    from boardlab.agents.citywright import recorded as R

    specs = ["strong", "greedy"]
    scores, boards, *_ = _table(specs, 2, 1)
    game = play_game(specs, "v1.1", seed=1000)
    assert [s["total"] for s in game.scores()] == list(scores[0, :, E.SC_TOTAL])
    assert all((game.boards[p] == boards[0, p]).all() for p in range(2))
    from boardlab.experiments.citywright.recorded import trajectory_tables

    trajectory_tables(load_rules(), 2, [parse_agent(s) for s in specs], "fixed", 0, 0, 1)
    for kernel in (PL.move_by_address, R.play_recorded_games):
        assert kernel.signatures, kernel
        for sig in kernel.signatures:
            assert all(isinstance(m, types.FunctionType) for m in sig[-1])
            assert not any(isinstance(a, types.Dispatcher) for a in sig)


def test_citywright_play_game_takes_generic_and_user_specs():
    user = "py:tests.core.user_agents:Shuffler"
    a = play_game(["ismcts:iters=2", user, "greedy"], "v1.1", seed=3)
    b = play_game(["ismcts:iters=2", user, "greedy"], "v1.1", seed=3)
    assert a.done and a.snapshot() == b.snapshot()


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("mcts:c=nan", "mcts: c must be a finite number, got 'nan'"),
        ("specialist:C,weight=nan", "specialist: weight must be a finite number, got 'nan'"),
        ("specialist:C,weight=inf", "weight must be a finite number"),
        ("flatmc:taper=-inf", "taper must be a finite number"),
        ("greedy:", "greedy: nothing after ':'"),
        ("mcts:iters=10,", "mcts: empty parameter"),
        ("ismcts:rollout=greedy", "rollout must be one of random, uniform"),
    ],
)
def test_bad_values_are_one_line_errors_naming_the_parameter(spec, fragment):
    with pytest.raises(AgentError) as e:
        parse_agent(spec)
    assert fragment in str(e.value) and "\n" not in str(e.value)


def test_stored_spec_strings_print_as_they_always_have_and_floats_read_back_exactly():
    assert str(parse_agent("specialist:C,weight=3")) == "specialist:C,weight=3,progress=0.5"
    assert str(parse_agent("mcts:iters=200")) == "mcts:iters=200,k=24,c=0.4,rollout=random,reward=win"
    a = parse_agent("specialist:P,weight=3.14159265358979,progress=0.1")
    assert a.params["weight"] == 3.14159265358979 and parse_agent(str(a)) == a


def test_split_specs_keeps_a_python_agent_s_parameters_with_citywright_s_own():
    assert split_specs("py:tests.core.user_agents:FirstMove:pick=last,risk=0.5,greedy,mcts:k=4,iters=9") == [
        "py:tests.core.user_agents:FirstMove:pick=last,risk=0.5",
        "greedy",
        "mcts:k=4,iters=9",
    ]


def test_a_trailing_comma_after_a_citywright_agent_is_refused():
    with pytest.raises(AgentError, match="empty agent spec in 'greedy,'"):
        split_specs("greedy,")
