"""What every game's `reproduce` report is made of: a plan of runs played into a run cache, Markdown helpers.

A game's report (GameDef.reports.report, and GameDef.reports.skill_report for ``reproduce --skill``) is a
:class:`Report`: the function that plays its plan and writes its tables, charts and ``REPORT.md``,
and what the command needs to know to call it.  The plan is a list of jobs (:class:`Job`), each
one resumable simulation in the run cache (``--work``), played or reused by :func:`run_jobs`; an
interrupted report continues where it stopped and a finished one is only re-analysed.  The outputs
are written whole into a temporary directory and moved into place, REPORT.md last
(:func:`boardlab.experiments.io.staged_directory`).

The report kit: a report's ``REPORT.md`` is a Jinja2 template shipped in the package
(``boardlab/experiments/templates/*.md.j2``), rendered by :func:`render` from a context of its tables and
numbers.  The environment (:func:`environment`) is strict (an unknown name is an error, not an empty
string) and has the number formats of the reports as filters (:data:`FILTERS`: ``ci``, ``pct``, ``count``, ``fixed``,
``md``); the provenance block every report opens with is the macro
``provenance`` of ``_kit.md.j2``, fed by :func:`provenance`.
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pandas as pd

from boardlab.experiments import provenance as P
from boardlab.experiments import simulate as S
from boardlab.experiments.io import read_results


class Job(Protocol):
    """One run of a report's plan: what :func:`run_jobs` reads of a game's own job type (a frozen dataclass,
    so that it can key the frames)."""

    key: str  # file stem in the run cache
    players: int
    agents: tuple[str, ...]
    games: int
    seating: str

    def rule_set(self):
        """The job's rule set.

        Returns
        -------
        RuleSet
            The rules its games are played under.
        """
        ...


Progress = Callable[[Job, int, int, float], None]


@dataclass(frozen=True)
class Report:
    """A game's `reproduce` report.

    run : callable(games, out, work, seed, n_jobs, log, command, backend, scheduler, progress) -> tables
        Play the plan for size `games` (reusing finished runs in `work`), write the tables, charts and
        REPORT.md into `out`; `command` is the command line recorded in the report, `log(line)` gets a
        line per run and `progress(job, done, total, rate)` the games played.  Returns its tables.
    title : what the report reproduces, for the command's first line.
    home : the folder of its default --out and --work under runs/ (``runs/<home>/games-N/{report,runs}``).
    default_games : --games when not given.
    note : callable(games) -> str or None; a line printed after the first (e.g. the sizes of slow tables).
    takes_rules : whether `run` takes ``rules=`` (a preset name or a variant file: ``reproduce --rules``), the
        report played under that rule set instead of its own.
    check : callable(games, rules) -> None, or None: raises a one-line error
        (boardlab.experiments.simulate.SimulateError) when the plan cannot be played (e.g. an agent's missing
        weights); the command calls it before any work.
    """

    run: Callable[..., dict]
    title: str
    home: str
    default_games: int = 2000
    note: Callable[[int], str | None] | None = None
    takes_rules: bool = False
    check: Callable[..., None] | None = None


def rules_tag(rules) -> str:
    """A short name of a rule set's content, for file and folder names of runs under it: another content, another
    name.

    Parameters
    ----------
    rules : RuleSet
        The rule set.

    Returns
    -------
    str
        ``"r"`` and 10 hex digits of SHA-256 over its canonical JSON.
    """
    return "r" + hashlib.sha256(rules.to_json().encode()).hexdigest()[:10]


def run_jobs(
    game,
    jobs: list[Job],
    work: Path,
    seed: int,
    n_jobs: int,
    log: Callable[[str], None],
    backend: str = "loky",
    scheduler: str | None = None,
    progress: Progress | None = None,
    chunk_size: int | Callable[[Job], int] | None = None,
) -> dict[Job, pd.DataFrame]:
    """Play (or reuse) every job's run of `game` in the cache `work`.

    Each result's frame has, in ``attrs["seconds"]``, the time its games took when they were played (a resumed
    run: its last run).

    Parameters
    ----------
    game : GameDef or str
        The game.
    jobs : list of Job
        The plan's runs.
    work : pathlib.Path
        The run cache (created when missing).
    seed : int
        The run seed of every job.
    n_jobs : int
        Worker processes.
    log : callable
        Receives progress lines.
    backend, scheduler : str, str or None
        As in :func:`boardlab.experiments.simulate.run`.
    progress : callable or None
        Called ``progress(job, done, total, rate)`` after each chunk.
    chunk_size : int or callable or None
        Caps the games per chunk: a number, or a function of the job.

    Returns
    -------
    dict of Job to pandas.DataFrame
        Each job's result rows.
    """
    frames = {}
    work.mkdir(parents=True, exist_ok=True)
    total = sum(j.games for j in jobs)
    done = 0
    for i, job in enumerate(jobs, 1):
        cap = chunk_size(job) if callable(chunk_size) else chunk_size
        chunk = min(cap, job.games) if cap else None
        spec = S.make_spec(
            job.players, list(job.agents), job.games, seed, job.rule_set(), job.seating, chunk_size=chunk, game=game
        )

        def tick(d: int, n: int, rate: float, job=job) -> None:
            if progress:
                progress(job, d, n, rate)

        t = time.perf_counter()
        path = work / f"{job.key}.parquet"
        meta, reused = S.run_or_reuse(spec, path, jobs=n_jobs, backend=backend, scheduler=scheduler, progress=tick)
        dt = time.perf_counter() - t
        if reused:
            tick(job.games, job.games, 0.0)
        done += job.games
        sess = meta["this_session"]
        compile_s = sess.get("compile_seconds") or 0.0  # compiled first, announced on stderr: not play
        play, compiled = dt - compile_s, f"; compiled first in {compile_s:.1f} s" if compile_s else ""
        rate = sess["games"] / max(play, 1e-9)
        how = "reused" if reused else f"played in {play:.1f} s, {rate:,.0f} games/s{compiled}"
        log(
            f"[{i}/{len(jobs)}] {job.key}: {job.games:,} games, {job.players}p ({how});"
            f" {100 * done / total:.0f}% of games"
        )
        frames[job] = read_results(path)
        frames[job].attrs["seconds"] = float(meta["this_session"]["seconds"])
    return frames


def write_tables(folder: Path, tables: dict[str, pd.DataFrame], names=None) -> None:
    """A report's tables as CSV files, ``<name>.csv`` each (no index, floats to 4 significant digits).

    Parameters
    ----------
    folder : pathlib.Path
        Where they are written (a report's staging directory).
    tables : dict of str to pandas.DataFrame
        The tables by name.
    names : iterable of str or None
        The names written (None: every table).
    """
    for name in tables if names is None else names:
        tables[name].to_csv(folder / f"{name}.csv", index=False, float_format="%.4g")


def fixed(v, digits: int = 1, sign: bool = False) -> str:
    """A number with `digits` decimals: ``'12.3'`` (``sign=True``: ``'+12.3'``).

    Parameters
    ----------
    v : float
        The number.
    digits : int
        Decimals shown.
    sign : bool
        Whether a positive number is written with its ``+``.

    Returns
    -------
    str
        The text.
    """
    return f"{v:{'+' if sign else ''}.{digits}f}"


def count(v) -> str:
    """A count with thousands separators: ``'12,345'``.

    Parameters
    ----------
    v : int
        The count.

    Returns
    -------
    str
        The text.
    """
    return f"{v:,}"


def pct(v, lo, hi, digits: int = 1, unit: str = "%") -> str:
    """A share and its interval in percent: ``'12.3% [11.0, 13.6]'`` (``unit=""``: ``'12.3 [11.0, 13.6]'``).

    Parameters
    ----------
    v, lo, hi : float
        The share and its interval's bounds, as fractions.
    digits : int
        Decimals shown.
    unit : str
        Written after the share.

    Returns
    -------
    str
        The text.
    """
    return f"{100 * v:.{digits}f}{unit} [{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"


def ci(v, lo, hi, digits: int = 1, sign: bool = False) -> str:
    """A value and its interval: ``'12.3 [11.0, 13.6]'`` (``sign=True``: ``'+1.2 [-0.3, +2.1]'``).

    Parameters
    ----------
    v, lo, hi : float
        The value and its interval's bounds.
    digits : int
        Decimals shown.
    sign : bool
        Whether positive numbers are written with their ``+`` (a difference).

    Returns
    -------
    str
        The text.
    """
    f = f"{'+' if sign else ''}.{digits}f"
    return f"{v:{f}} [{lo:{f}}, {hi:{f}}]"


def md_table(df: pd.DataFrame | list[dict]) -> str:
    """A DataFrame as a Markdown table (every value as str() gives it).

    Parameters
    ----------
    df : pandas.DataFrame or list of dict
        The table, or its rows (a dict each, the columns in the first-seen order of their keys).

    Returns
    -------
    str
        The Markdown lines.
    """
    if isinstance(df, list):
        df = pd.DataFrame(df)
    cols = list(df.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "---|" * len(cols)]
    for _, r in df.iterrows():
        lines.append("| " + " | ".join(str(r[c]) for c in cols) + " |")
    return "\n".join(lines)


FILTERS: dict[str, Callable[..., str]] = {
    "ci": ci,
    "count": count,
    "fixed": fixed,
    "md": md_table,
    "pct": pct,
}
"""The report templates' number formats, by filter name (``{{ x|fixed(2) }}``, ``{{ row|md }}``)."""


@functools.cache
def environment():
    """The report templates' Jinja2 environment: the package's ``templates`` folder, strict, the :data:`FILTERS`.

    Returns
    -------
    jinja2.Environment
        Undefined names raise (StrictUndefined), nothing is escaped, a template's final newline is kept.
    """
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("boardlab.experiments", "templates"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update({name: _strict(f) for name, f in FILTERS.items()})
    return env


def _strict(f: Callable[..., str]) -> Callable[..., str]:
    """`f` as a filter that raises jinja2.UndefinedError on an undefined argument (str() of a StrictUndefined does),
    rather than a TypeError from its format."""

    import jinja2

    @functools.wraps(f)
    def strict(*args, **kwargs):
        for a in (*args, *kwargs.values()):
            if isinstance(a, jinja2.StrictUndefined):
                str(a)  # raises jinja2.UndefinedError naming it
        return f(*args, **kwargs)

    return strict


def render(template: str, **context) -> str:
    """A report template rendered with `context`.

    Parameters
    ----------
    template : str
        Its file name under ``boardlab/experiments/templates`` (e.g. ``"cartographers_report.md.j2"``).
    **context
        The names the template reads.

    Returns
    -------
    str
        The rendered text.
    """
    return environment().get_template(template).render(**context)


def provenance(command: str, runs: int, games: int, sim_seconds: float, elapsed: float) -> dict:
    """What the provenance block of a report says (the ``provenance`` macro of ``_kit.md.j2``).

    Parameters
    ----------
    command : str
        The command line, quoted in the report.
    runs : int
        Runs in the report.
    games : int
        Games over every run.
    sim_seconds : float
        Seconds the runs took when they were played.
    elapsed : float
        Seconds this command took.

    Returns
    -------
    dict
        ``command``, ``commit`` (and ``commit_short``), ``version``, ``now`` (UTC, to the minute), ``runs``,
        ``games``, ``sim_seconds``, ``elapsed``.
    """
    return {
        "command": command,
        "commit": P.git_commit(),
        "commit_short": P.git_commit(short=True),
        "version": P.package_version(),
        "now": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "runs": runs,
        "games": games,
        "sim_seconds": sim_seconds,
        "elapsed": elapsed,
    }
