"""`boardlab summary`: win shares per agent, seat and player count, scores, ties and the game's own columns."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import OUTPUT_RULE, UserError, app, check_output, existing_files, game_def


@app.command()
def summary(
    results: Annotated[
        list[Path],
        typer.Argument(
            help="Result files of one game (from simulate), each run once: a file given twice or a copy of one is"
            " refused.",
            show_default=False,
        ),
    ],
    csv: Annotated[
        Path | None,
        typer.Option("--csv", help=f"Also write each table as DIR/<table>.csv. {OUTPUT_RULE}", show_default=False),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of Markdown.")] = False,
    game: Annotated[
        str | None,
        typer.Option(
            "--game",
            help="The game the files must be of (default: the one their run metadata names).",
            show_default=False,
        ),
    ] = None,
):
    """Summarise result files of any game: win share per agent, per seat and per player count (95% Wilson
    intervals), the final score's distribution, ties and the game's own numeric columns; Markdown on stdout."""
    from boardlab.experiments import summary as M
    from boardlab.experiments.io import ResultsError

    gid = game_def(game).id if game is not None else None
    existing_files(results)
    if csv is not None:
        check_output(csv, "--csv", directory=True)
    try:
        gid, games, tables = M.read_summary(results, gid)
    except (M.SummaryError, ResultsError) as e:
        raise UserError(str(e).splitlines()[0]) from None
    sources = [str(p) for p in results]
    if csv is not None:
        written = M.write_csv(tables, csv)
    print((M.as_json if as_json else M.markdown)(gid, games, tables, sources), end="")
    if csv is not None and not as_json:
        print(f"wrote {', '.join(str(p) for p in written)}")
