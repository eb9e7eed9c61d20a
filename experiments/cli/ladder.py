"""`citywright ladder`: the agents' strength ladder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import GameOpt, RulesOpt, UserError, app, game_def, load_rules, output_file_option


@app.command()
def ladder(
    games: Annotated[int, typer.Option(help="Games per pairing.", min=1)] = 2000,
    seed: Annotated[int, typer.Option(help="Run seed (game g's seed comes from it and g).")] = 0,
    jobs: Annotated[int, typer.Option(help="Worker processes.", min=1)] = 1,
    rules: RulesOpt = None,
    game: GameOpt = "citywright",
    out: Annotated[
        Path | None, typer.Option(help="Also write the table as CSV here (written whole, atomically).")
    ] = None,
):
    """The agents' strength ladder: greedy vs random, mcts vs greedy (2 players), mcts + 3 greedy (4 players)."""
    from experiments import ladder as L
    from experiments.io import atomic_write_text

    g = game_def(game)
    if g.id not in L.PAIRINGS:
        raise UserError(f"--game: no ladder for {g.id} yet (ladders: {', '.join(L.PAIRINGS)})")
    rs = load_rules(rules, g.id)
    if out is not None:
        output_file_option(out, "--out")
    table = L.ladder(rs, games, seed=seed, jobs=jobs, game=g.id)
    if out is not None:
        atomic_write_text(table.to_csv(index=False), out)
