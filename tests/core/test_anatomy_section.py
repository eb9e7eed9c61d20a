"""A game's own report ends with the game-anatomy panel: ``reproduce`` plays it into OUT/anatomy and appends its
tables as a section of REPORT.md (any game with a report of its own that declares progress(player)).

The game here is Pig given a tiny report of its own (a REPORT.md of one line), so the test plays only the panel.
"""

from __future__ import annotations

import dataclasses

import pytest

import boardlab.sim.games as G
from boardlab.experiments import anatomy_report as AR
from boardlab.experiments.io import atomic_write_text
from boardlab.experiments.report import Report
from boardlab.sim.games import Lazy, get_game
from tests.cli import cli, said

OWN_TEXT = "# Pig's own report\n\nIts own tables.\n"


def _run(games, out, work, **_):
    out.mkdir(exist_ok=True)
    atomic_write_text(OWN_TEXT, out / "REPORT.md")
    return {}


TINY_REPORT = Report(run=_run, title="pig's own tiny report", home="pigown", default_games=20)


@pytest.fixture
def pigown(monkeypatch):
    pig = get_game("pig")
    g = dataclasses.replace(
        pig, id="pigown", reports=dataclasses.replace(pig.reports, report=Lazy(f"{__name__}:TINY_REPORT"))
    )
    monkeypatch.setitem(G._GAMES, "pigown", g)
    # two cheap tiers: the plumbing is under test here, not the search (tests/core/test_anatomy.py has the figures)
    monkeypatch.setattr(AR, "GENERIC_TIERS", {"random": "random", "ismcts-2": "ismcts:iters=2"})
    return g


@pytest.mark.slow  # a report end to end
def test_the_own_report_ends_with_the_panel_section(pigown, tmp_path, capsys):
    out, work = tmp_path / "out", tmp_path / "work"
    code, _, err = cli(capsys, "reproduce", "--game", "pigown", "--games", 20, "--jobs", 1, "--quiet", "--out", out,
                       "--work", work)  # fmt: skip
    assert code == 0, err
    text = (out / "REPORT.md").read_text()
    head, _, section = text.partition("\n## Game anatomy\n")
    assert head.strip() == OWN_TEXT.strip()  # the own report whole, then the section
    assert "20 games per table of the first tier" in section and "(anatomy/REPORT.md)" in section
    # the panel's sections one level down, the generic report's own REPORT.md beside
    for heading in ("### Headline figures per tier", "#### 2 players", "#### 3 players", "### Skill", "### Restricted"):
        assert f"\n{heading}" in section
    assert "## The full panel" not in section
    assert (out / "anatomy" / "REPORT.md").exists() and (out / "anatomy" / "panel.csv").stat().st_size > 0
    assert any((work / "anatomy").glob("*.results.parquet"))
    # again: runs reused, the section once
    code, _, err = cli(capsys, "reproduce", "--game", "pigown", "--games", 20, "--jobs", 1, "--quiet", "--out", out,
                       "--work", work)  # fmt: skip
    assert code == 0, err
    assert (out / "REPORT.md").read_text() == text


def test_no_panel_when_asked_for_none(pigown, tmp_path, capsys):
    out = tmp_path / "out"
    code, _, err = cli(capsys, "reproduce", "--game", "pigown", "--games", 20, "--anatomy-games", 0, "--quiet",
                       "--out", out, "--work", tmp_path / "work")  # fmt: skip
    assert code == 0, err
    assert (out / "REPORT.md").read_text() == OWN_TEXT and not (out / "anatomy").exists()


@pytest.mark.parametrize(("game", "other"), [("pigown", "--anatomy"), ("citywright", "--skill")])
def test_anatomy_games_belongs_to_a_games_own_report(pigown, game, other, tmp_path, capsys):
    code, out, err = cli(capsys, "reproduce", "--game", game, other, "--anatomy-games", 20, "--out", tmp_path)
    assert code == 2 and out == ""
    assert said(err) == [
        "boardlab: error: --anatomy-games: only a game's own report ends with the panel (not --skill or --anatomy)"
    ]
    assert list(tmp_path.iterdir()) == []
