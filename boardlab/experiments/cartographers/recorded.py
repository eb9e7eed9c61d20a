"""Cartographers' recorded chunk player (``GameDef.simulation.trajectory_player``): the chunk player's games with
every decision recorded, for the game-anatomy report (:mod:`boardlab.experiments.anatomy_report`).

The games are :func:`boardlab.experiments.cartographers.runner.chunk_player`'s (the same seeds, seat orders and
agents), played by :func:`boardlab.agents.cartographers.recorded.play_recorded_games`; the result table is the
chunk player's, row for row, and the trajectory table the one the generic chunk player records through the public
API (:func:`boardlab.experiments.play.play_tables`) for the same agents.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from numba import typeof

from boardlab.agents.cartographers.play import _weights, policy_move, policy_type
from boardlab.agents.cartographers.recorded import KINDS, play_recorded_games
from boardlab.agents.cartographers.registry import AgentSpec, rows
from boardlab.agents.cartographers.strong import workspace
from boardlab.experiments.cartographers.runner import results_table
from boardlab.experiments.play import trajectory_table
from boardlab.experiments.seating import seat_orders
from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.rules import Rules
from boardlab.sim.cartographers.tables import N_SEASONS, tables_for
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
        Built-in agents, one per seat (or a draw pool).
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
    tb = tables_for(rules, players)
    seeds = game_seeds(run_seed, start, stop)
    order = seat_orders(players, seating, start, stop, pool=len(agents), seeds=seeds)
    prms = np.ascontiguousarray(rows(agents)[order], dtype=np.float64)  # [G, players, P_LEN]
    g = len(seeds)
    # every card of the deck revealed in every season, each a draw and a monster decision per seat: a bound
    decisions = N_SEASONS * tb.cards.shape[0] * 2 * players
    res = E.new_results(g, players)
    seat = np.zeros((g, decisions), dtype=np.int32)
    kind = np.zeros((g, decisions), dtype=np.int32)
    legal = np.zeros((g, decisions), dtype=np.int32)
    progress = np.zeros((g, decisions, players), dtype=np.float64)
    steps = np.zeros(g, dtype=np.int64)
    tail = (*tb.kernel_args(), _weights(None), workspace())
    args = (np.ascontiguousarray(seeds, dtype=np.uint64), prms, *tail, res["scores"], res["records"], res["coins"],
            res["edicts"], res["planes"], seat, kind, legal, progress, steps)  # fmt: skip
    sig = (policy_type(tail), *(typeof(a) for a in args))
    play_recorded_games.compile(sig)
    play_recorded_games.overloads[sig].entry_point(policy_move, *args)  # the agents called by address
    results = results_table(rules, players, agents, start, seeds, order, res)
    return results, trajectory_table(start, steps, seat, legal, progress, kinds=kind, kind_names=KINDS)
