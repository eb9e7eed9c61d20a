"""Every command keeps the one-line promise: a user error is one line on stderr, exit code 2, and nothing written.

One table, COMMANDS, holds every command of the application with the mistakes a new user makes with it: an
output that cannot be written, another game's result files, a NaN where a number goes, a game that cannot
serve the command.  ``test_the_table_covers_every_command_and_option`` reads the application itself: a new
command, or a command that gains ``--out``, ``--agents``, ``--game``, a float option or result-file arguments,
fails it until its cases are added here.  Each case must fail before any game is played (so the module is
fast); all but one run in this process, as the installed command would (``boardlab.experiments.cli.main``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from boardlab.experiments.cli import app, main
from tests.cli import said

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Paths:
    """Where a case points its command."""

    here: Path  # the working directory: defaults (runs/...) land here
    locked: Path  # a place no output can go (a read-only folder, or a regular file where a folder should be)
    cw: Path  # a Citywright result of simulate (2 players)
    pig: Path  # a Pig result of simulate (2 players): another game's, of a game without optional parts
    no_board: Path  # the Citywright result without its board column
    bad_board: Path  # the Citywright result with one board corrupted
    no_comp: Path  # the Citywright result without its compensation column
    board: Path  # a Citywright playtest board


SIM = ["simulate", "--players", "2", "--games", "2"]
LADDER = ["ladder", "--players", "2", "--games", "4", "--quiet"]
SWEEP = ["sweep", "--param", "scoring.park.row_points", "--values", "2,3", "--players", "2", "--games", "4", "--quiet"]
COMPARE = ["compare", "v1.1", "v1.0", "--players", "2", "--games", "4", "--quiet"]
TUNE = ["tune", "scoring", "--param", "scoring.park.row_points=1:4", "--players", "2", "--games", "8", "--blocks", "2",
        "--trials", "1", "--verify-games", "0", "--objective", "seats", "--quiet"]  # fmt: skip
RANDOM = ["--agents", "random"]
NAN_SPECS = {"mcts:c=nan": "mcts's c", "specialist:C,weight=nan": "specialist's weight", "greedy,": "an empty spec"}


def locked(flag: str) -> str:
    """What an output under Paths.locked is told: a read-only folder, or a file where a folder should be."""
    return f"{flag}: .*(is not writable|is a file, not a directory)"


MISSING = "--out: directory .* does not exist"
UNKNOWN = "--game: unknown game 'nosuch'"
OTHER_RESULTS = "a result of pig, not citywright"

# command -> case -> (what stderr says, a regular expression; the arguments).  The coverage test looks for
# case names starting with "unwritable --out", "missing --out folder", "NaN in --agents", "unknown --game", ...
COMMANDS = {
    "simulate": {
        "unwritable --out": (locked("--out"), lambda p: [*SIM, *RANDOM, "--out", p.locked / "r.parquet"]),
        "missing --out folder": (MISSING, lambda p: [*SIM, *RANDOM, "--out", p.here / "no" / "r.parquet"]),
        "--out is a folder": ("is a directory; give a file name", lambda p: [*SIM, *RANDOM, "--out", p.here]),
        **{
            f"NaN in --agents ({what})": ("--agents", lambda p, s=spec: [*SIM, "--agents", s, "--out", p.here / "r"])
            for spec, what in NAN_SPECS.items()
        },
        "unknown --game": (UNKNOWN, lambda p: [*SIM, *RANDOM, "--out", p.here / "r.parquet", "--game", "nosuch"]),
        "NaN in --move-timeout": (
            "--move-timeout must be a positive number of seconds, got nan",
            lambda p: [*SIM, *RANDOM, "--out", p.here / "r.parquet", "--move-timeout", "nan"],
        ),
        "--scheduler without dask": (
            "--scheduler needs --backend dask",
            lambda p: [*SIM, *RANDOM, "--out", p.here / "r", "--scheduler", "tcp://127.0.0.1:1"],
        ),
    },
    "agents": {"unknown --game": (UNKNOWN, lambda p: ["agents", "--game", "nosuch"])},
    "rules": {
        "unknown --game": (UNKNOWN, lambda p: ["rules", "--game", "nosuch"]),
        "another game's preset": ("unknown preset 'v1.1'", lambda p: ["rules", "v1.1", "--game", "cartographers"]),
    },
    "bench": {
        "unknown --game": (UNKNOWN, lambda p: ["bench", "--game", "nosuch"]),
        "too few games": ("Invalid value for '--games'", lambda p: ["bench", "--games", "5"]),
    },
    "ladder": {
        "unwritable --out": (
            locked("--out"),
            lambda p: [*LADDER, "--agents", "random,greedy", "--out", p.locked / "l"],
        ),
        "unwritable --out (CSV of the fixed pairings)": (
            locked("--out"),
            lambda p: [*LADDER, "--out", p.locked / "l.csv"],
        ),
        "unwritable --work": (
            locked("--work"),
            lambda p: [*LADDER, "--agents", "random,greedy", "--work", p.locked / "runs"],
        ),
        "missing --out folder": (
            MISSING,
            lambda p: [*LADDER, "--agents", "random,greedy", "--out", p.here / "no" / "l"],
        ),
        "--backend dask on the fixed pairings": (
            "the fixed pairings play on this machine",
            lambda p: [*LADDER, "--backend", "dask"],
        ),
        "NaN in --agents": ("--agents", lambda p: [*LADDER, "--agents", "random,mcts:c=nan", "--out", p.here / "l"]),
        "unknown --game": (UNKNOWN, lambda p: [*LADDER, "--game", "nosuch"]),
    },
    "sweep": {
        "unwritable --out": (locked("--out"), lambda p: [*SWEEP, *RANDOM, "--out", p.locked / "sweep"]),
        "unwritable --work": (
            locked("--work"),
            lambda p: [*SWEEP, *RANDOM, "--out", p.here / "s", "--work", p.locked / "w"],
        ),
        "missing --out folder": (MISSING, lambda p: [*SWEEP, *RANDOM, "--out", p.here / "no" / "s"]),
        "NaN in --agents": ("--agents", lambda p: [*SWEEP, "--agents", "greedy,mcts:c=nan", "--out", p.here / "s"]),
        "NaN in --values": (
            "expected an integer, got nan",
            lambda p: [*SWEEP[:4], "2,NaN", *SWEEP[5:], *RANDOM, "--out", p.here / "s"],
        ),
        "unknown --game": (UNKNOWN, lambda p: [*SWEEP, *RANDOM, "--game", "nosuch"]),
    },
    "compare": {
        "unwritable --out": (locked("--out"), lambda p: [*COMPARE, *RANDOM, "--out", p.locked / "cmp"]),
        "unwritable --work": (
            locked("--work"),
            lambda p: [*COMPARE, *RANDOM, "--out", p.here / "cmp", "--work", p.locked / "runs"],
        ),
        "missing --out folder": (MISSING, lambda p: [*COMPARE, *RANDOM, "--out", p.here / "no" / "cmp"]),
        "NaN in --agents": ("--agents", lambda p: [*COMPARE, "--agents", "greedy,mcts:c=nan", "--out", p.here / "c"]),
        "another game's rules": (
            "unknown preset 'base-a'",
            lambda p: ["compare", "base-a", *COMPARE[2:], *RANDOM, "--out", p.here / "c"],
        ),
        "unknown --game": (UNKNOWN, lambda p: [*COMPARE, *RANDOM, "--game", "nosuch"]),
    },
    "tune seats": {
        "another game's results": (OTHER_RESULTS, lambda p: ["tune", "seats", p.pig]),
        "another game's results (mixed with its own)": (OTHER_RESULTS, lambda p: ["tune", "seats", p.cw, p.pig]),
        "a game without seat compensation": (
            "pig has no seat compensation",
            lambda p: ["tune", "seats", p.pig, "--game", "pig"],
        ),
        "a table missing what it needs": (
            "the table has no compensation column",
            lambda p: ["tune", "seats", p.no_comp],
        ),
        "not a result file": ("board.txt: cannot read it as a result file", lambda p: ["tune", "seats", p.board]),
        "unknown --game": (UNKNOWN, lambda p: ["tune", "seats", p.cw, "--game", "nosuch"]),
    },
    "tune scoring": {
        "unwritable --out": (locked("--out"), lambda p: [*TUNE, *RANDOM, "--out", p.locked / "tune"]),
        "unwritable --work": (
            locked("--work"),
            lambda p: [*TUNE, *RANDOM, "--out", p.here / "t", "--work", p.locked / "w"],
        ),
        "missing --out folder": (MISSING, lambda p: [*TUNE, *RANDOM, "--out", p.here / "no" / "t"]),
        "NaN in --agents": ("--agents", lambda p: [*TUNE, "--agents", "greedy,mcts:c=nan", "--out", p.here / "t"]),
        "NaN in --keep-mean-total": (
            "--keep-mean-total must be a positive percentage, got nan",
            lambda p: [*TUNE, *RANDOM, "--keep-mean-total", "nan", "--out", p.here / "t"],
        ),
        "NaN in --prune-p": (
            "--prune-p must be in",
            lambda p: [*TUNE, *RANDOM, "--prune-p", "nan", "--out", p.here / "t"],
        ),
        "NaN in --param": (
            "'nan' is not a finite number",
            lambda p: [*TUNE[:3], "scoring.park.row_points=1:nan", *TUNE[4:], *RANDOM, "--out", p.here / "t"],
        ),
        "fewer --games than its blocks hold": (
            "--games 3: .* at least 4 games",
            lambda p: [*TUNE, *RANDOM, "--games", "3", "--out", p.here / "t"],
        ),
        "unknown --game": (UNKNOWN, lambda p: [*TUNE, *RANDOM, "--game", "nosuch"]),
        "NaN in --stop-z": (
            "--stop-z must be a non-negative number of standard errors .*, got nan",
            lambda p: [*TUNE, *RANDOM, "--stop-z", "nan", "--out", p.here / "t"],
        ),
        "NaN in --race": (
            "--race must be a non-negative margin in points² .*, got nan",
            lambda p: [*TUNE, *RANDOM, "--race", "nan", "--out", p.here / "t"],
        ),
        "a negative --race": (
            "--race must be a non-negative margin in points² .*, got -1",
            lambda p: [*TUNE, *RANDOM, "--race", "-1", "--out", p.here / "t"],
        ),
        "--race without the early stop": (
            "--race decides with --stop-z's standard errors: give --stop-z above 0",
            lambda p: [*TUNE, *RANDOM, "--race", "50", "--stop-z", "0", "--out", p.here / "t"],
        ),
        "a placeholder --param": (
            "achievements.cards.versatile.points is a placeholder .*--allow-placeholder",
            lambda p: [*TUNE[:3], "achievements.cards.versatile.points=0:8", *TUNE[4:], *RANDOM, "--out", p.here / "t"],
        ),
        "--allow-placeholder naming no placeholder": (
            "--allow-placeholder scoring: not a placeholder key",
            lambda p: [*TUNE, *RANDOM, "--allow-placeholder", "scoring", "--out", p.here / "t"],
        ),
        "--seat-players a game cannot seat": (
            "--seat-players: 9 is not a player count of citywright",
            lambda p: [*TUNE, *RANDOM, "--seat-players", "2,9", "--out", p.here / "t"],
        ),
        "--seat-agent unknown": (
            "--seat-agent: unknown agent",
            lambda p: [*TUNE, *RANDOM, "--seat-agent", "nosuch", "--out", p.here / "t"],
        ),
    },
    "rescore": {
        "unwritable --out": (locked("--out"), lambda p: ["rescore", p.cw, "--rules", "v1.0", "--out", p.locked / "r"]),
        "existing --out without --force": (
            "exists; use --force",
            lambda p: ["rescore", p.cw, "--rules", "v1.0", "--out", p.pig],
        ),
        "missing --out folder": (MISSING, lambda p: ["rescore", p.cw, "--rules", "v1.0", "--out", p.here / "no" / "r"]),
        "another game's results": (OTHER_RESULTS, lambda p: ["rescore", p.pig, "--rules", "v1.0"]),
        "another game's results (mixed with its own)": (
            OTHER_RESULTS,
            lambda p: ["rescore", p.cw, p.pig, "--rules", "v1.0"],
        ),
        "a game without a rescorer": (
            "pig has no rescorer",
            lambda p: ["rescore", p.pig, "--rules", "standard", "--game", "pig"],
        ),
        "a table missing what it needs": (
            "no_board.parquet: the table has no board column",
            lambda p: ["rescore", p.no_board, "--rules", "v1.0"],
        ),
        "a corrupted board": (
            "bad_board.parquet: game .*, seat .*: board 'X{49}' is not 49 cells",
            lambda p: ["rescore", p.bad_board, "--rules", "v1.0"],
        ),
        "unknown --game": (UNKNOWN, lambda p: ["rescore", p.cw, "--rules", "v1.0", "--game", "nosuch"]),
    },
    "reproduce": {
        "unwritable --out": (locked("--out"), lambda p: ["reproduce", "--games", "20", "--out", p.locked / "report"]),
        "unwritable --work": (
            locked("--work"),
            lambda p: ["reproduce", "--games", "20", "--out", p.here / "r", "--work", p.locked / "w"],
        ),
        "missing --out folder": (MISSING, lambda p: ["reproduce", "--games", "20", "--out", p.here / "no" / "r"]),
        "unknown --game": (UNKNOWN, lambda p: ["reproduce", "--game", "nosuch"]),
        "--backend neither loky nor dask": (
            "--backend must be loky or dask",
            lambda p: ["reproduce", "--backend", "ray"],
        ),
        "--rules without --skill": ("--rules needs --skill", lambda p: ["reproduce", "--rules", "v1.0"]),
        "an unreadable --rules file": (
            "rules: cannot read .*nosuch.toml",
            lambda p: ["reproduce", "--skill", "--rules", p.here / "nosuch.toml", "--out", p.here / "r"],
        ),
        "--rules for a skill report of its own rule sets": (
            "--rules: the skill report of cartographers plays its own rule sets only",
            lambda p: ["reproduce", "--skill", "--game", "cartographers", "--rules", "base-a"],
        ),
    },
    "demo": {
        "unknown --game": (UNKNOWN, lambda p: ["demo", "--game", "nosuch"]),
        "another game's rules": ("unknown preset 'base-a'", lambda p: ["demo", "--rules", "base-a"]),
    },
    "score": {
        "unknown --game": (UNKNOWN, lambda p: ["score", p.board, "--game", "nosuch"]),
        "another game's board": (
            "board.txt:1: expected a header",
            lambda p: ["score", p.board, "--game", "cartographers"],
        ),
    },
    "train": {
        "unwritable --out": (locked("--out"), lambda p: ["train", "--games", "8,8", "--out", p.locked / "w.json"]),
        "missing --out folder": (MISSING, lambda p: ["train", "--games", "8,8", "--out", p.here / "no" / "w.json"]),
        "NaN in --ridge": ("--ridge", lambda p: ["train", "--games", "8,8", "--ridge", "nan", "--out", p.here / "w"]),
        "unknown --game": (UNKNOWN, lambda p: ["train", "--games", "8,8", "--game", "nosuch"]),
        "a game without a trainer": (
            "pig has no trainer",
            lambda p: ["train", "--games", "8,8", "--game", "pig", "--out", p.here / "w.json"],
        ),
    },
    "games": {"an unknown option": ("No such option: --bogus", lambda p: ["games", "--bogus"])},
    "summary": {
        "unknown --game": (UNKNOWN, lambda p: ["summary", p.cw, "--game", "nosuch"]),
        "another game's results": (OTHER_RESULTS, lambda p: ["summary", p.pig, "--game", "citywright"]),
        "another game's results (mixed with its own)": (
            "a result of pig, .* one of citywright: give one game's files",
            lambda p: ["summary", p.cw, p.pig],
        ),
        "unwritable --csv": (
            "--csv: .*(is not writable|is a file, not a directory)",
            lambda p: ["summary", p.cw, "--csv", p.locked / "t"],
        ),
        "missing --csv folder": (
            "--csv: directory .* does not exist",
            lambda p: ["summary", p.cw, "--csv", p.here / "no" / "t"],
        ),
    },
    "warmup": {
        "NaN in --agents": ("--agents", lambda p: ["warmup", "--game", "citywright", "--agents", "greedy,mcts:c=nan"]),
        "unknown --game": (UNKNOWN, lambda p: ["warmup", "--game", "nosuch"]),
        "--jobs 0": ("--jobs must be at least 1", lambda p: ["warmup", "--jobs", "0"]),
    },
    "study run": {
        "missing study file": ("no such study file", lambda p: ["study", "run", p.here / "no.toml"]),
        "--jobs 0": ("--jobs must be at least 1", lambda p: ["study", "run", p.here / "no.toml", "--jobs", "0"]),
    },
    "study show": {
        "missing study file": ("no such study file", lambda p: ["study", "show", p.here / "no.toml"]),
    },
    "study list": {
        "missing folder": ("not a folder", lambda p: ["study", "list", p.here / "no"]),
    },
}
CASES = [(command, case) for command, cases in COMMANDS.items() for case in cases]
# Commands that play games take the shared --jobs, --backend and --scheduler; the others play none (bench
# measures one core on purpose).  A new command goes in one of the two.
PLAYS_GAMES = {"simulate", "ladder", "sweep", "compare", "tune seats", "tune scoring", "reproduce", "demo", "train"}
PLAYS_NONE = {"agents", "rules", "score", "games", "rescore", "bench", "warmup", "summary"}
PLAYS_NONE |= {"study run", "study show", "study list"}  # a study's steps are commands, each in its own process


def app_commands() -> dict:
    """Every command of the application (``tune seats`` for a group's) -> its click parameters."""
    import typer

    out = {}

    def walk(group, prefix):
        for name, cmd in group.commands.items():
            if hasattr(cmd, "commands"):
                walk(cmd, f"{prefix}{name} ")
            else:
                out[prefix + name] = cmd.params

    walk(typer.main.get_command(app), "")
    return out


def _annotation(param):
    td = getattr(param, "type_descriptor", None)
    return getattr(td, "annotation", None)


def test_the_table_covers_every_command_and_option():
    commands = app_commands()
    assert set(COMMANDS) == set(commands), "every command needs its cases in COMMANDS"
    assert PLAYS_GAMES | PLAYS_NONE == set(commands) and not PLAYS_GAMES & PLAYS_NONE
    for name in PLAYS_GAMES:
        options = {o for p in commands[name] for o in p.opts}
        assert {"--jobs", "--backend", "--scheduler"} <= options, f"{name} plays games: give it the shared options"
    for name, params in commands.items():
        cases = list(COMMANDS[name])
        options = {o for p in params for o in p.opts}

        def has(prefix, name=name, cases=cases):
            assert any(c.startswith(prefix) for c in cases), f"{name}: add a case '{prefix} ...'"

        for flag in ("--out", "--work"):
            if flag in options:
                has(f"unwritable {flag}")
        if "--out" in options:
            has("missing --out folder")
        if "--agents" in options:
            has("NaN in --agents")
        if "--game" in options:
            has("unknown --game")
        if any(p.name == "results" for p in params):
            has("another game's results")
        for p in params:
            if _annotation(p) is float:
                has(f"NaN in {p.opts[0]}")


#: Paths fields of Citywright result files: the cases that read one run in tests/citywright/test_user_errors.py
CITYWRIGHT_FILES = {"cw", "no_board", "bad_board", "no_comp"}


def reads_citywright_files(case: tuple) -> bool:
    """Whether a case's command line names one of the Citywright result files (CITYWRIGHT_FILES)."""
    _, make = case
    return bool(set(make.__code__.co_names) & CITYWRIGHT_FILES)


def make_stored(d: Path, citywright: bool) -> dict:
    """Pig's result file and a playtest board in `d`; with `citywright`, a Citywright result file and its damaged
    copies too (else their Paths fields name files that do not exist)."""
    from boardlab.experiments import simulate as S
    from boardlab.sim.games import get_game

    paths = {}
    for name, game, preset in (("cw", "citywright", "v1.1"), ("pig", "pig", "standard")):
        paths[name] = d / f"{name}.parquet"
        if name == "pig" or citywright:
            rules = get_game(game).load_rules(preset)
            S.run(S.make_spec(2, ["random"], 6, 1, rules, "rotate", game=game), paths[name])
    for name in ("no_board", "no_comp", "bad_board"):
        paths[name] = d / f"{name}.parquet"
    if citywright:
        table = pq.read_table(paths["cw"])
        meta = table.schema.metadata
        pq.write_table(table.drop(["board"]).replace_schema_metadata(meta), paths["no_board"])
        pq.write_table(table.drop(["compensation"]).replace_schema_metadata(meta), paths["no_comp"])
        boards = table.column("board").to_pylist()
        boards[1] = "X" * 49
        field = table.schema.field("board")
        damaged = table.set_column(table.schema.get_field_index("board"), field, pa.array(boards, field.type))
        pq.write_table(damaged.replace_schema_metadata(meta), paths["bad_board"])
    paths["board"] = d / "board.txt"
    paths["board"].write_text("RRCCPPI\n" * 7)
    return paths


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """Pig's result file and a playtest board (made once; read-only to the cases): the cases here read no
    Citywright result file."""
    return make_stored(tmp_path_factory.mktemp("stored"), citywright=False)


@pytest.fixture
def paths(tmp_path, stored, monkeypatch):
    here = tmp_path / "work"
    here.mkdir()
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    if os.access(locked, os.W_OK):  # root writes anyway: under a regular file nobody can
        locked.chmod(0o700)
        locked.rmdir()
        locked.write_text("a file where a folder should be\n")
    monkeypatch.chdir(here)
    yield Paths(here=here, locked=locked, **stored)
    if locked.is_dir():
        locked.chmod(0o700)


def tree(*roots: Path) -> list:
    """Every path under `roots` with its size and modification time (a folder's changes when its entries do)."""
    out = []
    for root in roots:
        for p in sorted([root, *root.rglob("*")]):
            st = p.stat()
            out.append((str(p), st.st_size, st.st_mtime_ns))
    return out


HERE = [(c, k) for c, k in CASES if not reads_citywright_files(COMMANDS[c][k])]


def test_the_cases_that_read_a_citywright_result_run_with_citywright():
    """Every case runs once: here, or (reading a Citywright result file) in tests/citywright/test_user_errors.py."""
    elsewhere = [(c, k) for c, k in CASES if reads_citywright_files(COMMANDS[c][k])]
    assert elsewhere and HERE and len(HERE) + len(elsewhere) == len(CASES)


@pytest.mark.parametrize(("command", "case"), HERE, ids=[f"{c}: {k}" for c, k in HERE])
def test_a_user_error_is_one_line_exit_2_and_writes_nothing(command, case, paths, capsys):
    check_case(command, case, paths, capsys)


def check_case(command: str, case: str, paths: Paths, capsys) -> None:
    """Case `case` of `command`: exit code 2, one line on stderr for the case's reason, and nothing written."""
    said, make = COMMANDS[command][case]
    args = [str(a) for a in make(paths)]
    before = tree(paths.here.parent, paths.cw.parent, ROOT / "boardlab" / "agents" / "citywright" / "weights")
    with pytest.raises(SystemExit) as e:
        main(args)
    out, err = capsys.readouterr()
    assert e.value.code == 2, (args, out, err)
    assert err.count("\n") == 1 and err.endswith("\n") and "Traceback" not in err, err
    assert re.search(said, err), (said, err)  # refused for the reason the case is about
    assert (
        tree(paths.here.parent, paths.cw.parent, ROOT / "boardlab" / "agents" / "citywright" / "weights") == before
    ), err


def test_a_huge_number_of_games_starts_at_once_and_stops_cleanly(tmp_path):
    """simulate --games 10^12 (it used to stall with memory growing, nothing written) starts playing and writing
    parts within a minute; Ctrl-C then stops it with one line and exit 130, its finished chunks kept."""
    import signal
    import time

    from tests.core.test_simulate import sigint_default

    out = tmp_path / "r.parquet"
    cmd = [sys.executable, "-m", "boardlab.experiments.cli", *SIM[:3], "--game", "pig", "--games", "1000000000000",
           "--agents", "random",
           "--chunk-size", "1000", "--quiet", "--out", str(out)]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
    parts = out.with_name(out.name + ".parts")
    deadline = time.monotonic() + 60
    try:
        while not (parts.is_dir() and any(f.name.startswith("chunk-") for f in parts.iterdir())):
            assert proc.poll() is None, proc.stderr.read()
            if time.monotonic() > deadline:
                pytest.fail("simulate --games 10^12 wrote no chunk within 60 s")
            time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted; finished chunks are kept" in err
    assert (parts / "run.json").exists() and not out.exists()


@pytest.mark.parametrize("kind", ["loky", "dask"])
def test_a_lost_worker_is_one_line_saying_the_finished_work_is_kept(tmp_path, capsys, monkeypatch, kind):
    """A worker process killed from outside (or by the OOM killer) mid-run: not a traceback but one line, exit
    code 1 (the input was fine), saying how to go on (`simulate`'s test_a_worker_killed_from_outside... kills one
    for real)."""
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    from boardlab.experiments import simulate as S

    KilledWorker = type("KilledWorker", (Exception,), {})  # distributed's, by name (no import of distributed)
    error = TerminatedWorkerError("A worker process managed by the executor was unexpectedly terminated.")

    def run(*a, **kw):
        raise error if kind == "loky" else KilledWorker("('run_chunk-1', <WorkerState ...>)")

    monkeypatch.setattr(S, "run", run)
    with pytest.raises(SystemExit) as e:
        main(["simulate", "--game", "pig", "--players", "2", "--agents", "random", "--games", "8", "--quiet",
              "--out", str(tmp_path / "r.parquet")])  # fmt: skip
    err = capsys.readouterr().err
    assert e.value.code == 1 and len(said(err)) == 1
    assert "a worker process died" in err and "run the same command again" in err and "--resume" in err
