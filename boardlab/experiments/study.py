"""Studies as files: a TOML file of named steps (boardlab commands), expanded over a matrix, run with reuse.

A study file (``study.toml``) holds ``[study]`` (title, description, the default runs folder), ``[vars]``
(constants), ``[[steps]]`` (each a boardlab command with its arguments, environment, optional matrix and
declared outputs), ``[[tables]]`` (a ``boardlab`` pipeline function ``module:function`` whose DataFrame is
written as CSV next to the study file) and an optional ``[report]`` (a Jinja2 template rendered beside it).

:func:`load_study` reads and checks everything before any work: unknown keys, unknown commands and options
(each step's arguments are parsed by the command itself, without running it), undefined ``{name}``
placeholders, a bad matrix, missing input files, outputs outside the runs folder.  :func:`plan` says per step
whether its outputs are complete (reused), an interrupted run (resumed) or missing (run); :func:`run_study`
runs the steps in order, each in its own process with the study's folder as its working directory, then
writes the tables and the report.

Design notes: docs/guides/studies.md#study-files
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import os
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from boardlab.experiments import COMMAND
from boardlab.experiments.io import atomic_write_text

STUDY_FILE = "study.toml"
KEYS = {
    "top": {"study", "vars", "axes", "steps", "tables", "report"},
    "study": {"title", "description", "runs"},
    "steps": {"name", "command", "args", "env", "matrix", "exclude", "outputs", "inputs"},
    "tables": {"out", "function", "args"},
    "report": {"template", "out", "vars"},
}
# The commands a step may not name: they would run a study inside a study.
REFUSED_COMMANDS = {"study"}
# Placeholders every study has: the runs folder, the study's folder, --jobs.
BUILTINS = ("runs", "study", "jobs")
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# The options whose value is a file the step reads when it names one (a TOML rule file).
INPUT_OPTIONS = ("rules",)

# Step states (plan).
RUN, REUSE, RESUME, REPLACE = "run", "reuse", "resume", "replace"


class StudyError(ValueError):
    """A study file that cannot be run as written, or a step that failed; one line."""


@dataclass(frozen=True)
class Step:
    """One expanded step: a boardlab command line, its environment and the files it writes.

    ``command`` is the command's words (``("tune", "scoring")``), ``args`` its arguments, ``env`` the variables
    set for it, ``outputs`` the files or folders that say it is done (its ``--out`` and any declared), and
    ``params`` the command's options as the command parsed them.
    """

    name: str
    command: tuple[str, ...]
    args: tuple[str, ...]
    env: dict[str, str]
    outputs: tuple[Path, ...]
    inputs: tuple[Path, ...]
    params: dict[str, Any] = field(default_factory=dict, compare=False)

    def shell(self, folder: Path | None = None) -> str:
        """The step as one shell line (``VAR=value boardlab COMMAND ARGS``), paths as written.

        Parameters
        ----------
        folder : pathlib.Path or None
            Not read: the paths are shown as the study file writes them.

        Returns
        -------
        str
            The shell-quoted line.
        """
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items())
        line = shlex.join([COMMAND, *self.command, *self.args])
        return f"{env} {line}" if env else line


@dataclass(frozen=True)
class Table:
    """A table: ``function`` (``boardlab...module:function``) called with ``args``, its DataFrame written to
    ``out`` as CSV."""

    out: Path
    function: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Report:
    """A Jinja2 template rendered into ``out`` after the tables."""

    template: Path
    out: Path
    vars: dict[str, Any]


@dataclass(frozen=True)
class Study:
    """A study file read and checked (:func:`load_study`)."""

    path: Path
    title: str
    description: str
    runs: Path
    jobs: int
    steps: tuple[Step, ...]
    tables: tuple[Table, ...]
    report: Report | None

    @property
    def folder(self) -> Path:
        """The study file's folder: every relative path of the study is relative to it."""
        return self.path.parent


# --- reading and checking --------------------------------------------------------------------------------------


