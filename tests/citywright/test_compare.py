"""`boardlab compare A B` on Citywright (a game with reports): the same games under two rule sets, paired differences,
one-page report."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.cli import cli


def test_compare_a_rule_set_with_itself_gives_exactly_zero(tmp_path, capsys):
    code, _, err = cli(capsys, "compare", "v1.1", "v1.1", "--games", 24, "--out", tmp_path / "cmp", "--quiet")
    assert code == 0, err
    t = pd.read_csv(tmp_path / "cmp" / "compare.csv")
    assert set(t["section"]) == {"win share", "score", "waste"}
    assert set(t["metric"]) >= {"win_share", "commercial", "total", "waste", "empty", "forced_discards"}
    assert (t["diff"] == 0).all() and (t["lo"] == 0).all() and (t["hi"] == 0).all()
    assert (t["a"] == t["b"]).all()
    text = (tmp_path / "cmp" / "REPORT.md").read_text()
    assert "**Rule differences:** none." in text
    assert (tmp_path / "cmp" / "compare.png").read_bytes()[:4] == b"\x89PNG"


def test_compare_two_rule_sets_pairs_the_same_games(tmp_path, capsys):
    variant = tmp_path / "c20.toml"
    variant.write_text('base = "v1.1"\n[scoring.commercial]\ntier_points = [5, 15, 20]\n')
    code, out, err = cli(capsys, "compare", "v1.1", variant, "--games", 24, "--out", tmp_path / "cmp", "--quiet")
    assert code == 0, err
    assert "B - A" in out and "seat 4" in out
    t = pd.read_csv(tmp_path / "cmp" / "compare.csv")
    com = t[(t["metric"] == "commercial") & t["group"].str.startswith("specialist:C")].iloc[0]
    assert com["diff"] < 0 and com["b"] - com["a"] == pytest.approx(com["diff"], abs=1e-3)
    ws = t[t["section"] == "win share"]
    assert ws.groupby("by")["diff"].sum().abs().max() < 1e-5  # shares still sum to one
    assert "`scoring.commercial.tier_points` [5, 15, 30] → [5, 15, 20]" in (tmp_path / "cmp" / "REPORT.md").read_text()
    code, _, err = cli(capsys, "compare", "v1.1", tmp_path / "missing.toml", "--games", 24, "--out", tmp_path / "cmp2")
    assert code == 2 and err.count("\n") == 1 and not (tmp_path / "cmp2").exists()


def test_the_default_output_folders_are_made(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no runs/ here: a default location is created, a given one must exist
    code, _, err = cli(capsys, "compare", "v1.1", "v1.1", "--games", 4, "--quiet")
    assert code == 0, err
    assert (tmp_path / "runs" / "compare" / "REPORT.md").exists() and (tmp_path / "runs" / "compare" / "runs").is_dir()
