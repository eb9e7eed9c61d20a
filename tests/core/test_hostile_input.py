"""Hostile input, one table: every case of the integrity audit, for every command and game it applies to.

Each case is of the game its command line plays (``Case.game``): the example games' (and those of no game) run
here, each built-in game's in its folder (tests/<game>/test_hostile_input.py).  Each case builds a command line in a
fresh folder (its ``args``; a builder that takes a second argument ``h``
gets the fixtures of interrupted runs and result files, ``h.runs`` and ``h.results``: tests/core/conftest.py),
runs it as the installed command would
(``boardlab.experiments.cli.main``, in this process, or in a subprocess where the case needs one) and checks the
promise: exit code 2 for bad input, 1 for a failure during work, each with exactly one line on stderr that
matches ``says``; or exit 0 with the right result.  ``check`` then looks at what is (and is not) on disk.
The table is grouped by what the case attacks; every group feeds the one parametrised test below.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from boardlab.sim.games import DEFAULT_GAME, available_games, builtin_games
from tests.cli import cli, said
from tests.per_game import PLUGIN_GAMES


@dataclass(frozen=True)
class Case:
    """One hostile input and the promised answer."""

    name: str
    args: Callable[..., list]  # the command line, built in the case's fresh folder: args(d) or args(d, h)
    code: int  # 2: bad input; 1: a failure during work; 0: the right result
    says: str  # a regular expression: the one line on stderr (code 1 or 2), or a line of stdout (code 0)
    check: Callable[..., None] | None = None  # what must (and must not) be on disk afterwards: check(d) or (d, h)
    marks: tuple = ()  # e.g. (pytest.mark.slow,)
    game: str | None = None  # the game the command plays (set by _tagged); None: no game


class Helpers(NamedTuple):
    """What a case's ``args`` or ``check`` taking ``h`` gets: the fixtures run_files and result_files."""

    runs: Any
    results: Any


def _call(fn: Callable, d: Path, h: Helpers):
    """fn(d), or fn(d, h) when it takes ``h``."""
    return fn(d, h) if "h" in inspect.signature(fn).parameters else fn(d)


# --- run identity: one run's output, its resume state and its writers -----------------------------

_SNAPSHOTS: dict[Path, dict] = {}


def _resume_of(make: Callable[[Any, Path], object]) -> Callable[[Path, Helpers], list]:
    """`simulate --resume` of the run `make(runs, d)` leaves at ``d/r.parquet`` (the folder's state kept for
    _untouched)."""

    def args(d: Path, h: Helpers) -> list:
        make(h.runs, d)
        _SNAPSHOTS[d] = h.runs.snapshot(d)
        return h.runs.run_args(d / "r.parquet", "--resume")

    return args


def _untouched(d: Path, h: Helpers) -> None:
    """Nothing in the case's folder changed (nothing deleted, written or created; no probe or lock file left)."""
    assert h.runs.snapshot(d) == _SNAPSHOTS.pop(d)


def _while_held(*more) -> Callable[[Path, Helpers], list]:
    """`simulate` of an interrupted run's output while another writer holds its lock."""

    def args(d: Path, h: Helpers) -> list:
        h.runs.interrupted(d / "r.parquet")
        h.runs.hold_lock(d / "r.parquet")
        _SNAPSHOTS[d] = h.runs.snapshot(d)
        return h.runs.run_args(d / "r.parquet", *more)

    return args


def _held_untouched(d: Path, h: Helpers) -> None:
    h.runs.release(d / "r.parquet")
    _untouched(d, h)


def _nothing_written(d: Path) -> None:
    assert list(d.iterdir()) == [], list(d.iterdir())


_DAMAGED_MANIFEST = r"error: cannot resume: \S*r\.parquet\.parts/run\.json is damaged \({}\); start again with --force$"
_HELD = r"error: --out: another process is writing \S*r\.parquet \(it holds \S*r\.parquet\.lock\); wait for it to end$"

