"""`boardlab compare --game cartographers A B`: Cartographers' own sections (GameDef.reports.compare_sections,
boardlab/experiments/cartographers/compare.py) -- points per scoring card in play, solo titles and thresholds -- paired
on the same seeds; the solo numbers change titles and never play."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from boardlab.experiments.cartographers import compare as CC
from boardlab.sim.cartographers.rules import load_rules
from tests.cli import cli


def frame(rows: list[tuple], players: int) -> pd.DataFrame:
    """Result rows (game_seed, seat, cards A-D, points A-D, rating, title), the columns the sections read."""
    cols = ["game_seed", "seat", *(f"card_{e}" for e in "abcd"), *(f"points_{e}" for e in "abcd"), "rating", "title"]
    return pd.DataFrame(rows, columns=cols).assign(players=players)


def test_card_points_are_paired_by_game_over_the_mean_of_its_maps():
    rules = load_rules("base-a")
    # two 2-player games; card 27 in both (edict B in game 1, edict A in game 2), card 30 in game 2
    a = frame([(1, 1, 26, 27, 34, 38, 5, 10, 0, 0, 0, ""), (1, 2, 26, 27, 34, 38, 7, 20, 0, 0, 0, ""),
               (2, 1, 27, 30, 35, 39, 4, 9, 0, 0, 0, ""), (2, 2, 27, 30, 35, 39, 8, 1, 0, 0, 0, "")], 2)  # fmt: skip
    b = a.copy()
    b.loc[1, "points_b"] = 26  # game 1, seat 2, card 27: 20 -> 26, so the game's mean over its maps moves by 3
    b.loc[[2, 3], "card_b"] = 31  # B's game 2 plays card 31 where A's played 30: neither is in play under both
    t = pd.DataFrame(CC.card_rows(a, b, rules, rules)).set_index("group")
    assert t.loc["27 Greenbough", "n"] == 2
    assert t.loc["27 Greenbough", "a"] == pytest.approx((15 + 6) / 2)  # game 1: (10 + 20) / 2, game 2: (4 + 8) / 2
    assert t.loc["27 Greenbough", "diff"] == pytest.approx(1.5)  # (3 + 0) / 2
    assert t.loc["27 Greenbough", "lo"] < 1.5 < t.loc["27 Greenbough", "hi"]
    assert "30 Canal Lake" not in t.index and "31 Mages Valley" not in t.index
    assert t.loc["35 Great City", "n"] == 1 and t.loc["26 Sentinel Wood", "n"] == 1
    assert CC.title_rows(a, b, rules, rules) == []  # no titles at 2 players


def test_title_shares_and_thresholds_are_paired_indicators():
    rules = load_rules("base-a")
    a = frame([(g, 1, 26, 30, 34, 38, 0, 0, 0, 0, r, t) for g, (r, t) in
               enumerate([(31, "Legendary Cartographer"), (12, "Journeyman Topographer"), (-40, "")])], 1)  # fmt: skip
    b = a.assign(rating=[25, 12, -40], title=["Master Mapsmith", "Journeyman Topographer", ""])
    t = pd.DataFrame(CC.title_rows(a, b, rules, rules))
    earned = t[t["section"] == "title"].set_index("group")
    assert list(earned.index) == [title for _, title in rules.titles] + [CC.NO_TITLE]
    assert earned.loc["Legendary Cartographer", "diff"] == pytest.approx(-1 / 3)
    assert earned.loc["Master Mapsmith", "diff"] == pytest.approx(1 / 3)
    assert earned.loc[CC.NO_TITLE, ["a", "b", "diff"]].tolist() == pytest.approx([1 / 3, 1 / 3, 0])
    assert earned["a"].sum() == pytest.approx(1) and earned["b"].sum() == pytest.approx(1)
    reached = t[t["section"] == "threshold"].set_index("group")
    assert reached.loc["rating ≥ 30", ["a", "b"]].tolist() == pytest.approx([1 / 3, 0])
    assert reached.loc["rating ≥ 20", ["a", "b", "diff"]].tolist() == pytest.approx([1 / 3, 1 / 3, 0])
    assert reached.loc["rating ≥ -30", "a"] == pytest.approx(2 / 3)
    assert all(lo <= a <= hi for a, lo, hi in reached[["a", "a_lo", "a_hi"]].itertuples(index=False))


def test_a_solo_numbers_variant_moves_titles_and_never_card_points(tmp_path, capsys):
    variant = tmp_path / "solo-plus-10.toml"  # every forest card's solo number 10 higher: each rating 10 lower
    variant.write_text(
        'base = "base-a"\n'
        + "".join(f"[cards.scoring.{c}]\nsolo = {s + 10}\n" for c, s in ((26, 25), (27, 22), (28, 17), (29, 18)))
    )
    code, out, err = cli(capsys, "compare", "base-a", variant, "--game", "cartographers", "--players", 1,
                         "--agents", "greedy", "--games", 30, "--out", tmp_path / "cmp", "--quiet")  # fmt: skip
    assert code == 0, err
    t = pd.read_csv(tmp_path / "cmp" / "compare.csv")
    cards = t[t["section"] == "card points"]
    assert len(cards) == 16 and cards["n"].sum() == 4 * 30  # four cards in play in each solo game
    assert (cards["diff"] == 0).all() and (cards["lo"] == 0).all() and (cards["hi"] == 0).all()
    assert (cards["a"] == cards["b"]).all()
    excess = t[t["section"] == "card excess"].assign(card=lambda d: d["group"].str.split().str[0].astype(int))
    assert len(excess) == 16
    moved = excess["card"].isin([26, 27, 28, 29])  # excess B - A = -(the change of the number), exactly
    assert np.allclose(excess.loc[moved, "diff"], -10) and np.allclose(excess.loc[~moved, "diff"], 0)
    assert np.allclose(excess["b"] - excess["a"], excess["diff"]) and (excess["lo"] == excess["diff"]).all()
    printed = {c.id: c.solo for c in load_rules("base-a").scoring_cards}
    points_a = cards.set_index("group").loc[excess["group"], "a"].to_numpy()
    assert np.allclose(excess["a"], points_a - excess["card"].map(printed).to_numpy(), atol=1e-3)  # CSV: 6 digits
    score = t[t["section"] == "score"]
    assert (score["diff"] == 0).all()  # the same play: every point the same
    reached = t[t["section"] == "threshold"]
    assert len(reached) == 8 and (reached["diff"] <= 0).all() and (reached["diff"] < 0).any()
    earned = t[t["section"] == "title"]
    assert (earned["diff"] != 0).any()
    assert earned["a"].sum() == pytest.approx(1, abs=1e-4) and earned["b"].sum() == pytest.approx(1, abs=1e-4)
    text = (tmp_path / "cmp" / "REPORT.md").read_text()
    assert "| points per scoring card in play (per map over the game, paired by game) | n | A | B | B − A |" in text
    assert "| 27 Greenbough |" in text and "| rating ≥ 30 | 30 |" in text
    assert "`cards.scoring.27.solo` 22 → 32" in text
    assert "solo title earned, % of games [95%]:" in out


def test_a_rule_that_changes_play_moves_its_cards_points(tmp_path, capsys):
    variant = tmp_path / "granary.toml"  # The Golden Granary in play in every game, its water worth 3 points
    variant.write_text(
        'base = "base-a"\n[setup]\nedicts = [26, 32, 34, 38]\n[scoring.golden_granary]\nwater_points = 3\n'
    )
    fixed = tmp_path / "fixed.toml"
    fixed.write_text('base = "base-a"\n[setup]\nedicts = [26, 32, 34, 38]\n')
    code, _, err = cli(capsys, "compare", fixed, variant, "--game", "cartographers", "--players", 2,
                       "--agents", "greedy", "--games", 12, "--out", tmp_path / "cmp", "--quiet")  # fmt: skip
    assert code == 0, err
    t = pd.read_csv(tmp_path / "cmp" / "compare.csv")
    cards = t[t["section"] == "card points"].set_index("group")
    assert list(cards.index) == ["26 Sentinel Wood", "32 The Golden Granary", "34 Wildholds", "38 Borderlands"]
    assert (cards["n"] == 12).all()  # paired by game, not by map
    assert cards.loc["32 The Golden Granary", "lo"] > 0
    assert not {"title", "threshold"} & set(t["section"])  # titles are solo only
    assert np.isfinite(cards[["lo", "hi"]].to_numpy()).all()


def test_compare_serves_another_game_with_its_own_summary(tmp_path, capsys):
    from boardlab.sim.games import get_game

    g = get_game("cartographers")
    code, _, err = cli(capsys, "compare", "base-a", "base-b", "--game", "cartographers", "--players", 2,
                         "--games", 6, "--out", tmp_path / "cmp", "--quiet")  # fmt: skip
    assert code == 0, err
    t = pd.read_csv(tmp_path / "cmp" / "compare.csv")
    own = t[t["section"] == "card points"]  # its own sections (compare_sections); no titles at 2 players
    t = t[t["section"] != "card points"]
    assert set(t["section"]) == {"win share", *(s for s, _, _ in g.reports.summary)}
    assert set(t["metric"]) == {"win_share", *(c for _, _, cols in g.reports.summary for c in cols)}
    default = str(g.agents().parse_agent(g.ladder.default_agents))
    assert set(t[t["by"] == "agent"]["group"]) == {default}  # the game's balance agents by default
    assert len(own) > 0 and set(own["by"]) == {"card"} and (own["n"] <= 6).all()
    text = (tmp_path / "cmp" / "REPORT.md").read_text()
    assert "| mean points, B − A | points_a |" in text and '`setup.side` "A" → "B"' in text
    import json

    assert json.loads((tmp_path / "cmp" / "compare.json").read_text())["game"] == "cartographers"
