"""The objective: the loss of a table of games (points² from 1/N per agent or seat), its bootstrap interval and
noise floor, and a trial's value (the loss plus the ``--keep-mean-total`` penalty) per block or pooled."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from .spec import TuneSpec


PENALTY = 20_000.0  # above any loss: 10⁴ · 2(N−1)/N < 2 · 10⁴ for `both`
PENALTY_SLOPE = 100_000.0  # per unit of relative excess over the mean-total band
INVALID = 1.0e7
EXCESS_PENALTY = 10.0  # points² told to the sampler per parameter sampled away from the base beyond --max-changes
BOOTSTRAP_REPS = 2000


def groups_for(objective: str) -> list[str]:
    """The grouping columns an objective's loss sums over.

    Parameters
    ----------
    objective : str
        ``specialists`` (per agent), ``seats`` (per seat) or ``both``.

    Returns
    -------
    list of str
        ``["agent"]``, ``["seat"]`` or both.
    """
    return {"specialists": ["agent"], "seats": ["seat"], "both": ["agent", "seat"]}[objective]


def shares(df: pd.DataFrame, by: str) -> pd.Series:
    """Mean win share per row of each group (an agent in k seats is compared to 1/N per seat).

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows of one table (one per game and seat).
    by : str
        The grouping column.

    Returns
    -------
    pandas.Series
        Mean ``win_share`` per group, groups sorted.
    """
    return df.groupby(by, sort=True, observed=True)["win_share"].mean()


def loss(df: pd.DataFrame, objective: str, players: int) -> float:
    """Sum over the objective's groups of (100 · (win share − 1/N))², points².

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows of one table (one per game and seat).
    objective : str
        ``specialists`` (per agent), ``seats`` (per seat) or ``both``.
    players : int
        Players per game (N).

    Returns
    -------
    float
        The loss.
    """
    return float(sum(((100 * (shares(df, by) - 1 / players)) ** 2).sum() for by in groups_for(objective)))


def bootstrap_loss(
    df: pd.DataFrame, objective: str, players: int, reps: int = BOOTSTRAP_REPS, seed: int = 0
) -> tuple[float, float]:
    """95% percentile interval of :func:`loss` over games resampled with replacement.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows of one table (one per game and seat).
    objective : str
        ``specialists`` (per agent), ``seats`` (per seat) or ``both``.
    players : int
        Players per game (N).
    reps : int
        Bootstrap resamples.
    seed : int
        Seeds the resampling.

    Returns
    -------
    tuple of float
        ``(lo, hi)``.
    """
    out = _bootstrap_reps(df, groups_for(objective), players, reps, np.random.default_rng(seed))
    lo, hi = np.percentile(out, [2.5, 97.5])
    return float(lo), float(hi)


def _bootstrap_reps(df: pd.DataFrame, bys: list[str], players: int, reps: int, rng) -> np.ndarray:
    """`reps` values of the loss over `bys` on games of `df` resampled with replacement (draws from `rng`)."""
    games = df["game_seed"].to_numpy()
    _, gidx = np.unique(games, return_inverse=True)
    n = int(gidx.max()) + 1
    parts = []
    for by in bys:
        codes, _ = pd.factorize(df[by], sort=True)
        k = int(codes.max()) + 1
        sums = np.zeros((n, k))
        counts = np.zeros((n, k))
        np.add.at(sums, (gidx, codes), df["win_share"].to_numpy())
        np.add.at(counts, (gidx, codes), 1.0)
        parts.append((sums, counts))
    out = np.empty(reps)
    batch = max(1, 2_000_000 // max(n, 1))
    for start in range(0, reps, batch):
        m = min(batch, reps - start)
        w = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(m)]).astype(float)
        total = np.zeros(m)
        for sums, counts in parts:
            s = (w @ sums) / (w @ counts)
            total += ((100 * (s - 1 / players)) ** 2).sum(axis=1)
        out[start : start + m] = total
    return out


def noise_floor(df: pd.DataFrame, objective: str, players: int) -> float:
    """The part of the plug-in loss that is sampling noise: Σ over groups of 10⁴ · Var(share estimate).

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows of one table (one per game and seat).
    objective : str
        ``specialists`` (per agent), ``seats`` (per seat) or ``both``.
    players : int
        Players per game (N).

    Returns
    -------
    float
        Points².
    """
    total = 0.0
    for by in groups_for(objective):
        total += _noise(df, by)
    return total


def _noise(df: pd.DataFrame, by: str) -> float:
    per_game = df.groupby(["game_seed", by], observed=True)["win_share"].mean().unstack()
    return float((per_game.var(ddof=1) / per_game.count()).sum()) * 1e4


@dataclass
class BlockResult:
    """The loss of a block's (or pooled) games and their mean total score."""

    loss: float
    mean_total: float


