"""`boardlab sweep`: one rule parameter over several values, agents replanning."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from boardlab.experiments.provenance import git_commit

from ._app import (
    AGENTS_DEFAULT,
    OUTPUT_RULE,
    BackendOpt,
    ChunkSizeOpt,
    GameOpt,
    JobsOpt,
    PlayersOpt,
    RulesOpt,
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
    split_specs,
    table_players,
)


@app.command()
def sweep(
    param: Annotated[
        str,
        typer.Option(
            "--param",
            help="Dotted rule path, e.g. scoring.residential.pair_points; a list element by index,"
            " e.g. scoring.commercial.tier_points[2].",
            show_default=False,
        ),
    ],
    values: Annotated[
        str,
        typer.Option(
            "--values", help="Comma-separated values (JSON each; ';' if values hold commas).", show_default=False
        ),
    ],
    players: PlayersOpt = None,
    agents: Annotated[
        str | None,
        typer.Option(
            "--agents",
            help=f"One spec per seat, or one for all (as in simulate). {AGENTS_DEFAULT}",
            show_default=False,
        ),
    ] = None,
    games: Annotated[int, typer.Option("--games", help="Games per value.", min=1)] = 10_000,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help=f"Output directory: sweep.csv, sweep_seats.csv and sweep.png (default runs/sweep). {OUTPUT_RULE}",
        ),
    ] = None,
    work: Annotated[
        Path | None, typer.Option("--work", help=f"Run cache, reused when repeated (default: OUT/runs). {OUTPUT_RULE}")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Run seed (the same game seeds for every value).")] = 0,
    rules: RulesOpt = None,
    game: GameOpt = None,
    seating: Annotated[str, typer.Option(help="fixed, rotate, permute or draw (as in simulate).")] = "rotate",
    jobs: JobsOpt = 1,
    chunk_size: ChunkSizeOpt = None,
    backend: BackendOpt = "loky",
    scheduler: SchedulerOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
):
    """Re-simulate for each value of one rule parameter (agents replan); win share per agent and per seat, CSV and
    chart."""
    from boardlab.experiments import simulate as S
    from boardlab.experiments import sweep as W

    check_seed(seed)
    g = game_def(game)
    base = load_rules(rules, g)
    specs = split_specs(agents if agents is not None else g.ladder.default_agents, g)
    workers = check_workers(backend, scheduler)
    try:
        vals = W.parse_values(values)
        swept = W.sweep_rules(base, param, vals)
    except ValueError as e:  # a RulesError is a ValueError
        raise UserError(str(e).splitlines()[0]) from None
    players = table_players(players, g, base, *swept)
    try:
        spec = S.make_spec(players, specs, games, seed, base, seating, chunk_size, game=g.id)
    except S.SimulateError as e:
        raise UserError(str(e).splitlines()[0]) from None
    out = check_output(out, "--out", directory=True, default=Path("runs/sweep"))
    work = check_output(work, "--work", directory=True, default=out / "runs")
    jobs = check_jobs(jobs, backend, spec.n_chunks)
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    bar, update = progress_bar(quiet, "sweep")

    def progress(label: str, done: int, total: int, rate: float) -> None:
        update(done, total, rate, label=label)

    stopped = (
        f"{prog_name()}: interrupted; finished runs and chunks are kept in {work}: run the same command to continue"
    )
    with interruptible(bar, stopped):
        try:
            table = W.run_sweep(
                base, param, vals, players, specs, games, seed, seating, work, jobs=jobs, log=logger(bar),
                progress=progress, game=g, chunk_size=chunk_size, **workers,
            )  # fmt: skip
        except S.SimulateError as e:
            raise UserError(str(e).splitlines()[0]) from None
    about = {
        "command": command_line(), "param": param, "values": vals, "rules": base.name, "players": players,
        "agents": specs, "games_per_value": games, "seed": seed, "seating": seating, "git_commit": git_commit(),
        "game": g.id,
    }  # fmt: skip
    W.write_outputs(table, param, out, about)
    print(f"\nWin share per agent (%, 95% Wilson), {games:,} games per value, rules {base.name} with {param} =")
    print(W.pivot_text(table, vals))
    print(f"\nWin share per seat (%, 95% Wilson), {players} players:")
    print(W.pivot_text(table.attrs["seats"], vals, by="seat"))
    print(
        f"wrote {out / 'sweep.csv'}, {out / 'sweep_seats.csv'}, {out / 'sweep.png'} (runs kept in {work} for"
        " re-analysis)"
    )
