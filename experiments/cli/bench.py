"""`citywright bench`: engine and agent throughput on this machine."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ._app import GameOpt, RulesOpt, UserError, app, game_def, load_rules


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
):
    """Engine and agent throughput on this machine, one core, after warm-up."""
    from experiments import bench as B

    g = game_def(game)
    if g.id not in B.BENCHES:
        raise UserError(f"--game: no benchmark for {g.id} yet (benchmarks: {', '.join(B.BENCHES)})")
    res = B.BENCHES[g.id](
        games=games,
        boards=boards,
        rules=load_rules(rules, g.id),
        subprocesses=not no_subprocess,
        agents=not no_agents,
        agent_games=agent_games,
    )
    if as_json:
        print(json.dumps(res))
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"citywright bench ({g.id}, rules {res['rules']}, one core, best of repeats)")
    t.add_column("figure")
    t.add_column("value", justify="right")
    t.add_column("target", justify="right")
    targets = getattr(B, "GAME_TARGETS", {}).get(g.id, B.TARGETS)
    for k, v in res.items():
        if k == "rules":
            continue
        t.add_row(k, f"{v:,}" if isinstance(v, int) else str(v), targets.get(k, ""))
    Console().print(t)
