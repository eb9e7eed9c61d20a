"""The player counts a Citadels rule set allows, through the command line: the seed summary's eighth player plays,
and demo plays only the counts the rules allow (the official rules' refusal of 8 is in
tests/core/test_hostile_input.py)."""

from __future__ import annotations

import re

from tests.cli import cli


def test_simulate_at_8_players_under_the_seed_summary_plays(tmp_path, capsys):
    code, out, err = cli(capsys, "simulate", "--game", "citadels", "--players", 8, "--agents", "random", "--games", 2,
                         "--out", tmp_path / "r.parquet", "--rules", "seed-summary", "--quiet")  # fmt: skip
    assert code == 0, err
    assert re.search(r"^wrote .*r\.parquet: 2 games x 8 seats", out, re.MULTILINE), out


def test_demo_plays_only_the_counts_the_rules_allow(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, "demo", "--game", "citadels", "--games", 2)
    assert code == 0, err
    assert [line.split()[0] for line in out.splitlines() if "player(s):" in line] == ["2", "3", "4", "5", "6", "7"]
    code, out, err = cli(capsys, "demo", "--game", "citadels", "--games", 2, "--rules", "seed-summary")
    assert code == 0, err
    assert "8 player(s): 2 games" in out
