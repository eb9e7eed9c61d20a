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


def test_paired_difference_per_seat():
    a = pd.DataFrame({"game_seed": [1, 1, 2, 2], "seat": [1, 2, 1, 2], "total": [10, 20, 30, 40]})
    b = a.assign(total=a["total"] + [1, 0, 3, 0])
    d = paired_difference(a, b, "total", "seat").set_index("seat")
    assert d.loc[1, "diff"] == 2 and d.loc[2, "diff"] == 0 and d.loc[1, "n"] == 2
