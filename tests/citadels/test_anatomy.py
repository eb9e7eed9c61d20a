"""Citadels' running score (``Game.progress``, ``capped``, ``decision_kind``) and its game-anatomy trajectories."""

from __future__ import annotations

import pytest

from boardlab.sim.citadels import reference as R
from boardlab.sim.citadels.api import Game
from boardlab.sim.citadels.rules import load_rules


@pytest.mark.parametrize(("players", "seed"), [(2, 3), (4, 7), (6, 1)])
def test_progress_is_the_reference_score_after_every_decision_and_the_final_total_at_the_end(players, seed):
    ref = R.RefGame(players, "official", seed)
    player = R.reference_random_player(seed)
    g = Game(players, load_rules("official"), seed)
    kinds = set()
    while not ref.done:
        kinds.add(g.decision_kind())
        move = player(ref.legal_moves())
        g.apply(move)
        ref.apply(move)
        assert [g.progress(p) for p in range(players)] == [s["total"] for s in ref.scores()]
    assert g.done and g.capped() == ref.capped
    assert [g.progress(p) for p in range(players)] == [s["total"] for s in g.scores()]
    assert kinds <= {"select", "discard", "turn", "graveyard"} and {"select", "turn"} <= kinds


def test_a_game_ended_at_the_round_cap_says_so():
    rules = load_rules("official").with_overrides({"max_rounds": 2})
    g = Game(3, rules, 5)
    assert not g.capped()
    while not g.done:
        g.apply(g.random_move())
    assert g.capped() and g.round == 2
    assert [g.progress(p) for p in range(3)] == [s["total"] for s in g.scores()]


@pytest.mark.parametrize(
    ("players", "specs", "seating", "overrides"),
    [
        (2, ("basic", "random"), "rotate", {}),
        pytest.param(3, ("strong", "basic", "random"), "permute", {}, marks=pytest.mark.slow),
        (4, ("random",) * 4, "fixed", {"max_rounds": 3}),
    ],
)
def test_the_recorded_loop_gives_the_generic_players_trajectories_and_the_chunk_players_results(
    players, specs, seating, overrides
):
    """The built-in agents' recorded loop against the generic chunk player (the same agents, move by move through
    the public API): the same decisions (seat, kind, legal moves, every seat's progress, capped), and the chunk
    player's result table exactly."""
    from boardlab.experiments.citadels.recorded import trajectory_tables
    from boardlab.experiments.play import play_tables
    from boardlab.sim.games import get_game

    game = get_game("citadels")
    rules = load_rules("official").with_overrides(overrides) if overrides else load_rules("official")
    reg = game.agents()
    agents = [reg.parse_agent(s) for s in specs]
    results, steps = trajectory_tables(rules, players, agents, seating, 3, 1, 5)
    generic_results, generic_steps = play_tables(game, rules, players, agents, seating, 3, 1, 5)
    assert steps.equals(generic_steps)
    assert steps.column("capped").to_numpy().all() == bool(overrides)
    assert {"select", "turn"} <= set(steps.column("kind").to_pylist())
    assert results.equals(game.simulation.chunk_player.get()(rules, players, agents, seating, 3, 1, 5)())
    core = ["game", "seat", "agent", "total", "rank", "win_share"]
    assert results.select(core).to_pandas().equals(generic_results.select(core).to_pandas())


def test_reproduce_anatomy_writes_the_generic_report_through_the_recorded_loop(tmp_path, capsys, monkeypatch):
    """``reproduce --game citadels --anatomy`` at a tiny size, two cheap tiers: the panel per tier and player count,
    its trajectories the recorded loop's (the same as the generic chunk player's), a second run reusing every run."""
    import pandas as pd

    from boardlab.experiments import anatomy_report as AR
    from boardlab.experiments.play import play_tables
    from boardlab.sim.games import get_game
    from tests.cli import cli

    monkeypatch.setattr(AR, "tiers_of", lambda game: {"random": "random", "basic": "basic"})
    monkeypatch.chdir(tmp_path)
    args = ["reproduce", "--game", "citadels", "--anatomy", "--games", 20, "--out", tmp_path / "rep", "--work",
            tmp_path / "w", "--jobs", 1, "--quiet"]  # fmt: skip
    code, out, err = cli(capsys, *args)
    assert code == 0, err
    assert "the generic balance report of citadels" in out
    panel = pd.read_csv(tmp_path / "rep" / "panel.csv")
    assert set(zip(panel.tier, panel.players, strict=True)) == {(t, p) for t in ("random", "basic") for p in (2, 3)}
    kinds = set(panel[panel.figure.str.startswith("legal moves per decision: ")].figure)
    assert {"legal moves per decision: select", "legal moves per decision: turn"} <= kinds
    text = (tmp_path / "rep" / "REPORT.md").read_text()
    assert text.startswith("# Citadels: balance report") and "| basic | random | 2 | 20 |" in text
    [trj] = (tmp_path / "w").glob("basic-2p-*.trajectory.parquet")
    game = get_game("citadels")
    agents = [game.agents().parse_agent("basic")] * 2
    _, generic = play_tables(game, game.load_rules("official"), 2, agents, "rotate", 0, 0, 2)
    assert pd.read_parquet(trj).query("game < 2").reset_index(drop=True).equals(generic.to_pandas())
    before = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "w").iterdir()}
    code, _out, err = cli(capsys, *args)
    assert code == 0 and {p.name: p.stat().st_mtime_ns for p in (tmp_path / "w").iterdir()} == before


def test_reproduce_refuses_anatomy_with_skill(tmp_path, capsys, monkeypatch):
    from tests.cli import cli

    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, "reproduce", "--game", "citadels", "--anatomy", "--skill", "--games", 20)
    assert code == 2 and out == ""
    assert err.strip().endswith("error: --anatomy and --skill are two reports: give one")
    assert list(tmp_path.iterdir()) == []
