"""Cartographers' bench (GameDef.bench.bench, `boardlab bench --game cartographers`).

Its figures are process CPU time (time.process_time; for the subprocess, the child's user + sys
time), best of repeats: on a shared machine wall time mostly measures the neighbours.  The wall
time of `score` is given beside its CPU time.

``simulate_random_games_per_s_4p_wall`` is `boardlab simulate --jobs 1` of random 4-player games end to end by
wall time (Parquet written; each chunk's table built on simulate's writer thread while the next chunk plays);
``simulate_vs_kernel_4p`` divides it by the engine's loop (``random_games_per_s_4p``, recording every result the
table needs), which simulate calls when every seat is random, as Citywright's figure does, and
``simulate_vs_agent_kernel_4p`` by the agents' loop with random seats (``random_agent_games_per_s_4p``: the same
games through the policy dispatch every other agent plays through).  ``simulate_random_games_per_s_4p`` is the
same run by CPU time (the writer thread's counts too) and ``simulate_cpu_vs_kernel_4p`` its ratio: the steadier
figure on a busy machine.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np

from boardlab.agents.cartographers.play import run_games
from boardlab.agents.cartographers.registry import parse_agent
from boardlab.agents.cartographers.registry import rows as agent_rows
from boardlab.experiments.bench import (
    Bench,
    Figures,
    best_cpu_rate,
    child_cpu_s,
    simulate_cpu_games_per_s,
    simulate_games_per_s,
)
from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.game import GAME
from boardlab.sim.cartographers.maps import random_map_text
from boardlab.sim.cartographers.rules import load_rules
from boardlab.sim.cartographers.tables import tables_for

TARGETS = {
    "random_games_per_s_4p": ">= 10,000",
    "greedy_games_per_s_4p": ">= 300",
    "strong_games_per_s_4p": ">= 100",
    "expert_ms_per_decision": "<= 20",
    "score_one_map_s": "<= 1.5",
    "simulate_vs_kernel_4p": ">= 0.8",
}


def run(
    games: int = 50_000,
    boards: int = 1_000_000,
    rules=None,
    subprocesses: bool = True,
    agents: bool = True,
    agent_games: int = 400,
    log: Callable[[str], None] | None = None,
    simulate_games: int | None = None,
) -> dict:
    """Cartographers' figures as a flat dict: random games/s at 1-5 players (the engine's loop) and at 4
    through the agents' loop, `boardlab simulate` of random games end to end (`simulate_games`, default
    2 x games), maps scored per second (all 16 cards and the monster penalty), greedy and
    planner and strong 4-player games/s (every seat that agent), the expert's CPU ms per decision, and `score`
    of one map; `log` reports each as it is measured.

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

    Returns
    -------
    dict
        Figure name -> value.
    """
    rules = rules or load_rules()
    res = Figures(log, rules=rules.name, games_per_player_count=games, clock="process CPU")
    seeds = np.arange(games, dtype=np.uint64)
    for p in (1, 2, 3, 4, 5):
        tb = tables_for(rules, p)
        out = E.new_results(games, p)  # every result the chunk player's table needs

        def play(tb=tb, out=out, n=games):
            E.play_random_games(seeds[:n], *tb.kernel_args(), *(a[:n] for a in out.values()))

        play(n=4)  # warm-up / compile
        res[f"random_games_per_s_{p}p"] = round(best_cpu_rate(play, games, 3))
    tb = tables_for(rules, 4)

    def agent_rate(spec: str, n: int) -> float:
        prm = np.tile(agent_rows([parse_agent(spec)] * 4), (n, 1, 1))
        run_games(seeds[:2], prm[:2], tb)  # warm-up / compile
        return best_cpu_rate(lambda: run_games(seeds[:n], prm, tb), n, 3)

    res["random_agent_games_per_s_4p"] = round(agent_rate("random", games))
    simulate_games = simulate_games or 2 * games
    res["simulate_games"] = simulate_games
    res["simulate_random_games_per_s_4p"] = round(simulate_cpu_games_per_s(GAME, rules, 4, simulate_games))
    res["simulate_cpu_vs_kernel_4p"] = round(res["simulate_random_games_per_s_4p"] / res["random_games_per_s_4p"], 2)
    res["simulate_random_games_per_s_4p_wall"] = round(simulate_games_per_s(GAME, rules, 4, simulate_games))
    wall = res["simulate_random_games_per_s_4p_wall"]
    res["simulate_vs_kernel_4p"] = round(wall / res["random_games_per_s_4p"], 2)
    res["simulate_vs_agent_kernel_4p"] = round(wall / res["random_agent_games_per_s_4p"], 2)
    planes = run_games(
        seeds[: boards // 4 + 1], np.tile(agent_rows([parse_agent("random")] * 4), (boards // 4 + 1, 1, 1)), tb
    )
    planes = planes["planes"].reshape(-1, E.N_PLANES, 2)[:boards].copy()
    cards_out = np.zeros((len(planes), 16), dtype=np.int32)
    E.score_cards(planes[:4], cards_out[:4], tb.rp, tb.masks)
    res["maps_per_s_all_16_cards"] = round(
        best_cpu_rate(lambda: E.score_cards(planes, cards_out, tb.rp, tb.masks), len(planes), 3)
    )
    if agents:
        res["greedy_games_per_s_4p"] = round(agent_rate("greedy", agent_games), 1)
        res["planner_games_per_s_4p"] = round(agent_rate("planner", agent_games), 1)
        res["strong_games_per_s_4p"] = round(agent_rate("strong", agent_games), 1)
        res.update(expert_figures(rules))
    if subprocesses:
        cmd = [sys.executable, "-m", "boardlab.experiments.cli", "score", "--game", GAME.id, "-"]
        text = random_map_text(0)
        child_cpu_s(cmd, text)  # warm the cache
        runs = [child_cpu_s(cmd, text) for _ in range(3)]
        res["score_one_map_s"] = round(min(c for c, _ in runs), 2)
        res["score_one_map_wall_s"] = round(min(w for _, w in runs), 2)
    return dict(res)


def timed_decisions(spec: str, opponent: str, players: int, rules, seeds, seats) -> np.ndarray:
    """The process CPU milliseconds of each of `spec`'s decisions (draws and monster phases) in games with it in
    seat seats[g] and `opponent` in every other seat, played one decision at a time through the game loop's
    policy (boardlab.agents.cartographers.play.policy_move, through policy_entry).

    Parameters
    ----------
    spec : str
        The agent timed.
    opponent : str
        The agent in every other seat.
    players : int
        Seats per game.
    rules : Rules
        The rule set.
    seeds : sequence of int
        The games' seeds.
    seats : sequence of int
        `spec`'s seat in each game.

    Returns
    -------
    numpy.ndarray
        float, CPU ms per decision.
    """
    from boardlab.agents.cartographers.play import _weights, policy_entry
    from boardlab.agents.cartographers.strong import workspace
    from boardlab.sim.cartographers.api import Game

    me_row, opp_row = parse_agent(spec).row(), parse_agent(opponent).row()
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    vw, ws = _weights(None), workspace()
    times: list[float] = []
    for seed, me in zip(seeds, seats, strict=True):
        g = Game(players, rules, int(seed))
        args = g.tables.kernel_args()
        # the loop's machine code: called as policy_move(...), numba would compile a copy of its own
        policy = policy_entry((*args, vw, ws))
        while not g.done:
            p = g.current
            t = time.process_time_ns()
            policy(g.bb, g.st, g.rng, mv, me_row if p == me else opp_row, *args, vw, ws)
            if p == me:
                times.append((time.process_time_ns() - t) / 1e6)
            E.apply_move(g.bb, g.st, g.rng, mv, *args)
    return np.array(times)


def expert_figures(rules, spec: str = "expert", games: int = 8) -> dict:
    """CPU time per decision of the expert over whole 4-player games against planner (seats rotated) and whole
    solo games, after a warm-up game: the mean over all its decisions and the slowest.

    Parameters
    ----------
    rules : Rules
        The rule set.
    spec : str
        The expert's spec.
    games : int
        Games timed.

    Returns
    -------
    dict
        The figures: mean and slowest CPU ms per decision, 4-player and solo.
    """
    timed_decisions(spec, "planner", 4, rules, [999], [0])  # warm-up / compile
    seeds = np.arange(games) + 2000
    four = timed_decisions(spec, "planner", 4, rules, seeds, np.arange(games) % 4)
    solo = timed_decisions(spec, "planner", 1, rules, seeds, np.zeros(games, dtype=int))
    both = np.concatenate([four, solo])
    return {
        "expert_ms_per_decision": round(float(both.mean()), 2),
        "expert_ms_per_decision_4p": round(float(four.mean()), 2),
        "expert_ms_per_decision_solo": round(float(solo.mean()), 2),
        "expert_ms_per_decision_max": round(float(both.max()), 2),
    }


BENCH = Bench(run, TARGETS)
