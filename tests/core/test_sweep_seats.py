"""sweep reports per-seat win shares beside per-agent ones; ladder's default player counts come from the game."""

from __future__ import annotations

import dataclasses
import json

import pandas as pd
import pytest

import boardlab.sim.games as G
from boardlab.experiments.ladder import default_player_counts
from tests.cli import cli


@pytest.mark.parametrize(
    ("players", "counts"),
    [((1, 4), [2, 4]), ((2, 6), [2, 4]), ((3, 7), [3, 4]), ((5, 7), [5]), ((2, 2), [2]), ((1, 3), [2, 3]),
     ((1, 1), [])],
)  # fmt: skip
def test_ladder_default_counts_come_from_the_game(players, counts):
    assert default_player_counts(players) == counts


def test_sweep_writes_seat_win_shares(tmp_path, capsys):
    code, out, err = cli(
        capsys, "sweep", "--game", "pig", "--param", "game.target", "--values", "20,40", "--players", 2, "--agents",
        "random", "--games", 12, "--out", tmp_path / "sw", "--quiet",
    )  # fmt: skip
    assert code == 0, err
    assert "Win share per seat (%, 95% Wilson), 2 players:" in out
    seats = pd.read_csv(tmp_path / "sw" / "sweep_seats.csv")
    assert seats[["value", "seat", "n"]].values.tolist() == [[20, 1, 12], [20, 2, 12], [40, 1, 12], [40, 2, 12]]
    assert seats.groupby("value")["win_pct"].sum().tolist() == pytest.approx([100.0, 100.0])
    runs = sorted((tmp_path / "sw" / "runs").glob("*.parquet"))
    df = pd.read_parquet(runs[0])
    assert seats["win_pct"].iloc[0] == pytest.approx(100 * df[df.seat == 1].win_share.mean(), abs=0.01)  # 4 digits
    agents = pd.read_csv(tmp_path / "sw" / "sweep.csv")
    assert agents["win_pct"].tolist() == pytest.approx([50.0, 50.0])  # one agent in every seat


def test_ladder_plays_the_games_counts_by_default(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(G._GAMES, "pig37", dataclasses.replace(G.get_game("pig"), id="pig37", players=(3, 6)))
    code, _out, err = cli(
        capsys, "ladder", "--game", "pig37", "--agents", "random", "--agents", "ismcts:iters=1", "--games", 6,
        "--out", tmp_path / "l", "--quiet",
    )  # fmt: skip
    assert code == 0, err
    about = next((tmp_path / "l").glob("*.json"))
    assert json.loads(about.read_text())["players"] == [3, 4]
