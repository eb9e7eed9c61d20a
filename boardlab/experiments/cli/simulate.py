"""`boardlab simulate`: many games in parallel into a Parquet table."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from ._app import (
    OUTPUT_RULE,
    BackendOpt,
    GameOpt,
    JobsOpt,
    RulesOpt,
    SchedulerOpt,
    UserError,
    app,
    check_jobs,
    check_output,
    check_seed,
    check_workers,
    game_def,
    interruptible,
    load_rules,
    prog_name,
    progress_bar,
    split_specs,
)
from ._isolation import IsolateOpt, MoveTimeoutOpt, check_isolation


class _LateBar:
    """The progress bar, made once the run starts playing (after the kernels compile, which has its own
    announcement): stop() and progress() do nothing before."""

    bar = None
    update = None

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()

    def progress(self, done: int, total: int, rate: float) -> None:
        if self.update is not None:
            self.update(done, total, rate)


@app.command()
def simulate(
    players: Annotated[
        int, typer.Option("--players", help="Players per game (its range: `boardlab games`).", show_default=False)
    ],
    agents: Annotated[
        str,
        typer.Option(
            "--agents",
            help="One spec per seat, comma-separated (greedy,random,...), or one spec for every seat.",
            show_default=False,
        ),
    ],
    games: Annotated[int, typer.Option("--games", help="Number of games.", show_default=False)],
    out: Annotated[Path, typer.Option("--out", help=f"Output Parquet file (one row per game and seat). {OUTPUT_RULE}")],
    seed: Annotated[int, typer.Option("--seed", help="Run seed: game g's seed comes from (seed, g) alone.")] = 0,
    rules: RulesOpt = None,
    game: GameOpt = None,
    seating: Annotated[
        str,
        typer.Option(
            help="fixed: agent i in seat i; rotate: game g shifts agents by g; permute: all orders;"
            " draw: each seat draws its agent from the --agents pool (any size)."
        ),
    ] = "rotate",
    jobs: JobsOpt = 1,
    backend: BackendOpt = "loky",
    scheduler: SchedulerOpt = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue an interrupted run: only missing chunks.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing output.")] = False,
    moves: Annotated[
        bool, typer.Option("--moves", help="Also write a move log (OUT stem + .moves.parquet), for a game with one.")
    ] = False,
    chunk_size: Annotated[
        int | None, typer.Option(help="Games per chunk (default: a few seconds of work).", min=1)
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
    isolate_agents: IsolateOpt = False,
    move_timeout: MoveTimeoutOpt = None,
):
    """Play many games in parallel into a Parquet table; reproducible, resumable, on loky or Dask."""
    from boardlab.experiments import simulate as S

    check_seed(seed)
    g = game_def(game)
    rs = load_rules(rules, g)
    specs = split_specs(agents, g)
    workers = check_workers(backend, scheduler)
    isolation = check_isolation(isolate_agents, move_timeout)
    try:
        spec = S.make_spec(players, specs, games, seed, rs, seating, chunk_size, moves, game=g)
    except S.SimulateError as e:
        raise UserError(str(e)) from None
    try:  # the output's place and every name the run writes there (before the generic check: a name too long
        S.check_place(S.RunPaths(out), moves)  # for the system fails it)
    except S.SimulateError as e:
        raise UserError(str(e)) from None
    check_output(out, "--out", directory=False)  # existing outputs: S.run refuses them without --force or --resume
    jobs = check_jobs(jobs, backend, spec.n_chunks)
    # compilation is a phase of its own, announced and timed apart from play (boardlab.experiments.warmup),
    # once S.run has checked everything about the output (and holds its lock)
    from boardlab.experiments.warmup import ensure_compiled

    bar = _LateBar()

    def start() -> float | None:  # once the output is checked and locked: compile, then show the bar
        compiled = ensure_compiled(g, specs, players, rs)
        bar.bar, bar.update = progress_bar(quiet, "simulate", games)
        return compiled["seconds"] if compiled["compiled"] else None  # the session's compile time, if any

    argv = [a for a in sys.argv[1:] if a not in ("--force", "--resume")]
    prog = prog_name()
    stopped = (
        f"{prog}: interrupted; finished chunks are kept in {out}.parts. Resume with:\n"
        f"  {prog} {shlex.join(argv)} --resume"
    )
    with interruptible(bar, stopped):
        try:
            meta = S.run(spec, out, jobs=jobs, **workers, resume=resume, force=force,
                         progress=bar.progress, isolation=isolation, before=start)  # fmt: skip
        except S.SimulateError as e:
            raise UserError(str(e)) from None
    sess = meta["this_session"]
    rate = sess["games"] / sess["seconds"] if sess["seconds"] else 0.0
    compiled = f"compile {sess['compile_seconds']:.1f} s; " if sess.get("compile_seconds") else ""
    print(
        f"wrote {out}: {meta['games']:,} games x {meta['players']} seats = {meta['rows']:,} rows"
        f" ({compiled}{sess['games']:,} games played now in {sess['seconds']:.1f} s, {rate:,.0f} games/s);"
        f" metadata in {out}.json"
    )
