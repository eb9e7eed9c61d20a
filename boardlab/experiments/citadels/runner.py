"""Citadels' chunk player: games start..stop-1 of a run -> one row per (game, seat).

Everything about game g (its seed, its seating) is a function of (run seed, g, seating mode), as
for every game, so a chunk gives the same rows wherever and whenever it runs.  The rows come from
the result arrays of :func:`boardlab.sim.citadels.engine.play_random_games` when every seat is the reference
random player, else of the built-in agents' loop :func:`boardlab.agents.citadels.kernels.play_games` (the same
arrays, and the same games for random seats); the columns are ``boardlab.sim.citadels.game.RESULT_COLUMNS``,
documented there.  Python agents play through the generic chunk player (boardlab.experiments.play).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import pyarrow as pa

from boardlab.agents.citadels.kernels import run_games
from boardlab.agents.citadels.registry import A_RANDOM, AgentError, AgentSpec, rows
from boardlab.experiments.citadels.columns import TYPES as ROUND_TYPES
from boardlab.experiments.citadels.columns import columns as round_columns
from boardlab.experiments.citadels.columns import offers_open
from boardlab.experiments.schema import result_schema, table
from boardlab.experiments.seating import seat_orders
from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels import summary
from boardlab.sim.citadels.game import RESULT_COLUMNS
from boardlab.sim.citadels.rules import Rules
from boardlab.sim.citadels.tables import tables_for
from boardlab.sim.seeds import game_seeds

# The types of Citadels' own result columns (the core's are boardlab.experiments.schema's).
_TYPES = {
    "district_points": pa.int16(), "purple_extras": pa.int16(), "colour_bonus": pa.int8(),
    "completion_bonus": pa.int8(), "seat_points": pa.int8(), "printed_cost": pa.int16(),
    "districts": pa.int8(), "gold": pa.int16(), "hand": pa.int16(),
    "rounds": pa.int16(), "capped": pa.bool_(), "completion": pa.int8(),
    "characters": pa.large_string(), "murdered": pa.int16(), "robbed": pa.int16(), "gold_stolen": pa.int16(),
    "kills": pa.large_string(), "robs": pa.large_string(),
}  # fmt: skip
SCHEMA = result_schema(RESULT_COLUMNS, {**_TYPES, **ROUND_TYPES})


def run_random_games(seeds: np.ndarray, rules: Rules, players: int) -> dict[str, np.ndarray]:
    """Play one game of reference random players per seed; the kernel's result arrays.

    Parameters
    ----------
    seeds : numpy.ndarray
        uint64, shape ``(G,)``: the games' seeds.
    rules : Rules
        The rule set.
    players : int
        Seats per game.

    Returns
    -------
    dict of str to numpy.ndarray
        ``scores``, ``info``, ``hist``: the kernel's result arrays (boardlab.sim.citadels.engine.play_random_games).
    """
    g = len(seeds)
    tb = tables_for(rules, players)
    out = {
        "scores": np.zeros((g, players, E.SC_LEN), dtype=np.int32),
        "info": np.zeros((g, players, E.IN_LEN), dtype=np.int32),
        "hist": np.zeros((E.HIST_ROUNDS, g, E.HS_LEN), dtype=np.int32),
    }
    E.play_random_games(np.ascontiguousarray(seeds, dtype=np.uint64), *tb.kernel_args(), *out.values())
    return out


def play_chunk(
    rules: Rules, players: int, agents: list[AgentSpec], seating: str, run_seed: int, start: int, stop: int
) -> pd.DataFrame:
    """Games start..stop-1 of a run, one row per (game, seat), columns RESULT_COLUMNS.

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.
    agents : list of AgentSpec
        The run's agents (per seat, or the draw pool).
    seating : str
        The seating (boardlab.experiments.seating).
    run_seed : int
        The run seed (game g's seed: boardlab.sim.seeds.game_seeds).
    start, stop : int
        The games played: start..stop-1.

    Returns
    -------
    pandas.DataFrame
        The chunk's rows.
    """
    return chunk_table(rules, players, agents, seating, run_seed, start, stop).to_pandas()


def chunk_size(agents: list[AgentSpec], games: int) -> int:
    """Games per chunk (GameDef.simulation.chunk_size): a few seconds of work -- basic plays some 10,000 4-player
    games/s (boardlab.experiments.citadels.bench): 20,000 for any mix of built-in agents; random play in chunks of
    10,000 games (under a second): short enough that the last chunk's table and file, written after play ends, cost
    little; longer ones save nothing (boardlab bench).

    Parameters
    ----------
    agents : list of AgentSpec
        The run's agents.
    games : int
        The run's number of games.

    Returns
    -------
    int
        Games per chunk.
    """
    return max(1, min(10_000 if all(a.name == "random" for a in agents) else 20_000, games))


def chunk_table(
    rules: Rules, players: int, agents: list[AgentSpec], seating: str, run_seed: int, start: int, stop: int
) -> pa.Table:
    """Games start..stop-1 of a run, the table of schema SCHEMA (chunk_player's, built at once).

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.
    agents : list of AgentSpec
        The run's agents (per seat, or the draw pool).
    seating : str
        The seating (boardlab.experiments.seating).
    run_seed : int
        The run seed (game g's seed: boardlab.sim.seeds.game_seeds).
    start, stop : int
        The games played: start..stop-1.

    Returns
    -------
    pyarrow.Table
        The chunk's table.
    """
    return chunk_player(rules, players, agents, seating, run_seed, start, stop)()


def chunk_player(
    rules: Rules, players: int, agents: list[AgentSpec], seating: str, run_seed: int, start: int, stop: int
) -> Callable[[], pa.Table]:
    """The game's chunk player (GameDef.simulation.chunk_player): games start..stop-1 played now, their table (schema
    SCHEMA) built when the returned function is called -- on simulate's writer thread, while the next chunk
    plays, at --jobs 1 (the table costs most of what random play does).

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.
    agents : list of AgentSpec
        The run's agents (per seat, or the draw pool).
    seating : str
        The seating (boardlab.experiments.seating).
    run_seed : int
        The run seed (game g's seed: boardlab.sim.seeds.game_seeds).
    start, stop : int
        The games played: start..stop-1.

    Returns
    -------
    callable
        A function of no arguments returning the chunk's pyarrow.Table.
    """
    if seating != "draw" and len(agents) != players:
        raise ValueError("one agent per seat")
    if any(a.python for a in agents):
        raise AgentError(
            "a Python agent does not play in Citadels' kernels (it plays through boardlab.experiments.play)"
        )
    seeds = game_seeds(run_seed, start, stop)
    order = seat_orders(players, seating, start, stop, pool=len(agents), seeds=seeds)
    if all(a.definition.code == A_RANDOM for a in agents):
        res = run_random_games(seeds, rules, players)  # the engine's own loop: the same games
    else:
        res = run_games(seeds, tables_for(rules, players), rows(agents), order)
    return lambda: results_table(rules, players, agents, start, seeds, order, res)


def results_table(
    rules: Rules, players: int, agents: list, start: int, seeds: np.ndarray, order: np.ndarray, res: dict
) -> pa.Table:
    """The chunk's table of schema SCHEMA from its seeds, seat plan and the loop's result arrays.

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.
    agents : list
        The run's agents.
    start : int
        The first game's index.
    seeds : numpy.ndarray
        uint64, shape ``(G,)``.
    order : numpy.ndarray
        int, shape ``(G, players)``: agent index per seat.
    res : dict of str to numpy.ndarray
        The game loop's result arrays.

    Returns
    -------
    pyarrow.Table
        One row per (game, seat), schema SCHEMA.
    """
    g = len(seeds)
    stop = start + g
    sc, info, hist = res["scores"], res["info"], res["hist"]
    rounds = info[:, 0, E.IN_ROUNDS]
    kept = np.minimum(rounds, E.HIST_ROUNDS)  # rounds the history holds
    n_rounds = max(1, int(kept.max()))  # no game's history holds more rounds
    open_offers = offers_open(rules, players)
    counts, offered = summary.run(hist, kept, players, n_rounds, open_offers, players == 7)
    texts = {
        name: pa.LargeStringArray.from_buffers(g * players, pa.py_buffer(offsets), pa.py_buffer(data))
        for name, (offsets, data) in summary.texts(hist, kept, players, offered, open_offers).items()
    }
    names = pa.array([str(a) for a in agents], pa.large_string())
    winners = sc[:, :, E.SC_WINNER].sum(axis=1, keepdims=True)
    share = np.where(sc[:, :, E.SC_WINNER] == 1, 1.0 / np.maximum(winners, 1), 0.0)
    pts = sc[:, :, E.SC_DISTRICT_POINTS].ravel()
    cost = sc[:, :, E.SC_COST].ravel()
    cols: dict[str, object] = {
        "game": np.repeat(np.arange(start, stop, dtype=np.int64), players),
        "game_seed": np.repeat(seeds, players),
        "rules": pa.repeat(pa.scalar(rules.name, pa.large_string()), g * players),
        "players": np.full(g * players, players, dtype=np.int8),
        "seat": np.tile(np.arange(1, players + 1, dtype=np.int8), g),
        "agent": names.take(np.ascontiguousarray(order, dtype=np.int64).ravel()),
        "district_points": pts.astype(np.int16),
        "purple_extras": (pts - cost).astype(np.int16),
        "colour_bonus": sc[:, :, E.SC_COLOUR_BONUS].ravel().astype(np.int8),
        "completion_bonus": sc[:, :, E.SC_COMPLETE_BONUS].ravel().astype(np.int8),
        "seat_points": sc[:, :, E.SC_SEAT_POINTS].ravel().astype(np.int8),
        "total": sc[:, :, E.SC_TOTAL].ravel().astype(np.int16),
        "printed_cost": cost.astype(np.int16),
        "districts": sc[:, :, E.SC_DISTRICTS].ravel().astype(np.int8),
        "gold": sc[:, :, E.SC_GOLD].ravel().astype(np.int16),
        "hand": sc[:, :, E.SC_HAND].ravel().astype(np.int16),
        "rounds": np.repeat(rounds, players).astype(np.int16),
        "capped": np.repeat(info[:, 0, E.IN_CAPPED] == 1, players),
        "completion": info[:, :, E.IN_COMPLETE_ORDER].ravel().astype(np.int8),
        "characters": texts["characters"],
        "murdered": counts[:, :, summary.RC_MURDERED].ravel(),
        "robbed": counts[:, :, summary.RC_ROBBED].ravel(),
        "gold_stolen": counts[:, :, summary.RC_STOLEN].ravel(),
        "kills": texts["kills"],
        "robs": texts["robs"],
        "rank": sc[:, :, E.SC_RANK].ravel().astype(np.int8),
        "win_share": share.ravel(),
        "win": share.ravel() > 0,
        "positions": texts["positions"],
        "offered": texts["offered"],
        **round_columns(rules, players, info, counts),
    }
    return table(cols, SCHEMA)
