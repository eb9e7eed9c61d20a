"""Rescoring stored games under other rules, play held fixed (``boardlab rescore``), for any game with a rescorer.

A game's rescorer (``GameDef.rescorer``, Citywright's :mod:`boardlab.experiments.citywright.rescore`) recomputes
scores, ranks and win shares of one run's rows from what the table stores of play; this module reads the
result files, rescores each run on its own (games are ranked within it) and writes the rescored table
with metadata naming its game, its sources and its new rules.  What cannot change is play: agents chose
their moves under the old rules (use a sweep to let them replan).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from boardlab.sim.games import get_game


class RescoreError(ValueError):
    """A table that cannot be rescored; one line for the user, naming the file."""


def rescorer(game):
    """The game's rescorer, ``(rows of one run, rules) -> rows`` (RescoreError when it has none)."""
    g = get_game(game)
    if not g.has("rescorer"):
        raise RescoreError(f"{g.id} has no rescorer")
    return g.part("rescorer")


def rescore_files(paths: list, rules, game) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(before, after) for stored result files of `game`; each file is its own run (games are ranked within it).

    RescoreError (one line, naming the file) on a table the game's rescorer cannot read."""
    from boardlab.experiments.pipelines import load_results

    fn = rescorer(game)
    names = {Path(p).name.removesuffix(".parquet"): p for p in paths}
    before = load_results(paths)
    parts = []
    for run, part in before.groupby("run", sort=False):
        try:
            parts.append(fn(part.drop(columns="run"), rules).assign(run=run))
        except ValueError as e:
            raise RescoreError(f"{names.get(run, run)}: {str(e).splitlines()[0]}") from None
    return before, pd.concat(parts, ignore_index=True)


def write_rescored(after: pd.DataFrame, out, rules, sources: list, game) -> None:
    """The rescored table as Parquet (atomically), with metadata naming its game, sources and new rules."""
    import pyarrow as pa

    from boardlab.experiments import simulate as S
    from boardlab.experiments.io import atomic_write_parquet

    meta = {
        "game": get_game(game).id,
        "rescored_from": [str(r) for r in sources],
        "rules": rules.to_dict(),
        "note": "scores, ranks and win shares recomputed from stored play; play held fixed",
    }
    try:
        meta["original"] = S.read_metadata(sources[0])
    except S.SimulateError:
        pass
    table = pa.Table.from_pandas(after.drop(columns="run"), preserve_index=False)
    atomic_write_parquet(table.replace_schema_metadata({S.METADATA_KEY: json.dumps(meta).encode()}), out)
