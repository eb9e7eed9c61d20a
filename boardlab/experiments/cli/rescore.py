"""`boardlab rescore`: stored games under other rules, play held fixed (games with a rescorer)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import OUTPUT_RULE, GameOpt, UserError, app, check_output, game_def, load_rules, require, result_files


@app.command()
def rescore(
    results: Annotated[
        list[Path],
        typer.Argument(
            help="Result files of the game (from simulate), each run once: a file given twice or a copy of one is"
            " refused. Each run is rescored on its own (a game is its rows sharing the run id and game number).",
            show_default=False,
        ),
    ],
    rules: Annotated[str, typer.Option("--rules", help="The new rule set: a preset or a TOML variant.")],
    out: Annotated[
        Path | None, typer.Option(help=f"Write the rescored table here (Parquet). {OUTPUT_RULE}", show_default=False)
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite --out if it exists.")] = False,
    game: GameOpt = None,
):
    """Recompute scores, ranks and win shares from stored play under other rules; play is held fixed."""
    from boardlab.experiments.io import ResultsError
    from boardlab.experiments.pipelines import win_share
    from boardlab.experiments.rescore import RescoreError, rescore_files, write_rescored

    g = game_def(game)
    require(g, "rescorer", "rescorer (rescore recomputes scores from what its tables store of play)")
    rs = load_rules(rules, g)
    result_files(results, g)
    if out is not None:
        check_output(out, "--out", directory=False, force=force)
    try:
        before, after = rescore_files(results, rs, g)
    except (RescoreError, ResultsError, OSError) as e:
        raise UserError(str(e).splitlines()[0]) from None
    print(f"Rescored {len(before):,} rows under rules {rs.name}: play held fixed (the agents chose their moves")
    print("under the original rules; use a sweep to let them replan).")
    b = win_share(before, ["players", "agent"]).set_index(["players", "agent"])
    a = win_share(after, ["players", "agent"]).set_index(["players", "agent"])
    print(f"{'players':>7}  {'agent':<40} {'win share before':>22} {'after':>22}")
    for key in b.index:
        fb, fa = b.loc[key], a.loc[key]
        print(
            f"{key[0]:>7}  {key[1]:<40} {100 * fb['win_share']:6.1f}% [{100 * fb['lo']:4.1f},{100 * fb['hi']:5.1f}]"
            f" {100 * fa['win_share']:6.1f}% [{100 * fa['lo']:4.1f},{100 * fa['hi']:5.1f}]"
        )
    if out is not None:
        write_rescored(after, out, rs, results, g)
        print(f"wrote {out}")