RUN_IDENTITY: list[Case] = [
    Case("resume: a chunk copied from another run", _resume_of(lambda r, d: r.with_foreign_chunk(d)), 2,
         r"r\.parquet\.parts/chunk-0000002\.arrow belongs to run [0-9a-f]{20}, not this run [0-9a-f]{20}; "
         r"delete it to replay it$", _untouched),
    Case("resume: a truncated chunk", _resume_of(lambda r, d: r.with_truncated_chunk(d)), 2,
         r"r\.parquet\.parts/chunk-0000001\.arrow is damaged \(.+\); delete it to replay it$", _untouched),
    Case("resume: run.json is garbage", _resume_of(lambda r, d: r.with_manifest(d, "\x00 not json")), 2,
         _DAMAGED_MANIFEST.format("not JSON: .+"), _untouched),
    Case("resume: run.json is {}", _resume_of(lambda r, d: r.with_manifest(d, "{}")), 2,
         _DAMAGED_MANIFEST.format("no spec"), _untouched),
    Case("resume: run.json has no run id",
         _resume_of(lambda r, d: r.with_manifest(d, '{"spec": {"players": 2}}')), 2,
         _DAMAGED_MANIFEST.format("no run id"), _untouched),
    Case("a second writer", _while_held(), 2, _HELD, _held_untouched),
    Case("a second writer with --force", _while_held("--force"), 2, _HELD, _held_untouched),
    Case("a second writer with --resume", _while_held("--resume"), 2, _HELD, _held_untouched),
    Case("--out in /proc", lambda d, h: h.runs.run_args("/proc/x.parquet"), 2,
         r"error: --out: directory /proc is not writable(: cannot create a file in it \(.+\))?$",
         lambda d: Path("/proc/x.parquet.lock").exists() and pytest.fail("a lock file in /proc")),
    Case("--out of a 300-character name", lambda d, h: h.runs.run_args(d / ("n" * 292 + ".parquet")), 2,
         r"error: --out: the file name is 300 characters long, and the run also writes .+ where a name has "
         r"at most \d+: give a name of at most \d+ characters$", _nothing_written),
    Case("--out of a 245-character name", lambda d, h: h.runs.run_args(d / ("n" * 237 + ".parquet")), 2,
         r"error: --out: the file name is 245 characters long, and the run also writes \.NAME\.json\.PID\.tmp "
         r"\(\d+ characters\) where a name has at most 255: give a name of at most \d+ characters$",
         _nothing_written),
]  # fmt: skip


# --- pairing games across result files ----------------------------------------------------------
def _rescore_args(*files) -> list:
    """`boardlab rescore FILES --rules v1.0 --out out.parquet`."""
    return ["rescore", *files, "--rules", "v1.0", "--out", "out.parquet"]


def _no_out(d: Path) -> None:
    """Nothing written: no ``out.parquet`` in `d`."""
    assert not (Path(d) / "out.parquet").exists()


_DAMAGED = [  # (name, the damaged file built in the case's folder, what the one line says)
    ("zero-row Parquet", lambda d, h: h.results.zero_rows(d), r"zero\.parquet: holds no games \(0 rows\)$"),
    (
        "a file cut in the middle",
        lambda d, h: h.results.truncated(d),
        r"cut\.parquet: cannot read it as a result file: ",
    ),
    (
        "a file corrupted mid-way",
        lambda d, h: h.results.corrupted(d),
        r"bad\.parquet: cannot read it as a result file: ",
    ),
    ("a directory", lambda d, h: h.results.directory(d), r"dir\.parquet: is a directory, not a result file$"),
    ("a FIFO", lambda d, h: h.results.fifo(d), r"pipe\.parquet: is a FIFO \(named pipe\), not a result file$"),
    ("/dev/null", lambda d, h: "/dev/null", r"/dev/null: is a character device, not a result file$"),
    ("a text file", lambda d, h: h.results.not_parquet(d), r"notes\.parquet: cannot read it as a result file: "),
    ("an empty file", lambda d, h: h.results.empty(d), r"empty\.parquet: is empty \(0 bytes\), not a result file$"),
]

