"""`boardlab warmup`: compile every kernel a game and its tiers use, ahead of any run."""

from __future__ import annotations

import sys
import time
from typing import Annotated

import typer

from ._app import UserError, app, check_jobs, split_specs


@app.command()
def warmup(
    game: Annotated[
        list[str] | None, typer.Option("--game", help="A game to compile (repeat for several; default: every game).")
    ] = None,
    agents: Annotated[
        str | None, typer.Option("--agents", help="Compile only these agents' kernels (default: every tier).")
    ] = None,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs", help="Processes compiling at once: whole games per process (one game: its tiers spread)."
        ),
    ] = 1,
    tiers_only: Annotated[
        bool,
        typer.Option(
            "--tiers-only",
            help="Only the game loops of each game's default agents, tiers and ladder: not the public API's "
            "per-move players, self-play training or random agents alone (what bench --compile times).",
        ),
    ] = False,
):
    """Compile the numba kernels of each game and tier into the cache, so a first run plays at once.

    One line per game and tier with its elapsed time; a second call compiles nothing and says so.
    The measured times are kept for the "compiling ..." line other commands print on a cold cache.
    """
    from boardlab.experiments import warmup as W
    from boardlab.sim.games import GameError, available_games, get_game

    if jobs < 1:
        raise UserError(f"--jobs must be at least 1, got {jobs}")
    try:
        games = [get_game(x) for x in game] if game else available_games()
    except GameError as e:
        raise UserError(f"--game: {e}") from None
    if agents is not None and len(games) != 1:
        raise UserError("--agents: name one --game with it")
    specs = split_specs(agents, games[0]) if agents is not None else None
    if specs is not None:  # each agent's parameters checked before any compilation
        reg = games[0].agents()
        try:
            for a in specs:
                reg.parse_agent(a)
        except reg.AgentError as e:
            raise UserError(f"--agents: {e}") from None
    # reading the tiers imports each game's agents, whose typed helpers compile on an empty cache (seconds)
    print(f"warmup: {', '.join(g.id for g in games)}: reading their tiers", file=sys.stderr, flush=True)
    if sys.stderr.isatty():
        from rich.console import Console

        with Console(stderr=True).status("warmup: reading the games' tiers"):
            todo = W.tasks(games, specs, extras=not tiers_only)
    else:
        todo = W.tasks(games, specs, extras=not tiers_only)
    jobs = check_jobs(jobs, "loky", len(todo))
    parts = W.batches(todo, jobs)
    jobs = min(jobs, len(parts))

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    log(f"warmup: {len(todo)} game/tier compile task(s) on {jobs} process(es)")
    if jobs > 1 and len(parts) == jobs and any(len(b) > 1 for b in parts):
        for b in parts:  # whole games per process: which games each compiles, in order
            log(f"  one process: {', '.join(dict.fromkeys(t[0] for t in b))}")
    t0 = time.perf_counter()
    if jobs == 1:
        results = []
        for t in todo:
            results.append(W.run_task(*t))
            log(W.task_line(results[-1], time.perf_counter() - t0))
    else:  # each process's task lines, forwarded as they finish (with a live count and elapsed time on a terminal)
        results = W.run_batches(parts, jobs, log)
    compiled = sum(r["compiled"] for r in results)
    total = time.perf_counter() - t0
    if compiled:
        print(f"warmup: compiled {compiled} of {len(todo)} game/tier kernel sets in {total:.1f} s")
    else:
        print(f"warmup: nothing to compile, every kernel is cached ({total:.1f} s)")
