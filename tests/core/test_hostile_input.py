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

from tests.cli import cli, said


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
from tests.core import run_files as _run  # noqa: E402  (builds the section's interrupted runs)

_SNAPSHOTS: dict[Path, dict] = {}


def _resume_of(make: Callable[[Path], object]) -> Callable[[Path], list]:
    """`simulate --resume` of the run `make` leaves at ``d/r.parquet`` (the folder's state kept for _untouched)."""

    def args(d: Path) -> list:
        make(d)
        _SNAPSHOTS[d] = _run.snapshot(d)
        return _run.run_args(d / "r.parquet", "--resume")

    return args


def _untouched(d: Path) -> None:
    """Nothing in the case's folder changed (nothing deleted, written or created; no probe or lock file left)."""
    assert _run.snapshot(d) == _SNAPSHOTS.pop(d)


def _while_held(*more) -> Callable[[Path], list]:
    """`simulate` of an interrupted run's output while another writer holds its lock."""

    def args(d: Path) -> list:
        _run.interrupted(d / "r.parquet")
        _run.hold_lock(d / "r.parquet")
        _SNAPSHOTS[d] = _run.snapshot(d)
        return _run.run_args(d / "r.parquet", *more)

    return args


def _held_untouched(d: Path) -> None:
    _run.release(d / "r.parquet")
    _untouched(d)


def _nothing_written(d: Path) -> None:
    assert list(d.iterdir()) == [], list(d.iterdir())


_DAMAGED_MANIFEST = r"error: cannot resume: \S*r\.parquet\.parts/run\.json is damaged \({}\); start again with --force$"
_HELD = r"error: --out: another process is writing \S*r\.parquet \(it holds \S*r\.parquet\.lock\); wait for it to end$"

RUN_IDENTITY: list[Case] = [
    Case("resume: a chunk copied from another run", _resume_of(_run.with_foreign_chunk), 2,
         r"r\.parquet\.parts/chunk-0000002\.arrow belongs to run [0-9a-f]{20}, not this run [0-9a-f]{20}; "
         r"delete it to replay it$", _untouched),
    Case("resume: a truncated chunk", _resume_of(_run.with_truncated_chunk), 2,
         r"r\.parquet\.parts/chunk-0000001\.arrow is damaged \(.+\); delete it to replay it$", _untouched),
    Case("resume: run.json is garbage", _resume_of(lambda d: _run.with_manifest(d, "\x00 not json")), 2,
         _DAMAGED_MANIFEST.format("not JSON: .+"), _untouched),
    Case("resume: run.json is {}", _resume_of(lambda d: _run.with_manifest(d, "{}")), 2,
         _DAMAGED_MANIFEST.format("no spec"), _untouched),
    Case("resume: run.json has no run id",
         _resume_of(lambda d: _run.with_manifest(d, '{"spec": {"players": 2}}')), 2,
         _DAMAGED_MANIFEST.format("no run id"), _untouched),
    Case("a second writer", _while_held(), 2, _HELD, _held_untouched),
    Case("a second writer with --force", _while_held("--force"), 2, _HELD, _held_untouched),
    Case("a second writer with --resume", _while_held("--resume"), 2, _HELD, _held_untouched),
    Case("--out in /proc", lambda d: _run.run_args("/proc/x.parquet"), 2,
         r"error: --out: directory /proc is not writable(: cannot create a file in it \(.+\))?$",
         lambda d: Path("/proc/x.parquet.lock").exists() and pytest.fail("a lock file in /proc")),
    Case("--out of a 300-character name", lambda d: _run.run_args(d / ("n" * 292 + ".parquet")), 2,
         r"error: --out: the file name is 300 characters long, and the run also writes .+ where a name has "
         r"at most \d+: give a name of at most \d+ characters$", _nothing_written),
    Case("--out of a 245-character name", lambda d: _run.run_args(d / ("n" * 237 + ".parquet")), 2,
         r"error: --out: the file name is 245 characters long, and the run also writes \.NAME\.json\.PID\.tmp "
         r"\(\d+ characters\) where a name has at most 255: give a name of at most \d+ characters$",
         _nothing_written),
]  # fmt: skip

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
    Case(
        "summary: the same file twice",
        lambda d: ["summary", _rf.run_file(d), "./F.parquet", "--csv", d / "t"],
        2,
        r"error: F\.parquet: the same file as /.*/F\.parquet; give each result file once$",
        lambda d: not (d / "t").exists() or pytest.fail("--csv written"),
    ),
    Case(
        "summary: a copy of a run",
        lambda d: ["summary", _rf.run_file(d), _rf.run_file(d, "copy.parquet")],
        2,
        r"copy\.parquet: holds the same run as .*/F\.parquet \(run id [^)]+\); give each run once",
    ),
    Case(
        "summary: --game another than the file's",
        lambda d: ["summary", _rf.run_file(d), "--game", "pig"],
        2,
        r"error: .*F\.parquet: a result of citywright, not pig$",
    ),
    Case(
        "summary: --csv into a missing folder",
        lambda d: ["summary", _rf.run_file(d), "--csv", d / "no" / "t"],
        2,
        r"error: --csv: directory .*/no does not exist$",
    ),
    *[
        Case(
            f"summary: {name}",
            lambda d, make=make: ["summary", _rf.run_file(d, "ok.parquet", "random"), make(d)],
            2,
            says,
        )
        for name, make, says in _DAMAGED
    ],
]