PAIRING: list[Case] = [
    Case(
        "rescore: the same file twice",
        lambda d, h: _rescore_args(h.results.run_file(d), "./F.parquet"),
        2,
        r"error: F\.parquet: the same file as /.*/F\.parquet; give each result file once$",
        _no_out,
    ),
    Case(
        "tune seats: the same file twice",
        lambda d, h: ["tune", "seats", h.results.run_file(d), h.results.run_file(d)],
        2,
        r"error: (.*/F\.parquet): the same file as \1; give each result file once$",
    ),
    Case(
        "rescore: a copy of a run",
        lambda d, h: _rescore_args(h.results.run_file(d), h.results.run_file(d, "copy.parquet")),
        2,
        r"copy\.parquet: holds the same run as .*/F\.parquet \(run id [^)]+\); give each run once",
        _no_out,
    ),
    Case(
        "tune seats: two files of one run id",
        lambda d, h: [
            "tune",
            "seats",
            h.results.with_run_id(h.results.run_file(d), d / "a.parquet", "r1"),
            h.results.with_run_id(h.results.run_file(d, agents="greedy,random"), d / "b.parquet", "r1"),
        ],
        2,
        r"b\.parquet: holds the same run as .*a\.parquet \(run id r1\)",
    ),
    Case(
        "tune seats: two runs of one seed pool",
        lambda d, h: [
            "tune",
            "seats",
            h.results.run_file(d),
            h.results.run_file(d, "G.parquet", agents="greedy,random"),
        ],
        0,
        r"^80 games, 2 players",
    ),
    *[
        Case(
            f"rescore: {name}",
            lambda d, h, make=make: _rescore_args(h.results.run_file(d, "ok.parquet", "random"), make(d, h)),
            2,
            says,
            _no_out,
        )
        for name, make, says in _DAMAGED
    ],
    *[
        Case(f"tune seats: {name}", lambda d, h, make=make: ["tune", "seats", make(d, h)], 2, says)
        for name, make, says in _DAMAGED
    ],
    Case(
        "summary: the same file twice",
        lambda d, h: ["summary", h.results.run_file(d), "./F.parquet", "--csv", d / "t"],
        2,
        r"error: F\.parquet: the same file as /.*/F\.parquet; give each result file once$",
        lambda d, h: not (d / "t").exists() or pytest.fail("--csv written"),
    ),
    Case(
        "summary: a copy of a run",
        lambda d, h: ["summary", h.results.run_file(d), h.results.run_file(d, "copy.parquet")],
        2,
        r"copy\.parquet: holds the same run as .*/F\.parquet \(run id [^)]+\); give each run once",
    ),
    Case(
        "summary: --game another than the file's",
        lambda d, h: ["summary", h.results.run_file(d), "--game", "pig"],
        2,
        r"error: .*F\.parquet: a result of citywright, not pig$",
    ),
    Case(
        "summary: --csv into a missing folder",
        lambda d, h: ["summary", h.results.run_file(d), "--csv", d / "no" / "t"],
        2,
        r"error: --csv: directory .*/no does not exist$",
    ),
    *[
        Case(
            f"summary: {name}",
            lambda d, h, make=make: ["summary", h.results.run_file(d, "ok.parquet", "random"), make(d, h)],
            2,
            says,
        )
        for name, make, says in _DAMAGED
    ],
]


