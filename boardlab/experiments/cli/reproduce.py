"""`boardlab reproduce`: a game's report (GameDef.reports.report; with --skill, GameDef.reports.skill_report)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from boardlab.sim.games import GameError

from ._app import (
    OUTPUT_RULE,
    BackendOpt,
    GameOpt,
    JobsOpt,
    SchedulerOpt,
    UserError,
    app,
    check_jobs,
    check_output,
    check_seed,
    check_workers,
    command_line,
    game_def,
    interruptible,
    load_rules,
    logger,
    prog_name,
    progress_bar,
)


@app.command()
def reproduce(
    games: Annotated[
        int | None,
        typer.Option(
            "--games",
            help="Games per main table (other runs scale from it); default: the report's own (the first line says).",
            min=20,
        ),
    ] = None,
    jobs: JobsOpt = 2,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", help=f"Tables, charts and REPORT.md go here (default: runs/<report>/games-N/report). {OUTPUT_RULE}"
        ),
    ] = None,
    work: Annotated[
        Path | None,
        typer.Option(
            "--work", help=f"Run cache, resumable, not committed (default: runs/<report>/games-N/runs). {OUTPUT_RULE}"
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
            help="The game's report across its skill tiers, for a game that has one (`boardlab games` says which).",
        ),
    ] = False,
    anatomy: Annotated[
        bool,
        typer.Option(
            "--anatomy",
            help="The generic balance report instead of the game's own: the game-anatomy panel per skill tier and"
            " player count (any game declaring progress(player); runs/<game>-anatomy by default).",
        ),
    ] = False,
    anatomy_games: Annotated[
        int | None,
        typer.Option(
            "--anatomy-games",
            help="A game's own report ends with the game-anatomy panel (a game declaring progress(player)) played at"
            " this many games per table of its first tier, a tenth per other tier; 0: no panel (default: --games,"
            " at most 2000).",
            min=0,
            show_default=False,
        ),
    ] = None,
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules",
            help="With --skill: the skill report under this rule set (a preset, or a TOML variant file as simulate"
            " --rules takes) and its balance targets per tier, for a report that takes one (default: its own"
            " rule sets).",
            show_default=False,
        ),
    ] = None,
    game: GameOpt = None,
):
    """Re-run every figure of a game's report and write its tables, charts and REPORT.md.

    Citywright: the rulebook's appendix (docs/games/citywright.md section 10) beside the book's figures; with
    --skill, the same figures per skill tier (greedy, strong, expert: greedy and strong tables of --games games, the
    expert's a quarter; full size --games 20000), the solver's vector per tier re-simulated, and how balance moves
    with skill (results/skill); with --skill --rules FILE, every table under that rule set and the balance
    targets per tier (specialists within 25 +- 5 points, seats within 1/N +- 2).
    Cartographers (--game cartographers): its balance report
    (solo calibration, edicts, sides, ambushes, seats; README.md, "Cartographers").
    A game without a report of its own (e.g. --game pig) gets the generic balance report: the game-anatomy panel
    (outcome, duration, branching, trajectory, skill) per tier and player count, for a game declaring progress();
    --anatomy gives that report for a game that has its own (e.g. --game citadels --anatomy)."""
    from boardlab.experiments import simulate as S
    from boardlab.experiments.io import ResultsError
    from boardlab.experiments.report import rules_tag

    check_seed(seed)
    check_workers(backend, scheduler)
    g = game_def(game)
    if anatomy and skill:
        raise UserError("--anatomy and --skill are two reports: give one")
    try:
        if anatomy or (not skill and g.reports.report is None):  # the generic balance report: the anatomy panel
            from boardlab.experiments.anatomy_report import generic_report

            report = generic_report(g, f"{g.id}-anatomy" if anatomy else None)
        else:
            report = g.require("skill_report" if skill else "report")
    except GameError as e:
        raise UserError(f"{'--skill' if skill else '--game'}: {e}") from None
    if rules is not None and not skill:
        raise UserError("--rules needs --skill (the report is of the game's own rule sets)")
    own = not (anatomy or skill) and g.reports.report is not None  # a game's own report: the panel as a section
    if anatomy_games is not None and not own:
        raise UserError("--anatomy-games: only a game's own report ends with the panel (not --skill or --anatomy)")
    if rules is not None and not report.takes_rules:
        raise UserError(f"--rules: the skill report of {g.id} plays its own rule sets only")
    rule_set = load_rules(rules, g) if rules is not None else None
    games = report.default_games if games is None else games
    home = Path("runs") / report.home / (f"rules-{rules_tag(rule_set)}" if rule_set is not None else "")
    home = home / f"games-{games}"
    out = check_output(out, "--out", directory=True, default=home / "report")
    work = check_output(work, "--work", directory=True, default=home / "runs")
    under = {} if rules is None else {"rules": rules}
    if report.check is not None:
        try:
            report.check(games, **under)  # e.g. an agent's missing weights: before any run
        except S.SimulateError as e:
            raise UserError(str(e).splitlines()[0]) from None
    if own and anatomy_games != 0:
        from boardlab.experiments.anatomy_report import declares_progress, section_games

        declared = declares_progress(g)
        if anatomy_games is not None and not declared:
            raise UserError(f"--anatomy-games: {g.id} declares no progress(player): no game-anatomy panel")
        anatomy_games = (section_games(games) if anatomy_games is None else anatomy_games) if declared else 0
    jobs = check_jobs(jobs, backend)
    t = time.perf_counter()
    under_name = f" under {rule_set.name}" if rule_set is not None else ""
    print(
        f"Reproducing {report.title}{under_name} with {games:,} games per main table on {jobs} process(es);"
        f" runs in {work}"
    )
    note = report.note(games) if report.note else None
    if note:
        print(note)
    if own and anatomy_games:
        print(f"Then the game-anatomy panel at {anatomy_games:,} games per table of its first tier (--anatomy-games)")
    bar, update = progress_bar(quiet, "reproduce")

    def progress(job, done: int, total: int, rate: float) -> None:
        update(done, total, rate, label=job.key)

    stopped = (
        f"{prog_name()}: interrupted; finished runs and chunks are kept in {work}: run the same command to continue"
    )
    with interruptible(bar, stopped):
        try:
            report.run(
                games, out, work, seed=seed, n_jobs=jobs, command=command_line(), backend=backend,
                scheduler=scheduler, log=logger(bar), progress=progress, **under,
            )  # fmt: skip
            if own and anatomy_games:
                from boardlab.experiments.anatomy_report import add_section, anatomy_section

                log = logger(bar)
                log(f"the game-anatomy panel at {anatomy_games:,} games per table of the first tier: {out}/anatomy")
                section = anatomy_section(
                    g, anatomy_games, out, work, seed=seed, n_jobs=jobs, command=command_line(), log=log,
                    progress=progress,
                )  # fmt: skip
                add_section(out / "REPORT.md", section)
        except (S.SimulateError, ResultsError, OSError) as e:
            raise UserError(str(e).splitlines()[0]) from None
    print(f"wrote {out}/REPORT.md, tables (*.csv) and charts (*.png) in {time.perf_counter() - t:.0f} s")
