"""`boardlab summary` for any game: win shares per agent, seat and player count with Wilson intervals, score
distributions, ties and the game's own columns, on small runs of Pig (and one of Hearts-lite, a second game)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from boardlab.experiments import simulate as S
from boardlab.experiments import summary as M
from boardlab.sim.games import get_game
from tests.cli import cli


def _pig_run(path, players=3, agents=("random",), games=60, seed=5, seating="rotate"):
    g = get_game("pig")
    S.run(S.make_spec(players, list(agents), games, seed, g.load_rules("quick"), seating, game="pig"), path)
    return path


@pytest.fixture(scope="module")
def pig_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("pig")
    return _pig_run(d / "p3.parquet"), _pig_run(
        d / "p2.parquet", players=2, agents=("random", "ismcts:iters=4"), games=40
    )


def _wilson(k, n):
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return lo, hi


def test_pig_tables_match_a_count_by_hand(pig_files):
    p3, p2 = pig_files
    gid, games, t = M.read_summary([p3, p2])
    assert (gid, games) == ("pig", 100)
    df = pd.concat([pd.read_parquet(p3), pd.read_parquet(p2)])
    # per seat: the sum of win shares of that seat over its games, and statsmodels' Wilson interval
    for r in t["seats"].itertuples():
        rows = df[(df.players == r.players) & (df.seat == r.seat)]
        assert r.n == len(rows) == (60 if r.players == 3 else 40)
        assert r.win_share == pytest.approx(rows.win_share.sum() / len(rows))
        assert (r.lo, r.hi) == pytest.approx(_wilson(rows.win_share.sum(), len(rows)))
        assert r.deviation == pytest.approx(r.win_share - 1 / r.players)
    assert sorted(t["seats"].groupby("players").size().items()) == [(2, 2), (3, 3)]
    # per agent, at two players: one agent per seat
    two = t["agents"][t["agents"].players == 2].set_index("agent")
    assert sorted(two.index) == ["ismcts:iters=4,ms=0,c=0.7,rollout=random,reward=auto", "random"]
    for agent in two.index:
        rows = df[(df.players == 2) & (df.agent == agent)]
        assert two.loc[agent, "n"] == 40 and two.loc[agent, "win_share"] == pytest.approx(rows.win_share.mean())
    assert two["win_share"].sum() == pytest.approx(1.0)
    # score quantiles per (players, agent)
    s = t["scores"].set_index(["players", "agent"]).loc[(3, "random")]
    totals = df[df.players == 3].total
    assert s["n"] == 180 and s["mean"] == pytest.approx(totals.mean()) and s["sd"] == pytest.approx(totals.std())
    assert (s["min"], s["q50"], s["q90"], s["max"]) == pytest.approx(
        (totals.min(), totals.quantile(0.5), totals.quantile(0.9), totals.max())
    )
    # the game's own columns, in its schema's order, and only numeric ones
    assert list(dict.fromkeys(t["columns"]["column"])) == ["start_points", "turns", "rolls", "busts", "holds"]
    rolls = t["columns"].set_index(["players", "agent", "column"]).loc[(2, "random", "rolls")]
    assert rolls["mean"] == pytest.approx(df[(df.players == 2) & (df.agent == "random")].rolls.mean())


def test_ties_count_games_with_a_shared_win(pig_files):
    df = pd.read_parquet(pig_files[0]).assign(run_id="r")
    df["rank"] = df["rank"].astype(np.int64)
    # plant a shared win in games 0 and 1: seats 1 and 2 both rank 1, halving their shares
    for game in (0, 1):
        m = df.game == game
        df.loc[m, "rank"] = [1, 1, 3]
        df.loc[m, "win_share"] = [0.5, 0.5, 0.0]
    p = M.summarise(df)["players"].iloc[0]
    assert (p["games"], p["ties"]) == (60, 2)
    assert p["tie_share"] == pytest.approx(2 / 60)
    assert (p["lo"], p["hi"]) == pytest.approx(_wilson(2, 60))


def test_a_table_of_broken_games_is_refused(pig_files):
    df = pd.read_parquet(pig_files[0]).assign(run_id="r")
    with pytest.raises(M.SummaryError, match=r"game 0 of run r does not hold seats 1\.\.3 once each"):
        M.summarise(df[~((df.game == 0) & (df.seat == 2))])
    with pytest.raises(M.SummaryError, match="has no rank column"):
        M.summarise(df.drop(columns="rank"))
    with pytest.raises(M.SummaryError, match="missing values in total"):
        M.summarise(df.assign(total=np.where(df.game == 3, np.nan, df.total)))


def test_the_command_prints_markdown_json_and_writes_csv(pig_files, tmp_path, capsys):
    p3, _ = pig_files
    code, out, err = cli(capsys, "summary", p3)
    assert code == 0, err
    assert out.startswith("# Summary: 60 games of pig") and "## Win share per seat" in out
    assert "## The game's own columns" in out
    code, out, err = cli(capsys, "summary", p3, "--json", "--csv", tmp_path / "t")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["game"] == "pig" and doc["games"] == 60 and len(doc["seats"]) == 3
    csv = pd.read_csv(tmp_path / "t" / "seats.csv")
    assert csv["win_share"].tolist() == pytest.approx([s["win_share"] for s in doc["seats"]])
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == sorted(f"{n}.csv" for n in M.TABLES)


def test_files_of_two_games_are_refused(pig_files, tmp_path, capsys):
    g = get_game("heartslite")
    hearts = tmp_path / "hearts.parquet"
    S.run(S.make_spec(3, ["random"], 4, 5, g.load_rules(g.default_preset), "rotate", game=g), hearts)
    code, out, err = cli(capsys, "summary", pig_files[0], hearts)
    assert code == 2 and out == ""
    assert err.strip().endswith("a result of heartslite, " + str(pig_files[0]) + " one of pig: give one game's files")
