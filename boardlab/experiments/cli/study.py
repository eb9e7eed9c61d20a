"""`boardlab study run|show|list`: a study file's steps run with reuse, then its tables and report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import UserError, app, check_jobs

study_app = typer.Typer(
    help="Studies as files: run a study.toml's steps (reusing finished runs), then write its tables and report.",
    no_args_is_help=True,
)
app.add_typer(study_app, name="study")

StudyArg = Annotated[Path, typer.Argument(help="The study file (study.toml).", show_default=False)]
RunsOpt = Annotated[
    Path | None,
    typer.Option(
        "--runs",
        help="The runs folder, where every step's outputs go (default: the study's [study] runs, relative to the"
        " study file, else runs/ beside it); created when missing.",
        show_default=False,
    ),
]


def _load(study: Path, runs: Path | None, jobs: int = 1):
    from boardlab.experiments import study as M

    try:
        return M.load_study(study, runs, jobs)
    except M.StudyError as e:
        raise UserError(str(e)) from None


@study_app.command("run")
def run(
    study: StudyArg,
    runs: RunsOpt = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the plan (steps to run, resume or reuse) and run nothing.")
    ] = False,
    jobs: Annotated[int, typer.Option("--jobs", help="Worker processes per step: the value of {jobs}.")] = 1,
):
    """Run a study: every step whose outputs are not complete (an interrupted simulate run is resumed), in
    order, each as its own boardlab process in the study's folder; then its tables and report, written next to
    the study file."""
    from boardlab.experiments import study as M

    if jobs < 1:
        raise UserError(f"--jobs must be at least 1, got {jobs}")
    s = _load(study, runs, jobs)
    if not dry_run:
        check_jobs(jobs)
    try:
        written = M.run_study(s, dry_run=dry_run)
    except M.StudyError as e:
        raise UserError(str(e)) from None
    for path in written:
        print(f"wrote {path}")


@study_app.command("show")
def show(study: StudyArg, runs: RunsOpt = None):
    """Print a study's expanded steps as shell lines (run in the study's folder), with each one's state."""
    from boardlab.experiments import study as M

    s = _load(study, runs)
    print(f"# {s.title}" + (f": {s.description}" if s.description else ""))
    print(f"cd {s.folder}")
    for step, state in M.plan(s):
        print(f"{step.shell()}   # {step.name}: {state}")
    for t in s.tables:
        print(f"# table {t.out.name} <- {t.function}")


@study_app.command("list")
def list_studies(
    folder: Annotated[Path, typer.Argument(help="The folder searched for study.toml files.")] = Path("results"),
):
    """List the study files under a folder: path, title and number of steps."""
    from boardlab.experiments import study as M

    if not folder.is_dir():
        raise UserError(f"{folder}: not a folder")
    for path in M.find_studies(folder):
        s = _load(path, None)
        print(f"{path}  {s.title}  ({len(s.steps)} steps, {len(s.tables)} tables)")
