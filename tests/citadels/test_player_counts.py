"""The player counts a Citadels rule set allows: at the command line the seed summary's eighth player plays,
and demo plays only the counts the rules allow; the counts of each rule set, checked by make_spec and the default
table size (the official rules' refusal of 8 at the command line is in
tests/core/test_hostile_input.py)."""

from __future__ import annotations

import re

import pytest

from boardlab.experiments import simulate as S
from boardlab.experiments.cli import _app
from boardlab.sim.games import get_game
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


def test_citadels_players_follow_the_rule_set():
    g = get_game("citadels")
    official, summary = g.load_rules("official"), g.load_rules("seed-summary")
    assert g.players_for(official) == (2, 3, 4, 5, 6, 7)
    assert g.players_for(summary) == (2, 3, 4, 5, 6, 7, 8)
    assert g.players_error(8, official) == "rules 'official' of citadels allow 2..7 players, got 8"
    assert g.players_error(8, summary) is None


def test_make_spec_checks_the_count_against_the_rules():
    g = get_game("citadels")
    with pytest.raises(S.SimulateError, match=r"^--players: rules 'official' of citadels allow 2\.\.7 players, got 8$"):
        S.make_spec(8, ["random"], 2, 0, g.load_rules("official"), game=g)
    assert S.make_spec(8, ["random"], 2, 0, g.load_rules("seed-summary"), game=g).players == 8


def test_the_default_table_size_is_one_the_rule_set_allows():
    c = get_game("citadels")
    assert _app.table_players(None, c, c.load_rules("official").with_overrides({"players_allowed": [5, 6]})) == 5
