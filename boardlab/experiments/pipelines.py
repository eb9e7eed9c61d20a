"""Analysis pipelines over result tables (one row per game and seat, see README "Schema").

Small composable functions on long-format pandas tables::

    df = load_results(["runs/a.parquet", "runs/b.parquet"])
    df.pipe(win_share, by=["agent"])            # with 95% Wilson intervals
    df.pipe(score_breakdown, by=["agent"])      # mean points per district, 95% normal intervals
    paired_difference(a, b, "total", by=["agent"])

Every rate carries its interval and its sample size: ``n`` is the number of
(game, seat) rows behind it.  Win shares use the Wilson score interval on the
sum of win shares (a k-way shared win counts 1/k), as in :func:`boardlab.sim.stats.wilson`;
means use the normal interval mean ± 1.96·sd/√n.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from boardlab.experiments.io import read_runs
from boardlab.sim.stats import wilson

Z95 = 1.959963984540054
DISTRICT_COLUMNS = ["residential", "commercial", "park", "industrial"]


def load_results(paths: Iterable[str | Path]) -> pd.DataFrame:
    """Result files as one table with a ``run_id`` column: the rows of one game are those sharing
    ``(run_id, game)`` (:func:`boardlab.experiments.io.read_runs`, which says how a file's run is identified).

    Parameters
    ----------
    paths : iterable of str or Path
        The result files.

    Returns
    -------
    pandas.DataFrame
        Their rows.  ResultsError (boardlab.experiments.io), one line naming the file, when one cannot be read, is
        given twice or holds a run another one holds.
    """
    return read_runs(paths)


def win_share(df: pd.DataFrame, by: list[str] | str = "agent", column: str = "win_share") -> pd.DataFrame:
    """Win share per group with a 95% Wilson interval; ``column="win"`` gives 'win or share'.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows (one per game and seat).
    by : str or list of str
        The grouping column(s).
    column : str
        The per-row share (``win_share``, or ``win``).

    Returns
    -------
    pandas.DataFrame
        One row per group: the `by` columns, ``n`` (rows), `column` (the mean) and ``lo``, ``hi``.
    """
    by = [by] if isinstance(by, str) else list(by)
    g = df.groupby(by, sort=True, observed=True)[column].agg(["sum", "count"]).reset_index()
    lo_hi = [wilson(s, int(n)) for s, n in zip(g["sum"], g["count"], strict=True)]
    out = g[by].copy()
    out["n"] = g["count"].astype(int)
    out[column] = g["sum"] / g["count"]
    out["lo"] = [x[0] for x in lo_hi]
    out["hi"] = [x[1] for x in lo_hi]
    return out


def mean_ci(df: pd.DataFrame, columns: list[str], by: list[str] | str) -> pd.DataFrame:
    """Means of `columns` per group with a normal 95% interval, as a long table.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows (one per game and seat).
    columns : list of str
        The numeric columns to average.
    by : str or list of str
        The grouping column(s).

    Returns
    -------
    pandas.DataFrame
        One row per (group, metric): the `by` columns, ``metric``, ``n``, ``mean``, ``lo``, ``hi``.
    """
    by = [by] if isinstance(by, str) else list(by)
    long = df.melt(id_vars=by, value_vars=columns, var_name="metric", value_name="value")
    g = long.groupby([*by, "metric"], sort=True, observed=True)["value"].agg(["mean", "std", "count"]).reset_index()
    half = Z95 * g["std"].fillna(0.0) / np.sqrt(g["count"])
    return g.assign(n=g["count"].astype(int), lo=g["mean"] - half, hi=g["mean"] + half)[
        [*by, "metric", "n", "mean", "lo", "hi"]
    ]


def score_breakdown(df: pd.DataFrame, by: list[str] | str = "agent") -> pd.DataFrame:
    """Mean points per district, achievements, compensation and total, per group (Citywright's score columns).

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows (one per game and seat).
    by : str or list of str
        The grouping column(s).

    Returns
    -------
    pandas.DataFrame
        :func:`mean_ci`'s long table over those columns.
    """
    return mean_ci(df, [*DISTRICT_COLUMNS, "achievements", "compensation", "total"], by)


def waste_and_empty(df: pd.DataFrame, by: list[str] | str = "agent") -> pd.DataFrame:
    """Mean wasted tiles, empty cells and forced discards per player, per group (Citywright's columns).

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows (one per game and seat).
    by : str or list of str
        The grouping column(s).

    Returns
    -------
    pandas.DataFrame
        :func:`mean_ci`'s long table over ``waste``, ``empty`` and ``forced_discards``.
    """
    return mean_ci(df, ["waste", "empty", "forced_discards"], by)


def rank_distribution(df: pd.DataFrame, by: list[str] | str = "agent") -> pd.DataFrame:
    """Share of each rank per group, with Wilson intervals.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows (one per game and seat).
    by : str or list of str
        The grouping column(s).

    Returns
    -------
    pandas.DataFrame
        One row per (group, rank): the `by` columns, ``rank``, ``k`` (rows of that rank), ``n`` (rows of the
        group), ``share``, ``lo``, ``hi``; sorted by group and rank.
    """
    by = [by] if isinstance(by, str) else list(by)
    counts = df.groupby([*by, "rank"], observed=True).size().rename("k").reset_index()
    totals = df.groupby(by, observed=True).size().rename("n").reset_index()
    out = counts.merge(totals, on=by)
    out["share"] = out["k"] / out["n"]
    ci = [wilson(k, n) for k, n in zip(out["k"], out["n"], strict=True)]
    out["lo"] = [c[0] for c in ci]
    out["hi"] = [c[1] for c in ci]
    return out.sort_values([*by, "rank"]).reset_index(drop=True)


def paired_difference(
    a: pd.DataFrame, b: pd.DataFrame, metric: str = "win_share", by: list[str] | str = "agent"
) -> pd.DataFrame:
    """B minus A on the same games (matched on game_seed and seat), per group, with a 95% interval.

    Pairing removes the games' luck from the comparison of two rule versions or two
    agents run on the same seeds; the interval is the normal interval of the mean
    paired difference.

    Parameters
    ----------
    a, b : pandas.DataFrame
        Result rows of the two runs (same seeds).
    metric : str
        The per-row column compared.
    by : str or list of str
        The grouping column(s), read from `a`.

    Returns
    -------
    pandas.DataFrame
        One row per group: the `by` columns, ``n`` (pairs), ``a`` and ``b`` (the means), ``diff``, ``lo``, ``hi``.

    Raises
    ------
    ValueError
        The tables share no (game_seed, seat).
    """
    by = [by] if isinstance(by, str) else list(by)
    keys = ["game_seed", "seat"]
    left = list(dict.fromkeys([*keys, *by, metric]))  # by may name a key (per seat)
    m = a[left].merge(b[[*keys, metric]], on=keys, suffixes=("_a", "_b"), validate="one_to_one")
    if m.empty:
        raise ValueError("the two tables share no (game_seed, seat): were they run with the same --seed?")
    m["diff"] = m[f"{metric}_b"] - m[f"{metric}_a"]
    g = m.groupby(by, sort=True, observed=True).agg(
        n=("diff", "size"), a=(f"{metric}_a", "mean"), b=(f"{metric}_b", "mean"), diff=("diff", "mean"),
        sd=("diff", "std"),
    )  # fmt: skip
    half = Z95 * g["sd"].fillna(0.0) / np.sqrt(g["n"])
    return g.assign(lo=g["diff"] - half, hi=g["diff"] + half).drop(columns="sd").reset_index()
