"""Every command keeps the one-line promise: a user error is one line on stderr, exit code 2, and nothing written.

One table, COMMANDS, holds every command of the application with the mistakes a new user makes with it: an
output that cannot be written, another game's result files, a NaN where a number goes, a game that cannot
serve the command.  ``test_the_table_covers_every_command_and_option`` reads the application itself: a new
command, or a command that gains ``--out``, ``--agents``, ``--game``, a float option or result-file arguments,
fails it until its cases are added here.  Each case must fail before any game is played (so the module is
fast); all but one run in this process, as the installed command would (``experiments.cli.main``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from experiments.cli import app, main

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Paths:
    """Where a case points its command."""

    here: Path  # the working directory: defaults (runs/...) land here
    locked: Path  # a place no output can go (a read-only folder, or a regular file where a folder should be)
    cw: Path  # a Citywright result of simulate (2 players)
    cg: Path  # a Cartographers result of simulate (2 players)
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
NAN_SPECS = {"mcts:c=nan": "mcts's c", "specialist:C,weight=nan": "specialist's weight", "greedy,": "an empty spec"}

# command -> case -> its arguments.  Case names starting with these words are what the coverage test looks for.
COMMANDS = {
    "simulate": {
        "unwritable --out": lambda p: [*SIM, "--agents", "random", "--out", p.locked / "r.parquet"],
        "missing --out folder": lambda p: [*SIM, "--agents", "random", "--out", p.here / "no" / "r.parquet"],
        "--out is a folder": lambda p: [*SIM, "--agents", "random", "--out", p.here],
        **{
            f"NaN in --agents ({what})": (lambda p, s=spec: [*SIM, "--agents", s, "--out", p.here / "r.parquet"])
            for spec, what in NAN_SPECS.items()
        },
        "unknown --game": lambda p: [*SIM, "--agents", "random", "--out", p.here / "r.parquet", "--game", "nosuch"],
        "--scheduler without dask": lambda p: [*SIM, "--agents", "random", "--out", p.here / "r", "--scheduler", "x"],
    },
    "agents": {"unknown --game": lambda p: ["agents", "--game", "nosuch"]},
    "rules": {
        "unknown --game": lambda p: ["rules", "--game", "nosuch"],
        "another game's preset": lambda p: ["rules", "v1.1", "--game", "cartographers"],
    },
    "bench": {
        "unknown --game": lambda p: ["bench", "--game", "nosuch"],
        "too few games": lambda p: ["bench", "--games", "5"],
    },
    "ladder": {
        "unwritable --out": lambda p: [*LADDER, "--agents", "random,greedy", "--out", p.locked / "ladder"],
        "unwritable --out (CSV of the fixed pairings)": lambda p: [*LADDER, "--out", p.locked / "ladder.csv"],
        "unwritable --work": lambda p: [*LADDER, "--agents", "random,greedy", "--work", p.locked / "runs"],
        "NaN in --agents": lambda p: [*LADDER, "--agents", "random,mcts:c=nan", "--out", p.here / "l"],
        "unknown --game": lambda p: [*LADDER, "--game", "nosuch"],
    },
    "sweep": {
        "unwritable --out": lambda p: [*SWEEP, "--out", p.locked / "sweep"],
        "unwritable --work": lambda p: [*SWEEP, "--out", p.here / "s", "--work", p.locked / "runs"],
        "NaN in --agents": lambda p: [*SWEEP, "--agents", "greedy,mcts:c=nan", "--out", p.here / "s"],
        "NaN in --values": lambda p: [*SWEEP[:4], "2,NaN", *SWEEP[5:], "--out", p.here / "s"],
        "unknown --game": lambda p: [*SWEEP, "--game", "nosuch"],
    },
    "compare": {
        "unwritable --out": lambda p: [*COMPARE, "--out", p.locked / "cmp"],
        "unwritable --work": lambda p: [*COMPARE, "--out", p.here / "cmp", "--work", p.locked / "runs"],
        "NaN in --agents": lambda p: [*COMPARE, "--agents", "greedy,mcts:c=nan", "--out", p.here / "cmp"],
        "another game's rules": lambda p: [*COMPARE[:1], "base-a", *COMPARE[2:], "--out", p.here / "cmp"],
        "unknown --game": lambda p: [*COMPARE, "--game", "nosuch"],
    },
    "tune seats": {
        "another game's results": lambda p: ["tune", "seats", p.cg],
        "another game's results (mixed with its own)": lambda p: ["tune", "seats", p.cw, p.cg],
        "a game without seat compensation": lambda p: ["tune", "seats", p.cg, "--game", "cartographers"],
        "a table missing what it needs": lambda p: ["tune", "seats", p.no_comp],
        "not a result file": lambda p: ["tune", "seats", p.board],
        "unknown --game": lambda p: ["tune", "seats", p.cw, "--game", "nosuch"],
    },
    "tune scoring": {
        "unwritable --out": lambda p: [*TUNE, "--out", p.locked / "tune"],
        "unwritable --work": lambda p: [*TUNE, "--out", p.here / "t", "--work", p.locked / "runs"],
        "NaN in --agents": lambda p: [*TUNE, "--agents", "greedy,mcts:c=nan", "--out", p.here / "t"],
        "NaN in --keep-mean-total": lambda p: [*TUNE, "--keep-mean-total", "nan", "--out", p.here / "t"],
        "NaN in --prune-p": lambda p: [*TUNE, "--prune-p", "nan", "--out", p.here / "t"],
        "NaN in --param": lambda p: [*TUNE[:3], "scoring.park.row_points=1:nan", *TUNE[4:], "--out", p.here / "t"],
        "fewer --games than its blocks hold": lambda p: [*TUNE, "--games", "3", "--out", p.here / "t"],
        "unknown --game": lambda p: [*TUNE, "--game", "nosuch"],
    },
    "rescore": {
        "unwritable --out": lambda p: ["rescore", p.cw, "--rules", "v1.0", "--out", p.locked / "r.parquet"],
        "existing --out without --force": lambda p: ["rescore", p.cw, "--rules", "v1.0", "--out", p.cg],
        "another game's results": lambda p: ["rescore", p.cg, "--rules", "v1.0"],
        "another game's results (mixed with its own)": lambda p: ["rescore", p.cw, p.cg, "--rules", "v1.0"],
        "a game without a rescorer": lambda p: ["rescore", p.cg, "--rules", "base-a", "--game", "cartographers"],
        "a table missing what it needs": lambda p: ["rescore", p.no_board, "--rules", "v1.0"],
        "a corrupted board": lambda p: ["rescore", p.bad_board, "--rules", "v1.0"],
        "unknown --game": lambda p: ["rescore", p.cw, "--rules", "v1.0", "--game", "nosuch"],
    },
    "reproduce": {
        "unwritable --out": lambda p: ["reproduce", "--games", "20", "--out", p.locked / "report"],
        "unwritable --work": lambda p: ["reproduce", "--games", "20", "--out", p.here / "r", "--work", p.locked / "w"],
        "unknown --game": lambda p: ["reproduce", "--game", "nosuch"],
        "--backend neither loky nor dask": lambda p: ["reproduce", "--backend", "ray"],
    },
    "demo": {
        "unknown --game": lambda p: ["demo", "--game", "nosuch"],
        "another game's rules": lambda p: ["demo", "--rules", "base-a"],
    },
    "score": {
        "unknown --game": lambda p: ["score", p.board, "--game", "nosuch"],
        "another game's board": lambda p: ["score", p.board, "--game", "cartographers"],
    },
    "train": {
        "unwritable --out": lambda p: ["train", "--games", "8,8", "--out", p.locked / "w.json", "--quiet"],
        "NaN in --ridge": lambda p: ["train", "--games", "8,8", "--ridge", "nan", "--out", p.here / "w.json"],
    },
    "games": {"an unknown option": lambda p: ["games", "--bogus"]},
}
CASES = [(command, case) for command, cases in COMMANDS.items() for case in cases]


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
    for name, params in commands.items():
        cases = list(COMMANDS[name])
        options = {o for p in params for o in p.opts}

        def has(prefix, name=name, cases=cases):
            assert any(c.startswith(prefix) for c in cases), f"{name}: add a case '{prefix} ...'"

        for flag in ("--out", "--work"):
            if flag in options:
                has(f"unwritable {flag}")
        if "--agents" in options:
            has("NaN in --agents")
        if "--game" in options:
            has("unknown --game")
        if any(p.name == "results" for p in params):
            has("another game's results")
        for p in params:
            if _annotation(p) is float:
                has(f"NaN in {p.opts[0]}")


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """Result files of both games, damaged copies and a playtest board (made once; read-only to the cases)."""
    from experiments import simulate as S
    from sim.games import get_game

    d = tmp_path_factory.mktemp("stored")
    paths = {}
    for name, game, preset in (("cw", "citywright", "v1.1"), ("cg", "cartographers", "base-a")):
        rules = get_game(game).load_rules(preset)
        paths[name] = d / f"{name}.parquet"
        S.run(S.make_spec(2, ["random"], 6, 1, rules, "rotate", game=game), paths[name])
    table = pq.read_table(paths["cw"])
    meta = table.schema.metadata
    paths["no_board"] = d / "no_board.parquet"
    pq.write_table(table.drop(["board"]).replace_schema_metadata(meta), paths["no_board"])
    paths["no_comp"] = d / "no_comp.parquet"
    pq.write_table(table.drop(["compensation"]).replace_schema_metadata(meta), paths["no_comp"])
    boards = table.column("board").to_pylist()
    boards[1] = "X" * 49
    field = table.schema.field("board")
    damaged = table.set_column(table.schema.get_field_index("board"), field, pa.array(boards, field.type))
    paths["bad_board"] = d / "bad_board.parquet"
    pq.write_table(damaged.replace_schema_metadata(meta), paths["bad_board"])
    paths["board"] = d / "board.txt"
    paths["board"].write_text("RRCCPPI\n" * 7)
    return paths


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


@pytest.mark.parametrize(("command", "case"), CASES, ids=[f"{c}: {k}" for c, k in CASES])
def test_a_user_error_is_one_line_exit_2_and_writes_nothing(command, case, paths, capsys):
    args = [str(a) for a in COMMANDS[command][case](paths)]
    before = tree(paths.here.parent, paths.cw.parent, ROOT / "agents" / "citywright" / "weights")
    with pytest.raises(SystemExit) as e:
        main(args)
    out, err = capsys.readouterr()
    assert e.value.code == 2, (args, out, err)
    assert err.count("\n") == 1 and err.endswith("\n") and "Traceback" not in err, err
    assert tree(paths.here.parent, paths.cw.parent, ROOT / "agents" / "citywright" / "weights") == before, err


def test_an_impossible_number_of_games_is_refused_at_once(tmp_path):
    """simulate --games 10^12 is refused before a chunk is planned (it used to stall with memory growing)."""
    out = tmp_path / "r.parquet"
    cmd = [sys.executable, "-m", "experiments.cli", *SIM[:3], "--games", "1000000000000", "--agents", "random",
           "--out", str(out)]  # fmt: skip
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("simulate --games 1000000000000 was still running after 60 s")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert sorted(tmp_path.iterdir()) == []
