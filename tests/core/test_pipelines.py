"""Analysis pipelines on small tables whose answers are known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from boardlab.experiments.pipelines import paired_difference, rank_distribution, score_breakdown, win_share


def _table():
    # 4 two-player games: A wins 2, B wins 1, one shared win
    return pd.DataFrame(
        {
            "game": [0, 0, 1, 1, 2, 2, 3, 3],
            "game_seed": [10, 10, 11, 11, 12, 12, 13, 13],
            "seat": [1, 2] * 4,
            "agent": ["A", "B", "B", "A"] * 2,
            "win_share": [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.5, 0.5],
            "rank": [1, 2, 2, 1, 1, 2, 1, 1],
            "total": [10, 5, 6, 9, 11, 4, 7, 7],
            "residential": 1, "commercial": 2, "park": 3, "industrial": 4, "achievements": 0, "compensation": 0,
        }
    )  # fmt: skip


def test_win_share_and_interval():
    ws = _table().pipe(win_share, by="agent").set_index("agent")
    assert ws.loc["A", "win_share"] == pytest.approx(3.5 / 4)
    assert ws.loc["B", "win_share"] == pytest.approx(0.5 / 4)
    assert (ws["n"] == 4).all()
    assert (ws["lo"] <= ws["win_share"]).all() and (ws["win_share"] <= ws["hi"]).all()
    assert ws["win_share"].sum() == pytest.approx(1.0)


def test_score_breakdown_mean_and_interval():
    sb = score_breakdown(_table(), by="agent").set_index(["agent", "metric"])
    assert sb.loc[("A", "total"), "mean"] == pytest.approx(np.mean([10, 9, 11, 7]))
    assert sb.loc[("A", "park"), "lo"] == sb.loc[("A", "park"), "hi"] == 3


def test_rank_distribution_sums_to_one():
    rd = rank_distribution(_table())
    assert rd.groupby("agent")["share"].sum().round(12).eq(1.0).all()


def test_paired_difference_matches_games():
    a = _table()
    b = a.assign(total=a["total"] + np.where(a["agent"] == "A", 2, -1))
    d = paired_difference(a, b, "total").set_index("agent")
    assert d.loc["A", "diff"] == 2 and d.loc["B", "diff"] == -1
    assert d.loc["A", "lo"] == d.loc["A", "hi"] == 2
    with pytest.raises(ValueError, match="share no"):
        paired_difference(a, a.assign(game_seed=a["game_seed"] + 100), "total")


def test_compensation_rerank_equals_the_engine(tmp_path):
    """Re-ranking stored games under their own compensation reproduces the engine's seat win shares."""
    from boardlab.experiments import simulate as S
    from boardlab.experiments.compensation import current, game_arrays, search, seat_shares
    from boardlab.sim.citywright.rules import load_rules

    out = tmp_path / "seats.parquet"
    S.run(S.make_spec(3, ["greedy"], 150, 4, load_rules("v1.1"), "fixed", 50), out)
    df = pd.read_parquet(out)
    cur = current(df, "citywright").iloc[0]
    engine = df.groupby("seat")["win_share"].mean()
    for s in (1, 2, 3):
        assert cur[f"seat{s}"] == pytest.approx(engine[s])
    assert cur["compensation"] == "2/2/0"
    # the search's best vector is at least as fair as the stored one
    best = search(df, "citywright", max_points=4, top=3)
    assert best["max_deviation"].iloc[0] <= cur["max_deviation"] + 1e-12
    # a huge bonus to one seat makes it win every game it can
    assert seat_shares(game_arrays(df, "citywright"), [1000, 0, 0])[0] == 1.0


def test_rescore_under_the_same_rules_reproduces_the_table(tmp_path):
    """Scores, achievements, compensation, ranks and win shares all come back from boards and shapes."""
    from boardlab.experiments import simulate as S
    from boardlab.experiments.citywright.rescore import rescore
    from boardlab.sim.citywright.rules import load_rules

    for players, agents in ((1, ["greedy"]), (3, ["greedy", "specialist:P", "random"])):
        out = tmp_path / f"r{players}.parquet"
        S.run(S.make_spec(players, agents, 60, 3, load_rules("v1.1"), "rotate", 30), out)
        df = pd.read_parquet(out)
        pd.testing.assert_frame_equal(
            df.sort_values(["game", "seat"]).reset_index(drop=True), rescore(df, load_rules("v1.1"))
        )
        # v1.0 residential: 2 per tile of the largest cluster instead of 5 per pair
        r10 = rescore(df, load_rules("v1.0"))
        assert (r10["compensation"] == 0).all()
        assert (r10["commercial"] == df.sort_values(["game", "seat"])["commercial"].values).all()
        assert r10.groupby("game")["win_share"].sum().round(12).eq(1.0).all()


