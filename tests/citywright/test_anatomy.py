"""Citywright's running score (``Game.progress``) and its game-anatomy trajectories."""

from __future__ import annotations

import pytest

from boardlab.sim.citywright.api import Game
from boardlab.sim.citywright.reference import RefGame
from boardlab.sim.citywright.rules import load_rules


@pytest.mark.parametrize(("players", "seed"), [(1, 3), (2, 11), (3, 5), (4, 8)])
def test_progress_is_the_reference_score_after_every_move_and_the_final_total_at_the_end(players, seed):
    rules = load_rules("v1.1")
    g, ref = Game(players, rules, seed), RefGame(players, rules, seed)
    while not g.done:
        m = g.random_move()
        ref.apply(m)
        g.apply(m)
        assert [g.progress(p) for p in range(players)] == [s["total"] for s in ref.scores()], f"after {m}"
    assert [g.progress(p) for p in range(players)] == [s["total"] for s in g.scores()]


def test_progress_of_a_planted_position():
    """Achievements off: a seat's points are its districts' plus its compensation (docs/games/citywright.md,
    section 6).  One residential cluster of 4 tiles scores 2 full pairs at 5 points each, a fifth tile in it no
    more, a second cluster of 1 tile 1 point per tile."""
    from boardlab.sim.citywright.api import board_from_string

    rules = load_rules("v1.1").with_overrides({"achievements.enabled": False})
    g = Game(2, rules, 0)
    comp = rules.compensation(2)
    assert [g.progress(p) for p in range(2)] == list(comp)
    for board, points in (("RRRR" + "." * 45, 10), ("RRRRR" + "." * 44, 10), ("RRRR.R" + "." * 43, 11)):
        g.boards[0] = board_from_string(board)
        assert g.progress(0) == points + comp[0], board
        assert g.progress(1) == comp[1]


def test_progress_refuses_a_seat_out_of_range():
    with pytest.raises(ValueError, match="player must be a seat"):
        Game(2, "v1.1", 0).progress(2)


def _agents(*specs):
    from boardlab.sim.games import get_game

    reg = get_game("citywright").agents()
    return [reg.parse_agent(s) for s in specs]


@pytest.mark.parametrize(
    ("players", "specs", "seating"),
    [
        pytest.param(
            2, ("greedy", "random"), "rotate", marks=pytest.mark.slow
        ),  # the listing: ~37,000 moves a decision
        pytest.param(3, ("strong:k=3", "greedy", "random"), "permute", marks=pytest.mark.slow),
        (1, ("greedy",), "fixed"),
    ],
)
def test_the_recorded_loop_gives_the_generic_players_trajectories_and_the_chunk_players_results(
    players, specs, seating
):
    """The built-in agents' recorded loop against the generic chunk player (the same agents, move by move through
    the public API): the same decisions (seat, legal moves, every seat's progress), and the chunk player's result
    table exactly."""
    from boardlab.experiments.citywright.recorded import trajectory_tables
    from boardlab.experiments.play import play_tables
    from boardlab.sim.games import get_game

    game, rules = get_game("citywright"), load_rules("v1.1")
    agents = _agents(*specs)
    stop = 5 if players == 1 else 9  # the generic player lists every legal move in Python: two solo games
    results, steps = trajectory_tables(rules, players, agents, seating, 7, 3, stop)
    generic_results, generic_steps = play_tables(game, rules, players, agents, seating, 7, 3, stop)
    assert steps.equals(generic_steps)
    assert len(steps) > (stop - 3) * players * 8 and steps.column("legal").to_numpy().min() >= 1
    assert results.equals(game.simulation.chunk_player.get()(rules, players, agents, seating, 7, 3, stop)())
    core = ["game", "seat", "agent", "total", "rank", "win_share"]
    assert results.select(core).to_pandas().equals(generic_results.select(core).to_pandas())


@pytest.mark.parametrize(
    "overrides",
    [
        pytest.param({}, marks=pytest.mark.slow),
        pytest.param({"game.market_depletes": True}, marks=pytest.mark.slow),
        pytest.param({"game.market_depletes": True, "game.swap_requires_empty_cell": False}, marks=pytest.mark.slow),
    ],
)
def test_legal_count_is_the_length_of_the_listing(overrides):
    """The recorded loop's count of legal moves is len(Game.legal_moves()) at every decision of random games, at
    every player count, under a depleting market (free picks and line tiles gone) and a swap without empty cells."""
    from boardlab.agents.citywright.recorded import legal_count

    rules = load_rules("v1.1").with_overrides(overrides) if overrides else load_rules("v1.1")
    for players, seed in ((1, 2), (2, 6), (3, 1), (4, 9)):
        g = Game(players, rules, seed)
        tb = g.tables
        while not g.done:
            assert legal_count(g.boards, g.st, tb.rp, tb.shp, tb.pl_mask) == len(g.legal_moves())
            g.apply(g.random_move())
        assert legal_count(g.boards, g.st, tb.rp, tb.shp, tb.pl_mask) == 0
