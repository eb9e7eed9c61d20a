"""`boardlab study`: study files read and checked up front (one-line errors), matrices expanded, finished runs
reused and interrupted ones resumed, tables and report written; every committed study dry-runs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from boardlab.experiments import study as M
from boardlab.experiments.simulate import RunPaths
from tests.cli import cli as run_in_process

ROOT = Path(__file__).resolve().parents[2]

PIG = """
[study]
title = "Pig, tiny"

[vars]
game = "pig"

[[steps]]
name = "p{players}-s{seed}"
command = "simulate"
args = ["--game", "{game}", "--players", "{players}", "--agents", "random", "--games", "{games}", "--seed", "{seed}",
        "--out", "{runs}/p{players}-s{seed}.parquet", "--quiet", "--jobs", "{jobs}"]
matrix = { players = [2, 3], seed = [{ seed = 1, games = 20 }, { seed = 2, games = 30 }] }
exclude = [{ players = 3, seed = 2 }]

[[tables]]
out = "shares.csv"
function = "boardlab.experiments.pipelines:load_results"
args = { paths = ["{runs}/p2-s1.parquet", "{runs}/p2-s2.parquet", "{runs}/p3-s1.parquet"] }

[report]
template = "report.md.j2"
"""
TEMPLATE = (
    "# {{ study.title }}\n\n{% for s in steps %}- {{ s.name }}: `{{ s.command }}`\n{% endfor %}"
    "rows: {{ tables['shares.csv'] | length }}\n"
)


STEP = "[[steps]]\nname = 'a'\ncommand = 'summary'\nargs = ['x']\n"
SIM = "[[steps]]\nname = 'a'\ncommand = 'simulate'\nargs = ['--players', '2', '--agents', 'random', '--games', '2',"


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "boardlab.experiments.cli", *args], capture_output=True, text=True, cwd=cwd
    )


def here(capsys, *args: str) -> subprocess.CompletedProcess:
    """The command in this process (tests.cli): for refusals and the commands that play nothing."""
    code, out, err = run_in_process(capsys, *args)
    return subprocess.CompletedProcess(args, code, out, err)


@pytest.fixture
def pig(tmp_path: Path) -> Path:
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "study.toml").write_text(PIG)
    (folder / "report.md.j2").write_text(TEMPLATE)
    return folder / "study.toml"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "study.toml"
    path.write_text(text)
    return path


def test_matrix_expands_in_order_with_exclusions_and_substitution(pig):
    s = M.load_study(pig, jobs=2)
    assert [x.name for x in s.steps] == ["p2-s1", "p2-s2", "p3-s1"]
    assert s.runs == pig.parent / "runs"
    step = s.steps[1]
    assert step.outputs == (pig.parent / "runs" / "p2-s2.parquet",)
    assert step.args[step.args.index("--games") + 1] == "30"
    assert step.args[step.args.index("--jobs") + 1] == "2"
    assert step.params["players"] == 2 and step.params["seed"] == 2


def test_expand_matrix_tables_and_named_axes():
    combos = M.expand_matrix({"a": "letters", "n": [1, 2]}, [{"a": "y", "n": 2}], "here", {"letters": ["x", "y"]})
    assert combos == [{"a": "x", "n": "1"}, {"a": "x", "n": "2"}, {"a": "y", "n": "1"}]
    assert M.substitute("{a}-{{b}}", {"a": "{c}", "c": "3"}, "here") == "3-{b}"


@pytest.mark.parametrize(
    "text, message",
    [
        ("[study]\ntitel = 'x'\n", "unknown key 'titel'"),
        ("[[steps]]\nname = 'a'\ncommand = 'simulte'\n", "unknown command 'simulte'"),
        ("[[steps]]\nname = 'a'\ncommand = 'study'\n", "unknown command 'study'"),
        ("[[steps]]\nname = 'a'\ncommand = 'tune'\n", "needs a subcommand"),
        ("[[steps]]\nname = 'a'\ncommand = 'summary'\nargs = ['--gmae', 'x']\n", "No such option: --gmae"),
        ("[[steps]]\nname = 'a'\ncommand = 'summary'\nargs = ['{nope}']\n", "{nope} is not defined"),
        (STEP + "matrix = { n = [] }\n", "non-empty list"),
        (
            STEP.replace("'a'", "'a{n}'") + "matrix = { n = [1, { n = 2 }] }\n",
            "all scalars",
        ),
        (
            STEP.replace("'a'", "'a{n}'") + "matrix = { n = [1] }\nexclude = [{ m = 1 }]\n",
            "names no matrix value",
        ),
        (STEP + "matrix = { n = [1, 2] }\n", "used twice"),
        (
            SIM + " '--out', '/tmp/elsewhere.parquet']\n",
            "outside the runs folder",
        ),
        (
            SIM + " '--rules', 'missing.toml', '--out', '{runs}/a.parquet']\n",
            "input missing.toml does not exist",
        ),
        (
            STEP + "[[tables]]\nout = 't.csv'\nfunction = 'os:getcwd'\n",
            "inside boardlab",
        ),
        (
            STEP + "[[tables]]\nout = 't.csv'\nfunction = 'boardlab.experiments.pipelines:nope'\n",
            "has no nope",
        ),
        (
            STEP + "[report]\ntemplate = 'gone.j2'\n",
            "does not exist",
        ),
        ("[[steps]\n", "not a TOML file"),
    ],
)
def test_bad_study_is_one_line_exit_2_before_any_work(tmp_path, capsys, text, message):
    path = write(tmp_path, text)
    with pytest.raises(M.StudyError, match=message.replace("{", r"\{").replace("}", r"\}").replace("(", r"\(")):
        M.load_study(path)
    r = here(capsys, "study", "run", str(path))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert message.split("{")[0] in r.stderr
    assert not (tmp_path / "runs").exists()


def test_missing_study_file_is_one_line(tmp_path, capsys):
    r = here(capsys, "study", "run", str(tmp_path / "none.toml"))
    assert r.returncode == 2 and "no such study file" in r.stderr and r.stderr.count("\n") == 1


@pytest.mark.slow  # a study end to end
def test_run_then_reuse_finished_runs_and_replace_a_damaged_one(pig, tmp_path):
    folder = pig.parent
    dry = cli("study", "run", str(pig), "--dry-run", cwd=tmp_path)
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.count(": run\n") == 3 and not (folder / "runs").exists()

    first = cli("study", "run", str(pig), cwd=tmp_path)  # from another folder: paths are the study's
    assert first.returncode == 0, first.stderr
    shares = pd.read_csv(folder / "shares.csv")
    assert len(shares) == 20 * 2 + 30 * 2 + 20 * 3
    report = (folder / "REPORT.md").read_text()
    assert report.startswith("# Pig, tiny") and "rows: 160" in report and "- p3-s1: `boardlab simulate" in report

    s = M.load_study(pig)
    assert [state for _, state in M.plan(s)] == ["reuse"] * 3
    out = folder / "runs" / "p2-s2.parquet"
    before = {p: p.stat().st_mtime_ns for p in (folder / "runs").glob("*.parquet")}

    # an interrupted run: its manifest in OUT.parts, no result yet
    paths = RunPaths(out)
    out.unlink()
    paths.parts.mkdir()
    (paths.parts / "run.json").write_text('{"run_id": "x", "spec": {}}')
    assert M.step_state(s.steps[1]) == "resume"
    assert M.command_for(s.steps[1], "resume")[-1] == "--resume"
    shutil.rmtree(paths.parts)
    assert M.step_state(s.steps[1]) == "run"

    # a damaged result is replaced (--force), a missing one run
    out.write_bytes(b"not parquet")
    assert M.step_state(s.steps[1]) == "replace"
    assert M.command_for(s.steps[1], "replace")[-1] == "--force"
    again = cli("study", "run", str(pig))
    assert again.returncode == 0, again.stderr
    assert "[1/3] p2-s1: reuse" in again.stdout and "[2/3] p2-s2: replace" in again.stdout
    assert "[3/3] p3-s1: reuse" in again.stdout
    after = {p: p.stat().st_mtime_ns for p in (folder / "runs").glob("*.parquet")}
    assert after[folder / "runs" / "p2-s1.parquet"] == before[folder / "runs" / "p2-s1.parquet"]
    again_shares = pd.read_csv(folder / "shares.csv")
    assert again_shares.drop(columns="run_id").equals(shares.drop(columns="run_id"))  # the same seeded games


@pytest.mark.slow  # a study end to end
def test_a_result_of_another_size_is_not_reused(pig):
    assert cli("study", "run", str(pig)).returncode == 0
    pig.write_text(PIG.replace("games = 30", "games = 40"))
    s = M.load_study(pig)
    assert [state for _, state in M.plan(s)] == ["reuse", "replace", "reuse"]


@pytest.mark.slow  # a study end to end
def test_an_interrupted_simulate_run_is_resumed_by_the_study(pig):
    s = M.load_study(pig)
    step = s.steps[0]
    out = step.outputs[0]
    out.parent.mkdir(parents=True)
    # start the step's run and stop it after its manifest is written: no chunk, no result
    from boardlab.experiments import simulate as S
    from boardlab.sim.games import get_game

    g = get_game("pig")
    spec = S.make_spec(2, ["random"], 20, 1, g.load_rules(g.default_preset), "rotate", None, False, game=g)
    S.prepare(spec, S.RunPaths(out), resume=False, force=False)
    assert M.step_state(step) == "resume"
    r = cli("study", "run", str(pig))
    assert r.returncode == 0, r.stderr
    assert "[1/3] p2-s1: resume" in r.stdout and "--resume" in r.stdout
    assert M.step_state(step) == "reuse"


def test_a_failing_step_stops_the_study_and_writes_no_table(pig):
    pig.write_text(PIG.replace('"random"', '"no-such-agent"'))
    r = cli("study", "run", str(pig))
    assert r.returncode == 2
    assert "step p2-s1 failed" in r.stderr.splitlines()[-1]
    assert not (pig.parent / "shares.csv").exists()


def test_study_list_and_show(pig, capsys):
    r = here(capsys, "study", "list", str(pig.parent.parent))
    assert r.returncode == 0 and "Pig, tiny  (3 steps, 1 tables)" in r.stdout
    r = here(capsys, "study", "show", str(pig))
    assert r.returncode == 0 and "boardlab simulate --game pig --players 3" in r.stdout and "p3-s1: run" in r.stdout


COMMITTED = sorted((ROOT / "results").rglob(M.STUDY_FILE))


def test_committed_studies_found():
    assert len(COMMITTED) >= 8


@pytest.mark.parametrize("path", COMMITTED, ids=[str(p.relative_to(ROOT)) for p in COMMITTED])
def test_every_committed_study_dry_runs(path, tmp_path):
    s = M.load_study(path, runs=tmp_path / "runs")
    lines: list[str] = []
    assert M.run_study(s, dry_run=True, echo=lines.append) == []
    assert all(state == "run" for _, state in M.plan(s))
    assert len([x for x in lines if x.startswith("[")]) == len(s.steps) > 0
    assert not (tmp_path / "runs").exists()
    for t in s.tables:  # each table's file is committed beside the study
        assert t.out.is_file(), t.out
