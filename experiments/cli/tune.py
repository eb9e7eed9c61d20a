"""`citywright tune ...`: rules tuned from stored or fresh games."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import UserError, existing_files, tune_app


@tune_app.command("seats")
def tune_seats(
    results: Annotated[list[Path], typer.Argument(help="Result files of one player count.", show_default=False)],
    max_points: Annotated[int, typer.Option("--max", help="Largest compensation per seat.", min=0, max=20)] = 5,
    top: Annotated[int, typer.Option(help="How many of the best vectors to show.", min=1)] = 5,
    verify_games: Annotated[
        int, typer.Option(help="Re-simulate the best vector with this many games (0: skip).", min=0)
    ] = 0,
    jobs: Annotated[int, typer.Option(help="Worker processes for the verification.", min=1)] = 1,
):
    """Seat compensation that brings every seat closest to 1/N, from stored games (no re-simulation needed)."""
    import pandas as pd

    from experiments import compensation as C
    from experiments import simulate as S
    from experiments.pipelines import load_results

    existing_files(results)
    try:
        df = load_results(results)
        meta = S.read_metadata(results[0])
        cur = C.current(df)
        best = C.search(df, max_points=max_points, top=top)
    except (ValueError, S.SimulateError, OSError) as e:
        raise UserError(str(e).splitlines()[0]) from None
    n = int(df["players"].iloc[0])
    seats = [f"seat{i + 1}" for i in range(n)]

    def show(label: str, t: pd.DataFrame) -> None:
        for _, r in t.iterrows():
            parts = "  ".join(f"{100 * r[s]:5.1f}% [{100 * r[s + '_lo']:.1f}, {100 * r[s + '_hi']:.1f}]" for s in seats)
            print(f"{label:<10} {r['compensation']:<10} max dev {100 * r['max_deviation']:4.1f} pts   {parts}")

    print(f"{len(df) // n:,} games, {n} players; seat win shares (95% Wilson), re-ranked from stored raw scores:")
    show("stored", cur)
    show("best", best)
    if verify_games:
        vec = [int(x) for x in best["compensation"].iloc[0].split("/")]
        show("verified", C.verify(meta, vec, verify_games, jobs=jobs))
        print(f"(verification re-simulated {verify_games:,} games with compensation {best['compensation'].iloc[0]})")
