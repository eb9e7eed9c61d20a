"""`boardlab simulate`: many games in parallel into a Parquet table."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from sim.games import default_game

from ._app import (
    GameOpt,
    RulesOpt,
    UserError,
    app,
    game_def,
    interruptible,
    load_rules,
    prog_name,
    progress_bar,
    split_specs,
)

DEFAULT_GAME = default_game()


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
    out: Annotated[Path, typer.Option("--out", help="Output Parquet file (one row per game and seat).")],
    seed: Annotated[int, typer.Option("--seed", help="Run seed: game g's seed comes from (seed, g) alone.")] = 0,
    rules: RulesOpt = None,
    game: GameOpt = DEFAULT_GAME,
    seating: Annotated[
        str,
        typer.Option(
            help="fixed: agent i in seat i; rotate: game g shifts agents by g; permute: all orders;"
            " draw: each seat draws its agent from the --agents pool (any size)."
        ),
    ] = "rotate",
    jobs: Annotated[int, typer.Option("--jobs", help="Worker processes (loky backend).", min=1)] = 1,
    backend: Annotated[str, typer.Option(help="loky (this machine) or dask (a cluster).")] = "loky",
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address, e.g. tcp://10.0.0.5:8786.")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue an interrupted run: only missing chunks.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing output.")] = False,
    moves: Annotated[
        bool, typer.Option("--moves", help="Also write a move log (OUT stem + .moves.parquet), for a game with one.")
    ] = False,
    chunk_size: Annotated[
        int | None, typer.Option(help="Games per chunk (default: a few seconds of work).", min=1)
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
):
    """Play many games in parallel into a Parquet table; reproducible, resumable, on loky or Dask."""
    from experiments import simulate as S

    g = game_def(game)
    rs = load_rules(rules, g)
    specs = split_specs(agents, g)
    if backend not in ("loky", "dask"):
        raise UserError(f"--backend must be loky or dask, got {backend!r}")
    if scheduler and backend != "dask":
        raise UserError("--scheduler needs --backend dask")
    try:
        spec = S.make_spec(players, specs, games, seed, rs, seating, chunk_size, moves, game=g)
    except S.SimulateError as e:
        raise UserError(str(e)) from None
    bar, update = progress_bar(quiet, "simulate", games)
    argv = [a for a in sys.argv[1:] if a not in ("--force", "--resume")]
    prog = prog_name()
    stopped = (
        f"{prog}: interrupted; finished chunks are kept in {out}.parts. Resume with:\n"
        f"  {prog} {shlex.join(argv)} --resume"
    )
    with interruptible(bar, stopped):
        try:
            meta = S.run(spec, out, jobs=jobs, backend=backend, scheduler=scheduler, resume=resume, force=force,
                         progress=update)  # fmt: skip
        except S.SimulateError as e:
            raise UserError(str(e)) from None
    sess = meta["this_session"]
    rate = sess["games"] / sess["seconds"] if sess["seconds"] else 0.0
    print(
        f"wrote {out}: {meta['games']:,} games x {meta['players']} seats = {meta['rows']:,} rows"
        f" ({sess['games']:,} games played now in {sess['seconds']:.1f} s, {rate:,.0f} games/s); metadata in {out}.json"
    )
