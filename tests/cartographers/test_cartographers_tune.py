"""`boardlab tune scoring --game cartographers`: the generic tuner over Cartographers' rule parameters, end to
end at a tiny size (a study, best.toml that `rules` loads, the trials' rules really played), and its one-line
errors on keys Cartographers does not have."""

from __future__ import annotations

import json

import pandas as pd

from boardlab.sim.cartographers.rules import load_rules
from tests.cli import cli


def test_tune_scoring_over_card_parameters_end_to_end(tmp_path, capsys):
    out = tmp_path / "tune"
    base = tmp_path / "granary.toml"  # The Golden Granary in every game, so its water points always count
    base.write_text('base = "base-a"\n[setup]\nedicts = [26, 32, 34, 38]\n')
    code, text, err = cli(
        capsys, "tune", "scoring", "--game", "cartographers", "--rules", base, "--agents", "greedy,planner",
        "--players", 2,
        "--param", "scoring.golden_granary.water_points=0:3", "--param", "coins.cap=8:20",
        "--trials", 4, "--games", 8, "--blocks", 2, "--verify-games", 4, "--out", out, "--quiet",
    )  # fmt: skip
    assert code == 0, err
    assert "verification, 4 fresh games each" in text and "agent planner" in text
    trials = pd.read_csv(out / "trials.csv")
    assert len(trials) == 4 and trials.loc[0, "state"] == "base"
    assert trials.loc[0, "scoring.golden_granary.water_points"] == 1 and trials.loc[0, "coins.cap"] == 14
    assert trials["games"].eq(8).all()
    # a trial that changed the granary's water points played them: its mean total moves on the same deals
    moved = trials[trials["scoring.golden_granary.water_points"] != 1]
    assert len(moved) > 0 and (moved["mean_total_change_pct"] != 0).all()
    assert json.loads((out / "tune.json").read_text())["spec"]["game"] == "cartographers"
    best = load_rules(str(out / "best.toml"))  # what `rules --game cartographers` loads
    row = trials.loc[trials["value"].idxmin()]
    assert best.data["scoring"]["golden_granary"]["water_points"] == row["scoring.golden_granary.water_points"]
    assert best.data["coins"]["cap"] == row["coins.cap"]
    assert best.data["setup"]["edicts"] == [26, 32, 34, 38]
    assert "2 players, objective `specialists`" in (out / "REPORT.md").read_text()


def test_tune_scoring_refuses_keys_cartographers_lacks_in_one_line(tmp_path, capsys):
    for param, words in (
        ("scoring.27.solo=10:40", "scoring.27: unknown key (valid: "),
        ("cards.scoring.27.name=1:2", "is 'Greenbough', not a number"),
        ("scoring.golden_granary.water_points=0:2.5", "is an integer key, but 2.5 is not an integer"),
    ):
        code, out, err = cli(capsys, "tune", "scoring", "--game", "cartographers", "--param", param,
                             "--out", tmp_path / "t", "--quiet")  # fmt: skip
        assert code == 2 and out == "" and err.count("\n") == 1 and words in err, err
        assert not (tmp_path / "t").exists()


def test_without_a_seat_agent_part_the_seat_games_play_the_first_agent():
    from boardlab.sim.games import get_game
    from tests.core.test_tune import tune_spec

    base = get_game("cartographers").load_rules("base-a")
    spec = tune_spec(base, [], "seats", 2, ["greedy", "random"], 8, 2, 0, game="cartographers")
    assert spec.seat_agent.startswith("greedy") and spec.tables()[0].agents == (spec.agents[0],)  # no part: the first