# --- Python agents: exceptions, illegal moves, exits, hangs --------------------------------------
def _agent_run(agent: str, *more) -> Callable[[Path], list]:
    """simulate of Citywright, seat 1 greedy and seat 2 the test agent `agent` (tests.core.user_agents)."""
    spec = f"greedy,py:tests.core.user_agents:{agent}"
    return lambda d: ["simulate", "--players", 2, "--agents", spec, "--games", 4, "--seating", "fixed",
                      "--chunk-size", 2, "--out", d / "r.parquet", "--quiet", *more]  # fmt: skip


def _agent_failed(*says: str) -> Callable[[Path], None]:
    """The run stopped: no output, its parts kept for --resume, the log holding the traceback (and `says`)."""

    def check(d: Path) -> None:
        assert not (d / "r.parquet").exists() and (d / "r.parquet.parts" / "run.json").exists()
        log = (d / "r.parquet.error.log").read_text()
        assert log.startswith("agent py:tests.core.user_agents:") and all(s in log for s in says), log

    return check


_FAILED = (
    r"agent py:tests\.core\.user_agents:{} failed \(game {}, game seed \d+, seat 2\): {}; "
    r"traceback in \S*r\.parquet\.error\.log; finished work is kept"
)
_REFUSED = r"returned a move the game refuses \(not a move\): IllegalMove: not a Move: 'not a move'"

_BROKE = r"ValueError: the agent broke down \(\.\.\.\)"  # (its message has two lines)

AGENTS: list[Case] = [
    Case("agent-raises", _agent_run("Raiser"), 1, _FAILED.format("Raiser", "0", _BROKE),
         _agent_failed("Traceback (most recent call last)", 'raise ValueError("the agent broke down', "second line")),
    Case("agent-raises-jobs-2", _agent_run("Raiser", "--jobs", 2), 1, _FAILED.format("Raiser", "[02]", _BROKE),
         _agent_failed("Traceback (most recent call last)", 'raise ValueError("the agent broke down')),
    Case("agent-illegal-move", _agent_run("Illegal"), 1,
         _FAILED.format("Illegal", "0", _REFUSED),
         _agent_failed("Traceback", "IllegalMove")),
    Case("agent-returns-none", _agent_run("Nothing"), 1, _FAILED.format("Nothing", "0", "returned None, not a move"),
         _agent_failed("act() returned None")),
    Case("agent-sys-exit", _agent_run("Exits"), 1, _FAILED.format("Exits", "0", r"called sys\.exit\(0\)"),
         _agent_failed("Traceback", "sys.exit(0)")),
    Case("agent-isolated-raises", _agent_run("Raiser", "--isolate-agents"), 1,
         _FAILED.format("Raiser", "0", _BROKE), _agent_failed('raise ValueError("the agent')),
    Case("agent-isolated-sys-exit", _agent_run("Exits", "--isolate-agents"), 1,
         _FAILED.format("Exits", "0", r"called sys\.exit\(0\)"), _agent_failed("sys.exit(0)")),
    Case("agent-isolated-os-exit", _agent_run("HardExit", "--isolate-agents"), 1,
         _FAILED.format("HardExit", "0", r"its process ended \(exit code 3\) while waiting for a move"),
         _agent_failed("exit code 3")),
    Case("agent-hangs-past-move-timeout", _agent_run("Hangs", "--move-timeout", 1), 1,
         _FAILED.format("Hangs", "0", r"no answer within 1 s \(--move-timeout\) for a move; its process was stopped"),
         _agent_failed("within 1 s")),
    Case("move-timeout-zero", _agent_run("Hangs", "--move-timeout", 0), 2,
         r"--move-timeout must be a positive number of seconds, got 0$",
         lambda d: not list(d.iterdir()) or pytest.fail(f"written: {list(d.iterdir())}")),
    Case("move-timeout-nan", _agent_run("Hangs", "--move-timeout", "nan"), 2,
         r"--move-timeout must be a positive number of seconds, got nan$"),
    Case("agent-isolated-plays", _agent_run("FrameReader", "--isolate-agents"), 0, r"^wrote .*r\.parquet: 4 games"),
]  # fmt: skip

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
        lines = said(err)  # past the compile announcement, which a cold cache adds
        assert len(lines) == 1, err
        assert re.search(case.says, lines[0]), lines[0]
        assert "Traceback" not in err
    else:
        assert re.search(case.says, out, re.MULTILINE), out
    if case.check is not None:
        case.check(tmp_path)
