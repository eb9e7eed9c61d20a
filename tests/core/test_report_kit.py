"""The report kit (boardlab.experiments.report): its number filters, the shared provenance block, and every
report template rendered from a small hand-made context, so a template's typo fails here without a game."""

from __future__ import annotations

from importlib.resources import files

import jinja2
import pandas as pd
import pytest

from boardlab.experiments import report as K


def _table(tag: str) -> pd.DataFrame:
    return pd.DataFrame({"column": [f"{tag} row 1", f"{tag} row 2"], "value": ["1.0", "2.0"]})


def _provenance() -> dict:
    return {
        "command": "boardlab reproduce --games 20",
        "commit": "0123abc",
        "version": "boardlab 0.1.0",
        "now": "2026-01-02 03:04 UTC",
        "runs": 3,
        "games": 12345,
        "sim_seconds": 90.0,
        "elapsed": 30.0,
    }


def _cartographers_report() -> dict:
    metric = {"n": 1200, "mean": 10.0, "lo": 9.0, "hi": 11.0}
    return {
        "p": _provenance(),
        "n": {"solo": 1000, "main": 1600, "half": 800},
        "seed": 7,
        "rt": metric,
        "ex": metric,
        "cm": metric,
        "generous": "1 Sentinel Wood",
        "harsh": "none",
        "relative_generous": "none",
        "relative_harsh": "2 Greenbough",
        "rho": 0.5,
        "seats_out": 1,
        "seat_intervals": 28,
        "seat_tables": 8,
        "seat_min_p": 0.04,
        "min_pair_games": 20,
        "pairs_out": 3,
        "pairs_seen": 96,
        "solo_calibration": _table("calibration"),
        "rating_rows": _table("ratings"),
        "title_rows": _table("titles"),
        "slot_rows": _table("slots"),
        "card_rows": _table("cards"),
        "slot_spread": 2.25,
        "slot_spread_card": "3 Treetower",
        "pairs_highest": _table("highest"),
        "pairs_lowest": _table("lowest"),
        "side_rows": _table("sides"),
        "share_rows": _table("shares"),
        "ambush_rows": _table("ambush"),
        "seat_rows": _table("seats"),
        "runs": _table("runs"),
        "tables": ("solo_cards", "seats"),
    }


def _cartographers_skill() -> dict:
    tiers = ["greedy", "expert"]
    sizes = {"solo": 1000, "main": 1600, "half": 800}
    spread = {"tier": "greedy", "spread of card excess, today": "9.0", "spread under the numbers": "3.5"}
    pairs = {"tier": "greedy", "pairs tested": 96, "survive Benjamini-Hochberg at 5%": 2}
    return {
        "p": _provenance(),
        "tiers": tiers,
        "n": {"greedy": sizes, "expert": sizes},
        "seed": 7,
        "fresh_seed": 8,
        "rating": {t: {"mean": 5.0, "lo": 4.0, "hi": 6.0} for t in tiers},
        "absolute": {"generous": "1 Sentinel Wood", "harsh": "none", "depends": "2 Greenbough"},
        "absolute_depends": 1,
        "relative": {"generous": "none", "harsh": "none", "depends": "none"},
        "rho": {t: {"spearman": 0.5, "lo": 0.25, "hi": 0.75} for t in tiers},
        "proposal_rows": [spread],
        "recommended_rows": [spread],
        "player_range": ("planner", "strong", "expert"),
        "changed": 5,
        "disagree": 1,
        "disagree_names": "3 Treetower",
        "pair_rows": [pairs],
        "fdr_column": "survive Benjamini-Hochberg at 5%",
        "min_pair_games": 20,
        "seat_tables": 16,
        "small_p": ["greedy 3p next"],
        "calibration_rows": _table("calibration"),
        "rating_rows": _table("ratings"),
        "bootstrap": 4000,
        "spearman_rows": _table("spearman"),
        "recalibrated": _table("recalibrated"),
        "proposal_title_rows": _table("proposal titles").to_dict("records"),
        "title_rows": _table("titles"),
        "slot_rows": _table("slots"),
        "edict_rows": _table("edicts"),
        "rank_spread": 3.0,
        "rank_spread_card": 4,
        "side_rows": _table("sides"),
        "ambush_rows": _table("ambush"),
        "seat_rows": _table("seats"),
        "runs": _table("runs"),
        "tables": ("excess_by_tier", "seats"),
    }


