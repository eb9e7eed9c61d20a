"""Cartographers' running score (``Game.progress``, ``decision_kind``) and its game-anatomy trajectories."""

from __future__ import annotations

import pytest

from boardlab.sim.cartographers.api import Game
from boardlab.sim.cartographers.reference import RefGame
from boardlab.sim.cartographers.rules import load_rules


@pytest.mark.parametrize(("players", "seed"), [(1, 4), (2, 9), (4, 2)])
def test_progress_is_seasons_scored_plus_coins_held_and_the_final_total_at_the_end(players, seed):
    """Against the reference: after every decision, a seat's progress is its scored seasons' totals plus, while a
    season is under way, the coins it holds; between two scorings it moves exactly as its coins do."""
    rules = load_rules("base-a")
    g, ref = Game(players, rules, seed), RefGame(players, rules, seed)
    kinds = set()
    scorings = 0
    while not g.done:
        kinds.add(g.decision_kind())
        before = [g.progress(p) for p in range(players)]
        coins_before, scored_before = list(ref.coins), len(ref.records[0])
        m = g.random_move()
        g.apply(m)
        ref.apply(m)
        now = [g.progress(p) for p in range(players)]
        seasons = [sum(r["total"] for r in ref.records[p]) for p in range(players)]
        assert now == [s + (0 if ref.done else c) for s, c in zip(seasons, ref.coins, strict=True)], f"after {m}"
        if len(ref.records[0]) == scored_before:  # no season scored: only coins moved the points
            assert [a - b for a, b in zip(now, before, strict=True)] == [
                c - d for c, d in zip(ref.coins, coins_before, strict=True)
            ]
        else:
            scorings += 1
    assert scorings == 4
    assert [g.progress(p) for p in range(players)] == [s["total"] for s in g.scores()]
    assert kinds <= {"draw", "monster"} and "draw" in kinds


def test_progress_refuses_a_seat_out_of_range():
    with pytest.raises(ValueError, match="player must be a seat"):
        Game(2, "base-a", 0).progress(-1)


@pytest.mark.parametrize(
    ("players", "specs", "seating"),
    [
        (2, ("greedy", "random"), "rotate"),
        pytest.param(3, ("planner", "greedy", "random"), "permute", marks=pytest.mark.slow),
        (1, ("random",), "fixed"),
    ],
)
def test_the_recorded_loop_gives_the_generic_players_trajectories_and_the_chunk_players_results(
    players, specs, seating
):
    """The built-in agents' recorded loop against the generic chunk player (the same agents, move by move through
    the public API): the same decisions (seat, kind, legal moves, every seat's progress), and the chunk player's
    result table exactly."""
    from boardlab.experiments.cartographers.recorded import trajectory_tables
    from boardlab.experiments.play import play_tables
    from boardlab.sim.games import get_game

    game, rules = get_game("cartographers"), load_rules("base-a")
    reg = game.agents()
    agents = [reg.parse_agent(s) for s in specs]
    results, steps = trajectory_tables(rules, players, agents, seating, 5, 2, 6)
    generic_results, generic_steps = play_tables(game, rules, players, agents, seating, 5, 2, 6)
    assert steps.equals(generic_steps)
    assert set(steps.column("kind").to_pylist()) == {"draw", "monster"} or players == 1
    assert results.equals(game.simulation.chunk_player.get()(rules, players, agents, seating, 5, 2, 6)())
    core = ["game", "seat", "agent", "total", "rank", "win_share"]
    assert results.select(core).to_pandas().equals(generic_results.select(core).to_pandas())


def test_restricted_play_falls_back_to_random_when_no_tier_has_a_specialist():
    from boardlab.experiments import anatomy_report as AR
    from boardlab.sim.games import get_game

    g = get_game("cartographers")
    runs = [r for r in AR.plan(g, 200) if r.kind == "restricted"]
    assert [(r.tier, r.family, r.agents, r.games) for r in runs] == [
        ("random", f, (f"random-prefers:{f}", "random"), 200) for f in ("forest", "village", "farm", "water")
    ]