def load_study(path: str | Path, runs: str | Path | None = None, jobs: int = 1) -> Study:
    """Read a study file and check it whole, before any work.

    Parameters
    ----------
    path : str or Path
        The study file (TOML).
    runs : str, Path or None
        The runs folder (default: the file's ``[study] runs``, relative to the study file, else ``runs`` beside
        it).  It need not exist.
    jobs : int
        The value of ``{jobs}`` in the steps' arguments (worker processes per step).

    Returns
    -------
    Study
        The study with every step expanded.  StudyError, one line, when anything is wrong.
    """
    path = Path(path)
    if not path.is_file():
        raise StudyError(f"{path}: no such study file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise StudyError(f"{path}: not a TOML file: {str(e).splitlines()[0]}") from None
    if jobs < 1:
        raise StudyError(f"--jobs must be at least 1, got {jobs}")
    where = str(path)
    _known(data, "top", where)
    head = _table(data.get("study", {}), f"{where}: [study]")
    _known(head, "study", f"{where}: [study]")
    folder = path.resolve().parent
    runs_dir = Path(runs) if runs is not None else Path(_text(head.get("runs", "runs"), f"{where}: [study] runs"))
    runs_dir = runs_dir if runs_dir.is_absolute() else (Path.cwd() if runs is not None else folder) / runs_dir
    runs_dir = Path(os.path.normpath(runs_dir))
    values = {"runs": str(runs_dir), "study": str(folder), "jobs": str(jobs)}
    consts = _table(data.get("vars", {}), f"{where}: [vars]")
    for k, v in consts.items():
        if k in BUILTINS:
            raise StudyError(f"{where}: [vars] {k}: a built-in placeholder ({', '.join(BUILTINS)}) cannot be set")
        values[k] = _scalar(v, f"{where}: [vars] {k}")
    axes = _table(data.get("axes", {}), f"{where}: [axes]")
    steps: list[Step] = []
    names: set[str] = set()
    produced: set[Path] = set()
    raw_steps = data.get("steps", [])
    if not isinstance(raw_steps, list) or not raw_steps:
        raise StudyError(f"{where}: no [[steps]]")
    for k, raw in enumerate(raw_steps, 1):
        for step in _expand_step(raw, f"{where}: step {k}", values, axes, folder, runs_dir):
            if step.name in names:
                raise StudyError(f"{where}: step name {step.name!r} is used twice (give the matrix's names in it)")
            names.add(step.name)
            for p in step.inputs:
                if p not in produced and not p.exists():
                    raise StudyError(f"{where}: step {step.name}: input {_show(p, folder)} does not exist")
            produced.update(step.outputs)
            steps.append(step)
    tables = tuple(
        _read_table(raw, f"{where}: table {k}", values, folder) for k, raw in enumerate(_list(data, "tables", where), 1)
    )
    outs = [t.out for t in tables]
    if len(set(outs)) != len(outs):
        raise StudyError(f"{where}: two tables write the same file")
    report = _read_report(data["report"], f"{where}: [report]", values, folder) if "report" in data else None
    return Study(
        path=path.resolve(),
        title=_text(head.get("title", path.parent.name), f"{where}: [study] title"),
        description=_text(head.get("description", ""), f"{where}: [study] description"),
        runs=runs_dir,
        jobs=jobs,
        steps=tuple(steps),
        tables=tables,
        report=report,
    )


def _known(data: dict, kind: str, where: str) -> None:
    unknown = sorted(set(data) - KEYS[kind])
    if unknown:
        raise StudyError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(KEYS[kind]))})")