# --- Python agents: exceptions, illegal moves, exits, hangs --------------------------------------
def _agent_run(agent: str, *more) -> Callable[[Path], list]:
    """simulate of Pig, seat 1 random and seat 2 the test agent `agent` (tests.core.user_agents)."""
    spec = f"random,py:tests.core.user_agents:{agent}"
    return lambda d: ["simulate", "--game", "pig", "--players", 2, "--agents", spec, "--games", 4, "--seating", "fixed",
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
_REFUSED = (
    r"returned a move the game refuses \(not a move\): "
    r"IllegalMove: 'not a move' is not legal now \(\[Move\(kind='roll'\)\]\)"
)

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
# Every hostile file is made in the case's folder under in/; a refused command leaves nothing else there.
GAMES = ("citywright", "cartographers", "citadels")
PRESET = {"citywright": "v1.1", "cartographers": "base-a", "citadels": "official"}
PLAYERS = {"citywright": 2, "cartographers": 2, "citadels": 4}


def _in(d: Path, name: str) -> Path:
    (d / "in").mkdir(exist_ok=True)
    return d / "in" / name


def _text(name: str, data: bytes) -> Callable[[Path], Path]:
    def make(d: Path) -> Path:
        path = _in(d, name)
        path.write_bytes(data)
        return path

    return make


def _fifo(name: str) -> Callable[[Path], Path]:
    def make(d: Path) -> Path:
        path = _in(d, name)
        os.mkfifo(path)
        return path

    return make


def _folder(name: str) -> Callable[[Path], Path]:
    def make(d: Path) -> Path:
        path = _in(d, name)
        path.mkdir()
        return path

    return make


def _nothing_written(d: Path) -> None:
    """Only the case's own inputs (in/) are in its folder: no output, no parts, no run cache."""
    assert sorted(p.name for p in d.iterdir()) in ([], ["in"]), sorted(d.rglob("*"))


def _base(game: str) -> bytes:
    return f'base = "{PRESET[game]}"\n'.encode()


# (name, the file, what the one line says): each a rules file no game can read
_RULE_FILES = [
    ("non-UTF-8 bytes", lambda g: _text("latin1.toml", _base(g) + b'name = "caf\xe9"\n'),
     r"rules: cannot read \S*latin1\.toml: is not UTF-8 text \(byte 0xe9 at line 2\); save it as UTF-8$"),
    ("5000 nested arrays", lambda g: _text("arrays.toml", b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n"),
     r"rules: \S*arrays\.toml nests tables and arrays deeper than 32 levels$"),
    ("5000 nested inline tables", lambda g: _text("tables.toml", b"x = " + b"{a=" * 5000 + b"1" + b"}" * 5000),
     r"rules: \S*tables\.toml nests tables and arrays deeper than 32 levels$"),
    # (1500: deeper than Python's recursion limit; tomllib's own parse of 5000 takes half a second a command)
    ("1500 dotted keys", lambda g: _text("dotted.toml", b"x" + b".a" * 1500 + b" = 1\n"),
     r"rules: \S*dotted\.toml nests tables and arrays deeper than 32 levels$"),
    ("base a table", lambda g: _text("base-table.toml", b'base = {name="x"}\n'),
     r"base-table\.toml: base: expected the name of a preset, got \{'name': 'x'\} \(valid: [a-z0-9.-]+, "),
    ("base a number", lambda g: _text("base-5.toml", b"base = 5\n"),
     r"base-5\.toml: base: expected the name of a preset, got 5 \(valid: [a-z0-9.-]+, "),
    ("base empty", lambda g: _text("base-empty.toml", b'base = ""\n'),
     r"base-empty\.toml: base: expected the name of a preset, got '' \(valid: [a-z0-9.-]+, "),
    ("a FIFO", lambda g: _fifo("pipe.toml"),
     r"rules: cannot read \S*pipe\.toml: is a FIFO \(named pipe\), not a rules file$"),
    ("a directory", lambda g: _folder("dir.toml"),
     r"rules: cannot read \S*dir\.toml: is a directory, not a rules file$"),
    ("/dev/null", lambda g: (lambda d: "/dev/null"),
     r"rules: cannot read /dev/null: is a character device, not a rules file$"),
]  # fmt: skip

# (command, the games it applies to, its command line around the rules file F): every command taking a rule set
_RULE_COMMANDS = [
    ("rules", GAMES, lambda d, g, f: ["rules", f, "--game", g]),
    ("simulate", GAMES, lambda d, g, f: ["simulate", "--game", g, "--players", PLAYERS[g], "--agents", "random",
                                         "--games", 2, "--out", d / "r.parquet", "--rules", f]),
    ("compare", GAMES, lambda d, g, f: ["compare", f, PRESET[g], "--game", g, "--games", 2, "--out", d / "c"]),
    ("sweep", GAMES, lambda d, g, f: ["sweep", "--game", g, "--param", "x", "--values", "1,2", "--rules", f,
                                      "--games", 2, "--out", d / "s"]),
    ("demo", GAMES, lambda d, g, f: ["demo", "--game", g, "--games", 1, "--rules", f]),
    ("ladder", GAMES, lambda d, g, f: ["ladder", "--game", g, "--agents", "random", "--agents", "random",
                                       "--rules", f, "--out", d / "l"]),
    ("tune scoring", GAMES, lambda d, g, f: ["tune", "scoring", "--game", g, "--param", "x=1:2", "--rules", f,
                                             "--out", d / "t"]),
    ("bench", GAMES, lambda d, g, f: ["bench", "--game", g, "--rules", f]),
    ("score", ("citywright", "cartographers"), lambda d, g, f: ["score", "board.txt", "--game", g, "--rules", f]),
    ("rescore", ("citywright",), lambda d, g, f: ["rescore", "/dev/null", "--rules", f]),
    ("reproduce --skill", ("citywright",), lambda d, g, f: ["reproduce", "--skill", "--rules", f, "--out", d / "o"]),
]  # fmt: skip

_RULES: list[Case] = [
    Case(f"{command} --game {g}: rules file, {what}",
         lambda d, make=make, g=g, line=line: line(d, g, make(g)(d)), 2, says, _nothing_written)
    for what, make, says in _RULE_FILES
    for command, games, line in _RULE_COMMANDS
    for g in games
]  # fmt: skip


def _toml(name: str, text: str) -> Callable[[Path], Path]:
    return _text(name, text.encode())


_CW_SHAPES = ("I", "L", "T", "Z", "O", "W", "T5", "P", "V")
_NO_RULERS = _toml("no-rulers.toml", 'base = "v1.1"\n' + "".join(
    f"[shapes.{s}]\ncopies = 0\ntwo_player_remove = 0\n" for s in _CW_SHAPES))  # fmt: skip
_NO_RULERS_FOR_TWO = _toml("solo-and-more.toml", 'base = "v1.1"\n' + "".join(
    f"[shapes.{s}]\ncopies = 2\ntwo_player_remove = 2\n" for s in _CW_SHAPES))  # fmt: skip
_NO_TIME = _toml("timeless.toml", 'base = "base-a"\n' + "".join(
    f'[cards.explore."{k:02d}"]\ntime = 0\n' for k in range(7, 18)))  # fmt: skip
_EIGHT = r"--players: rules 'official' of citadels allow 2\.\.7 players, got 8$"

_DECKS: list[Case] = [
    Case("rules: a Citywright deck of no ruler", lambda d: ["rules", _NO_RULERS(d)], 2,
         r"no-rulers\.toml: shapes: every shape has copies = 0, so the ruler decks hold no ruler to draw$"),
    Case("simulate: a Citywright deck of no ruler", lambda d: [
        "simulate", "--players", 3, "--agents", "random", "--games", 2, "--out", d / "r.parquet",
        "--rules", _NO_RULERS(d)], 2, r"shapes: every shape has copies = 0", _nothing_written),
    Case("simulate: a Citywright deck emptied for two players", lambda d: [
        "simulate", "--players", 2, "--agents", "random", "--games", 2, "--out", d / "r.parquet",
        "--rules", _NO_RULERS_FOR_TWO(d)], 2,
         r"--players: rules 'solo-and-more' of citywright allow 1, 3, 4 players, got 2$", _nothing_written),
    Case("rules: a Cartographers explore deck of no time", lambda d: ["rules", "--game", "cartographers", _NO_TIME(d)],
         2, r"timeless\.toml: cards\.explore: every explore card has time 0, so no season could end$"),
]  # fmt: skip

_PLAYERS: list[Case] = [
    Case("simulate: Citadels at 8 under official", lambda d: [
        "simulate", "--game", "citadels", "--players", 8, "--agents", "random", "--games", 2, "--out",
        d / "r.parquet"], 2, _EIGHT, _nothing_written),
    Case("simulate: Citadels at 9", lambda d: [
        "simulate", "--game", "citadels", "--players", 9, "--agents", "random", "--games", 2, "--out",
        d / "r.parquet", "--rules", "seed-summary"], 2, r"--players must be 2\.\.8 for citadels, got 9$",
         _nothing_written),
    Case("compare: Citadels at 8 under official", lambda d: [
        "compare", "seed-summary", "official", "--game", "citadels", "--players", 8, "--games", 2, "--out",
        d / "c"], 2, _EIGHT, _nothing_written),
    Case("ladder: Citadels at 8 under official", lambda d: [
        "ladder", "--game", "citadels", "--agents", "random,basic", "--players", 4, "--players", 8,
        "--games", 2, "--out", d / "l"], 2, _EIGHT, _nothing_written),
    Case("sweep: Citadels at 8 under official", lambda d: [
        "sweep", "--game", "citadels", "--param", "bank_gold", "--values", "20,30", "--players", 8,
        "--games", 2, "--out", d / "s"], 2, _EIGHT, _nothing_written),
    Case("tune scoring: Citadels at 8 under official", lambda d: [
        "tune", "scoring", "--game", "citadels", "--param", "bank_gold=20:40:int", "--players", 8,
        "--out", d / "t"], 2, _EIGHT, _nothing_written),
    Case("tune scoring: Citadels seat players 8 under official", lambda d: [
        "tune", "scoring", "--game", "citadels", "--param", "bank_gold=20:40:int", "--objective", "both",
        "--seat-players", "4,8", "--out", d / "t"], 2, "--seat-" + _EIGHT[2:], _nothing_written),
    # (Citadels at 8 under seed-summary plays: tests/citadels/test_player_counts.py, where its kernels compile)
]  # fmt: skip

# (command, its command line around a seed S): every command taking a run seed
_SEED_COMMANDS = [
    ("simulate", lambda d, s: ["simulate", "--players", 2, "--agents", "random", "--games", 2, "--out",
                               d / "r.parquet", "--seed", s]),
    ("compare", lambda d, s: ["compare", "v1.0", "v1.1", "--games", 2, "--seed", s, "--out", d / "c"]),
    ("sweep", lambda d, s: ["sweep", "--param", "coins.cap", "--values", "5,6", "--games", 2, "--seed", s,
                            "--out", d / "s"]),
    ("demo", lambda d, s: ["demo", "--games", 1, "--seed", s]),
    ("ladder", lambda d, s: ["ladder", "--agents", "random,greedy", "--games", 2, "--seed", s, "--out", d / "l"]),
    ("ladder pairings", lambda d, s: ["ladder", "--games", 2, "--seed", s]),
    ("reproduce", lambda d, s: ["reproduce", "--games", 20, "--seed", s, "--out", d / "o"]),
    ("tune scoring", lambda d, s: ["tune", "scoring", "--param", "coins.cap=4:9:int", "--seed", s, "--out", d / "t"]),
    ("tune scoring --train-seed", lambda d, s: ["tune", "scoring", "--param", "coins.cap=4:9:int", "--train-seed", s,
                                                "--out", d / "t"]),
    ("train", lambda d, s: ["train", "--seed", s, "--games", "2,2", "--out", d / "w.json"]),
]  # fmt: skip

_SEEDS: list[Case] = [
    Case(f"{command}: seed {seed}", lambda d, line=line, seed=seed: line(d, seed), 2,
         rf"(--seed|--train-seed) must be 0\.\.18446744073709551615 \(2\*\*64 - 1\), got {seed}$", _nothing_written)
    for command, line in _SEED_COMMANDS
    for seed in (-1, 2**64, -(2**64))
] + [
    Case(f"simulate --game {g}: seed -1", lambda d, g=g: [
        "simulate", "--game", g, "--players", PLAYERS[g], "--agents", "random", "--games", 2, "--out",
        d / "r.parquet", "--seed", -1], 2, r"--seed must be 0\.\.18446744073709551615 \(2\*\*64 - 1\), got -1$",
         _nothing_written)
    for g in GAMES
] + [
    Case("simulate: seed 2**64 - 1 plays", lambda d: [
        "simulate", "--game", "pig", "--players", 2, "--agents", "random", "--games", 2, "--out", d / "r.parquet",
        "--seed", 2**64 - 1, "--quiet"], 0, r"^wrote .*r\.parquet: 2 games"),
]  # fmt: skip

# (command, its command line around a --jobs J): every command taking --jobs
_JOBS_COMMANDS = [
    ("simulate", lambda d, j: ["simulate", "--players", 2, "--agents", "random", "--games", 2, "--out",
                               d / "r.parquet", "--jobs", j]),
    ("compare", lambda d, j: ["compare", "v1.0", "v1.1", "--games", 2, "--jobs", j, "--out", d / "c"]),
    ("sweep", lambda d, j: ["sweep", "--param", "coins.cap", "--values", "5,6", "--games", 2, "--jobs", j,
                            "--out", d / "s"]),
    ("demo", lambda d, j: ["demo", "--games", 1, "--jobs", j]),
    ("ladder", lambda d, j: ["ladder", "--games", 2, "--jobs", j]),
    ("reproduce", lambda d, j: ["reproduce", "--games", 20, "--jobs", j, "--out", d / "o"]),
    ("tune scoring", lambda d, j: ["tune", "scoring", "--param", "coins.cap=4:9:int", "--jobs", j, "--out", d / "t"]),
    ("tune seats", lambda d, j: ["tune", "seats", "/dev/null", "--jobs", j]),
    ("train", lambda d, j: ["train", "--games", "2,2", "--jobs", j, "--out", d / "w.json"]),
]  # fmt: skip

_JOBS: list[Case] = [
    Case(f"{command}: --jobs {jobs}", lambda d, line=line, jobs=jobs: line(d, jobs), 2,
         r"error: Invalid value for '--jobs': .*(x>=1|greater than or equal to 1)$", _nothing_written)
    for command, line in _JOBS_COMMANDS
    for jobs in (0, -3)
] + [
    Case(f"warmup: --jobs {jobs}", lambda d, jobs=jobs: ["warmup", "--jobs", jobs], 2,
         rf"--jobs must be at least 1, got {jobs}$", _nothing_written)
    for jobs in (0, -3)
]  # fmt: skip

# Board files (score) and the rescore command's inputs other than result files
_FILES: list[Case] = [
    *[
        Case(f"score --game {g}: board file, {what}", lambda d, g=g, make=make: ["score", make(d), "--game", g],
             2, says, _nothing_written)
        for g in ("citywright", "cartographers")
        for what, make, says in [
            ("a FIFO", _fifo("board.txt"), r"board\.txt: is a FIFO \(named pipe\), not a board file$"),
            ("a directory", _folder("boards"), r"boards: is a directory, not a board file$"),
            ("/dev/zero", lambda d: "/dev/zero", r"/dev/zero: is a character device, not a board file$"),
            ("non-UTF-8 bytes", _text("board.txt", b"R" * 7 + b"\n\xff\n"),
             r"board\.txt: is not UTF-8 text \(byte 0xff at line 2\); save it as UTF-8$"),
            ("missing", lambda d: d / "in" / "nosuch.txt", r"nosuch\.txt: no such file$"),
        ]
    ],
    Case("rescore: --out a FIFO, with --force",
         lambda d, h: ["rescore", h.results.run_file(_in(d, "")), "--rules", "v1.0", "--out", _fifo("out.parquet")(d),
                    "--force"], 2,
         r"--out: \S*out\.parquet is a FIFO \(named pipe\), not a file to write; give a file name$"),
    Case("rescore: --out /dev/null, with --force",
         lambda d, h: ["rescore", h.results.run_file(_in(d, "")), "--rules", "v1.0", "--out", "/dev/null",
                       "--force"], 2,
         r"--out: /dev/null is a character device, not a file to write; give a file name$"),
    Case("simulate: --out /dev/null, with --force", lambda d: [
        "simulate", "--players", 2, "--agents", "random", "--games", 2, "--out", "/dev/null", "--force"], 2,
         r"--out: /dev/null is a character device, not a file to write; give a file name$", _nothing_written),
    Case("compare: --out a FIFO", lambda d: ["compare", "v1.0", "v1.1", "--games", 2, "--out", _fifo("c")(d)], 2,
         r"--out: \S*c is a FIFO \(named pipe\); give a directory$"),
]  # fmt: skip

INPUTS: list[Case] = [*_RULES, *_DECKS, *_PLAYERS, *_SEEDS, *_JOBS, *_FILES]


def _tagged(cases: list[Case], default: str | None, by_name: dict[str, str | None] | None = None) -> list[Case]:
    """`cases`, each with the game its command line plays: the one its name gives with ``--game GAME``, else the
    first game of `by_name` whose key its name holds, else `default` (the registry's default game for a command
    line without --game)."""
    ids = "|".join(sorted(g.id for g in available_games()))
    out = []
    for c in cases:
        m = re.search(rf"--game ({ids})\b", c.name)
        game = m.group(1) if m else next((g for k, g in (by_name or {}).items() if k in c.name), default)
        out.append(dataclasses.replace(c, game=game))
    return out


CASES = [
    *_tagged(RUN_IDENTITY, "pig"),  # InterruptedRuns plays Pig
    *_tagged(PAIRING, DEFAULT_GAME),  # rescore and tune seats of Citywright result files
    *_tagged(AGENTS, "pig"),
    *_tagged(_RULES, None),
    *_tagged(_DECKS, DEFAULT_GAME, {"Cartographers": "cartographers"}),
    *_tagged(_PLAYERS, "citadels"),
    *_tagged(_SEEDS, DEFAULT_GAME, {"seed 2**64 - 1 plays": "pig"}),
    *_tagged(_JOBS, DEFAULT_GAME, {"warmup": None}),
    *_tagged(_FILES, DEFAULT_GAME),
]


def case_params(games) -> list:
    """The cases of `games` (None: the cases of no game) as pytest parameters, named and marked."""
    cases = [c for c in CASES if c.game in games]
    return [pytest.param(c, marks=c.marks, id=c.name) for c in cases] or [pytest.param(None, marks=pytest.mark.skip)]


def check_case(case: Case, d: Path, capsys, monkeypatch, runs, results) -> None:
    """Run `case` in the empty folder `d` and check its promised answer (``runs``, ``results``: the fixtures
    run_files and result_files, where the game's folder has them)."""
    monkeypatch.chdir(d)
    h = Helpers(runs, results)
    code, out, err = cli(capsys, *_call(case.args, d, h))
    assert code == case.code, (code, out, err)
    if case.code:
        lines = said(err)  # past the compile announcement, which a cold cache adds
        assert len(lines) == 1, err
        assert re.search(case.says, lines[0]), lines[0]
        assert "Traceback" not in err
    else:
        assert re.search(case.says, out, re.MULTILINE), out
    if case.check is not None:
        _call(case.check, d, h)


def test_every_case_plays_a_registered_game_and_runs_in_one_place():
    """The cases of the example games (and of no game) run here; each built-in game's in its folder
    (tests/<game>/test_hostile_input.py), where its kernels are compiled anyway."""
    assert {c.game for c in CASES} <= {None, *(g.id for g in available_games())}
    assert {c.game for c in CASES} >= {None, "pig", *builtin_games()}
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", case_params([None, *PLUGIN_GAMES]))
def test_a_hostile_input_gets_its_promised_answer(case: Case, tmp_path, capsys, monkeypatch, run_files, result_files):
    check_case(case, tmp_path, capsys, monkeypatch, run_files, result_files)
