"""A result file's summary for any game: win shares per agent, per seat and per player count, scores, ties and the
game's own columns (``boardlab summary``).

Every figure is computed from the columns every game shares (:mod:`boardlab.experiments.schema`): a game is the
rows sharing ``(run_id, game)`` (:func:`boardlab.experiments.io.read_runs`), its winners the rows of rank 1.  Win
shares count a k-way shared win as 1/k and carry a 95% Wilson interval (statsmodels' ``proportion_confint``,
``method="wilson"``, through :func:`boardlab.sim.stats.wilson`) over the (game, seat) rows behind them; a share of
games (ties) carries one over the games.  The tables:

``agents``
    players, agent: rows, win share, its interval.
``seats``
    players, seat: rows, win share, its interval, the share's deviation from 1/N.
``players``
    players: games, games with a shared win (ties) and their share with its interval, mean total.
``scores``
    players, agent: the final score's mean, standard deviation, minimum, quantiles (10, 25, 50, 75, 90%), maximum.
``columns``
    players, agent, column: the same for each numeric column of the game's own (its schema's columns beyond the
    core ones).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from boardlab.experiments.io import GAME_KEYS, atomic_write_text, open_runs, read_runs, staged_directory
from boardlab.experiments.report import pct as _pct
from boardlab.experiments.schema import CORE_COLUMNS
from boardlab.sim.stats import wilson

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
TABLES = ("agents", "seats", "players", "scores", "columns")
# The core columns a summary reads; a table without one of them is not a result table.
NEEDED = ("game", "players", "seat", "agent", "total", "rank", "win_share")


class SummaryError(ValueError):
    """Result files that cannot be summarised (one line, naming the file or the column)."""


def files_game(paths: Iterable[str | Path], game: str | None = None) -> str | None:
    """The game the result files are of, from their run metadata, checked before any row is read.

    Parameters
    ----------
    paths : iterable of str or Path
        The result files (checked by :func:`boardlab.experiments.io.open_runs`: readable, no run twice).
    game : str, optional
        The game the user named; every file whose metadata names a game must name this one.

    Returns
    -------
    str or None
        The game id (`game`, or the one the files' metadata names); None when neither says.  SummaryError (one
        line naming the file) when two files are of different games, or a file is not of `game`.
    """
    first: tuple[str, Path] | None = None
    for f in open_runs(paths):
        spec = f.meta.get("spec") or (f.meta.get("original") or {}).get("spec") or {}
        gid = f.meta.get("game") or spec.get("game")
        if gid is None:
            continue
        if game is not None and gid != game:
            raise SummaryError(f"{f.path}: a result of {gid}, not {game}")
        if first is None:
            first = (gid, f.path)
        elif gid != first[0]:
            raise SummaryError(f"{f.path}: a result of {gid}, {first[1]} one of {first[0]}: give one game's files")
    return game if game is not None else (first[0] if first else None)


def own_columns(df: pd.DataFrame, schema=None) -> list[str]:
    """The game's own numeric columns of a result table: those of `schema` (a pyarrow schema, the game's) beyond
    the core columns, in its order, or, without a schema, every numeric column of `df` beyond them.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows.
    schema : pyarrow.Schema or None
        The game's result schema.

    Returns
    -------
    list of str
        The column names.
    """
    names = [f.name for f in schema] if schema is not None else list(df.columns)
    return [c for c in names if c in df.columns and c not in CORE_COLUMNS and c not in GAME_KEYS and _numeric(df[c])]


def _numeric(s: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)


def check_table(df: pd.DataFrame) -> None:
    """SummaryError (one line) unless `df` holds whole games: the core columns a summary reads, no missing
    value in them, and each game (rows sharing ``run_id`` and ``game``) with seats 1..players once each.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows as :func:`boardlab.experiments.io.read_runs` gives them.
    """
    missing = [c for c in NEEDED if c not in df.columns]
    if missing:
        raise SummaryError(f"the result table has no {', '.join(missing)} column: not a result table")
    bad = [c for c in NEEDED if df[c].isna().any()]
    if bad:
        raise SummaryError(f"the result table has missing values in {', '.join(bad)}")
    keys = [k for k in GAME_KEYS if k in df.columns]
    g = df.groupby(keys, observed=True, sort=False)
    size = g["seat"].transform("size")
    seats = g["seat"].transform(lambda s: s.nunique())
    whole = (size == df["players"]) & (seats == df["players"]) & df["seat"].between(1, df["players"])
    if not whole.all():
        r = df[~whole].iloc[0]
        raise SummaryError(
            f"game {r['game']} of run {r.get('run_id', '?')} does not hold seats 1..{r['players']} once each"
        )


def win_shares(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Win share per group of rows with its 95% Wilson interval.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows (``win_share``: 1/k for each of k tied winners, else 0).
    by : list of str
        The grouping columns.

    Returns
    -------
    pandas.DataFrame
        `by`, ``n`` (rows), ``win_share``, ``lo``, ``hi``.
    """
    g = df.groupby(by, sort=True, observed=True)["win_share"].agg(["sum", "count"]).reset_index()
    out = g[by].copy()
    out["n"] = g["count"].astype(int)
    out["win_share"] = g["sum"] / g["count"]
    ci = [wilson(float(s), int(n)) for s, n in zip(g["sum"], g["count"], strict=True)]
    out["lo"] = [c[0] for c in ci]
    out["hi"] = [c[1] for c in ci]
    return out


