"""Cartographers' agents (boardlab/agents/cartographers/): the exact evaluator agents against the brute-force
oracle, determinism and legality, the ambush policies, and the registry."""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.agents.cartographers import kernels as K
from boardlab.agents.cartographers import oracle
from boardlab.agents.cartographers.play import choose_move, run_games
from boardlab.agents.cartographers.registry import AgentError, available_agents, parse_agent, rows, split_specs
from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.api import Game
from boardlab.sim.cartographers.rules import preset
from boardlab.sim.cartographers.tables import tables_for


def positions(n_games: int, every: int = 5, first_seed: int = 0):
    """Positions of random games at 1-5 players on both sides (every `every`-th decision, and every
    monster phase), as independent copies."""
    for seed in range(first_seed, first_seed + n_games):
        g = Game(1 + seed % 5, "base-b" if seed % 2 else "base-a", seed)
        step = 0
        while not g.done:
            if step % every == 2 or g.phase == "monster":
                yield g.copy()
            g.apply(g.random_move())
            step += 1


def agrees(g: Game, agent: str) -> bool:
    h = g.copy()
    fast = choose_move(h, parse_agent(agent).row())
    rng = g.rng.copy()
    slow = oracle.brute_force_best(g, agent, rng)
    assert (rng == h.rng).all(), "both draw one number"
    assert g.is_legal(fast)
    return fast == slow


def check_against_oracle(agent: str, n_positions: int, first_seed: int = 0):
    checked = monsters = 0
    for g in positions(10_000, first_seed=first_seed):
        assert agrees(g, agent), (agent, g.snapshot())
        checked += 1
        monsters += g.phase == "monster"
        if checked >= n_positions:
            break
    assert monsters >= n_positions // 20  # ambushes are among the positions


def test_greedy_equals_brute_force_on_150_positions():
    check_against_oracle("greedy", 150)  # 3,000 more with the slow tests


def test_planner_equals_brute_force():
    check_against_oracle("planner", 200, first_seed=1000)


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["greedy", "planner"])
def test_evaluators_equal_brute_force_on_3000_positions(agent):
    check_against_oracle(agent, 3000, first_seed=5000)


def kernel_values(g: Game, agent: str) -> tuple[list, list[int]]:
    """The kernels' own listing and values of every move (evaluate_moves with the agent's weights)."""
    rp, cards, forms, form_anchors, _, masks = g.tables.kernel_args()
    w = np.empty(K.W_LEN, dtype=np.int64)
    K.objective_weights(g.st, rp, int(parse_agent(agent).row()[K.P_CODE]), w)
    out = np.empty((E.MAX_MOVES, E.MV_LEN), dtype=np.int32)
    vals = np.empty(E.MAX_MOVES, dtype=np.int64)
    n = K.evaluate_moves(g.bb, g.st, rp, cards, forms, form_anchors, masks, w, 1, out, vals)
    return [g.decode(out[i]) for i in range(n)], [int(v) for v in vals[:n]]


def near_cap_positions(rules, players: int, seeds: range, set_coins: bool):
    """Positions whose target map holds cap - 1 or cap coins (copies), from random games under `rules`;
    with set_coins the target's coins are set to cap - 1 and cap in two copies of every decision."""
    cap = rules.coins["cap"]
    for seed in seeds:
        g = Game(players, rules, seed)
        step = 0
        while not g.done:
            if set_coins and step % 3 == 0:
                for coins in (cap - 1, cap):
                    h = g.copy()
                    h.st[E.ST_COINS + h.target] = coins
                    yield h
            elif not set_coins and g.snapshot()["coins"][g.target] >= cap - 1:
                yield g.copy()
            g.apply(g.random_move())
            step += 1


@pytest.mark.parametrize(
    "overrides, players, set_coins",
    [
        ({"coins.cap": 1}, 2, False),
        ({"coins.cap": 2, "coins.mountain_to_owner": False}, 3, False),
        ({}, 1, True),  # the default cap (14), the coins set next to it
    ],
)
@pytest.mark.parametrize("agent", ["greedy", "planner"])
def test_evaluators_equal_brute_force_at_the_coin_cap(agent, overrides, players, set_coins):
    """At or next to the coin cap (a small cap set by a variant, or coins set beside the default one),
    the kernels' value of every listed move is the oracle's (which recounts coins up to the cap), and the
    agents play the oracle's move; a move that would earn a coin past the cap is among them."""
    rules = preset("base-a").with_overrides(overrides)
    cap = rules.coins["cap"]
    checked = at_cap_gains = 0
    for g in near_cap_positions(rules, players, range(6), set_coins):
        moves, vals = kernel_values(g, agent)
        assert moves == g.legal_moves()
        _, expected = oracle.move_values(g, agent, moves)
        assert vals == expected, (agent, g.snapshot())
        assert agrees(g, agent), (agent, g.snapshot())
        checked += 1
        if g.snapshot()["coins"][g.target] == cap and g.current == g.target:
            at_cap_gains += any(g.coin_shape(m) for m in moves)
        if checked >= 60:
            break
    assert checked == 60 and at_cap_gains >= 10


