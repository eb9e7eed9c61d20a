"""`boardlab bench`: a game's engine and agent throughput on this machine (GameDef.bench.bench)."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from ._app import GameOpt, RulesOpt, UserError, app, game_def, load_rules, prog_name


@app.command()
def bench(
    games: Annotated[int, typer.Option(help="Games per player count.", min=100)] = 50_000,
    boards: Annotated[int, typer.Option(help="Boards to score.", min=1000)] = 1_000_000,
    rules: RulesOpt = None,
    game: GameOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as one JSON object.")] = False,
    no_subprocess: Annotated[
        bool, typer.Option("--no-subprocess", help="Skip cold-compile and start-up timings.")
    ] = False,
    no_agents: Annotated[bool, typer.Option("--no-agents", help="Skip the agents' figures.")] = False,
    agent_games: Annotated[int, typer.Option(help="Games per agent figure.", min=10)] = 400,
    simulate_games: Annotated[
        int | None,
        typer.Option(help="Games of the end-to-end simulate figures (default: the game's, a few chunks).", min=8),
    ] = None,
    compile_: Annotated[
        bool,
        typer.Option(
            "--compile",
            help="Only cold compile seconds of the game and its tiers (boardlab warmup in a fresh empty"
            " NUMBA_CACHE_DIR), one process and --jobs 2.",
        ),
    ] = False,
):
    """Engine and agent throughput on this machine, one core, after warm-up (each figure on stderr as it comes).

    A game without a bench of its own gets the generic one: its own random playouts, simulate with random agents
    through the generic player, and ismcts iterations per second.
    """
    g = game_def(game)
    if compile_:
        from boardlab.experiments import compile_bench

        figures = compile_bench.run([g.id], log=lambda line: print(line, file=sys.stderr, flush=True))
        print(json.dumps(figures) if as_json else "\n".join(f"{k}: {v} s" for k, v in figures.items()))
        return
    b = g.optional("bench")
    if b is None:  # the figures any game has (boardlab.experiments.generic_bench)
        from boardlab.experiments.generic_bench import generic_bench

        b = generic_bench(g)
    rs = load_rules(rules, g)
    more = {}
    if simulate_games is not None:
        import inspect

        if "simulate_games" not in inspect.signature(b.run).parameters:
            raise UserError(f"--simulate-games: {g.id}'s bench has no simulate figure")
        more["simulate_games"] = simulate_games

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    log(f"bench {g.id}: {games:,} games per player count, rules {rs.name}")
    res = b.run(
        games=games,
        boards=boards,
        rules=rs,
        subprocesses=not no_subprocess,
        agents=not no_agents,
        agent_games=agent_games,
        log=log,
        **more,
    )
    if as_json:
        print(json.dumps(res))
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"{prog_name()} bench ({g.id}, rules {res['rules']}, one core, best of repeats)")
    t.add_column("figure")
    t.add_column("value", justify="right")
    t.add_column("target", justify="right")
    for k, v in res.items():
        if k == "rules":
            continue
        t.add_row(k, f"{v:,}" if isinstance(v, int) else str(v), b.targets.get(k, ""))
    Console().print(t)
