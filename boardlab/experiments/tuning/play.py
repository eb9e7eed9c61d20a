"""The games a trial plays: seed block b of every table under a rule set (common random numbers across trials),
the base's reference games and the verification runs, each a simulate run cached in the work directory."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd

from boardlab.experiments import simulate as S
from boardlab.sim.seeds import game_seeds

from .objective import _summary, pool
from .settings import Rules
from .spec import Table, TuneSpec

VERIFY_BLOCK = 1 << 40  # the verification run's seed: a SplitMix64 output no training block uses


def block_seed(seed: int, b: int) -> int:
    """Run seed of seed block b (the (b+1)-th SplitMix64 output from `seed`).

    Parameters
    ----------
    seed : int
        The study's seed.
    b : int
        The block.

    Returns
    -------
    int
        The block's run seed.
    """
    return int(game_seeds(seed, b, b + 1)[0])


def _rules_key(rules: Rules) -> str:
    return hashlib.sha1(rules.to_json().encode()).hexdigest()[:12]


RESULT_COLUMNS = ["game_seed", "seat", "agent", "win_share", "total"]


def _is_done(sim: S.RunSpec, path: Path) -> bool:
    """Whether `path` holds the finished run `sim`, whatever its chunk size (chunking never changes a run's rows)."""
    if not path.exists() or S.RunPaths(path).parts.exists():
        return False
    try:
        stored = S.read_metadata(path).get("spec") or {}
    except (S.SimulateError, OSError, ValueError):
        return False
    return {**stored, "chunk_size": 0} == {**sim.to_json(), "chunk_size": 0}


def _run_cached(sim: S.RunSpec, path: Path, jobs: int, progress=None, **where) -> None:
    """`run_or_reuse`, except that a finished run of another chunk size (another --jobs) is reused too.

    `where`: the run's backend and scheduler (boardlab.experiments.simulate.run)."""
    if not _is_done(sim, path):
        S.run_or_reuse(sim, path, jobs=jobs, progress=progress, **where)


def _block(
    spec: TuneSpec, table: Table, rules: Rules, b: int, work: Path, jobs: int = 1, chunk_size: int | None = None
) -> tuple[S.RunSpec, Path]:
    sim = S.make_spec(
        table.players, list(table.agents), table.block_games, block_seed(spec.seed, b), rules, "rotate",
        chunk_size=chunk_size or -(-table.block_games // jobs), game=spec.game,
    )  # fmt: skip
    return sim, Path(work) / _rules_key(rules) / table.file(b)


def play_block(
    spec: TuneSpec,
    table: Table,
    rules: Rules,
    b: int,
    work: Path,
    jobs: int = 1,
    progress=None,
    chunk_size: int | None = None,
    **where,
) -> pd.DataFrame:
    """Seed block b of `table` under `rules` (played, resumed or reused from the work directory), in chunks of
    `chunk_size` games (default: the block shared out over `jobs`).

    Parameters
    ----------
    spec : TuneSpec
        The study.
    table : Table
        The table.
    rules : RuleSet
        The trial's rules.
    b : int
        The block.
    work : pathlib.Path
        The run cache.
    jobs : int
        Worker processes.
    progress : callable or None
        Called ``progress(done, total, rate)`` after each chunk.
    chunk_size : int or None
        Games per chunk.
    **where
        ``backend`` and ``scheduler``, as in :func:`boardlab.experiments.simulate.run`.

    Returns
    -------
    pandas.DataFrame
        The block's result rows.
    """
    sim, path = _block(spec, table, rules, b, work, jobs, chunk_size)
    path.parent.mkdir(parents=True, exist_ok=True)
    _run_cached(sim, path, jobs, progress, **where)
    return _as_table(pd.read_parquet(path, columns=RESULT_COLUMNS), sim, table)


def _as_table(df: pd.DataFrame, sim: S.RunSpec, table: Table) -> pd.DataFrame:
    """The frame's agents named as the table names them: with --train a run records each agent with the weights
    it resolved under the trial's rules (``weights=<hash>``), another name per trial for the same agent."""
    names = dict(zip(sim.agents, table.agents * (len(sim.agents) // len(table.agents)), strict=True))
    if any(k != v for k, v in names.items()):
        df["agent"] = df["agent"].map(lambda a: names.get(a, a))
    return df


def play_blocks(spec: TuneSpec, rules: Rules, b: int, work: Path, jobs: int = 1, progress=None, **where) -> dict:
    """Seed block b of every table under `rules`.

    Parameters
    ----------
    spec : TuneSpec
        The study.
    rules : RuleSet
        The trial's rules.
    b : int
        The block.
    work : pathlib.Path
        The run cache.
    jobs : int
        Worker processes.
    progress : callable or None
        Called ``progress(done, total, rate)``, counting the games of the whole block.
    **where
        ``backend`` and ``scheduler``, as in :func:`boardlab.experiments.simulate.run`.

    Returns
    -------
    dict of str to pandas.DataFrame
        Table name -> its frame.
    """
    out, offset = {}, 0
    for t in spec.tables():

        def tick(done, total, rate, offset=offset):
            if progress:
                progress(offset + done, spec.block_total, rate)

        out[t.name] = play_block(spec, t, rules, b, work, jobs, progress=tick, **where)
        offset += t.block_games
    return out


def all_cached(spec: TuneSpec, rules: Rules, work: Path) -> bool:
    """Whether every block of `rules` is already in the work directory (rules an earlier trial played).

    Parameters
    ----------
    spec : TuneSpec
        The study.
    rules : RuleSet
        The rules.
    work : pathlib.Path
        The run cache.

    Returns
    -------
    bool
        True when nothing is left to play.
    """
    return all(_is_done(*_block(spec, t, rules, b, work)) for b in range(spec.blocks) for t in spec.tables())


def play_verification(
    spec: TuneSpec,
    table: Table,
    rules: Rules,
    games: int,
    work: Path,
    jobs: int = 1,
    progress=None,
    chunk_size: int | None = None,
    **where,
):
    """The verification games of `table` under `rules`: `games` (rounded up to whole seat rotations) on the
    verification block's own seed, played, resumed or reused from the work directory.

    Parameters
    ----------
    spec : TuneSpec
        The study.
    table : Table
        The table.
    rules : RuleSet
        The base or the best rules.
    games : int
        Games to play.
    work : pathlib.Path
        The run cache.
    jobs : int
        Worker processes.
    progress : callable or None
        Called ``progress(done, total, rate)`` after each chunk.
    chunk_size : int or None
        Games per chunk (default: the games shared out over `jobs`, at most 1,000).
    **where
        ``backend`` and ``scheduler``, as in :func:`boardlab.experiments.simulate.run`.

    Returns
    -------
    pandas.DataFrame
        The result rows.
    """
    games = -(-games // table.players) * table.players
    sim = S.make_spec(
        table.players, list(table.agents), games, block_seed(spec.seed, VERIFY_BLOCK), rules, "rotate",
        chunk_size=chunk_size or max(1, min(1000, -(-games // jobs))), game=spec.game,
    )  # fmt: skip
    name = "verify" if table.name == "agents" else f"verify-{table.name}"
    path = Path(work) / f"{name}-{_rules_key(rules)}.parquet"
    _run_cached(sim, path, jobs, progress, **where)
    return _as_table(pd.read_parquet(path), sim, table)


def reference(spec: TuneSpec, work: Path, jobs: int = 1, progress=None, **where) -> tuple[list[dict], dict]:
    """The base rules on every block: the frames and the base's numbers (mean totals per block).

    Parameters
    ----------
    spec : TuneSpec
        The study.
    work : pathlib.Path
        The run cache.
    jobs : int
        Worker processes.
    progress : callable or None
        Called ``progress(done, total, rate)`` per block.
    **where
        ``backend`` and ``scheduler``, as in :func:`boardlab.experiments.simulate.run`.

    Returns
    -------
    tuple of (list of dict, dict)
        The frames per block (table name -> rows), and ``block_loss``, ``block_mean_total``, ``loss``,
        ``mean_total`` of the base.
    """
    base = spec.base_rules()
    frames = []
    for b in range(spec.blocks):
        frames.append(play_blocks(spec, base, b, work, jobs, progress=progress, **where))
    pooled = _summary(pool(spec, frames), spec)
    summaries = [_summary(f, spec) for f in frames]
    info = {
        "block_loss": [r.loss for r in summaries],
        "block_mean_total": [r.mean_total for r in summaries],
        "loss": pooled.loss,
        "mean_total": pooled.mean_total,
    }
    return frames, info
