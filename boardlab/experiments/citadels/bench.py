"""Citadels' bench (GameDef.bench.bench, `boardlab bench --game citadels`): engine and agent throughput on this machine.

Every throughput but one is process CPU time (time.process_time: on a shared machine wall time mostly
measures the neighbours), one core, after warm-up, best of repeats. ``random_games_per_s_4p`` is the
engine's own loop (boardlab.sim.citadels.engine.play_random_games); ``random_agent_games_per_s_4p`` the built-in
agents' loop (boardlab.agents.citadels.kernels.play_games) with ``random`` in every seat -- the same games;
``basic_games_per_s_4p`` that loop with ``basic`` in every seat, ``strong_games_per_s_4p`` with ``strong``
in every seat (boardlab.agents.citadels.strong: a lookahead over a canonical redeal at each pick).
``simulate_random_games_per_s_4p_wall`` is the user's view of random games: `boardlab simulate --jobs 1` end to
end by wall time (chunks played, result tables built and Parquet written on simulate's writer thread while the next
chunk plays: boardlab.experiments.bench.simulate_games_per_s); ``simulate_vs_kernel_4p`` divides it by
``random_games_per_s_4p``, as Citywright's figure does.  ``simulate_random_games_per_s_4p`` is the same run by CPU
time over all of this process's threads, and ``simulate_cpu_vs_kernel_4p`` its ratio: the steadier figure on a
busy machine, where wall time mostly measures the neighbours.
``expert_ms_per_decision_4p`` is the expert tier's (boardlab/agents/citadels/search.py) mean process CPU time per
decision of its own seat, one expert among three ``basic`` seats, seats rotated, every decision counted (forced
ones too; ``expert_searched_share_4p`` is the share with two or more legal moves), timed call by call through the
public API's per-move player (its memory read from the event log: a few microseconds more than the loop).
Cold compile and warm start are wall times of fresh processes that play a game of each kind: cold
with an empty numba cache, warm with the normal one.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from boardlab.experiments.bench import Bench, Figures, best_cpu_rate, simulate_games_per_s, time_subprocess
from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels.game import GAME
from boardlab.sim.citadels.rules import Rules, load_rules
from boardlab.sim.citadels.tables import tables_for

TARGETS = {
    "random_games_per_s_4p": ">= 20,000",
    "strong_games_per_s_4p": ">= 500",
    "expert_ms_per_decision_4p": "<= 10",
    "simulate_vs_kernel_4p": ">= 0.8",
}


def play_random(rules: Rules, players: int, seeds: np.ndarray) -> None:
    """The engine's loop of reference random players over `seeds` (results discarded).

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.
    seeds : numpy.ndarray
        uint64, shape ``(G,)``: the games' seeds.
    """
    from boardlab.experiments.citadels.runner import run_random_games

    run_random_games(seeds, rules, players)


def play_agents(rules: Rules, players: int, spec: str, seeds: np.ndarray) -> None:
    """The built-in agents' loop with agent `spec` in every seat over `seeds`.

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.
    spec : str
        The agent in every seat.
    seeds : numpy.ndarray
        uint64, shape ``(G,)``: the games' seeds.
    """
    from boardlab.agents.citadels.kernels import run_games
    from boardlab.agents.citadels.registry import parse_agent, rows

    seats = np.zeros((len(seeds), players), dtype=np.int64)
    run_games(seeds, tables_for(rules, players), rows([parse_agent(spec)]), seats)


def agent_games_per_s(rules: Rules, players: int, spec: str, games: int, repeats: int = 3) -> float:
    """Games per CPU second of the agents' loop with `spec` in every seat, best of `repeats`.

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.
    spec : str
        The agent in every seat.
    games : int
        Games per timed call.
    repeats : int
        Calls timed.

    Returns
    -------
    float
        Games per CPU second of the fastest call.
    """
    seeds = np.arange(games, dtype=np.uint64)
    play_agents(rules, players, spec, seeds[:2])  # warm-up / compile
    return best_cpu_rate(lambda: play_agents(rules, players, spec, seeds), games, repeats)


def simulate_cpu_games_per_s(rules: Rules, players: int, games: int, repeats: int = 2) -> float:
    """Games per CPU second of `boardlab simulate --jobs 1` with random agents, Parquet written to a temporary
    directory, from the call to the renamed final file, best of `repeats` (boardlab.experiments.bench's wall-time
    figure, on the process clock: its writer thread counts too).

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.
    games : int
        Games per run.
    repeats : int
        Runs timed.

    Returns
    -------
    float
        Games per CPU second of the fastest run.
    """
    from boardlab.experiments import simulate as S

    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "bench.parquet"
        S.run(S.make_spec(players, ["random"], 8, 0, rules, game=GAME), out, force=True)  # warm-up / compile
        spec = S.make_spec(players, ["random"], games, 0, rules, game=GAME)
        best = float("inf")
        for _ in range(repeats):
            t = time.process_time()
            S.run(spec, out, force=True)
            best = min(best, time.process_time() - t)
    return games / best


def expert_ms_per_decision(rules: Rules, players: int, spec: str, games: int) -> tuple[float, float]:
    """Mean process CPU ms per decision of one `spec` seat among `basic` ones (seat g % players in game g),
    and the share of its decisions with two or more legal moves.

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.
    spec : str
        The agent timed.
    games : int
        Games played.

    Returns
    -------
    tuple of float
        Mean CPU ms per decision, and the share of decisions with two or more legal moves.
    """
    from boardlab.agents.citadels.kernels import Chooser
    from boardlab.agents.citadels.registry import parse_agent
    from boardlab.sim.citadels.api import Game

    me, basic = parse_agent(spec).row(), parse_agent("basic").row()
    chooser = Chooser()
    cpu = 0.0
    decisions = searched = 0
    for g in range(-1, games):  # game -1: warm-up / compile
        game = Game(players, rules, 10_000 + g)
        seat = g % players
        while not game.done:
            if game.current != seat:
                game.apply(chooser.move(game, basic))
                continue
            searched += len(game.legal_moves()) > 1
            t = time.process_time()
            move = chooser.move(game, me)
            cpu += time.process_time() - t
            decisions += 1
            game.apply(move)
        if g < 0:
            cpu, decisions, searched = 0.0, 0, 0
    return 1000.0 * cpu / decisions, searched / decisions


def warm_up_all() -> None:
    """Touch every kernel a simulation and a per-move agent use (compiles or loads them)."""
    from boardlab.agents.citadels.kernels import Chooser
    from boardlab.agents.citadels.registry import parse_agent
    from boardlab.sim.citadels.api import Game

    rules = load_rules()
    seeds = np.arange(2, dtype=np.uint64)
    play_random(rules, 4, seeds)
    play_agents(rules, 4, "basic", seeds)
    play_agents(rules, 4, "strong", seeds)
    play_agents(rules, 4, "expert:budget=2", seeds[:1])
    g = Game(4, rules, 0)
    row = parse_agent("basic").row()
    chooser = Chooser()
    while not g.done:
        g.apply(chooser.move(g, row))


_WARM_UP = "from boardlab.experiments.citadels.bench import warm_up_all; warm_up_all()"


def cold_compile_s() -> float:
    """Wall time of a fresh process that compiles the engine and the agents with an empty numba cache.

    Returns
    -------
    float
        Seconds.
    """
    with tempfile.TemporaryDirectory() as d:
        return time_subprocess(_WARM_UP, dict(os.environ, NUMBA_CACHE_DIR=d))


def warm_start_s() -> float:
    """Wall time of a fresh process that loads the cached kernels and plays a game of each kind.

    Returns
    -------
    float
        Seconds.
    """
    time_subprocess(_WARM_UP)  # make sure the cache is warm
    return min(time_subprocess(_WARM_UP) for _ in range(3))


def run(
    games: int = 50_000,
    boards: int = 1_000_000,
    rules=None,
    subprocesses: bool = True,
    agents: bool = True,
    agent_games: int = 400,
    log: Callable[[str], None] | None = None,
    simulate_games: int | None = None,
    expert_games: int = 8,
) -> dict:
    """Citadels' figures as a flat dict (`boards` is unused: Citadels has no board scorer).

    games: random games per figure; the agents' figures play max(agent_games, games // 10) games (basic is
    fast); simulate_games: games of the end-to-end simulate figure (default 2 x games: a few chunks, so the
    per-run costs weigh what they do in a long run); expert_games: games of the expert's figure.

    Parameters
    ----------
    games : int
        Random games per figure.
    boards : int
        Boards scored for the scorer's figure.
    rules : Rules or None
        The rule set (None: the default preset).
    subprocesses : bool
        Measure the fresh-process figures (compile, start-up).
    agents : bool
        Measure the agents' figures.
    agent_games : int
        Games per agent figure.
    simulate_games : int or None
        Games of the end-to-end simulate figure.
    log : callable or None
        Receives each figure as it is measured (None: silent).
    expert_games : int
        Games of the expert's timing.

    Returns
    -------
    dict
        Figure name -> value.
    """
    rules = rules or load_rules()
    res = Figures(log, rules=rules.name, games_per_player_count=games, clock="process CPU")
    seeds = np.arange(games, dtype=np.uint64)
    for p in rules.players_allowed:
        play_random(rules, p, seeds[:4])  # warm-up / compile
        res[f"random_games_per_s_{p}p"] = round(best_cpu_rate(lambda p=p: play_random(rules, p, seeds), games, 3))
    res["random_agent_games_per_s_4p"] = round(agent_games_per_s(rules, 4, "random", games))
    simulate_games = simulate_games or 2 * games
    res["simulate_games"] = simulate_games
    res["simulate_random_games_per_s_4p"] = round(simulate_cpu_games_per_s(rules, 4, simulate_games))
    res["simulate_cpu_vs_kernel_4p"] = round(res["simulate_random_games_per_s_4p"] / res["random_games_per_s_4p"], 2)
    res["simulate_random_games_per_s_4p_wall"] = round(simulate_games_per_s(GAME, rules, 4, simulate_games))
    res["simulate_vs_kernel_4p"] = round(res["simulate_random_games_per_s_4p_wall"] / res["random_games_per_s_4p"], 2)
    if agents:
        n = max(agent_games, games // 10)
        res["agent_games"] = n
        for p in (2, 4, 7):
            if p not in rules.players_allowed:
                continue
            res[f"basic_games_per_s_{p}p"] = round(agent_games_per_s(rules, p, "basic", n))
        res["strong_games_per_s_4p"] = round(agent_games_per_s(rules, 4, "strong", n))
        decisions = _decisions_per_game(rules, 4, "basic", min(n, 2000))
        res["basic_decisions_per_game_4p"] = round(decisions, 1)
        res["basic_us_per_decision_4p"] = round(1e6 / (res["basic_games_per_s_4p"] * decisions), 2)
        ms, share = expert_ms_per_decision(rules, 4, "expert", expert_games)
        res["expert_games"] = expert_games
        res["expert_ms_per_decision_4p"] = round(ms, 2)
        res["expert_searched_share_4p"] = round(share, 3)
    if subprocesses:
        res["cold_compile_s"] = round(cold_compile_s(), 2)
        res["warm_start_s"] = round(warm_start_s(), 2)
    return dict(res)


def _decisions_per_game(rules: Rules, players: int, spec: str, games: int) -> float:
    from boardlab.agents.citadels.kernels import run_games
    from boardlab.agents.citadels.registry import parse_agent, rows

    seats = np.zeros((games, players), dtype=np.int64)
    out = run_games(np.arange(games, dtype=np.uint64), tables_for(rules, players), rows([parse_agent(spec)]), seats)
    return float(out["info"][:, 0, E.IN_DECISIONS].mean())


BENCH = Bench(run, TARGETS)