def distribution(df: pd.DataFrame, by: list[str], column: str) -> pd.DataFrame:
    """A numeric column's distribution per group: n, mean, sd, min, the QUANTILES (``q10`` .. ``q90``), max.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows.
    by : list of str
        The grouping columns.
    column : str
        The numeric column.

    Returns
    -------
    pandas.DataFrame
        One row per group.
    """
    g = df.groupby(by, sort=True, observed=True)[column]
    out = g.agg(n="size", mean="mean", sd="std", min="min").reset_index()
    for q in QUANTILES:
        out[f"q{round(100 * q)}"] = g.quantile(q).to_numpy()
    out["max"] = g.max().to_numpy()
    out["sd"] = out["sd"].fillna(0.0)
    return out


def per_game(df: pd.DataFrame) -> pd.DataFrame:
    """One row per game: ``players``, ``winners`` (rows of rank 1) and ``total`` (the mean over its seats).

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows.

    Returns
    -------
    pandas.DataFrame
        The game keys and those three columns.
    """
    keys = [k for k in GAME_KEYS if k in df.columns]
    return (
        df.assign(_winner=df["rank"] == 1)
        .groupby(keys, observed=True, sort=False)
        .agg(players=("players", "first"), winners=("_winner", "sum"), total=("total", "mean"))
        .reset_index()
    )


