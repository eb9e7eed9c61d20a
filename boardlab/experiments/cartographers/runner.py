"""Cartographers' chunk player: games start..stop-1 of a run -> one row per (game, seat).

Everything about game g (its seed, its seating) is a function of (run seed, g, seating
mode), as for every game, so a chunk gives the same rows wherever and whenever it runs.
When every seat is random the games are played by the engine's own loop
(:func:`boardlab.sim.cartographers.engine.play_random_games`: the same games as the agents' loop, without its
policy dispatch), else by the agents' loop (:func:`boardlab.agents.cartographers.play.run_games`).
The table is built from numpy columns into typed Arrow arrays (SCHEMA), with no Python
loop over rows; its columns are ``boardlab.sim.cartographers.game.RESULT_COLUMNS`` (README.md,
"Cartographers", documents them).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import pyarrow as pa

from boardlab.agents.cartographers.play import A_RANDOM, P_CODE, run_games
from boardlab.agents.cartographers.registry import AgentSpec, rows
from boardlab.experiments.schema import result_schema, table
from boardlab.experiments.seating import seat_orders
from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.game import EDICT_KEYS, RESULT_COLUMNS, SEASON_KEYS
from boardlab.sim.cartographers.rules import STATE_LETTERS, Rules
from boardlab.sim.cartographers.tables import tables_for
from boardlab.sim.seeds import game_seeds

# The types of Cartographers' own result columns (the core's are boardlab.experiments.schema's).  A solo game's
# rating is a number; with 2+ players there is none: null, in the same int16 column at every player count.
_TYPES = {
    "side": pa.large_string(),
    **{f"card_{e}": pa.int8() for e in EDICT_KEYS},
    **{f"{s}_e{i}": pa.int16() for s in SEASON_KEYS for i in (1, 2)},
    **{f"points_{e}": pa.int16() for e in EDICT_KEYS},
    "edict_points": pa.int16(), "coins": pa.int16(), "coin_points": pa.int16(), "monster_penalty": pa.int16(),
    "rating": pa.int16(), "title": pa.large_string(), "grid": pa.large_string(),
}  # fmt: skip
SCHEMA = result_schema(RESULT_COLUMNS, _TYPES, plain=("grid",))
_LETTERS = np.frombuffer(STATE_LETTERS.encode(), dtype=np.uint8)  # a map cell's letter per state code


def solo_titles(ratings: np.ndarray, rules: Rules) -> np.ndarray:
    """The title of each solo rating (docs/games/cartographers.md 6.2): the first row of the table it meets;
    "" for none.

    Parameters
    ----------
    ratings : numpy.ndarray
        int, shape ``(M,)``: solo ratings.
    rules : Rules
        The rule set (its titles).

    Returns
    -------
    numpy.ndarray
        object (str), shape ``(M,)``.
    """
    titles = rules.titles
    below = titles[-1][1] if rules.solo["below_titles"] == "lowest" else ""
    out = np.full(ratings.shape, below, dtype=object)
    for threshold, title in reversed(titles):  # higher rows overwrite lower ones
        out[ratings >= threshold] = title
    return out


def grid_strings(planes: np.ndarray) -> pa.LargeStringArray:
    """Final maps uint64[M, N_PLANES, 2] -> the M maps as 121-letter strings (as
    boardlab.sim.cartographers.api.codes_to_strings writes them), built as Arrow buffers at once: the letters
    (boardlab.sim.cartographers.engine.map_letters) are the data, every 121st byte an offset.

    Parameters
    ----------
    planes : numpy.ndarray
        uint64, shape ``(M, N_PLANES, 2)``.

    Returns
    -------
    pyarrow.LargeStringArray
        M strings.
    """
    m = planes.shape[0]
    data = np.empty((m, E.N_CELLS), dtype=np.uint8)
    E.map_letters(planes, _LETTERS, data)
    offsets = np.arange(0, (m + 1) * E.N_CELLS, E.N_CELLS, dtype=np.int64)
    return pa.LargeStringArray.from_buffers(m, pa.py_buffer(offsets), pa.py_buffer(data))


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
    """Games per chunk (GameDef.simulation.chunk_size): a few seconds of work (the expert's search is about 100x a
    planner's game); random play in chunks of 10,000 games (under a second): short enough that the last chunk's
    table and file, written after play ends, cost little; longer ones save nothing (boardlab bench).

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
    if any(a.name == "expert" for a in agents):
        return max(1, min(50, games))
    return max(1, min(10_000 if all(a.name == "random" for a in agents) else 1_000, games))


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
    """The game's chunk player (GameDef.simulation.chunk_player): games start..stop-1 played now, their table
    (schema SCHEMA) built when the returned function is called -- on simulate's writer thread, while the next chunk
    plays, at --jobs 1 (the engine's loop releases the GIL).

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
    tb = tables_for(rules, players)
    seeds = game_seeds(run_seed, start, stop)
    order = seat_orders(players, seating, start, stop, pool=len(agents), seeds=seeds)
    prms = rows(agents)[order]  # [G, players, P_LEN]
    if np.all(prms[:, :, P_CODE] == A_RANDOM):  # the engine's own loop: the same games
        res = E.new_results(len(seeds), players)
        E.play_random_games(seeds, *tb.kernel_args(), *res.values())
    else:
        res = run_games(seeds, prms, tb)
    return lambda: results_table(rules, players, agents, start, seeds, order, res)


def results_table(
    rules: Rules, players: int, agents: list, start: int, seeds: np.ndarray, order: np.ndarray, res: dict
) -> pa.Table:
    """The chunk's table of schema SCHEMA from its seeds, seat plan and the loop's result arrays
    (boardlab.sim.cartographers.engine.new_results).

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
    stop = start + len(seeds)
    g = stop - start
    m = g * players
    sc = res["scores"]
    rec = res["records"]
    rank = sc[:, :, E.SC_RANK]
    winners = (rank == 1).sum(axis=1, keepdims=True)
    names = np.array([str(a) for a in agents], dtype=object)
    edicts = np.repeat(res["edicts"], players, axis=0)  # [G * players, 4]
    total = sc[:, :, E.SC_TOTAL].ravel()
    cols: dict[str, object] = {
        "game": np.repeat(np.arange(start, stop, dtype=np.int64), players),
        "game_seed": np.repeat(seeds, players),
        "rules": pa.repeat(pa.scalar(rules.name, pa.large_string()), m),
        "players": np.full(m, players, dtype=np.int8),
        "seat": np.tile(np.arange(1, players + 1, dtype=np.int8), g),
        "agent": names[order].ravel(),
        "side": pa.repeat(pa.scalar(rules.side, pa.large_string()), m),
    }
    for e, key in enumerate(EDICT_KEYS):
        cols[f"card_{key}"] = edicts[:, e].astype(np.int8)
    for s, key in enumerate(SEASON_KEYS):
        cols[f"{key}_e1"] = rec[:, :, s, E.REC_E1].ravel().astype(np.int16)
        cols[f"{key}_e2"] = rec[:, :, s, E.REC_E2].ravel().astype(np.int16)
    for e, key in enumerate(EDICT_KEYS):
        cols[f"points_{key}"] = sc[:, :, E.SC_EDICT + e].ravel().astype(np.int16)
    cols["edict_points"] = sc[:, :, E.SC_EDICT_POINTS].ravel().astype(np.int16)
    cols["coins"] = res["coins"].ravel().astype(np.int16)
    cols["coin_points"] = sc[:, :, E.SC_COIN_POINTS].ravel().astype(np.int16)
    cols["monster_penalty"] = sc[:, :, E.SC_MONSTER].ravel().astype(np.int16)
    cols["total"] = total.astype(np.int16)
    cols["rank"] = rank.ravel().astype(np.int8)
    cols["win_share"] = np.where(rank == 1, 1.0 / winners, 0.0).ravel()
    cols["win"] = (rank == 1).ravel()
    if players == 1:
        solo = np.array([c.solo for c in rules.scoring_cards], dtype=np.int64)
        first = rules.scoring_cards[0].id
        rating = total - solo[edicts - first].sum(axis=1)
        cols["rating"] = rating
        cols["title"] = solo_titles(rating, rules)
    else:
        cols["rating"] = pa.nulls(m, pa.int16())
        cols["title"] = pa.repeat(pa.scalar("", pa.large_string()), m)
    cols["grid"] = grid_strings(res["planes"].reshape(m, E.N_PLANES, 2))
    return table(cols, SCHEMA)
