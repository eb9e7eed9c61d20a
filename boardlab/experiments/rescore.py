"""Rescoring stored games under other rules, play held fixed (``boardlab rescore``), for any game with a rescorer.

A game's rescorer (``GameDef.scoring.rescorer``, Citywright's :mod:`boardlab.experiments.citywright.rescore`) recomputes
scores, ranks and win shares of one run's rows from what the table stores of play; this module reads the
result files (:func:`boardlab.experiments.io.read_runs`), rescores each run on its own (games are ranked within it) and
writes the rescored table, each row with its run's ``run_id``, with metadata naming its game, its sources and
its new rules.  What cannot change is play: agents chose
their moves under the old rules (use a sweep to let them replan).
"""

from __future__ import annotations

import json

import pandas as pd

from boardlab.sim.games import GameError, get_game


class RescoreError(ValueError):
    """A table that cannot be rescored; one line for the user, naming the file."""


def rescorer(game):
    """The game's rescorer, ``(rows of one run, rules) -> rows`` (RescoreError when it has none).

    Parameters
    ----------
    game : GameDef or str
        The game.

    Returns
    -------
    callable
        The rescorer.
    """
    g = get_game(game)
    try:
        return g.require("rescorer")
    except GameError as e:
        raise RescoreError(str(e)) from None


def rescore_files(paths: list, rules, game) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(before, after) for stored result files of `game`: each run is rescored on its own (games are ranked
    within it; a game is the rows sharing ``(run_id, game)``, see :func:`boardlab.experiments.io.read_runs`).

    Parameters
    ----------
    paths : list of str or Path
        The result files (each run once: a file given twice, or a copy, is refused).
    rules : Rules
        The new rule set.
    game : GameDef or str
        Their game.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        The rows as stored and as rescored, each with ``run_id``.  ResultsError (boardlab.experiments.io) on a file that
        cannot be read; RescoreError (one line, naming the file) on a table the game's rescorer cannot read.
    """
    from boardlab.experiments.io import RUN_ID, open_runs, read_runs

    fn = rescorer(game)
    names = {run: f.path for f in open_runs(paths) for run in f.runs}
    before = read_runs(paths)
    parts = []
    for run, part in before.groupby(RUN_ID, sort=False, observed=True):
        try:
            parts.append(fn(part.drop(columns=RUN_ID), rules).assign(**{RUN_ID: run}))
        except ValueError as e:
            raise RescoreError(f"{names.get(run, run)}: {str(e).splitlines()[0]}") from None
    after = pd.concat(parts, ignore_index=True)
    after[RUN_ID] = pd.Categorical(after[RUN_ID], categories=before[RUN_ID].cat.categories)
    return before, after


def write_rescored(after: pd.DataFrame, out, rules, sources: list, game) -> None:
    """The rescored table as Parquet (atomically), with metadata naming its game, sources and new rules.

    Parameters
    ----------
    after : pandas.DataFrame
        The rescored rows.
    out : pathlib.Path
        The file to write.
    rules : RuleSet
        The rules the rows were rescored under.
    sources : list
        The result files read (the first one's metadata is kept as ``original``).
    game : GameDef or str
        The game.
    """
    import pyarrow as pa

    from boardlab.experiments import simulate as S
    from boardlab.experiments.io import RUN_ID, atomic_write_parquet

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
    # each row keeps its run's identity: games of several runs share game numbers (boardlab.experiments.io.read_runs)
    after = after.assign(**{RUN_ID: after[RUN_ID].astype(object)})
    table = pa.Table.from_pandas(after, preserve_index=False)
    table = table.set_column(table.schema.get_field_index(RUN_ID), RUN_ID, table[RUN_ID].cast(pa.large_string()))
    atomic_write_parquet(table.replace_schema_metadata({S.METADATA_KEY: json.dumps(meta).encode()}), out)
