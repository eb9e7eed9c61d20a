"""Citywright's recorded chunk player (``GameDef.simulation.trajectory_player``): the chunk player's games with
every decision recorded, for the game-anatomy report (:mod:`boardlab.experiments.anatomy_report`).

The games are :func:`boardlab.experiments.citywright.runner.play_chunk_arrays`' (the same seeds, seat orders,
agents and weights), played by :func:`boardlab.agents.citywright.recorded.play_recorded_games`; the result table
is the chunk player's, row for row, and the trajectory table the one the generic chunk player records through the
public API (:func:`boardlab.experiments.play.play_tables`) for the same agents.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from boardlab.agents.citywright import kernels as K
from boardlab.agents.citywright.play import N_STATS, entry_point, movers_and_type
from boardlab.agents.citywright.recorded import play_recorded_games
from boardlab.agents.citywright.registry import AgentSpec, for_rules, rows, weight_bank
from boardlab.agents.citywright.strong import readonly_weights
from boardlab.experiments.citywright.runner import results_table
from boardlab.experiments.play import trajectory_table
from boardlab.experiments.seating import seat_orders
from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.rules import Rules
from boardlab.sim.citywright.tables import tables_for
from boardlab.sim.seeds import game_seeds


def trajectory_tables(
    rules: Rules, players: int, agents: list[AgentSpec], seating: str, run_seed: int, start: int, stop: int
) -> tuple[pa.Table, pa.Table]:
    """Games start..stop-1 of a run: the chunk player's result table and their trajectory table.

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Players per game.
    agents : list of AgentSpec
        Built-in agents, one per seat (or a draw pool); each plays as it does under `rules` (``for_rules``).
    seating : str
        fixed, rotate, permute or draw.
    run_seed : int
        The run's seed.
    start, stop : int
        The games' numbers.

    Returns
    -------
    (pyarrow.Table, pyarrow.Table)
        The result table (schema ``runner.SCHEMA``) and the trajectory table
        (:data:`boardlab.experiments.play.TRAJECTORY_SCHEMA`, one row per decision).
    """
    if seating != "draw" and len(agents) != players:
        raise ValueError("one agent per seat")
    agents = [for_rules(a, rules) for a in agents]
    tb = tables_for(rules, players)
    seeds = game_seeds(run_seed, start, stop)
    order = seat_orders(players, seating, start, stop, pool=len(agents), seeds=seeds)
    bank, index = weight_bank(agents, rules)
    prms = rows(agents)
    prms[:, K.P_VALUE] = index
    prms = np.ascontiguousarray(prms[order], dtype=np.float64)  # [G, players, P_LEN]
    g = len(seeds)
    decisions = players * int(tb.rp[E.RP_ROUNDS]) * int(tb.rp[E.RP_TURNS])
    scores = np.zeros((g, players, E.SC_LEN), dtype=np.int32)
    boards = np.zeros((g, players, 4), dtype=np.uint64)
    stats = np.zeros((g, players, N_STATS), dtype=np.int32)
    seat = np.zeros((g, decisions), dtype=np.int32)
    legal = np.zeros((g, decisions), dtype=np.int32)
    progress = np.zeros((g, decisions, players), dtype=np.float64)
    steps = np.zeros(g, dtype=np.int64)
    bank = readonly_weights(bank)
    movers, movers_type = movers_and_type(prms, tb.kernel_args(), bank)
    args = (np.ascontiguousarray(seeds, dtype=np.uint64), prms, tb.kernel_args(), scores, boards, stats, seat, legal,
            progress, steps, bank, movers)  # fmt: skip
    entry_point(play_recorded_games, args, movers_type)(*args)  # the searching agents called by address
    results = results_table(rules, agents, start, seeds, order, scores, boards, stats)
    return results, trajectory_table(start, steps, seat, legal, progress)