def _table(value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise StudyError(f"{where}: a table is needed, got {type(value).__name__}")
    return value


def _list(data: dict, key: str, where: str) -> list:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise StudyError(f"{where}: {key}: an array of tables ([[{key}]]) is needed")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise StudyError(f"{where}: a string is needed, got {value!r}")
    return value


def _scalar(value: Any, where: str) -> str:
    """A TOML string, integer or float as the text it stands for in a command line."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise StudyError(f"{where}: a string or a number is needed, got {value!r}")
    return str(value)


def substitute(text: str, values: dict[str, str], where: str) -> str:
    """`text` with every ``{name}`` replaced by its value, repeatedly (a value may hold placeholders), and
    ``{{``/``}}`` kept as literal braces.

    Parameters
    ----------
    text : str
        The text.
    values : dict[str, str]
        The placeholders' values.
    where : str
        Where the text is, for the error.

    Returns
    -------
    str
        The text substituted.  StudyError naming the placeholder when it is not defined, or when values refer
        to each other in a loop.
    """
    for _ in range(10):
        parts = re.split(r"(\{\{|\}\})", text)

        def one(m: re.Match) -> str:
            if m.group(1) not in values:
                raise StudyError(f"{where}: {{{m.group(1)}}} is not defined (not in [vars], the matrix or {BUILTINS})")
            return values[m.group(1)]

        new = "".join(p if p in ("{{", "}}") else PLACEHOLDER.sub(one, p) for p in parts)
        if new == text:
            return new.replace("{{", "{").replace("}}", "}")
        text = new
    raise StudyError(f"{where}: placeholders refer to each other in a loop")


def expand_matrix(matrix: Any, exclude: Any, where: str, axes: dict | None = None) -> list[dict[str, str]]:
    """The combinations of a step's matrix, in order (the first axis varies slowest), less those excluded.

    Parameters
    ----------
    matrix : dict
        Axis name → non-empty list of values; a value is a string or number (bound to the axis's name) or a
        table of them (each key bound; every table of an axis has the same keys).
    exclude : list of dict
        Partial combinations to drop: each a table of names bound by the matrix and their values.
    where : str
        Where the matrix is, for the error.
    axes : dict, optional
        The study's named lists (``[axes]``): an axis given as a string takes the list of that name.

    Returns
    -------
    list of dict
        One mapping of names to values per combination.
    """
    matrix = _table(matrix, f"{where}: matrix")
    named = axes or {}
    lists: list[list[dict[str, str]]] = []
    bound: set[str] = set()
    for axis, values in matrix.items():
        w = f"{where}: matrix {axis}"
        if isinstance(values, str):
            if values not in named:
                raise StudyError(f"{w}: no list {values!r} in [axes]")
            values = named[values]
        if not isinstance(values, list) or not values:
            raise StudyError(f"{w}: a non-empty list of values is needed")
        rows = []
        for v in values:
            if isinstance(v, dict) != isinstance(values[0], dict) or (isinstance(v, dict) and set(v) != set(values[0])):
                raise StudyError(f"{w}: the values must be all scalars, or all tables with the same keys")
            rows.append(
                {k: _scalar(x, f"{w} {k}") for k, x in v.items()} if isinstance(v, dict) else {axis: _scalar(v, w)}
            )
        names = set(rows[0])
        if names & bound:
            raise StudyError(f"{w}: {sorted(names & bound)[0]!r} is bound by another axis too")
        bound |= names
        lists.append(rows)
    if not isinstance(exclude, list) or not all(isinstance(e, dict) for e in exclude):
        raise StudyError(f"{where}: exclude: a list of tables is needed")
    drops = []
    for e in exclude:
        if not e or set(e) - bound:
            raise StudyError(f"{where}: exclude: {e!r} names no matrix value {sorted(set(e) - bound) or ''}".rstrip())
        drops.append({k: _scalar(v, f"{where}: exclude {k}") for k, v in e.items()})
    combos = [dict(itertools.chain.from_iterable(r.items() for r in combo)) for combo in itertools.product(*lists)]
    kept = [c for c in combos if not any(all(c[k] == v for k, v in d.items()) for d in drops)]
    if not kept:
        raise StudyError(f"{where}: exclude drops every combination of the matrix")
    return kept


def _expand_step(raw: Any, where: str, values: dict[str, str], axes: dict, folder: Path, runs: Path) -> Iterator[Step]:
    raw = _table(raw, where)
    _known(raw, "steps", where)
    for key in ("name", "command"):
        if key not in raw:
            raise StudyError(f"{where}: {key} is missing")
    where = f"{where.rsplit(': step', 1)[0]}: step {raw['name']}"
    command = _text(raw["command"], f"{where}: command").split()
    params_of = _resolve_command(command, where)
    args = raw.get("args", [])
    if not isinstance(args, list):
        raise StudyError(f"{where}: args: a list is needed")
    env = _table(raw.get("env", {}), f"{where}: env")
    declared = raw.get("outputs", [])
    inputs = raw.get("inputs", [])
    for key, v in (("outputs", declared), ("inputs", inputs)):
        if not isinstance(v, list):
            raise StudyError(f"{where}: {key}: a list of paths is needed")
    combos = expand_matrix(raw["matrix"], raw.get("exclude", []), where, axes) if "matrix" in raw else [{}]
    if "exclude" in raw and "matrix" not in raw:
        raise StudyError(f"{where}: exclude without a matrix")
    for combo in combos:
        clash = set(combo) & (set(values) - set(BUILTINS))
        if clash or set(combo) & set(BUILTINS):
            name = sorted(clash | (set(combo) & set(BUILTINS)))[0]
            raise StudyError(f"{where}: matrix name {name!r} is already a placeholder")
        vals = {**values, **combo}
        name = substitute(_text(raw["name"], f"{where}: name"), vals, f"{where}: name")
        w = f"{where.rsplit(': step', 1)[0]}: step {name}"
        argv = tuple(substitute(_scalar(a, f"{w}: args"), vals, f"{w}: args") for a in args)
        if "--help" in argv:
            raise StudyError(f"{w}: args: --help runs nothing")
        step_env = {k: substitute(_scalar(v, f"{w}: env {k}"), vals, f"{w}: env {k}") for k, v in env.items()}
        params = params_of(argv, w)
        outs = [_path(substitute(_text(o, f"{w}: outputs"), vals, f"{w}: outputs"), folder) for o in declared]
        if params.get("out") is not None:
            outs.insert(0, _path(str(params["out"]), folder))
        for o in outs:
            if not o.is_relative_to(runs):
                raise StudyError(f"{w}: output {_show(o, folder)} is outside the runs folder {runs}")
        ins = [_path(substitute(_text(i, f"{w}: inputs"), vals, f"{w}: inputs"), folder) for i in inputs]
        for opt in INPUT_OPTIONS:
            value = params.get(opt)
            if isinstance(value, str) and value.endswith(".toml"):
                ins.append(_path(value, folder))
        yield Step(name, tuple(command), argv, step_env, tuple(dict.fromkeys(outs)), tuple(ins), params)


def _path(text: str, folder: Path) -> Path:
    p = Path(text)
    return Path(os.path.normpath(p if p.is_absolute() else folder / p))


def _show(p: Path, folder: Path) -> str:
    try:
        return os.path.relpath(p, folder)
    except ValueError:  # pragma: no cover  (another drive)
        return str(p)


def _root_command():
    """The `boardlab` command as a click group (imported here: the command line imports this module)."""
    import typer

    from boardlab.experiments.cli import app

    return typer.main.get_command(app)


def _resolve_command(words: list[str], where: str) -> Callable[[tuple[str, ...], str], dict]:
    """A parser of the arguments of the command a step names (the command's own parser, run on nothing)."""
    from boardlab.experiments.cli._app import click_exceptions

    if not words:
        raise StudyError(f"{where}: command is empty")
    cmd = _root_command()
    path: list[str] = []
    for word in words:
        sub = cmd.commands.get(word) if hasattr(cmd, "commands") else None
        if sub is None or word in REFUSED_COMMANDS:
            known = sorted(set(getattr(cmd, "commands", {})) - REFUSED_COMMANDS)
            what = " ".join([*path, word])
            raise StudyError(f"{where}: unknown command {what!r} (known: {', '.join(known)})")
        cmd = sub
        path.append(word)
    if hasattr(cmd, "commands"):
        raise StudyError(f"{where}: {' '.join(words)!r} needs a subcommand ({', '.join(sorted(cmd.commands))})")

    def params(argv: tuple[str, ...], w: str) -> dict:
        try:
            ctx = cmd.make_context(" ".join(words), list(argv))
        except click_exceptions.ClickException as e:
            raise StudyError(f"{w}: {' '.join(words)}: {e.format_message().splitlines()[0]}") from None
        return dict(ctx.params)

    return params


def _read_table(raw: Any, where: str, values: dict[str, str], folder: Path) -> Table:
    raw = _table(raw, where)
    _known(raw, "tables", where)
    for key in ("out", "function"):
        if key not in raw:
            raise StudyError(f"{where}: {key} is missing")
    out = _path(substitute(_text(raw["out"], f"{where}: out"), values, f"{where}: out"), folder)
    where = f"{where.rsplit(': table', 1)[0]}: table {_show(out, folder)}"
    if out.suffix != ".csv" or not out.is_relative_to(folder):
        raise StudyError(f"{where}: out must be a .csv file in the study's folder")
    function = _text(raw["function"], f"{where}: function")
    pipeline_function(function, where)
    args = {k: _arg(v, values, f"{where}: args {k}") for k, v in _table(raw.get("args", {}), f"{where}: args").items()}
    return Table(out, function, args)


def _arg(value: Any, values: dict[str, str], where: str) -> Any:
    """A table's argument with its strings substituted (lists and tables walked)."""
    if isinstance(value, str):
        return substitute(value, values, where)
    if isinstance(value, list):
        return [_arg(v, values, where) for v in value]
    if isinstance(value, dict):
        return {k: _arg(v, values, f"{where}.{k}") for k, v in value.items()}
    return value


def pipeline_function(name: str, where: str = "function") -> Callable[..., pd.DataFrame]:
    """The function ``module:function`` of a module inside ``boardlab``, or a one-line StudyError.

    Parameters
    ----------
    name : str
        ``boardlab.some.module:function``.
    where : str
        Where it is named, for the error.

    Returns
    -------
    callable
        The function.
    """
    module, _, attr = name.partition(":")
    if not attr or not (module == "boardlab" or module.startswith("boardlab.")):
        raise StudyError(f"{where}: function must be module:function inside boardlab, got {name!r}")
    try:
        fn = getattr(importlib.import_module(module), attr)
    except ImportError as e:
        raise StudyError(f"{where}: cannot import {module}: {e}") from None
    except AttributeError:
        raise StudyError(f"{where}: {module} has no {attr}") from None
    if not callable(fn):
        raise StudyError(f"{where}: {name} is not a function")
    return fn


def _read_report(raw: Any, where: str, values: dict[str, str], folder: Path) -> Report:
    raw = _table(raw, where)
    _known(raw, "report", where)
    if "template" not in raw:
        raise StudyError(f"{where}: template is missing")
    template = _path(substitute(_text(raw["template"], f"{where}: template"), values, where), folder)
    if not template.is_file():
        raise StudyError(f"{where}: template {_show(template, folder)} does not exist")
    out = _path(substitute(_text(raw.get("out", "REPORT.md"), f"{where}: out"), values, where), folder)
    if not out.is_relative_to(folder) or out.suffix != ".md":
        raise StudyError(f"{where}: out must be a .md file in the study's folder")
    extra = {k: _arg(v, values, f"{where}: vars {k}") for k, v in _table(raw.get("vars", {}), where).items()}
    return Report(template, out, extra)


# --- what is done ----------------------------------------------------------------------------------------------


def output_state(path: Path) -> str:
    """Whether one output is done: ``reuse`` (complete), ``resume`` (an interrupted run: ``OUT.parts`` holds its
    manifest), ``replace`` (a file that is not a complete result, or an empty folder) or ``run`` (missing).

    A result file (``.parquet``) is complete when it holds run metadata with a run id and no parts are left
    beside it; any other file when it is not empty; a folder when it holds a file.

    Parameters
    ----------
    path : Path
        The output.

    Returns
    -------
    str
        One of ``reuse``, ``resume``, ``replace``, ``run``.
    """
    from boardlab.experiments import simulate as S

    paths = S.RunPaths(path)
    if path.suffix == ".parquet":
        if paths.manifest.is_file():
            return RESUME
        if not path.exists():
            return REPLACE if paths.parts.exists() else RUN
        try:
            meta = S.read_metadata(path)
        except (S.SimulateError, OSError, ValueError):
            return REPLACE
        return REUSE if meta.get(S.RUN_ID) and not paths.parts.exists() else REPLACE
    if path.is_dir():
        return REUSE if any(path.iterdir()) else REPLACE
    if path.is_file():
        return REUSE if path.stat().st_size else REPLACE
    return RUN


def step_state(step: Step) -> str:
    """A step's state: ``reuse`` when every output is complete (and, for a result file, was played with the
    step's ``--games``, ``--seed``, ``--players`` and ``--seating``), ``resume`` when a result is an interrupted
    run, ``replace`` when an output is there but not a complete result of this step, else ``run``; a step
    without outputs always runs.

    Parameters
    ----------
    step : Step
        The step.

    Returns
    -------
    str
        One of ``reuse``, ``resume``, ``replace``, ``run``.
    """
    if not step.outputs:
        return RUN
    states = [output_state(p) for p in step.outputs]
    if all(s == REUSE for s in states):
        return REUSE if _same_size(step) else REPLACE
    for s in (RESUME, REPLACE):
        if s in states:
            return s
    return RUN


def _same_size(step: Step) -> bool:
    """Whether a complete result file of `step` was played with its options (games, seed, players, seating)."""
    from boardlab.experiments import simulate as S

    out = step.params.get("out")
    if out is None or not str(out).endswith(".parquet") or step.outputs[0].suffix != ".parquet":
        return True
    meta = S.read_metadata(step.outputs[0])
    return all(meta.get(k) == step.params[k] for k in ("games", "seed", "players", "seating") if k in step.params)


def plan(study: Study) -> list[tuple[Step, str]]:
    """Every step with its state (:func:`step_state`), in order.

    Parameters
    ----------
    study : Study
        The study.

    Returns
    -------
    list of (Step, str)
        The steps and what running the study would do with each.
    """
    return [(s, step_state(s)) for s in study.steps]


def command_for(step: Step, state: str) -> list[str]:
    """The step's command line to run in `state`: a result of `simulate` is resumed (``--resume``) or replaced
    (``--force``) as its state says.

    Parameters
    ----------
    step : Step
        The step.
    state : str
        Its state (:func:`step_state`).

    Returns
    -------
    list of str
        The arguments after the program.
    """
    args = list(step.args)
    if step.command == ("simulate",):
        args = [a for a in args if a not in ("--resume", "--force")]
        if state == RESUME:
            args.append("--resume")
        elif state == REPLACE:
            args.append("--force")
    return [*step.command, *args]


# --- running ---------------------------------------------------------------------------------------------------


def run_study(study: Study, dry_run: bool = False, echo: Callable[[str], None] = print) -> list[Path]:
    """Run a study: each step not reused, in order, then its tables and report.

    Each step runs as ``python -m boardlab.experiments.cli COMMAND ARGS`` in its own process, in the study's
    folder, with its environment added: a step's state (numba's compiled kernels, the weight cache's folder,
    the command line recorded in its result) is the command's own, exactly as when it is typed.

    Parameters
    ----------
    study : Study
        The study (:func:`load_study`).
    dry_run : bool
        Only print the plan.
    echo : callable
        Where the plan and progress lines go.

    Returns
    -------
    list of Path
        The tables and report written (none on a dry run).  StudyError when a step fails: the steps before it
        are kept, and no table is written.
    """
    steps = plan(study)
    todo = sum(state != REUSE for _, state in steps)
    echo(
        f"study {_show(study.path, Path.cwd())}: {len(steps)} steps ({len(steps) - todo} reused), runs in {study.runs}"
    )
    for k, (step, state) in enumerate(steps, 1):
        echo(f"[{k}/{len(steps)}] {step.name}: {state}")
        if state == REUSE:
            continue
        line = [*(f"{k}={v}" for k, v in step.env.items()), COMMAND, *command_for(step, state)]
        echo(f"  {shlex.join(line)}")
        if dry_run:
            continue
        study.runs.mkdir(parents=True, exist_ok=True)
        if step.params.get("out") is not None:  # the command wants its output's folder to exist
            step.outputs[0].parent.mkdir(parents=True, exist_ok=True)
        code = subprocess.call(
            [sys.executable, "-m", "boardlab.experiments.cli", *command_for(step, state)],
            cwd=study.folder,
            env={**os.environ, **step.env},
        )
        if code != 0:
            raise StudyError(f"step {step.name} failed (exit code {code}); the steps before it are kept")
        if step.outputs and step_state(step) != REUSE:
            raise StudyError(f"step {step.name} finished without its outputs: {_show(step.outputs[0], study.folder)}")
    for t in study.tables:
        echo(f"table {_show(t.out, study.folder)} <- {t.function}")
    if study.report is not None:
        echo(f"report {_show(study.report.out, study.folder)} <- {_show(study.report.template, study.folder)}")
    if dry_run:
        return []
    return write_outputs(study)


def make_tables(study: Study) -> dict[str, pd.DataFrame]:
    """Every table of the study, computed (nothing written), keyed by its file name relative to the study.

    Parameters
    ----------
    study : Study
        The study.

    Returns
    -------
    dict[str, DataFrame]
        The tables.  StudyError naming the table when its function fails on missing or unreadable runs.
    """
    frames = {}
    with contextlib.chdir(study.folder):
        for t in study.tables:
            name = _show(t.out, study.folder)
            try:
                df = pipeline_function(t.function, f"table {name}")(**t.args)
            except (OSError, ValueError, KeyError) as e:
                raise StudyError(
                    f"table {name}: {t.function}: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
                ) from None
            if not isinstance(df, pd.DataFrame):
                raise StudyError(f"table {name}: {t.function} returned {type(df).__name__}, not a DataFrame")
            frames[name] = df
    return frames


def write_outputs(study: Study) -> list[Path]:
    """Compute every table and the report, then write them (each file whole; none when one fails).

    Parameters
    ----------
    study : Study
        The study.

    Returns
    -------
    list of Path
        The files written.
    """
    frames = make_tables(study)
    texts = {t.out: frames[_show(t.out, study.folder)].to_csv(index=False) for t in study.tables}
    if study.report is not None:
        texts[study.report.out] = render_report(study, frames)
    for path, text in texts.items():
        atomic_write_text(text, path)
    return list(texts)


def render_report(study: Study, tables: dict[str, pd.DataFrame]) -> str:
    """The study's report: its Jinja2 template rendered with ``study``, ``steps`` (name and shell line each),
    ``tables`` (file name → DataFrame), ``commit``, the report's ``vars`` and ``pipeline(name, *args)``, which
    calls a ``boardlab`` function ``module:function`` (a table's Markdown, say).

    Parameters
    ----------
    study : Study
        The study (with a report).
    tables : dict[str, DataFrame]
        Its tables (:func:`make_tables`).

    Returns
    -------
    str
        The report's text.
    """
    import jinja2

    from boardlab.experiments.provenance import git_commit

    assert study.report is not None
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(study.report.template.parent),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    try:
        template = env.get_template(study.report.template.name)
        return template.render(
            study=study,
            steps=[{"name": s.name, "command": s.shell()} for s in study.steps],
            tables=tables,
            commit=git_commit(short=True),
            pipeline=lambda name, *a, **k: pipeline_function(name, "report")(*a, **k),
            **study.report.vars,
        )
    except (jinja2.TemplateError, ValueError, KeyError) as e:
        raise StudyError(f"report {study.report.template.name}: {str(e).splitlines()[0]}") from None


def find_studies(root: str | Path) -> list[Path]:
    """Every study file (``study.toml``) under `root`, sorted.

    Parameters
    ----------
    root : str or Path
        A folder.

    Returns
    -------
    list of Path
        The study files.
    """
    return sorted(Path(root).rglob(STUDY_FILE))
