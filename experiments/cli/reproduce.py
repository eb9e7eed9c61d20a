"""`citywright reproduce`: every figure of Citywright's rulebook appendix."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from ._app import (
    OUTPUT_RULE,
    BackendOpt,
    GameOpt,
    JobsOpt,
    SchedulerOpt,
    UserError,
    app,
    check_output,
    check_workers,
    command_line,
    game_def,
    interruptible,
    logger,
    progress_bar,
)


@app.command()
def reproduce(
    games: Annotated[
        int | None,
        typer.Option(
            "--games", help="Games per main table (other runs scale from it); default 2000, cartographers 1000.", min=20
        ),
    ] = None,
    jobs: JobsOpt = 2,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", help=f"Tables, charts and REPORT.md go here (default: runs/appendix/games-N/report). {OUTPUT_RULE}"
        ),
    ] = None,
    work: Annotated[
        Path | None,
        typer.Option(
            "--work", help=f"Run cache, resumable, not committed (default: runs/appendix/games-N/runs). {OUTPUT_RULE}"
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Run seed shared by every run.")] = 0,
    backend: BackendOpt = "loky",
    scheduler: SchedulerOpt = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", help="No progress bar (one line per run is still printed).")
    ] = False,
    skill: Annotated[
        bool,
        typer.Option(
            "--skill",
            help="The balance figures across skill tiers (greedy, strong, expert; experiments/skill.py): greedy and "
            "strong tables of --games games, the expert's a tenth. Full size: --games 20000 (results/skill).",
        ),
    ] = False,
    game: GameOpt = None,
):
    """Re-run every figure of Citywright's rulebook appendix (docs/games/citywright.md section 10) beside the
    book's, in REPORT.md.

    With --skill: the same figures per skill tier (greedy, strong, expert) with the restricted specialists, the
    solver's vector per tier re-simulated, and the answers to how balance moves with skill (results/skill).
    With --game cartographers: Cartographers' balance report (README.md, "Cartographers")."""
    from experiments import simulate as S

    check_workers(backend, scheduler)
    game = game_def(game).id
    if games is None:
        games = 1000 if game == "cartographers" else 2000
    if skill and game != "citywright":
        raise UserError(f"--skill: the skill axis exists for citywright only, not {game!r}")
    if skill:
        from experiments.citywright.skill import skill_reproduce as do_reproduce

        home = Path("runs") / "skill" / f"games-{games}"
        what = "the balance figures across skill tiers"
    elif game == "cartographers":
        from experiments.cartographers.report import reproduce as do_reproduce

        home = Path("runs") / "cartographers" / f"games-{games}"
        what = "Cartographers' balance report"
    elif game == "citywright":
        from experiments.citywright.report import reproduce as do_reproduce

        home = Path("runs") / "appendix" / f"games-{games}"
        what = "docs/games/citywright.md section 10"
    else:
        raise UserError(f"--game must be citywright or cartographers, got {game!r}")
    out = check_output(out, "--out", directory=True, default=home / "report")
    work = check_output(work, "--work", directory=True, default=home / "runs")
    t = time.perf_counter()
    print(f"Reproducing {what} with {games:,} games per main table on {jobs} process(es); runs in {work}")
    if skill:
        from experiments.citywright.skill import sizes

        print(f"  (the expert's tables: {sizes(games)['expert']:,} games)")
    bar, update = progress_bar(quiet, "reproduce")

    def progress(job, done: int, total: int, rate: float) -> None:
        update(done, total, rate, label=job.key)

    stopped = f"citywright: interrupted; finished runs and chunks are kept in {work}: run the same command to continue"
    with interruptible(bar, stopped):
        try:
            do_reproduce(
                games, out, work, seed=seed, n_jobs=jobs, command=command_line(), backend=backend,
                scheduler=scheduler, log=logger(bar), progress=progress,
            )  # fmt: skip
        except (S.SimulateError, OSError) as e:
            raise UserError(str(e).splitlines()[0]) from None
    print(f"wrote {out}/REPORT.md, tables (*.csv) and charts (*.png) in {time.perf_counter() - t:.0f} s")