def players_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per player count: games, games whose win is shared (ties), their share with its Wilson interval, the
    mean total.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows.

    Returns
    -------
    pandas.DataFrame
        One row per player count, ascending.
    """
    games = per_game(df)
    rows = []
    for n, part in games.groupby("players", sort=True):
        ties = int((part["winners"] > 1).sum())
        lo, hi = wilson(ties, len(part))
        rows.append(
            {
                "players": int(n), "games": len(part), "ties": ties, "tie_share": ties / len(part), "lo": lo,
                "hi": hi, "mean_total": float(part["total"].mean()),
            }
        )  # fmt: skip
    return pd.DataFrame(rows)


def summarise(df: pd.DataFrame, schema=None) -> dict[str, pd.DataFrame]:
    """Every table of the summary (module docstring) of result rows.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows of one game, as :func:`boardlab.experiments.io.read_runs` gives them; checked by
        :func:`check_table` (SummaryError, one line).
    schema : pyarrow.Schema, optional
        The game's result schema: its own columns are the ones summarised (default: every numeric column that is
        not a core one).

    Returns
    -------
    dict of str to pandas.DataFrame
        ``agents``, ``seats``, ``players``, ``scores``, ``columns``.
    """
    check_table(df)
    df = df.assign(agent=df["agent"].astype(str), players=df["players"].astype(int), seat=df["seat"].astype(int))
    seats = win_shares(df, ["players", "seat"])
    seats["deviation"] = seats["win_share"] - 1.0 / seats["players"]
    own = own_columns(df, schema)
    long = [distribution(df, ["players", "agent"], c).assign(column=c) for c in own]
    columns = (
        pd.concat(long, ignore_index=True)[["players", "agent", "column", *_DIST]]
        if long
        else pd.DataFrame(columns=["players", "agent", "column", *_DIST])
    )
    return {
        "agents": win_shares(df, ["players", "agent"]),
        "seats": seats,
        "players": players_table(df),
        "scores": distribution(df, ["players", "agent"], "total"),
        "columns": columns,
    }


_DIST = ["n", "mean", "sd", "min", *(f"q{round(100 * q)}" for q in QUANTILES), "max"]


def read_summary(paths: Iterable[str | Path], game: str | None = None) -> tuple[str | None, int, dict]:
    """Result files read and summarised.

    Parameters
    ----------
    paths : iterable of str or Path
        The result files (each run once).
    game : str, optional
        The game they must be of (default: the one their metadata names).

    Returns
    -------
    (str or None, int, dict of str to pandas.DataFrame)
        The game id, the number of games, and :func:`summarise`'s tables.  SummaryError or
        :class:`boardlab.experiments.io.ResultsError`, one line, on files that cannot be summarised.
    """
    paths = list(paths)
    gid = files_game(paths, game)
    schema = None
    if gid is not None:
        from boardlab.experiments.schema import schema_of
        from boardlab.sim.games import GameError, get_game

        try:
            schema = schema_of(get_game(gid))
        except GameError:
            schema = None  # a game not installed here: its numeric columns are summarised without its schema
    df = read_runs(paths)
    tables = summarise(df, schema)
    return gid, int(tables["players"]["games"].sum()), tables


# --- output ---------------------------------------------------------------------------------------


def _num(v) -> str:
    if isinstance(v, (float, np.floating)):
        return f"{v:.2f}" if math.isfinite(v) else ""
    return str(v)


def _md(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in df.itertuples(index=False):
        lines.append("| " + " | ".join(_num(v) for v in r) + " |")
    return "\n".join(lines)


def markdown(game: str | None, games: int, tables: dict[str, pd.DataFrame], sources: list[str]) -> str:
    """The summary as Markdown: a heading, then one section per table (win shares as percentages with their
    95% Wilson intervals).

    Parameters
    ----------
    game : str or None
        The game id (None: unknown).
    games : int
        The number of games.
    tables : dict of str to pandas.DataFrame
        :func:`summarise`'s tables.
    sources : list of str
        The result files, named in the heading.

    Returns
    -------
    str
        The Markdown text (ending with a newline).
    """
    a, s, p = tables["agents"], tables["seats"], tables["players"]
    out = [
        f"# Summary: {games:,} games of {game or 'an unnamed game'}",
        "",
        "From " + ", ".join(f"`{x}`" for x in sources) + ". Win shares count a shared win as 1/k; intervals are"
        " 95% Wilson.",
        "",
        "## Win share per agent",
        "",
        _md(a.assign(win_share=[_pct(*r) for r in zip(a.win_share, a.lo, a.hi, strict=True)])[
            ["players", "agent", "n", "win_share"]
        ]),
        "",
        "## Win share per seat",
        "",
        _md(s.assign(
            win_share=[_pct(*r) for r in zip(s.win_share, s.lo, s.hi, strict=True)],
            deviation=[f"{100 * d:+.1f}" for d in s.deviation],
        )[["players", "seat", "n", "win_share", "deviation"]].rename(columns={"deviation": "vs 1/N (points)"})),
        "",
        "## Per player count",
        "",
        _md(p.assign(tie_share=[_pct(*r) for r in zip(p.tie_share, p.lo, p.hi, strict=True)])[
            ["players", "games", "ties", "tie_share", "mean_total"]
        ]),
        "",
        "## Final score",
        "",
        _md(tables["scores"]),
        "",
    ]  # fmt: skip
    if len(tables["columns"]):
        out += ["## The game's own columns", "", _md(tables["columns"]), ""]
    return "\n".join(out)


def as_json(game: str | None, games: int, tables: dict[str, pd.DataFrame], sources: list[str]) -> str:
    """The summary as JSON: ``game``, ``games``, ``files`` and each table as a list of records (NaN: null).

    Parameters
    ----------
    game : str or None
        The game's id.
    games : int
        Number of games summarised.
    tables : dict of str to pandas.DataFrame
        The summary's tables by name (every name of TABLES).
    sources : list of str
        The result files read.

    Returns
    -------
    str
        Indented JSON with a final newline.
    """
    doc: dict = {"game": game, "games": games, "files": sources}
    for name in TABLES:
        t = tables[name].astype(object).where(tables[name].notna(), None)
        doc[name] = [{k: _plain(v) for k, v in r.items()} for r in t.to_dict(orient="records")]
    return json.dumps(doc, indent=2) + "\n"


def _plain(v):
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


def write_csv(tables: dict[str, pd.DataFrame], out: Path) -> list[Path]:
    """Each table as ``OUT/<name>.csv`` (written whole into a staging folder, then moved in).

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The summary's tables by name.
    out : pathlib.Path
        The output directory.

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    with staged_directory(out, last="agents.csv") as tmp:
        for name in TABLES:
            atomic_write_text(tables[name].to_csv(index=False), tmp / f"{name}.csv")
    return [Path(out) / f"{name}.csv" for name in TABLES]
