"""The verification: the base and the best rules re-played on fresh seeds, and the win-share table (per agent
and per seat, Wilson 95%) both the verification and the report's tuning games use."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from boardlab.experiments.pipelines import win_share

from .objective import _summary, bootstrap_tables
from .play import play_verification
from .settings import Rules
from .spec import Table, TuneSpec
from .training import ensure_weights


def table_kinds(spec: TuneSpec, table: Table) -> tuple[tuple[str, str], ...]:
    """(kind, column) of the verification rows of `table`: the agents' table per agent (and, with objective
    specialists, per seat of those games too), a seat table per seat ("seat 3p").

    Parameters
    ----------
    spec : TuneSpec
        The study.
    table : Table
        One of its tables.

    Returns
    -------
    tuple of tuple of (str, str)
        The kinds of rows and the column each groups by.
    """
    if table.by == "seat":
        return ((f"seat {table.players}p", "seat"),)
    return (("agent", "agent"), ("seat", "seat")) if spec.objective == "specialists" else (("agent", "agent"),)


def verify_table(frames: dict[str, dict], spec: TuneSpec) -> pd.DataFrame:
    """Win share per agent and per seat (Wilson 95%) and mean total, for each rule set and table.

    Parameters
    ----------
    frames : dict of str to dict
        Rule set label (``base``, ``best``) -> table name -> its result rows.
    spec : TuneSpec
        The study.

    Returns
    -------
    pandas.DataFrame
        One row per (rule set, kind, group): rules, kind, group, players, n, win_pct, lo, hi, mean_total, ...
    """
    parts = []
    for label, by_table in frames.items():
        for table in spec.tables():
            df = by_table[table.name]
            parts += _verify_rows(spec, table, label, df)
    return pd.concat(parts, ignore_index=True)


def _verify_rows(spec: TuneSpec, table: Table, label: str, df: pd.DataFrame) -> list[pd.DataFrame]:
    parts = []
    games = len(df) // table.players
    for kind, column in table_kinds(spec, table):
        ws = win_share(df, column)
        if column == "agent":  # in seat order, as given
            ws = ws.set_index("agent").loc[list(dict.fromkeys(table.agents))].reset_index()
        tot = df.groupby(column, observed=True)["total"].mean()
        parts.append(
            pd.DataFrame(
                {
                    "rules": label,
                    "kind": kind,
                    "players": table.players,
                    "group": [spec.label(g) if column == "agent" else str(g) for g in ws[column]],
                    "games": games,
                    "n": ws["n"],
                    "win_pct": 100 * ws["win_share"],
                    "lo": 100 * ws["lo"],
                    "hi": 100 * ws["hi"],
                    "mean_total": ws[column].map(tot).to_numpy(),
                }
            )
        )
    return parts


@dataclass
class Verification:
    """The verification's games per table, its rows (:func:`verify_table`) and each rule set's loss
    (label -> (loss, lo, hi)).
    """

    games: int
    table: pd.DataFrame
    loss: dict  # label -> (loss, lo, hi)
    mean_total: dict  # label -> mean total


def verify(spec: TuneSpec, best: Rules, games: int, work: Path, jobs: int = 1, progress=None, **where) -> Verification:
    """Base and best on fresh seeds, `games` games in each table (the same seeds for both).

    Parameters
    ----------
    spec : TuneSpec
        The study.
    best : RuleSet
        The best rules.
    games : int
        Games per table and rule set.
    work : pathlib.Path
        The run cache.
    jobs : int
        Worker processes.
    progress : callable or None
        Called ``progress(done, total, rate)`` after each chunk.
    **where
        ``backend`` and ``scheduler``, as in :func:`boardlab.experiments.simulate.run`.

    Returns
    -------
    Verification
        The rows and both rule sets' losses with intervals.
    """
    frames = {}
    for label, rules in (("base", spec.base_rules()), ("best", best)):
        ensure_weights(spec, rules, jobs, **where)  # fitted by their trials (or a --resume's earlier session)
        frames[label] = {
            t.name: play_verification(spec, t, rules, games, work, jobs, progress=progress, **where)
            for t in spec.tables()
        }
    losses = {}
    for label, by_table in frames.items():
        lo, hi = bootstrap_tables(spec, by_table)
        losses[label] = (_summary(by_table, spec).loss, lo, hi)
    first = spec.tables()[0]
    return Verification(
        games=len(frames["base"][first.name]) // first.players,
        table=verify_table(frames, spec),
        loss=losses,
        mean_total={k: _summary(v, spec).mean_total for k, v in frames.items()},
    )
