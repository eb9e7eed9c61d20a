"""`boardlab reproduce --game cartographers --skill`: the report per tier at a tiny size, and its pieces on planted
tables (recalibration, the Benjamini-Hochberg pairs, the Spearman interval, the variant files)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from boardlab.experiments.cartographers import report as R
from boardlab.experiments.cartographers import skill as K
from boardlab.sim.cartographers.rules import load_rules

ROOT = Path(__file__).resolve().parents[2]
TINY_TIERS = ("greedy", "planner")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """Two tiers at 20 games per main table, then the same command again (every run reused)."""
    base = tmp_path_factory.mktemp("carto_skill")
    out, work = base / "out", base / "runs"
    logs: list[str] = []
    first = K.reproduce(20, out, work, n_jobs=1, log=logs.append, command="first", tiers=TINY_TIERS)
    again: list[str] = []
    second = K.reproduce(20, out, work, n_jobs=1, log=again.append, command="again", tiers=TINY_TIERS)
    return {"out": out, "first": first, "second": second, "logs": logs, "again": again}


@pytest.mark.slow  # a report end to end
def test_every_table_chart_and_variant_is_written_and_a_rerun_reuses_every_run(tiny):
    out = tiny["out"]
    for name in K.TABLES:
        assert len(pd.read_csv(out / f"{name}.csv")) > 0, name
        pd.testing.assert_frame_equal(tiny["first"][name], tiny["second"][name])
    for chart in ("excess_by_tier.png", "titles.png", "seats.png"):
        assert (out / chart).stat().st_size > 1000, chart
    for tier in TINY_TIERS:
        assert (out / f"recalibrated-{tier}.toml").exists()
    text = (out / "REPORT.md").read_text()
    assert "Command: `again`" in text
    for heading in ("## Solo calibration per tier", "## Recalibrated solo numbers", "## Card pairs",
                    "## Seats and pass direction", "## Map side A vs B", "## Adversarial vs random"):  # fmt: skip
        assert heading in text
    played = [line for line in tiny["logs"] if line.startswith("[")]
    # each tier's plan, its own recalibrated numbers, and recalibrated.toml's at the tiers of PLAYER_RANGE
    assert len(played) == sum(len(K.tier_plan(20, t)) + 1 + (t in K.PLAYER_RANGE) for t in TINY_TIERS)
    assert (out / "recalibrated.toml").exists()
    assert all("reused" in line for line in tiny["again"] if line.startswith("["))


@pytest.mark.slow  # a report end to end (its module fixture plays the report)
def test_each_tier_plays_its_own_agent_in_every_seat(tiny):
    cards = tiny["first"]["solo_cards"]
    assert set(cards["tier"]) == set(TINY_TIERS)
    assert (cards["tier"] == cards["agent"]).all()  # the tier's solo runs are its agent's
    seats = tiny["first"]["seats"]
    assert (seats["tier"] == seats["agent"]).all()
    sides = tiny["first"]["sides"]
    assert set(sides["tier"]) == set(TINY_TIERS) and "B-A" in set(sides["side"])  # the tier's own side runs
    amb = tiny["first"]["ambush"]
    assert amb.groupby("tier")["table"].nunique().eq(3).all()


@pytest.mark.slow  # a report end to end (its module fixture plays the report)
def test_the_proposal_runs_under_the_recalibrated_numbers_on_fresh_seeds(tiny, tmp_path):
    recal = tiny["first"]["recalibrated"].set_index("card")
    pc = tiny["first"]["proposal_cards"]
    for tier in TINY_TIERS:
        t = pc[pc["tier"] == tier].set_index("card")
        assert (t["solo"] == recal.loc[t.index, tier]).all()  # excess measured against the proposal's numbers
        assert (t["solo_today"] == recal.loc[t.index, "solo"]).all()
        rules = load_rules(str(tiny["out"] / f"recalibrated-{tier}.toml"))
        assert {c.id: c.solo for c in rules.scoring_cards} == recal[tier].to_dict()
    chosen = load_rules(str(tiny["out"] / "recalibrated.toml"))
    assert {c.id: c.solo for c in chosen.scoring_cards} == recal["recommended"].to_dict()
    rc = tiny["first"]["recommended_cards"]
    assert set(rc["tier"]) == set(TINY_TIERS) & set(K.PLAYER_RANGE)
    assert (rc.set_index("card")["solo"] == recal.loc[rc["card"], "recommended"]).all()
    # fresh seeds: the proposal's games are not the calibration's (the first game's cards differ somewhere)
    today = tiny["first"]["solo_cards"]
    assert not np.allclose(
        pc[pc["tier"] == "planner"].sort_values("card")["mean"].to_numpy(),
        today[(today["tier"] == "planner") & (today["side"] == "A")].sort_values("card")["mean"].to_numpy(),
    )


def planted_cards(points: dict[int, float], se: float = 0.0, tier: str = "planner") -> pd.DataFrame:
    info = R.card_info()
    t = info.assign(tier=tier, agent=tier, side="A", n=1000, mean=info["card"].map(points))
    t["lo"], t["hi"] = t["mean"] - 1.96 * se, t["mean"] + 1.96 * se
    t["excess"] = t["mean"] - t["solo"]
    return t


def test_recalibration_gives_every_card_the_tiers_mean_excess_and_keeps_the_numbers_mean():
    rng = np.random.default_rng(3)
    info = R.card_info()
    points = dict(zip(info["card"], info["solo"] + rng.normal(5, 6, 16), strict=True))
    cards = pd.concat([planted_cards(points), planted_cards({c: p + 7 for c, p in points.items()}, tier="expert")])
    recal = K.recalibrate(cards)
    for _, t in recal.groupby("tier"):
        new_excess = t["points"] - t["proposed"]
        assert np.all(np.abs(new_excess - t["level"]) <= 0.5 + 1e-9)  # equal up to the rounding
        assert abs(t["proposed"].mean() - t["solo"].mean()) <= 0.5
        assert (t["proposed"] == np.rint(t["points"] - t["level"])).all()
    # a uniform shift of the player's level moves no number
    w = K.recalibrated_wide(recal)
    assert (w["planner"] == w["expert"]).all() and (w["spread"] == 0).all()


def test_the_recommended_numbers_are_the_median_of_the_player_range_tiers():
    info = R.card_info()
    base = dict(zip(info["card"], info["solo"] + 5.0, strict=True))
    tiers = {"greedy": -9.0, "planner": 0.0, "strong": 0.4, "expert": 3.0}  # card 27 moved by these per tier
    cards = pd.concat(
        [planted_cards({c: p + (v if c == 27 else 0.0) for c, p in base.items()}, tier=t) for t, v in tiers.items()]
    )
    recal = K.recalibrate(cards)
    chosen = K.recommended(recal)
    exact = recal[recal["card"] == 27].set_index("tier")["exact"]
    assert chosen[27] == int(np.rint(np.median(exact[list(K.PLAYER_RANGE)])))  # greedy's -9 plays no part
    assert chosen[27] == int(np.rint(exact["strong"]))  # here the median is strong's
    w = K.recalibrated_wide(recal).set_index("card")
    assert w.at[27, "spread"] == w.loc[27, list(K.PLAYER_RANGE)].max() - w.loc[27, list(K.PLAYER_RANGE)].min()
    assert (w["recommended"] == pd.Series(chosen)).all()


def test_benjamini_hochberg_keeps_the_planted_interaction_and_skips_rare_pairs():
    rows = []
    for i in range(40):
        value = 6.0 if i == 0 else np.random.default_rng(i).normal(0, 1)
        n = 5 if i == 39 else 100
        row = {"tier": "planner", "side": "A", "card_x": 26, "card_y": 30 + i, "n": n, "interaction": value}
        rows.append({**row, "int_lo": value - 1.96, "int_hi": value + 1.96})
    t = K.pair_tests(pd.DataFrame(rows))
    assert bool(t.iloc[0]["survives"]) and t.iloc[0]["q"] < 0.05
    assert np.isnan(t.iloc[39]["q"]) and not t.iloc[39]["survives"]  # seen in fewer than MIN_PAIR_GAMES games
    tested = t[t["q"].notna()]
    # BH: q is the step-up adjusted p (monotone in p), never below p
    order = tested.sort_values("p")
    assert np.all(np.diff(order["q"].to_numpy()) >= -1e-12) and (tested["q"] >= tested["p"] - 1e-12).all()
    assert t["survives"].sum() <= (t["p"] < 0.05).sum()


def test_spearman_interval_is_the_point_when_the_means_are_exact_and_widens_with_noise():
    info = R.card_info()
    points = dict(zip(info["card"], info["solo"] * 1.5, strict=True))  # the printed order exactly
    exact = K.spearman_table(planted_cards(points), seed=1).iloc[0]
    assert exact["spearman"] == pytest.approx(1.0)
    assert exact["lo"] == pytest.approx(1.0) and exact["hi"] == pytest.approx(1.0)  # no noise: no width
    reversed_ = K.spearman_table(planted_cards({c: -p for c, p in points.items()}), seed=1).iloc[0]
    assert reversed_["spearman"] == pytest.approx(-1.0)
    rng = np.random.default_rng(5)  # an imperfect agreement, measured with noise: the estimate inside its interval
    loose = dict(zip(info["card"], info["solo"] + rng.normal(0, 4, 16), strict=True))
    noisy = K.spearman_table(planted_cards(loose, se=1.0), seed=1)
    r = noisy.iloc[0]
    assert r["lo"] < r["spearman"] < r["hi"] and r["hi"] - r["lo"] > 0.05
    wider = K.spearman_table(planted_cards(loose, se=3.0), seed=1).iloc[0]
    assert wider["hi"] - wider["lo"] > r["hi"] - r["lo"]
    pd.testing.assert_frame_equal(noisy, K.spearman_table(planted_cards(loose, se=1.0), seed=1))  # seeded


def test_the_variant_file_loads_and_sets_only_the_solo_numbers(tmp_path):
    numbers = {c: 10 + (c % 7) for c in range(26, 42)}
    text = K.variant_toml(numbers, "strong", "boardlab reproduce --game cartographers --skill")
    path = tmp_path / "v.toml"
    path.write_text(text)
    rules = load_rules(str(path))
    assert {c.id: c.solo for c in rules.scoring_cards} == numbers
    base = load_rules("base-a")
    assert tomllib.loads(text)["base"] == "base-a"
    other = {k: v for k, v in rules.data.items() if k not in ("cards", "name")}
    assert other == {k: v for k, v in base.data.items() if k not in ("cards", "name")}
    for c, card in rules.data["cards"]["scoring"].items():  # every other key of the cards as the preset's
        assert {**card, "solo": None} == {**base.data["cards"]["scoring"][c], "solo": None}
    assert {k: v for k, v in rules.data["cards"].items() if k != "scoring"} == {
        k: v for k, v in base.data["cards"].items() if k != "scoring"
    }
    command = [sys.executable, "-m", "boardlab.experiments.cli", "rules", "--game", "cartographers", str(path)]
    r = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
