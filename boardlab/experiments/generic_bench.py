"""The generic bench: what ``boardlab bench`` measures of a game without a bench of its own.

Three figures answer "how fast is this game through boardlab?" for any game on the public API:

- ``playout_games_s_<N>p``: the game's own random playouts (``random_move()`` until ``done``), games per CPU second
  on one core, per player count (at most four counts);
- ``simulate_random_games_s``: ``simulate`` end to end (the generic chunk player, Python ``random`` agents, the
  result file written) at the first player count, games per wall-clock second, one process; ``simulate_cpu_games_s``
  the same by process CPU time; ``simulate_vs_playout`` the latter over that count's playout rate, both in CPU
  time (target >= 0.5: the toolkit's plumbing costs at most as much as the game itself);
- ``ismcts_iterations_s``: the generic ``ismcts`` agent's iterations per CPU second, searching from positions of
  random play at the first player count.

Each rate is the best of three repeats of about `SECONDS` each (sized from a first short run), so a busy machine
shows up as a lower figure, not a failure.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from boardlab.experiments.bench import Bench, Figures, best_cpu_rate, best_rate
from boardlab.sim.games import GameDef

SECONDS = 1.0  # about how long one repeat of a figure lasts
REPEATS = 3
ISMCTS_ITERS = 64
TARGETS = {"simulate_vs_playout": ">= 0.50"}


def player_counts(game: GameDef, rules) -> list[int]:
    """The player counts the bench measures: the game's, those its rules allow, at most four.

    Parameters
    ----------
    game : GameDef
        The game.
    rules :
        Its rule set.

    Returns
    -------
    list of int
        Ascending; the multiplayer counts first where the game has any (a solo game keeps 1).
    """
    lo, hi = game.players
    allowed = [n for n in range(lo, hi + 1) if game.players_error(n, rules) is None]
    several = [n for n in allowed if n > 1]
    return (several or allowed)[:4]


def playouts(game: GameDef, rules, players: int, first_seed: int, n: int) -> int:
    """Play `n` games by the game's own random policy.

    Parameters
    ----------
    game : GameDef
        The game.
    rules :
        Its rule set.
    players : int
        Players per game.
    first_seed : int
        Game i's seed is ``first_seed + i``.
    n : int
        Games.

    Returns
    -------
    int
        The moves played (so the work cannot be optimised away).
    """
    moves = 0
    for i in range(n):
        g = game.new_game(players, rules, first_seed + i)
        while not g.done:
            g.apply(g.random_move())
            moves += 1
    return moves


def sized(fn: Callable[[int], object], seconds: float = SECONDS) -> int:
    """How many units of `fn(n)` fill about `seconds`, from a short first run (at least 4).

    Parameters
    ----------
    fn : callable(int)
        Work of n units.
    seconds : float
        The duration aimed at.

    Returns
    -------
    int
        Units.
    """
    n, spent = 4, 0.0
    while spent < seconds / 10:
        t = time.process_time()
        fn(n)
        spent = time.process_time() - t
        if spent < seconds / 10:
            n *= 4
    return max(4, int(n * seconds / max(spent, 1e-9)))


def ismcts_rate(game: GameDef, rules, players: int, positions: int, iters: int = ISMCTS_ITERS) -> float:
    """The generic ismcts agent's iterations per CPU second over `positions` positions of random play.

    Parameters
    ----------
    game : GameDef
        The game.
    rules :
        Its rule set.
    players : int
        Players per game.
    positions : int
        Searches timed, each from a position a few random moves into a seeded game.
    iters : int
        Iterations per search.

    Returns
    -------
    float
        Iterations per CPU second (0.0 when no position offered a choice).
    """
    from boardlab.agents.generic.base import agent_moves
    from boardlab.agents.generic.ismcts import ISMCTS

    agent = ISMCTS(iters=iters)
    rng = np.random.default_rng(0)
    done = spent = 0.0
    for i in range(positions):
        g = game.new_game(players, rules, 10_000 + i)
        for _ in range(int(rng.integers(0, 8))):
            if g.done:
                break
            g.apply(g.random_move())
        if g.done or len(agent_moves(g)) < 2:
            continue
        t = time.process_time()
        agent.act(g.observation(g.current), agent_moves(g), rng)
        spent += time.process_time() - t
        done += agent.iterations
    return done / spent if spent > 0 else 0.0


def simulate_rates(game: GameDef, rules, players: int, games: int) -> tuple[float, float]:
    """``simulate`` end to end with random agents through the generic chunk player, one process.

    Parameters
    ----------
    game : GameDef
        The game.
    rules :
        Its rule set.
    players : int
        Players per game.
    games : int
        Games of the run.

    Returns
    -------
    (float, float)
        Games per wall-clock second and per process CPU second, each the best of REPEATS runs.
    """
    from boardlab.experiments import simulate as S

    spec = S.make_spec(players, ["random"], games, 0, rules, "rotate", game=game.id)
    with tempfile.TemporaryDirectory(prefix="boardlab-bench-") as tmp:
        runs = iter(range(2 * REPEATS))

        def once() -> None:
            S.run(spec, Path(tmp) / f"run{next(runs)}.parquet")

        return best_rate(once, games, REPEATS), best_cpu_rate(once, games, REPEATS)


def run(
    game: GameDef,
    games: int = 0,
    boards: int = 0,
    rules=None,
    subprocesses: bool = False,
    agents: bool = True,
    agent_games: int = 0,
    log: Callable[[str], None] | None = None,
    simulate_games: int | None = None,
) -> dict:
    """Every generic figure of `game` (module docstring).

    Parameters
    ----------
    game : GameDef
        The game.
    games, boards : int
        Unused: each figure is sized by time (a game's own bench reads them).
    rules :
        Its rule set (None: the default).
    subprocesses : bool
        Unused (the generic bench starts no process).
    agents : bool
        Whether to measure the ismcts figure.
    agent_games : int
        Unused.
    log : callable(str), optional
        Each figure as it comes.
    simulate_games : int, optional
        Games of the simulate figure (default: about `SECONDS` of the playouts' rate, at least 100).

    Returns
    -------
    dict
        ``rules`` (its name), then the figures.
    """
    rules = rules if rules is not None else game.load_rules(game.default_preset)
    figures = Figures(log, rules=getattr(rules, "name", str(rules)))
    counts = player_counts(game, rules)
    for n in counts:
        size = sized(lambda k, n=n: playouts(game, rules, n, 0, k))
        rate = best_cpu_rate(lambda n=n, size=size: playouts(game, rules, n, 0, size), size, REPEATS)
        figures[f"playout_games_s_{n}p"] = round(rate, 1)
    first = counts[0]
    n_sim = simulate_games or max(100, int(figures[f"playout_games_s_{first}p"] * SECONDS))
    wall, cpu = simulate_rates(game, rules, first, n_sim)
    figures["simulate_random_games_s"] = round(wall, 1)
    figures["simulate_cpu_games_s"] = round(cpu, 1)
    figures["simulate_vs_playout"] = round(cpu / figures[f"playout_games_s_{first}p"], 3)
    if agents:
        figures["ismcts_iterations_s"] = round(ismcts_rate(game, rules, first, positions=20), 1)
    return dict(figures)


def generic_bench(game: GameDef) -> Bench:
    """The generic bench of `game`, as a :class:`boardlab.experiments.bench.Bench`.

    Parameters
    ----------
    game : GameDef
        A game without a bench of its own.

    Returns
    -------
    Bench
        Its figures' function and targets.
    """

    def measure(simulate_games: int | None = None, **kw) -> dict:
        return run(game, simulate_games=simulate_games, **kw)

    return Bench(run=measure, targets=TARGETS)