def _citadels_report() -> dict:
    share = {"tier": "strong", "win_share": 0.3, "lo": 0.28, "hi": 0.32}
    plain = {"district": "Library", "wins_diff": 0.01, "wins_lo": -0.005, "wins_hi": 0.025}
    pair = {"rounds": "10.5", "largest_seat_deviation": 0.02}
    return {
        "p": {**_provenance(), "commit_short": "0123abc"},
        "seed": 7,
        "games": 2000,
        "specs": {"strong": "strong", "expert": "mcts"},
        "too_strong": [{**share, "character": "King"}],
        "weak": [],
        "separated_seats": [{**share, "players": 4, "seat": 1}],
        "odds_ratios": True,
        "purples_above": [{"tier": "strong", "district": "Library", "odds_ratio": 1.5}],
        "purples_below": [],
        "plain_purples_by_tier": [("strong", [plain])],
        "first_round_by_tier": [("strong", [{**share, "place": 1}])],
        "house_rules_pairs": [("strong", pair, pair)],
        "short_game_pairs": [("strong", pair, pair)],
        "specialists": _table("specialists"),
        "characters": _table("characters"),
        "assassin_thief": _table("assassin"),
        "seats": _table("seats"),
        "final_positions": _table("final positions"),
        "pick_positions": _table("pick positions"),
        "pick_rounds": 10,
        "length": _table("length"),
        "completion": _table("completion"),
        "purples": _table("purples"),
        "plain_purples": _table("plain purples"),
        "house_rules": _table("house rules"),
        "short_game": _table("short game"),
        "runs": _table("runs"),
        "tables": ("seats", "characters"),
    }


def _citywright_report() -> dict:
    return {
        "p": _provenance(),
        "n": {"main": 2000, "variant": 1000, "calibration": 500, "mcts": 200, "verify": 1000},
        "seed": 7,
        "summary": ["- **Specialists, v1.1**: a sentence.", "- **Claims** (each claim x family): holds 3."],
        "claims": _table("claims"),
        "specialists": [("v1.0", _table("v1.0 specialists")), ("v1.1", _table("v1.1 specialists"))],
        "calibration": _table("calibration"),
        "waste": _table("waste"),
        "seats": [(3, {"before": [30, 33, 37], "after": [33, 33, 34]}, _table("3 seats"))],
        "solver": _table("solver"),
        "strongest": "mcts-200",
        "solo": _table("solo"),
        "solo_ratings": _table("solo ratings"),
        "agents": _table("agents"),
        "assumptions": ["One assumption.", "Another."],
        "tables": ("specialists", "seats"),
    }


def _citywright_shared() -> dict:
    return {
        "questions": ["- **Does commercial's dominance shrink with skill? (v1.1)** An answer."],
        "dominance": _table("dominance"),
        "seat_effects": _table("seat effects"),
        "compensation": _table("compensation"),
        "top": "expert",
        "solo": _table("solo"),
        "solo_ratings": _table("solo ratings"),
        "seat_shares": _table("seat shares"),
        "per_tier": _table("per tier"),
    }


def _citywright_skill() -> dict:
    return {
        "p": _provenance(),
        "n": {"big": 2000, "expert": 500, "verify_big": 1000, "verify_expert": 250},
        "seed": 7,
        "tiers": [("greedy", "greedy", "specialist:X"), ("expert", "mcts", "mcts:X")],
        "s": _citywright_shared(),
        "claims": _table("claims"),
        "waste": _table("waste"),
        "tables": ("seats", "solo"),
    }


def _citywright_variant() -> dict:
    context = _citywright_skill()
    del context["claims"], context["waste"]
    return {
        **context,
        "rules": "my-variant",
        "source": "variant.toml",
        "rules_hash": "abc123",
        "rules_tag": "r0123456789",
        "weights": _table("weights"),
        "target_tiers": ("strong", "expert"),
        "judged": 4,
        "short": [("specialists within 25 +- 5", "expert")],
        "targets": _table("targets"),
        "means": _table("means"),
    }


def _anatomy_report() -> dict:
    row = {"tier": "random", "players": 2, "games": 100, "win_share": 0.55, "lo": 0.45, "hi": 0.65, "fair": 0.5}
    return {
        "title": "Pig",
        "command": "boardlab reproduce --games 20",
        "rules": "standard",
        "games": 2000,
        "score_direction": "highest",
        "tier_specs": {"random": "random", "greedy": "greedy"},
        "headlines": [(2, _table("2 players")), (3, _table("3 players"))],
        "skill": [{**row, "against": "random", "gain": 0.05}],
        "restricted": [{**row, "family": "hold", "verdict": "too strong"}],
        "own_specialists": "  Where the game has its own specialist of a family (greedy: `prefers`).",
        "has_families": True,
    }


