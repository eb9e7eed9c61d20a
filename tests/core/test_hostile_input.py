"""Hostile input, one table: every case of the integrity audit, for every command and game it applies to.

Each case builds a command line in a fresh folder (its ``args``), runs it as the installed command would
(``boardlab.experiments.cli.main``, in this process, or in a subprocess where the case needs one) and checks the
promise: exit code 2 for bad input, 1 for a failure during work, each with exactly one line on stderr that
matches ``says``; or exit 0 with the right result.  ``check`` then looks at what is (and is not) on disk.
The table is grouped by what the case attacks; every group feeds the one parametrised test below.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli import cli


@dataclass(frozen=True)
class Case:
    """One hostile input and the promised answer."""

    name: str
    args: Callable[[Path], list]  # the command line, built in the case's fresh folder
    code: int  # 2: bad input; 1: a failure during work; 0: the right result
    says: str  # a regular expression: the one line on stderr (code 1 or 2), or a line of stdout (code 0)
    check: Callable[[Path], None] | None = None  # what must (and must not) be on disk afterwards
    marks: tuple = ()  # e.g. (pytest.mark.slow,)


# --- run identity: one run's output, its resume state and its writers -----------------------------
RUN_IDENTITY: list[Case] = []

# --- pairing games across result files ----------------------------------------------------------
PAIRING: list[Case] = []

# --- Python agents: exceptions, illegal moves, exits, hangs --------------------------------------
AGENTS: list[Case] = []

# --- rule files, player counts, seeds, jobs and the other command inputs --------------------------
INPUTS: list[Case] = []


CASES = [*RUN_IDENTITY, *PAIRING, *AGENTS, *INPUTS]


@pytest.mark.parametrize(
    "case", [pytest.param(c, marks=c.marks, id=c.name) for c in CASES] or [pytest.param(None, marks=pytest.mark.skip)]
)
def test_a_hostile_input_gets_its_promised_answer(case: Case, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, *case.args(tmp_path))
    assert code == case.code, (code, out, err)
    if case.code:
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert re.search(case.says, lines[0]), lines[0]
        assert "Traceback" not in err
    else:
        assert re.search(case.says, out, re.MULTILINE), out
    if case.check is not None:
        case.check(tmp_path)
