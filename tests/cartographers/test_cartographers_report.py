"""`citywright reproduce --game cartographers`: the balance report end to end at a tiny size, and its tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from boardlab.experiments.cartographers import report as R
from tests.cli import run


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The report at 20 games per main table; then the same command again (everything reused)."""
    base = tmp_path_factory.mktemp("carto_report")
    out, work = base / "out", base / "runs"
    logs: list[str] = []
    first = R.reproduce(20, out, work, n_jobs=1, log=logs.append, command="citywright reproduce --game cartographers")
    written = {f.name: f.read_bytes() for f in out.iterdir() if f.suffix == ".csv"}
    again_logs: list[str] = []
    second = R.reproduce(20, out, work, n_jobs=1, log=again_logs.append, command="again")
    return {"out": out, "first": first, "second": second, "logs": logs, "again_logs": again_logs, "csv": written}


@pytest.mark.slow  # a report end to end
def test_tables_charts_and_report_are_written(tiny):
    out = tiny["out"]
    for name in R.TABLES:
        t = pd.read_csv(out / f"{name}.csv")
        assert len(t) > 0, name
    for chart in ("solo_cards.png", "solo_titles.png", "edict_cards.png", "seats.png"):
        assert (out / chart).stat().st_size > 1000, chart
    text = (out / "REPORT.md").read_text()
    assert "Command: `citywright reproduce --game cartographers`" not in text  # the second run's command
    assert "Command: `again`" in text and "Commit: `" in text
    for heading in ("## Solo calibration", "## Edict difficulty", "## Map side A vs B", "## Coins' and monsters'",
                    "## Adversarial vs random ambush", "## Seats and pass direction"):  # fmt: skip
        assert heading in text
    assert not list(out.parent.glob(".*.tmp"))


@pytest.mark.slow  # a report end to end (its module fixture plays the report)
def test_rerun_reuses_every_run_and_gives_identical_tables(tiny):
    assert len(tiny["logs"]) == len(R.plan(20))
    assert all("reused" in line for line in tiny["again_logs"]), tiny["again_logs"]
    assert not any("reused" in line for line in tiny["logs"])
    for name in R.TABLES:
        pd.testing.assert_frame_equal(tiny["first"][name], tiny["second"][name])
        assert (tiny["out"] / f"{name}.csv").read_bytes() == tiny["csv"][f"{name}.csv"], name


@pytest.mark.slow  # a report end to end (its module fixture plays the report)
def test_solo_tables_hold_together(tiny):
    cards = tiny["first"]["solo_cards"]
    info = R.card_info()
    assert set(cards["card"]) == set(info["card"]) and len(info) == 16
    # every solo game has one card per category: the card counts of a run add up to 4 x its games
    for (agent, side), t in cards.groupby(["agent", "side"]):
        games = 40 if (agent, side) != ("planner", "B") else 20
        assert t["n"].sum() == 4 * games
        np.testing.assert_allclose(t["excess"], t["mean"] - t["solo"])
        np.testing.assert_allclose(t["relative"].mean(), 0.0, atol=1e-9)
        assert ((t["verdict"] == "generous") == (t["lo"] > t["solo"])).all()
        assert ((t["verdict"] == "harsh") == (t["hi"] < t["solo"])).all()
    # rating = (edict points - par) + coin points - monster penalty, in the means too
    r = tiny["first"]["solo_ratings"].set_index(["agent", "side", "metric"])["mean"].sort_index()
    for agent, side in {k[:2] for k in r.index}:
        m = r.loc[(agent, side)]
        assert m["rating"] == pytest.approx(m["excess"] + m["coin_points"] - m["monster_penalty"])
        assert m["total"] == pytest.approx(m["edict_points"] + m["coin_points"] - m["monster_penalty"])
    titles = tiny["first"]["solo_titles"]
    for _, t in titles.groupby(["agent", "side"]):
        assert t["exact"].sum() == pytest.approx(1.0)
        reach = t["reaching"].dropna().to_numpy()
        assert np.all(np.diff(reach) >= 0)  # lower thresholds are reached at least as often


@pytest.mark.slow  # a report end to end (its module fixture plays the report)
def test_multiplayer_tables_count_games_and_seats(tiny):
    ed = tiny["first"]["edict_cards"]
    every = ed[(ed["slot"] == "all") & (ed["card"] > 0)]
    assert (every.groupby("side")["n"].sum() == 4 * 20).all()  # 4 cards per game, n = games
    slots = ed[ed["card"] == 0]
    assert sorted(slots["slot"].unique()) == list("ABCD") and (slots["n"] == 20).all()
    seats = tiny["first"]["seats"]
    assert sorted(seats["players"].unique()) == [2, 3, 4, 5]
    for (p, _), t in seats.groupby(["players", "passes"]):
        assert len(t) == p and t["win_share"].sum() == pytest.approx(1.0)
    amb = tiny["first"]["ambush"]
    assert set(amb["table"]) == {"all adversarial", "all random", "mixed (alternating)"}
    mixed = amb[amb["table"] == "mixed (alternating)"]
    assert mixed["win_share"].sum() == pytest.approx(0.5)  # two seats of each kind share the wins
    pairs = tiny["first"]["card_pairs"]
    assert (pairs.groupby("side")["n"].sum() == 6 * 20).all()  # 6 pairs per game


def test_cli_refuses_an_unknown_game_and_a_report_the_game_has_not(tmp_path, capsys):
    def reproduce(*args):
        return run(["reproduce", *args, "--games", "20", "--out", str(tmp_path)], capsys)

    code, _, err = reproduce("--game", "chess")
    assert code == 2
    [line] = err.strip().splitlines()
    assert line.startswith("boardlab: error: --game: unknown game 'chess' (valid: citywright, cartographers")
    code, _, err = reproduce("--game", "citadels", "--skill")
    assert code == 2
    assert err.strip().splitlines() == ["boardlab: error: --skill: citadels has no skill report"]
    assert list(tmp_path.iterdir()) == []


def test_the_generic_report_plays_the_two_smallest_counts_with_rivals():
    from boardlab.experiments import anatomy_report as AR
    from boardlab.sim.games import get_game

    g = get_game("cartographers")
    assert AR.player_counts(g) == [2, 3]
    assert sorted({r.players for r in AR.plan(g, 100) if r.kind == "self"}) == [2, 3]
