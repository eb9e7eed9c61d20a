"""Citadels' recorded chunk player (``GameDef.simulation.trajectory_player``): the chunk player's games with every
decision recorded, for the game-anatomy report (:mod:`boardlab.experiments.anatomy_report`).

The games are :func:`boardlab.experiments.citadels.runner.chunk_player`'s (the same seeds, seat orders and
agents), played by :func:`boardlab.agents.citadels.recorded.run_recorded_games`; the result table is the chunk
player's, row for row, and the trajectory table the one the generic chunk player records through the public API
(:func:`boardlab.experiments.play.play_tables`) for the same agents.
"""

from __future__ import annotations

import pyarrow as pa

from boardlab.agents.citadels.recorded import KINDS, run_recorded_games
from boardlab.agents.citadels.registry import AgentError, AgentSpec, rows
from boardlab.experiments.citadels.runner import results_table
from boardlab.experiments.play import trajectory_table
from boardlab.experiments.seating import seat_orders
from boardlab.sim.citadels.rules import Rules
from boardlab.sim.citadels.tables import tables_for
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
    if any(a.python for a in agents):
        raise AgentError(
            "a Python agent does not play in Citadels' kernels (it plays through boardlab.experiments.play)"
        )
    seeds = game_seeds(run_seed, start, stop)
    order = seat_orders(players, seating, start, stop, pool=len(agents), seeds=seeds)
    res = run_recorded_games(seeds, tables_for(rules, players), rows(agents), order)
    results = results_table(rules, players, agents, start, seeds, order, res)
    steps = trajectory_table(
        start, res["steps"], res["seat"], res["legal"], res["progress"], res["capped"], res["kind"], KINDS
    )
    return results, steps
