"""notebooks/cartographers.ipynb runs top to bottom on the committed results/cartographers/ tables, with its
charts; its skill cells skip when results/cartographers-skill/ is absent and chart a card's excess against tier
when it is there (as tests/citywright/test_appendix.py executes notebooks/appendix.ipynb)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "cartographers.ipynb"


def execute(monkeypatch, skill: Path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("CARTOGRAPHERS_REPORT", str(ROOT / "results" / "cartographers"))
    monkeypatch.setenv("CARTOGRAPHERS_SKILL", str(skill))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT / "notebooks")}}
    ).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, [(o.ename, o.evalue) for o in errors]
    return code


def images(cell) -> int:
    return sum("image/png" in o.get("data", {}) for o in cell.outputs)


def text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


@pytest.mark.slow  # a notebook end to end
def test_the_notebook_charts_the_committed_report_and_skips_an_absent_skill_report(tmp_path, monkeypatch):
    code = execute(monkeypatch, tmp_path / "no-such-folder")
    assert sum(images(c) for c in code) >= 6  # cards, excess, titles, edicts, card pairs (2 sides), seats
    assert "solo_cards" in text(code[0]) and "card_pairs" in text(code[0])
    skill_cells = code[-2:]
    assert "no skill report in" in text(skill_cells[0]) and "skipped" in text(skill_cells[0])
    assert images(skill_cells[1]) == 0


@pytest.mark.slow  # a notebook end to end
def test_the_skill_cells_chart_each_cards_excess_against_tier(tmp_path, monkeypatch):
    skill = tmp_path / "cartographers-skill"
    skill.mkdir()
    pd.DataFrame(
        [(tier, card, excess) for tier in ("greedy", "planner", "strong", "expert") for card, excess in
         ((26, -5.0), (27, 12.0), (28, 1.5))],
        columns=["tier", "card", "excess"],
    ).to_csv(skill / "solo_cards.csv", index=False)  # fmt: skip
    pd.DataFrame({"tier": ["greedy"], "title": ["Master Mapsmith"], "share": [0.2]}).to_csv(
        skill / "titles.csv", index=False
    )  # a table without excess: shown, not charted
    code = execute(monkeypatch, skill)
    listing, chart = code[-2:]
    assert "skipped" not in text(listing)
    shown = "".join(str(o.get("data", {}).get("text/markdown", "")) for o in listing.outputs)
    assert "**solo_cards** (12 rows)" in shown and "**titles** (1 rows)" in shown
    assert images(chart) == 1