def test_two_player_tie_rescored_and_reranked_as_played(tmp_path):
    """game.two_player_tie = "second_seat": 2-player games played under it (the engine's ranks) equal the same
    seeds played under the rulebook's tie-break and then rescored under it, and the seat-compensation
    re-ranking of those games, given the rules, gives the engine's seat shares.  Greedy play never reads the
    tie-breaks, so the games are the same games; some of them are tied, so the rule changes winners."""
    from boardlab.experiments import simulate as S
    from boardlab.experiments.citywright.rescore import rescore
    from boardlab.experiments.compensation import current
    from boardlab.sim.citywright.rules import load_rules

    rulebook = load_rules("v1.1").with_overrides({"game.compensation.2": [0, 0]})
    seat_rule = rulebook.with_overrides({"game.two_player_tie": "second_seat"})
    tables = {}
    for name, rules in (("rulebook", rulebook), ("seat", seat_rule)):
        out = tmp_path / f"{name}.parquet"
        S.run(S.make_spec(2, ["greedy"], 600, 5, rules, "fixed", 100), out)
        tables[name] = pd.read_parquet(out).sort_values(["game", "seat"]).reset_index(drop=True)
    a, b = tables["rulebook"], tables["seat"]
    assert (a["board"] == b["board"]).all()  # the same play
    changed = (a["rank"] != b["rank"]).sum()
    assert changed > 0  # the premise: some games tie on total and empty cells
    assert (b.loc[(a["rank"] != b["rank"]) & (b["rank"] == 1), "seat"] == 2).all()  # the second player gains
    pd.testing.assert_frame_equal(rescore(a, seat_rule), b, check_dtype=False)
    pd.testing.assert_frame_equal(rescore(b, rulebook), a, check_dtype=False)
    for table, rules in ((a, seat_rule), (b, seat_rule), (b, rulebook), (a, rulebook)):
        want = (b if rules is seat_rule else a).groupby("seat")["win_share"].mean()
        cur = current(table, "citywright", rules.data).iloc[0]
        assert [cur["seat1"], cur["seat2"]] == pytest.approx(list(want))


def test_rescore_cli_says_play_is_held_fixed(tmp_path, capsys):
    from boardlab.experiments import simulate as S
    from boardlab.experiments.cli import main
    from boardlab.sim.citywright.rules import load_rules

    src = tmp_path / "a.parquet"
    S.run(S.make_spec(2, ["greedy", "random"], 20, 1, load_rules("v1.1"), "rotate", 20), src)
    try:
        main(["rescore", str(src), "--rules", "v1.0", "--out", str(tmp_path / "b.parquet")])
    except SystemExit as e:
        assert e.code in (0, None)
    out = capsys.readouterr().out
    assert "play held fixed" in out
    assert S.read_metadata(tmp_path / "b.parquet")["note"].endswith("play held fixed")


def test_rescore_cli_ranks_each_file_separately(tmp_path, capsys):
    from boardlab.experiments import simulate as S
    from boardlab.experiments.cli import main
    from boardlab.sim.citywright.rules import load_rules

    files = []
    for players in (1, 2):
        f = tmp_path / f"p{players}.parquet"
        S.run(S.make_spec(players, ["greedy"], 10, 1, load_rules("v1.1"), "rotate", 10), f)
        files.append(str(f))
    try:
        main(["rescore", *files, "--rules", "v1.1", "--out", str(tmp_path / "b.parquet")])
    except SystemExit as e:
        assert e.code in (0, None)
    df = pd.read_parquet(tmp_path / "b.parquet")
    # same rules: every game's shares still sum to 1, solo games are always won
    assert df.groupby(["players", "game"])["win_share"].sum().round(12).eq(1.0).all()
    assert df.loc[df.players == 1, "win"].all()


def test_paired_difference_per_seat():
    a = pd.DataFrame({"game_seed": [1, 1, 2, 2], "seat": [1, 2, 1, 2], "total": [10, 20, 30, 40]})
    b = a.assign(total=a["total"] + [1, 0, 3, 0])
    d = paired_difference(a, b, "total", "seat").set_index("seat")
    assert d.loc[1, "diff"] == 2 and d.loc[2, "diff"] == 0 and d.loc[1, "n"] == 2
