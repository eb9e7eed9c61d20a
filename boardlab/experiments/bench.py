"""`boardlab bench`: a game's throughput on this machine (GameDef.bench.bench), and the timing helpers its bench uses.

Every figure is measured after warm-up on one core (the kernels are single-threaded), best of several
repeats, so a busy machine shows up as a lower figure rather than a failure.  Each game's bench lives in
its own folder (``experiments/<game>/bench.py``) as a :class:`Bench`: the function that measures its
figures and the figures' targets.  Figures are collected in :class:`Figures`, which reports each as it
is measured (a full bench takes minutes, and a silent one looks hung).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Bench:
    """A game's bench.

    run : callable(games, boards, rules, subprocesses, agents, agent_games, log) -> dict
        Measure every figure: `games` per player count, `boards` boards or maps scored, under `rules`
        (a rule set, or None for the default), with the figures that need fresh processes when
        `subprocesses` and the agents' figures (`agent_games` games each) when `agents`; `log(line)`
        reports each figure as it comes.  Returns the figures, "rules" (its name) first.
    targets : figure -> the target it should meet (text, e.g. ">= 30,000").
    """

    run: Callable[..., dict]
    targets: Mapping[str, str] = field(default_factory=dict)


class Figures(dict):
    """A bench's figures, in order of measurement; each one set is reported by `log` as it comes, with the
    time since the bench started.

    Parameters
    ----------
    log : callable or None
        Receives one line per figure set (None: silent).
    **first
        Figures known before the bench starts (not reported).
    """

    def __init__(self, log: Callable[[str], None] | None = None, **first):
        super().__init__(first)
        self.log = log
        self.t0 = time.perf_counter()

    def __setitem__(self, key: str, value) -> None:
        super().__setitem__(key, value)
        if self.log is not None:
            shown = f"{value:,}" if isinstance(value, int | float) and not isinstance(value, bool) else value
            self.log(f"  {key} = {shown}  ({time.perf_counter() - self.t0:.0f} s)")

    def update(self, other=(), **kw) -> None:  # every figure through __setitem__, so each is reported
        """Set figures one by one (each is reported, as item assignment reports it).

        Parameters
        ----------
        other : mapping or iterable of pairs
            Figures to set.
        **kw
            More figures.
        """
        for k, v in dict(other, **kw).items():
            self[k] = v


def best_rate(fn: Callable[[], object], n: int, repeats: int, clock=time.perf_counter) -> float:
    """n / the best time of `repeats` calls of fn (wall time, or another clock).

    Parameters
    ----------
    fn : callable
        The work, called with no arguments.
    n : int
        Units of work per call (games, moves, ...).
    repeats : int
        Calls timed.
    clock : callable
        The clock (``time.perf_counter``: wall time).

    Returns
    -------
    float
        Units per second of the fastest call.
    """
    best = float("inf")
    for _ in range(repeats):
        t = clock()
        fn()
        best = min(best, clock() - t)
    return n / best


def best_cpu_rate(fn: Callable[[], object], n: int, repeats: int) -> float:
    """best_rate in process CPU time: on a shared machine wall time mostly measures the neighbours.

    Parameters
    ----------
    fn : callable
        The work, called with no arguments.
    n : int
        Units of work per call.
    repeats : int
        Calls timed.

    Returns
    -------
    float
        Units per CPU second of the fastest call.
    """
    return best_rate(fn, n, repeats, clock=time.process_time)


def time_subprocess(code: str, env: dict | None = None) -> float:
    """Wall time of a fresh Python process running `code`.

    Parameters
    ----------
    code : str
        Python source (``python -c``).
    env : dict or None
        The process's environment (None: this one's).

    Returns
    -------
    float
        Seconds.
    """
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env, capture_output=True)
    return time.perf_counter() - t


def child_cpu_s(cmd: list[str], text: str) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of cmd with `text` on stdin.

    Parameters
    ----------
    cmd : list of str
        The command.
    text : str
        Its standard input.

    Returns
    -------
    tuple of float
        User plus system CPU seconds of the child, and wall seconds.
    """
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, input=text, text=True, check=True, capture_output=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


def simulate_games_per_s(
    game, rules, players: int, games: int, repeats: int = 2, jobs: int = 1, clock=time.perf_counter
) -> float:
    """Games/s of `boardlab simulate` of `game` (a GameDef) with random agents at `jobs`, Parquet written
    (to a temporary directory), from the call to the renamed final file, best of `repeats`.

    Parameters
    ----------
    game : GameDef
        The game.
    rules : rule set
        Its rules.
    players : int
        Players per game.
    games : int
        Games per run.
    repeats : int
        Runs timed (after a warm-up run, which also starts --jobs' worker processes).
    jobs : int
        simulate's --jobs.
    clock : callable
        The clock: wall time, or time.process_time (this process's threads only: not for jobs > 1).

    Returns
    -------
    float
        Games per second of the best run.
    """
    from boardlab.experiments import simulate as S

    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "bench.parquet"
        warm = S.make_spec(players, ["random"], 8 * jobs, 0, rules, chunk_size=8, game=game)
        S.run(warm, out, force=True, jobs=jobs)  # warm-up / compile, and the workers started
        spec = S.make_spec(players, ["random"], games, 0, rules, game=game)
        best = float("inf")
        for _ in range(repeats):
            t = clock()
            S.run(spec, out, force=True, jobs=jobs)
            best = min(best, clock() - t)
    return games / best


def simulate_cpu_games_per_s(game, rules, players: int, games: int, repeats: int = 2) -> float:
    """simulate_games_per_s at --jobs 1 in process CPU time (the writer thread counts too): on a shared machine
    wall time mostly measures the neighbours.

    Parameters
    ----------
    game : GameDef or str
        The game.
    rules : RuleSet
        Its rules.
    players : int
        Players per game.
    games : int
        Games per run.
    repeats : int
        Runs timed.

    Returns
    -------
    float
        Games per CPU second of the fastest run.
    """
    return simulate_games_per_s(game, rules, players, games, repeats, clock=time.process_time)
