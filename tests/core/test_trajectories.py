"""Trajectories of games played through the public API (the generic chunk player asked for them) and the generic
balance report built on them (``boardlab reproduce --game pig``)."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

import boardlab.sim.games as G
from boardlab.experiments import anatomy as A
from boardlab.experiments import anatomy_report as R
from boardlab.experiments.play import play_table, play_tables
from tests.cli import cli


def _agents(*specs):
    reg = G.get_game("pig").agents()
    return [reg.parse_agent(s) for s in specs]


@pytest.fixture(scope="module")
def pig3():
    g = G.get_game("pig")
    return g, play_tables(g, g.load_rules("quick"), 3, _agents("random", "random", "ismcts:iters=2"), "rotate", 4, 2, 9)


def test_the_trajectory_follows_every_move_and_ends_on_the_final_scores(pig3):
    g, (results, steps) = pig3
    res, trj = results.to_pandas(), steps.to_pandas()
    assert sorted(set(trj.game)) == list(range(2, 9))
    # the same rows as the chunk player without trajectories
    assert results.equals(play_table(g, g.load_rules("quick"), 3, _agents("random", "random", "ismcts:iters=2"),
                                     "rotate", 4, 2, 9))  # fmt: skip
    for game, part in trj.groupby("game"):
        final = res[res.game == game].sort_values("seat")["total"].tolist()
        assert part["progress"].iloc[-1].tolist() == final
        assert part["step"].tolist() == list(range(1, len(part) + 1))
        # a turn opens with the one legal move (roll), then roll or hold
        opens = part["seat"].ne(part["seat"].shift())
        assert (part.loc[opens, "legal"] == 1).all() and set(part["legal"]) == {1, 2}
        assert not part["capped"].any()
        # points are banked only when their seat holds
        for prev, row in zip(part.itertuples(), part.iloc[1:].itertuples(), strict=False):
            changed = [i + 1 for i, (a, b) in enumerate(zip(prev.progress, row.progress, strict=True)) if a != b]
            assert changed in ([], [row.seat])


def test_a_capped_game_says_so(tmp_path):
    g = G.get_game("pig")
    rules = g.load_rules("quick").with_overrides({"game.max_rounds": 2})
    _, steps = play_tables(g, rules, 2, _agents("random", "random"), "fixed", 1, 0, 4)
    assert steps.to_pandas().groupby("game")["capped"].all().all()


def test_trajectories_from_the_tables(pig3):
    _, (results, steps) = pig3
    res, trj = results.to_pandas(), steps.to_pandas()
    games = A.from_tables(res, trj)
    assert len(games) == 7
    t = games[0]
    part = trj[trj.game == 2]
    assert t.scores.shape == (len(part), 3) and t.steps == len(part)
    assert t.ranks.tolist() == res[res.game == 2].sort_values("seat")["rank"].tolist()
    assert A.turns(t) == int(part["seat"].ne(part["seat"].shift()).sum())
    assert A.decisions(t) == len(part) and A.real_decisions(t) == int((part["legal"] > 1).sum())
    assert A.winner(t) == int(res[(res.game == 2) & (res["rank"] == 1)]["seat"].iloc[0]) - 1


def test_a_game_without_progress_records_no_trajectory(monkeypatch):
    pig = G.get_game("pig")
    base = type(pig.new_game(2, pig.load_rules("quick"), 0))

    class Silent(base):
        progress = None

    gd = dataclasses.replace(pig, id="silent-pig", new_game=Silent)
    monkeypatch.setitem(G._GAMES, "silent-pig", gd)
    with pytest.raises(ValueError, match="silent-pig declares no progress"):
        play_tables(gd, pig.load_rules("quick"), 2, _agents("random", "random"), "fixed", 0, 0, 2)
    assert gd.score_direction == "higher"


def test_reproduce_pig_writes_the_generic_report(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(R, "GENERIC_TIERS", {"random": "random", "ismcts-1": "ismcts:iters=1"})
    monkeypatch.chdir(tmp_path)
    args = ["reproduce", "--game", "pig", "--games", 20, "--out", tmp_path / "rep", "--work", tmp_path / "w",
            "--jobs", 1, "--quiet"]  # fmt: skip
    code, _out, err = cli(capsys, *args)
    assert code == 0, err
    rep = tmp_path / "rep"
    assert sorted(p.name for p in rep.iterdir()) == [
        "REPORT.md", "leader.png", "panel.csv", "restricted.csv", "seats.png", "skill.csv"
    ]  # fmt: skip
    text = (rep / "REPORT.md").read_text()
    restricted = pd.read_csv(rep / "restricted.csv")
    assert list(zip(restricted.tier, restricted.family, strict=True)) == [
        ("random", "roll"), ("random", "hold"), ("ismcts-1", "roll"), ("ismcts-1", "hold")
    ]  # fmt: skip
    assert "## Restricted play" in text and "| random | hold | 2 | 20 |" in text
    assert text.startswith("# Pig: balance report") and "### 2 players" in text and "### 3 players" in text
    panel = pd.read_csv(rep / "panel.csv")
    assert set(zip(panel.tier, panel.players, strict=True)) == {(t, p) for t in ("random", "ismcts-1") for p in (2, 3)}
    assert set(panel.section) == {"outcome", "duration", "branching", "trajectory"}
    half = panel[(panel.tier == "random") & (panel.players == 2) & (panel.figure == "winner = leader at 50%")]
    assert half["interval"].tolist() == ["wilson"] and 0 <= half["lo"].iloc[0] <= half["value"].iloc[0]
    skill = pd.read_csv(rep / "skill.csv")
    assert skill[["tier", "players", "games"]].values.tolist() == [["ismcts-1", 2, 20], ["ismcts-1", 3, 20]]
    # a second run reuses every run of the cache
    before = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "w").iterdir()}
    code, _out, err = cli(capsys, *args)
    assert code == 0 and {p.name: p.stat().st_mtime_ns for p in (tmp_path / "w").iterdir()} == before


def test_reproduce_refuses_a_game_without_report_or_progress(tmp_path, capsys, monkeypatch):
    pig = G.get_game("pig")
    base = type(pig.new_game(2, pig.load_rules("quick"), 0))

    class Silent(base):
        progress = None

    monkeypatch.setitem(G._GAMES, "silent-pig", dataclasses.replace(pig, id="silent-pig", new_game=Silent))
    monkeypatch.chdir(tmp_path)
    code, _out, err = cli(capsys, "reproduce", "--game", "silent-pig", "--games", 20, "--quiet")
    assert code == 2
    assert err.strip() == (
        "boardlab: error: --game: silent-pig has no report, and no generic one: its game declares no progress(player)"
    )
    assert not (tmp_path / "runs" / "silent-pig").exists() or not any((tmp_path / "runs" / "silent-pig").rglob("*.*"))


def test_trajectory_table_from_a_game_loops_arrays():
    """A recorded loop's arrays (entries past a game's decisions ignored) as the trajectory table, row by row."""
    import numpy as np

    from boardlab.experiments.play import TRAJECTORY_SCHEMA, trajectory_table

    seat = np.array([[0, 1, 9], [1, 0, 1]])
    legal = np.array([[3, 1, 9], [2, 2, 5]])
    progress = np.arange(18, dtype=float).reshape(2, 3, 3)
    kinds = np.array([[1, 0, 9], [0, 0, 1]])
    t = trajectory_table(7, np.array([2, 3]), seat, legal, progress, np.array([False, True]), kinds, ("a", "b"))
    assert t.schema == TRAJECTORY_SCHEMA
    assert t.to_pydict() == {
        "game": [7, 7, 8, 8, 8], "step": [1, 2, 1, 2, 3], "seat": [1, 2, 2, 1, 2], "legal": [3, 1, 2, 2, 5],
        "kind": ["b", "a", "a", "a", "b"],
        "progress": [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [9.0, 10.0, 11.0], [12.0, 13.0, 14.0], [15.0, 16.0, 17.0]],
        "capped": [False, False, True, True, True],
    }  # fmt: skip
    plain = trajectory_table(0, np.array([1, 0]), seat, legal, progress)
    assert plain.to_pydict()["kind"] == [""] and plain.to_pydict()["capped"] == [False] and len(plain) == 1
