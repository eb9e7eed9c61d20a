"""`boardlab ladder`: agents' strength, as Plackett–Luce ratings over any set of agents, or the fixed pairings."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from boardlab.experiments.provenance import git_commit
from boardlab.sim.games import GameError

from ._app import (
    OUTPUT_RULE,
    BackendOpt,
    ChunkSizeOpt,
    GameOpt,
    JobsOpt,
    RulesOpt,
    SchedulerOpt,
    UserError,
    app,
    check_jobs,
    check_output,
    check_players,
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
)


@app.command()
def ladder(
    agents: Annotated[
        list[str] | None,
        typer.Option(
            "--agents",
            help="Rate these agents (repeat the option, or one comma-separated list): tables are drawn from the pool"
            " at each --players count, ratings are Plackett-Luce with bootstrap intervals. Without it: the game's fixed"
            " pairings, each with its target (`boardlab games` says which games have them).",
            show_default=False,
        ),
    ] = None,
    players: Annotated[
        list[int] | None,
        typer.Option(
            "--players",
            help="Player counts (repeatable; default: the game's smallest of 2 or more, and 4 or its nearest count).",
        ),
    ] = None,
    games: Annotated[int, typer.Option(help="Games per pairing, or per player count with --agents.", min=1)] = 2000,
    seed: Annotated[int, typer.Option(help="Run seed (game g's seed comes from it and g).")] = 0,
    jobs: JobsOpt = 1,
    chunk_size: ChunkSizeOpt = None,
    backend: BackendOpt = "loky",
    scheduler: SchedulerOpt = None,
    rules: RulesOpt = None,
    game: GameOpt = None,
    boot: Annotated[int, typer.Option(help="Bootstrap resamples for the rating intervals.", min=10)] = 200,
    out: Annotated[
        Path | None,
        typer.Option(
            help="With --agents: a directory for ratings.csv, spread.csv, win_shares.csv, ratings.png; "
            f"without: a CSV file for the pairings' table (written whole, atomically). {OUTPUT_RULE}"
        ),
    ] = None,
    work: Annotated[
        Path | None,
        typer.Option("--work", help=f"With --agents: the run cache (default OUT/runs), resumable. {OUTPUT_RULE}"),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
):
    """The agents' strength: ratings over any set of agents (--agents), or the fixed pairings' win shares."""
    from boardlab.experiments import ladder as L

    check_seed(seed)
    g = game_def(game)
    rs = load_rules(rules, g)
    workers = check_workers(backend, scheduler)
    if not agents:
        try:
            pairings = g.require("pairings")
        except GameError as e:
            raise UserError(f"--game: {e}; rate agents with --agents") from None
        if backend != "loky":
            raise UserError("--backend dask: the fixed pairings play on this machine; rate agents with --agents")
        for name, seats, _ in pairings:
            if g.players_error(len(seats), rs) is not None:
                raise UserError(f"--rules: the fixed pairing {name!r} needs {len(seats)} players, but "
                                f"{g.players_error(len(seats), rs)}")  # fmt: skip
        if out is not None:
            check_output(out, "--out", directory=False)
        jobs = check_jobs(jobs, backend, -(-games // L.PAIRING_CHUNK))
        table = L.ladder(g, rs, games, seed=seed, jobs=jobs)
        if out is not None:
            from boardlab.experiments.io import atomic_write_text

            atomic_write_text(table.to_csv(index=False), out)
        return
    specs = [s for a in agents for s in split_specs(a, g)]
    reg = g.agents()
    for s in specs:  # an unknown name is merged into the spec before it by the split: say which spec is wrong
        try:
            reg.parse_agent(s)
        except reg.AgentError as e:
            raise UserError(f"--agents: {e}") from None
    if len(set(specs)) < 2:
        raise UserError("--agents: give at least two different agents")
    from boardlab.experiments.ladder import default_player_counts

    counts = players or default_player_counts(g.players)
    lo, hi = g.players
    if any(not (max(lo, 2) <= n <= hi) for n in counts):
        raise UserError(f"--players: ratings need {max(lo, 2)}..{hi} players for {g.id}, got {counts}")
    for n in counts:
        check_players(n, g, rs)
    from boardlab.experiments import simulate as S

    try:
        chunks = max(S.make_spec(n, specs, games, seed, rs, "draw", chunk_size, game=g).n_chunks for n in counts)
    except S.SimulateError as e:
        raise UserError(str(e)) from None
    out = check_output(out, "--out", directory=True, default=Path("runs") / "ladder")
    work = check_output(work, "--work", directory=True, default=out / "runs")
    jobs = check_jobs(jobs, backend, chunks)
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    bar, update = progress_bar(quiet, "ladder")

    def progress(label: str, done: int, total: int, rate: float) -> None:
        update(done, total, rate, label=label)

    stopped = (
        f"{prog_name()}: interrupted; finished runs and chunks are kept in {work}: run the same command to continue"
    )
    from boardlab.experiments.io import ResultsError

    with interruptible(bar, stopped):
        try:
            ratings, spread, shares = L.rating_ladder(
                g, specs, counts, games, work, rules=rs, seed=seed, jobs=jobs, boot=boot, log=logger(bar),
                progress=progress, chunk_size=chunk_size, **workers,
            )  # fmt: skip
        except (S.SimulateError, ResultsError) as e:
            raise UserError(str(e)) from None
    about = {
        "command": command_line(), "game": g.id, "rules": rs.name, "agents": specs, "players": counts,
        "games_per_player_count": games, "seed": seed, "bootstrap": boot, "git_commit": git_commit(),
    }  # fmt: skip
    L.write_rating_ladder(ratings, spread, shares, out, about)
    print(L.ratings_text(ratings, spread))
    print(f"wrote {out}/ratings.csv, spread.csv, win_shares.csv, ratings.png (runs kept in {work})")
