"""Cartographers' bench (GameDef.bench, `boardlab bench --game cartographers`).

Its figures are process CPU time (time.process_time; for the subprocess, the child's user + sys
time), best of repeats: on a shared machine wall time mostly measures the neighbours.  The wall
time of `score` is given beside its CPU time.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from agents.cartographers.play import run_games
from agents.cartographers.registry import parse_agent
from agents.cartographers.registry import rows as agent_rows
from experiments.bench import Bench, Figures, best_cpu_rate, child_cpu_s
from sim.cartographers import engine as E
from sim.cartographers.game import GAME
from sim.cartographers.maps import random_map_text
from sim.cartographers.rules import load_rules
from sim.cartographers.tables import tables_for

TARGETS = {
    "random_games_per_s_4p": ">= 10,000",
    "greedy_games_per_s_4p": ">= 300",
    "strong_games_per_s_4p": ">= 100",
    "score_one_map_s": "<= 1.5",
}


def run(
    games: int = 50_000,
    boards: int = 1_000_000,
    rules=None,
    subprocesses: bool = True,
    agents: bool = True,
    agent_games: int = 400,
    log: Callable[[str], None] | None = None,
) -> dict:
    """Cartographers' figures as a flat dict: random games/s at 1-5 players (the engine's loop) and at 4
    through the agents' loop, maps scored per second (all 16 cards and the monster penalty), greedy and
    planner and strong 4-player games/s (every seat that agent), and `score` of one map; `log` reports each as
    it is measured."""
    rules = rules or load_rules()
    res = Figures(log, rules=rules.name, games_per_player_count=games, clock="process CPU")
    seeds = np.arange(games, dtype=np.uint64)
    for p in (1, 2, 3, 4, 5):
        tb = tables_for(rules, p)
        scores = np.zeros((games, p, E.SC_LEN), dtype=np.int32)

        def play(tb=tb, scores=scores, n=games):
            E.play_random_games(seeds[:n], *tb.kernel_args(), scores[:n])

        play(n=4)  # warm-up / compile
        res[f"random_games_per_s_{p}p"] = round(best_cpu_rate(play, games, 3))
    tb = tables_for(rules, 4)

    def agent_rate(spec: str, n: int) -> float:
        prm = np.tile(agent_rows([parse_agent(spec)] * 4), (n, 1, 1))
        run_games(seeds[:2], prm[:2], tb)  # warm-up / compile
        return best_cpu_rate(lambda: run_games(seeds[:n], prm, tb), n, 3)

    res["random_agent_games_per_s_4p"] = round(agent_rate("random", games))
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
    if subprocesses:
        cmd = [sys.executable, "-m", "experiments.cli", "score", "--game", GAME.id, "-"]
        text = random_map_text(0)
        child_cpu_s(cmd, text)  # warm the cache
        runs = [child_cpu_s(cmd, text) for _ in range(3)]
        res["score_one_map_s"] = round(min(c for c, _ in runs), 2)
        res["score_one_map_wall_s"] = round(min(w for _, w in runs), 2)
    return dict(res)


BENCH = Bench(run, TARGETS)