CONTEXTS = {
    "anatomy_report.md.j2": _anatomy_report,
    "citywright_skill.md.j2": _citywright_skill,
    "citywright_variant.md.j2": _citywright_variant,
    "citywright_report.md.j2": _citywright_report,
    "citadels_report.md.j2": _citadels_report,
    "cartographers_report.md.j2": _cartographers_report,
    "cartographers_skill.md.j2": _cartographers_skill,
}


def test_filters_format_as_the_reports_did():
    assert K.ci(12.34, 11.0, 13.66) == "12.3 [11.0, 13.7]"
    assert K.ci(0.5, 0.25, 0.75, 2) == "0.50 [0.25, 0.75]"
    assert K.pct(0.1234, 0.11, 0.1367) == "12.3% [11.0, 13.7]"
    assert K.pct(0.1234, 0.11, 0.1367, unit="") == "12.3 [11.0, 13.7]"
    assert K.pct(0.5, 0.25, 0.75, digits=0) == "50% [25, 75]"
    assert K.fixed(1.25, 2, sign=True) == "+1.25" and K.fixed(-0.04, sign=True) == "-0.0"
    assert K.ci(1.0, -0.5, 2.5, sign=True) == "+1.0 [-0.5, +2.5]"
    assert K.count(1234567) == "1,234,567"
    assert K.fixed(2 / 3, 2) == "0.67"
    assert set(K.FILTERS) <= set(K.environment().filters)


def test_provenance_block_keeps_its_markdown_line_breaks():
    env = K.environment()
    text = env.from_string('{% import "_kit.md.j2" as kit %}{{ kit.provenance(p) }}|').render(p=_provenance())
    command, commit = text.split("\n")
    assert command == "Command: `boardlab reproduce --games 20`  "
    assert commit.startswith("Commit: `0123abc`, boardlab 0.1.0; written 2026-01-02 03:04 UTC; 3 runs, 12,345 games;")
    assert "took 1.5 min of wall time when played, this command 0.5 min" in commit
    assert commit.endswith("run cache).  |")


def test_tables_are_written_as_csv_by_name(tmp_path):
    tables = {"a": pd.DataFrame({"x": [1 / 3, 2.0]}), "b": pd.DataFrame({"y": ["z"]})}
    K.write_tables(tmp_path, tables, ["a"])
    assert [f.name for f in tmp_path.iterdir()] == ["a.csv"]
    assert (tmp_path / "a.csv").read_text() == "x\n0.3333\n2\n"
    K.write_tables(tmp_path, tables)
    assert pd.read_csv(tmp_path / "b.csv")["y"].tolist() == ["z"]


def test_provenance_is_filled_from_this_checkout():
    p = K.provenance("cmd", 2, 40, 60.0, 6.0)
    assert p["command"] == "cmd" and p["runs"] == 2 and p["games"] == 40
    assert p["now"].endswith(" UTC") and p["commit"] and p["version"]


def test_every_shipped_template_has_a_context_here():
    shipped = {f.name for f in (files("boardlab.experiments") / "templates").iterdir() if f.name.endswith(".md.j2")}
    assert "_kit.md.j2" in shipped
    assert {name for name in shipped if not name.startswith("_")} == set(CONTEXTS)


@pytest.mark.parametrize("name", sorted(CONTEXTS))
def test_template_renders_every_table_and_the_header(name):
    context = CONTEXTS[name]()
    text = K.render(name, **context)
    assert text.startswith("# ") and text.endswith("\n") and not text.endswith("\n\n")
    assert "`boardlab reproduce --games 20`" in text
    for key, value in [*context.items(), *context.get("s", {}).items()]:
        if isinstance(value, pd.DataFrame):
            assert K.md_table(value) in text, key
    assert "Undefined" not in text and "{{" not in text and "{%" not in text


# contexts taking a template's other branches (the names only those branches read)
OTHER_BRANCHES = {
    "anatomy_report.md.j2": lambda: {**_anatomy_report(), "skill": [], "restricted": []},
}


@pytest.mark.parametrize("name", sorted(CONTEXTS))
def test_template_refuses_a_missing_name(name):
    contexts = [CONTEXTS[name]()] + ([OTHER_BRANCHES[name]()] if name in OTHER_BRANCHES else [])
    for key in contexts[0]:
        refused = 0
        for context in contexts:
            partial = {k: v for k, v in context.items() if k != key}
            try:
                K.render(name, **partial)
            except jinja2.UndefinedError:
                refused += 1
        assert refused, f"{name} renders without {key!r}"
