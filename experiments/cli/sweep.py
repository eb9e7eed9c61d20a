"""`citywright sweep`: one rule parameter over several values, agents replanning."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import (
    GameOpt,
    RulesOpt,
    UserError,
    app,
    command_line,
    directory_option,
    interruptible,
    load_rules,
    logger,
    progress_bar,
    split_specs,
)


@app.command()
def sweep(
    param: Annotated[
        str, typer.Option("--param", help="Dotted rule path, e.g. scoring.residential.pair_points.", show_default=False)
    ],
    values: Annotated[
        str,
        typer.Option(
            "--values", help="Comma-separated values (JSON each; ';' if values hold commas).", show_default=False
        ),
    ],
    players: Annotated[int, typer.Option("--players", help="Players per game.")] = 4,
    agents: Annotated[
        str, typer.Option("--agents", help="One spec per seat, or one for all (as in simulate).")
    ] = "specialist:R,specialist:C,specialist:P,specialist:I",
    games: Annotated[int, typer.Option("--games", help="Games per value.", min=1)] = 10_000,
    out: Annotated[Path, typer.Option("--out", help="Output directory: sweep.csv and sweep.png.")] = Path("runs/sweep"),
    work: Annotated[
        Path | None, typer.Option("--work", help="Run cache, reused when repeated (default: OUT/runs).")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Run seed (the same game seeds for every value).")] = 0,
    rules: RulesOpt = None,
    game: GameOpt = "citywright",
    seating: Annotated[str, typer.Option(help="fixed, rotate, permute or draw (as in simulate).")] = "rotate",
    jobs: Annotated[int, typer.Option("--jobs", help="Worker processes.", min=1)] = 1,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
):
    """Re-simulate for each value of one rule parameter (agents replan); win share per agent, CSV and chart."""
    from experiments import simulate as S
    from experiments import sweep as W

    base = load_rules(rules, game)
    specs = split_specs(agents, game)
    try:
        vals = W.parse_values(values)
        W.sweep_rules(base, param, vals)
        S.make_spec(players, specs, games, seed, base, seating, game=game)
    except (ValueError, S.SimulateError) as e:  # RulesError and SimulateError are ValueErrors
        raise UserError(str(e).splitlines()[0]) from None
    directory_option(out, "--out")
    work = directory_option(work or out / "runs", "--work")
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    bar, update = progress_bar(quiet, "sweep")

    def progress(label: str, done: int, total: int, rate: float) -> None:
        update(done, total, rate, label=label)

    stopped = f"citywright: interrupted; finished runs and chunks are kept in {work}: run the same command to continue"
    with interruptible(bar, stopped):
        table = W.run_sweep(
            base, param, vals, players, specs, games, seed, seating, work, jobs=jobs, log=logger(bar),
            progress=progress, game=game,
        )  # fmt: skip
    about = {
        "command": command_line(), "param": param, "values": vals, "rules": base.name, "players": players,
        "agents": specs, "games_per_value": games, "seed": seed, "seating": seating, "git_commit": S._git_commit(),
    }  # fmt: skip
    if game != "citywright":
        about["game"] = game
    W.write_outputs(table, param, out, about)
    print(f"\nWin share per agent (%, 95% Wilson), {games:,} games per value, rules {base.name} with {param} =")
    print(W.pivot_text(table, vals))
    print(f"wrote {out / 'sweep.csv'}, {out / 'sweep.png'} (runs kept in {work} for re-analysis)")