def test_oracle_values_are_the_engine_season_score_for_greedy():
    """Greedy's objective is the season record the map would get: play a draw that ends the season
    (every seat greedy), and the record equals the oracle's value of the move."""
    checked = 0
    for seed in range(40):
        g = Game(2, "base-a", seed)
        prm = parse_agent("greedy").row()
        while not g.done:
            season = g.snapshot()["season"]
            seat = g.current
            last_of_season = g.phase == "draw"
            m = choose_move(g.copy(), prm)
            _, (v,) = oracle.move_values(g, "greedy", [m])
            g.apply(m)
            snap = g.snapshot()
            if last_of_season and len(snap["seasons"][seat]) > season and seat == g.players - 1:
                assert snap["seasons"][seat][season]["total"] == v
                checked += 1
                break
    assert checked == 40


@pytest.mark.parametrize("spec", ["greedy", "planner", "greedy:ambush=random", "planner:ambush=random"])
def test_deterministic_and_legal(spec):
    """Same seeds, same games (game loop run twice); the API game played with choose_move is legal move
    by move and ends with the game loop's scores."""
    tb = tables_for(Game(3, "base-b", 0).rules, 3)
    prm = rows([parse_agent(spec), parse_agent("random"), parse_agent(spec)])
    seeds = np.arange(6, dtype=np.uint64)
    a = run_games(seeds, np.tile(prm, (6, 1, 1)), tb)
    b = run_games(seeds, np.tile(prm, (6, 1, 1)), tb)
    for k in a:
        assert (a[k] == b[k]).all()
    for s in range(3):
        g = Game(3, "base-b", s)
        while not g.done:
            m = choose_move(g, prm[g.current])
            assert g.is_legal(m), m
            g.apply(m)
        assert [d["total"] for d in g.scores()] == list(a["scores"][s, :, -2])


def test_evaluators_beat_random():
    tb = tables_for(Game(4, "base-a", 0).rules, 4)
    seeds = np.arange(40, dtype=np.uint64)
    prm = rows([parse_agent("greedy"), parse_agent("planner"), parse_agent("random"), parse_agent("random")])
    sc = run_games(seeds, np.tile(prm, (40, 1, 1)), tb)["scores"][:, :, -2].mean(axis=0)
    assert sc[0] > sc[2] + 20 and sc[1] > sc[3] + 20


@pytest.mark.slow  # statistical
@pytest.mark.parametrize("agent", ["greedy", "planner"])
def test_adversarial_ambush_never_better_for_the_victim_than_random(agent):
    """At fixed monster-phase positions: the victim's value (the mover's objective) after the
    adversarial placement is at most its value after the random one, and strictly less somewhere."""
    adv, rnd = parse_agent(agent).row(), parse_agent(f"{agent}:ambush=random").row()
    strictly = checked = 0
    for g in positions(200, every=10**9):
        if g.phase != "monster":
            continue
        a = choose_move(g.copy(), adv)
        r = choose_move(g.copy(), rnd)
        _, (va, vr) = oracle.move_values(g, agent, [a, r])
        assert va <= vr, (a, r)
        assert va == min(oracle.move_values(g, agent)[1])
        strictly += va < vr
        checked += 1
    assert checked >= 50 and strictly >= checked // 2


def test_registry_lists_and_parses():
    names = [d.name for d in available_agents()]
    # ismcts: the generic search every game has
    assert names == ["random", "greedy", "planner", "strong", "expert", "ismcts", "random-prefers", "ismcts-prefers"]
    assert str(parse_agent("greedy")) == "greedy:ambush=adversarial"
    assert str(parse_agent("planner:ambush=random")) == "planner:ambush=random"
    assert split_specs("greedy,ambush=random,planner") == ["greedy:ambush=random", "planner"]
    for bad, words in (
        ("greedy:ambush=nice", "ambush must be one of adversarial, random"),
        ("greedy:depth=2", "unknown parameter 'depth'"),
        ("random:ambush=random", "it takes no parameters"),
        ("master", "unknown agent 'master'"),
    ):
        with pytest.raises(AgentError) as e:
            parse_agent(bad)
        assert words in str(e.value) and "\n" not in str(e.value)


def test_a_bad_value_is_a_one_line_error_naming_the_parameter():
    with pytest.raises(AgentError) as e:
        parse_agent("ismcts:c=NaN")
    assert "ismcts: c must be a finite number" in str(e.value) and "\n" not in str(e.value)


def test_stored_spec_strings_print_as_they_always_have():
    assert str(parse_agent("greedy")) == "greedy:ambush=adversarial"


def test_a_trailing_comma_after_a_cartographers_agent_is_refused():
    with pytest.raises(AgentError, match="empty agent spec in 'greedy,'"):
        split_specs("greedy,")
