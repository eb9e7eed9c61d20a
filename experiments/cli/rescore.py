"""`citywright rescore`: stored games under other scoring, play held fixed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import UserError, app, existing_files, load_rules, output_file_option


@app.command()
def rescore(
    results: Annotated[list[Path], typer.Argument(help="Result files (from simulate).", show_default=False)],
    rules: Annotated[str, typer.Option("--rules", help="The new rule set: a preset or a TOML variant.")],
    out: Annotated[Path | None, typer.Option(help="Write the rescored table here (Parquet).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite --out if it exists.")] = False,
):
    """Recompute scores, ranks and win shares from stored boards under other scoring; play is held fixed."""
    from experiments.pipelines import win_share
    from experiments.rescore import rescore_files, write_rescored

    rs = load_rules(rules)
    existing_files(results)
    if out is not None:
        output_file_option(out, "--out", force=force)
    try:
        before, after = rescore_files(results, rs)
    except (ValueError, OSError) as e:
        raise UserError(str(e).splitlines()[0]) from None
    print(f"Rescored {len(before):,} rows under rules {rs.name}: play held fixed (the agents chose their moves")
    print("under the original scoring; use a sweep to let them replan).")
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
        write_rescored(after, out, rs, results)
        print(f"wrote {out}")