def _block_value(spec: TuneSpec, res: BlockResult, base_mean: float) -> tuple[float, float]:
    """(value, relative mean-total change) of a block or a pooled set of games."""
    change = res.mean_total / base_mean - 1
    value = res.loss
    if spec.keep_mean_total is not None:
        excess = abs(change) - spec.keep_mean_total / 100
        if excess > 0:
            value += PENALTY + PENALTY_SLOPE * excess
    return value, change


def _summary(parts: dict, spec: TuneSpec) -> BlockResult:
    """Loss (summed over the tables) and mean total score (over every player of every table) of a block's
    frames, or of pooled ones (table name -> frame)."""
    tables = spec.tables()
    totals = parts[tables[0].name]["total"] if len(tables) == 1 else pd.concat([parts[t.name]["total"] for t in tables])
    return BlockResult(sum(t.loss(parts[t.name]) for t in tables), float(totals.mean()))


def pool(spec: TuneSpec, frames: list[dict]) -> dict:
    """Blocks' frames pooled per table (in the order given).

    Parameters
    ----------
    spec : TuneSpec
        The study.
    frames : list of dict
        Per block, table name -> its result rows.

    Returns
    -------
    dict of str to pandas.DataFrame
        Table name -> the blocks' rows concatenated.
    """
    return {t.name: pd.concat([f[t.name] for f in frames], ignore_index=True) for t in spec.tables()}


def pooled_value(spec: TuneSpec, frames: list[dict], blocks: list[int], info: dict) -> float:
    """The value (loss plus any mean-total penalty) of the games of `frames`, seed blocks `blocks`, pooled.

    Parameters
    ----------
    spec : TuneSpec
        The study.
    frames : list of dict
        Per block, table name -> its result rows.
    blocks : list of int
        The blocks' indices (their base mean totals are the penalty's reference).
    info : dict
        The study's reference data (``block_mean_total`` per block).

    Returns
    -------
    float
        The value.
    """
    base_mean = float(np.mean([info["block_mean_total"][b] for b in blocks]))
    return _block_value(spec, _summary(pool(spec, frames), spec), base_mean)[0]


def bootstrap_tables(spec: TuneSpec, parts: dict, reps: int = BOOTSTRAP_REPS) -> tuple[float, float]:
    """95% percentile interval of the loss summed over the tables, each table's games resampled on its own.

    Parameters
    ----------
    spec : TuneSpec
        The study.
    parts : dict of str to pandas.DataFrame
        Table name -> the pooled result rows.
    reps : int
        Bootstrap resamples.

    Returns
    -------
    tuple of float
        ``(lo, hi)``.
    """
    rng = np.random.default_rng(spec.seed & 0xFFFF)
    total = sum(_bootstrap_reps(parts[t.name], [t.by], t.players, reps, rng) for t in spec.tables())
    lo, hi = np.percentile(total, [2.5, 97.5])
    return float(lo), float(hi)


def noise_floor_tables(spec: TuneSpec, parts: dict) -> float:
    """:func:`noise_floor` summed over the tables.

    Parameters
    ----------
    spec : TuneSpec
        The study.
    parts : dict of str to pandas.DataFrame
        Table name -> the pooled result rows.

    Returns
    -------
    float
        Points².
    """
    return sum(_noise(parts[t.name], t.by) for t in spec.tables())
