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
from tests.core import result_files as _rf  # noqa: E402  (builds the section's files)

_DAMAGED = [  # (name, the damaged file built in the case's folder, what the one line says)
    ("zero-row Parquet", _rf.zero_rows, r"zero\.parquet: holds no games \(0 rows\)$"),
    ("a file cut in the middle", _rf.truncated, r"cut\.parquet: cannot read it as a result file: "),
    ("a file corrupted mid-way", _rf.corrupted, r"bad\.parquet: cannot read it as a result file: "),
    ("a directory", _rf.directory, r"dir\.parquet: is a directory, not a result file$"),
    ("a FIFO", _rf.fifo, r"pipe\.parquet: is a FIFO \(named pipe\), not a result file$"),
    ("/dev/null", lambda d: "/dev/null", r"/dev/null: is a character device, not a result file$"),
    ("a text file", _rf.not_parquet, r"notes\.parquet: cannot read it as a result file: "),
    ("an empty file", _rf.empty, r"empty\.parquet: is empty \(0 bytes\), not a result file$"),
]

PAIRING: list[Case] = [
    Case(
        "rescore: the same file twice",
        lambda d: _rf.rescore_args(_rf.run_file(d), "./F.parquet"),
        2,
        r"error: F\.parquet: the same file as /.*/F\.parquet; give each result file once$",
        _rf.no_out,
    ),
    Case(
        "tune seats: the same file twice",
        lambda d: ["tune", "seats", _rf.run_file(d), _rf.run_file(d)],
        2,
        r"error: (.*/F\.parquet): the same file as \1; give each result file once$",
    ),
    Case(
        "rescore: a copy of a run",
        lambda d: _rf.rescore_args(_rf.run_file(d), _rf.run_file(d, "copy.parquet")),
        2,
        r"copy\.parquet: holds the same run as .*/F\.parquet \(run id [^)]+\); give each run once",
        _rf.no_out,
    ),
    Case(
        "tune seats: two files of one run id",
        lambda d: [
            "tune",
            "seats",
            _rf.with_run_id(_rf.run_file(d), d / "a.parquet", "r1"),
            _rf.with_run_id(_rf.run_file(d, agents="greedy,random"), d / "b.parquet", "r1"),
        ],
        2,
        r"b\.parquet: holds the same run as .*a\.parquet \(run id r1\)",
    ),
    Case(
        "tune seats: two runs of one seed pool",
        lambda d: ["tune", "seats", _rf.run_file(d), _rf.run_file(d, "G.parquet", agents="greedy,random")],
        0,
        r"^80 games, 2 players",
    ),
    *[
        Case(
            f"rescore: {name}",
            lambda d, make=make: _rf.rescore_args(_rf.run_file(d, "ok.parquet", "random"), make(d)),
            2,
            says,
            _rf.no_out,
        )
        for name, make, says in _DAMAGED
    ],
    *[
        Case(f"tune seats: {name}", lambda d, make=make: ["tune", "seats", make(d)], 2, says)
        for name, make, says in _DAMAGED
    ],
]

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
