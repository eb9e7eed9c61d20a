"""Citywright's chunk player (GameDef.simulation.chunk_player): a batch of games into its result table, the unit of
work of simulations, ladders and sweeps; and its run-level parts (the result schema, the chunk-size rule,
the fixed ladder pairings).

A chunk is games ``start..stop-1`` of a run; everything about game g (its seed,
its seating) is a function of (run seed, g, seating mode), so a chunk computes
the same rows wherever and whenever it runs.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from boardlab.agents.citywright import kernels as K
from boardlab.agents.citywright.play import run_games
from boardlab.agents.citywright.registry import AgentSpec, for_rules, rows, weight_bank
from boardlab.experiments.schema import result_schema, table
from boardlab.experiments.seating import SEATINGS, draw_orders, seat_orders  # noqa: F401  (re-exported for callers)
from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.game import RESULT_COLUMNS
from boardlab.sim.citywright.rules import Rules
from boardlab.sim.citywright.tables import tables_for
from boardlab.sim.seeds import game_seeds

# The types of Citywright's own result columns (the core's are boardlab.experiments.schema's; the columns and
# their order are the game's, boardlab/sim/citywright/game.py).  A board is all distinct: no Parquet dictionary.
_TYPES = {
    "residential": pa.int16(), "commercial": pa.int16(), "park": pa.int16(), "industrial": pa.int16(),
    "achievements": pa.int16(), "compensation": pa.int16(),
    "empty": pa.int8(), "tiles_taken": pa.int16(), "waste": pa.int16(), "forced_discards": pa.int8(),
    "shapes_distinct": pa.int8(), "board": pa.large_string(), "shapes_placed": pa.large_string(),
}  # fmt: skip
SCHEMA = result_schema(RESULT_COLUMNS, _TYPES, plain=("board",))
COLUMNS = SCHEMA.names


# Board strings are made a board row at a time.  Bits 8r..8r+6 of a district's bitboard
# (boardlab.sim.citywright.tables) are row r; _ROW_WORD[bits] has byte c = 1 where column c is set.
# A row's R and C bits together index one table and its P and I bits another, whose
# entries hold (letter - '.') in the set columns' bytes; a cell holds one district at
# most, so the two entries plus '.' everywhere are the row's 7 characters, as the low
# bytes of a little-endian uint64 (the 8th byte is padding, dropped at the end).
_ROW_WORD = np.array([sum(((b >> c) & 1) << (8 * c) for c in range(7)) for b in range(128)], dtype="<u8")
_DOTS = np.frombuffer(b"." * 8, dtype="<u8")[0]


def _pair_words(first: str, second: str) -> np.ndarray:
    """<u8[128 * 128]: entry a | b << 7 is the row word, minus the dots, of row bits a of `first`, b of `second`."""
    a = _ROW_WORD * np.uint64(ord(first) - ord("."))
    b = _ROW_WORD * np.uint64(ord(second) - ord("."))
    return (a[None, :] + b[:, None]).ravel()


_RC_WORDS = _pair_words("R", "C")
_PI_WORDS = _pair_words("P", "I")


def board_strings(boards: np.ndarray) -> pa.LargeStringArray:
    """boards uint64[M, 4] (districts R, C, P, I) -> M strings of 49 characters from 'RCPI.', row-major.

    Parameters
    ----------
    boards : numpy.ndarray
        uint64, shape ``(M, 4)``.

    Returns
    -------
    pyarrow.LargeStringArray
        M strings.
    """
    m = boards.shape[0]
    row_bits = np.ascontiguousarray(boards, dtype="<u8").view(np.uint8).reshape(m, 4, 8)[:, :, :7]  # [M, district, row]
    seven = np.uint8(0x7F)  # bit 7 of a row's byte is no cell
    rc = (row_bits[:, 0] & seven).astype(np.uint16) | ((row_bits[:, 1] & seven).astype(np.uint16) << 7)
    pi = (row_bits[:, 2] & seven).astype(np.uint16) | ((row_bits[:, 3] & seven).astype(np.uint16) << 7)
    words = _RC_WORDS[rc]
    words += _PI_WORDS[pi]
    words += _DOTS
    data = words.view(np.uint8).reshape(m, 7, 8)[:, :, :7].reshape(-1)
    offsets = np.arange(0, 49 * (m + 1), 49, dtype=np.int64)
    return pa.LargeStringArray.from_buffers(m, pa.py_buffer(offsets), pa.py_buffer(data))


_SHAPE_GROUP = 3  # shapes per look-up table: (most placed + 1) ** 3 strings each


@functools.lru_cache(maxsize=64)
def _group_strings(names: tuple[str, ...], base: int) -> pa.LargeStringArray:
    """Entry sum(count_j * base ** (k-1-j)): ' I:2 L:1' for those counts, each token after a space."""
    out = []
    for counts in itertools.product(range(base), repeat=len(names)):
        out.append("".join(f" {n}:{c}" for n, c in zip(names, counts, strict=True) if c))
    return pa.array(out, pa.large_string())


def shapes_placed_strings(counts: np.ndarray, rules: Rules) -> pa.LargeStringArray:
    """Placed count per shape int[M, shapes] -> 'I:2 L:1 T5:1' (rule-set order, shapes never placed left out).

    A few shapes at a time are one table look-up (their counts as digits of one key);
    the groups' strings are joined and the leading space dropped.

    Parameters
    ----------
    counts : numpy.ndarray
        int, shape ``(M, shapes)``: placed count per shape.
    rules : Rules
        The rule set (its shapes' names and order).

    Returns
    -------
    pyarrow.LargeStringArray
        M strings.
    """
    names = tuple(s.name for s in rules.shapes)
    counts = np.asarray(counts, dtype=np.int64)
    base = int(counts.max(initial=0)) + 1
    groups = [pa.repeat(pa.scalar("", pa.large_string()), counts.shape[0])]
    for g0 in range(0, len(names), _SHAPE_GROUP):
        group = names[g0 : g0 + _SHAPE_GROUP]
        key = np.zeros(counts.shape[0], dtype=np.int64)
        for j in range(len(group)):
            key = key * base + counts[:, g0 + j]
        groups.append(_group_strings(group, base).take(key))
    # no nulls: binary_join_element_wise's null_handling="skip" drops rows that are all null (pyarrow 26)
    joined = pc.binary_join_element_wise(*groups, pa.scalar("", pa.large_string()))
    return pc.ascii_ltrim(joined, " ")


def parse_shapes_placed(text: str) -> dict[str, int]:
    """'I:2 L:1' -> {'I': 2, 'L': 1}.

    Parameters
    ----------
    text : str
        A ``shapes_placed`` value.

    Returns
    -------
    dict of str to int
        Shape name -> placed count.
    """
    out = {}
    for tok in text.split():
        name, _, n = tok.partition(":")
        out[name] = int(n)
    return out


def play_chunk(
    rules: Rules, players: int, agents: list[AgentSpec], seating: str, run_seed: int, start: int, stop: int
) -> pd.DataFrame:
    """Games start..stop-1 of a run, one row per (game, seat), columns COLUMNS.

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
    return play_chunk_table(rules, players, agents, seating, run_seed, start, stop)[0].to_pandas()


def chunk_table(
    rules: Rules, players: int, agents: list[AgentSpec], seating: str, run_seed: int, start: int, stop: int
) -> Callable[[], pa.Table]:
    """The game's chunk player (GameDef.simulation.chunk_player): games start..stop-1 played now, their
    table (schema SCHEMA) built when the returned function is called -- on simulate's writer thread,
    while the next chunk plays, at --jobs 1 (the table costs about as much as random play).

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
    seeds, order, scores, boards, stats, _ = play_chunk_arrays(rules, players, agents, seating, run_seed, start, stop)
    return lambda: results_table(rules, agents, start, seeds, order, scores, boards, stats)


def chunk_size(agents: list[AgentSpec], games: int) -> int:
    """Games per chunk (GameDef.simulation.chunk_size): a few seconds of work, so many chunks for searches;
    random play in chunks of 10,000 games (under a second): short enough that the last chunk's table and
    file, written after play ends, cost little; longer ones save nothing (boardlab bench).

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
    if all(a.name == "random" for a in agents):
        size = 10_000
    elif any(a.name in ("mcts", "flatmc", "expert-specialist") for a in agents):
        size = 20  # searches of milliseconds per move: a 4-player expert game takes about 0.4 s
    else:
        size = 1_000
    return max(1, min(size, games))


# `ladder` without --agents (GameDef.ladder.pairings): (name, one spec per seat, the first agent's target win share)
PAIRINGS = [
    ("greedy vs random, 2 players", ["greedy", "random"], 0.95),
    ("mcts vs greedy, 2 players", ["mcts", "greedy"], 0.60),
    ("mcts + 3 greedy, 4 players", ["mcts", "greedy", "greedy", "greedy"], 0.40),
]


def play_chunk_with_moves(
    rules: Rules, players: int, agents: list[AgentSpec], seating: str, run_seed: int, start: int, stop: int
) -> tuple[pd.DataFrame, np.ndarray]:
    """As play_chunk, plus the move log int32[games, turns, boardlab.agents.citywright.play.LOG_LEN].

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
    tuple of (pandas.DataFrame, numpy.ndarray)
        The chunk's rows and its move log.
    """
    table, logs = play_chunk_table(rules, players, agents, seating, run_seed, start, stop, log_moves=True)
    return table.to_pandas(), logs


def play_chunk_table(
    rules: Rules,
    players: int,
    agents: list[AgentSpec],
    seating: str,
    run_seed: int,
    start: int,
    stop: int,
    log_moves: bool = False,
) -> tuple[pa.Table, np.ndarray | None]:
    """As play_chunk, as an Arrow table of schema SCHEMA (what simulate writes); plus the
    move log when log_moves, else None.

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
    log_moves : bool
        Keep the move log.

    Returns
    -------
    tuple of (pyarrow.Table, numpy.ndarray or None)
        The table and the move log.
    """
    seeds, order, scores, boards, stats, logs = play_chunk_arrays(
        rules, players, agents, seating, run_seed, start, stop, log_moves
    )
    return results_table(rules, agents, start, seeds, order, scores, boards, stats), logs


def play_chunk_arrays(
    rules: Rules,
    players: int,
    agents: list[AgentSpec],
    seating: str,
    run_seed: int,
    start: int,
    stop: int,
    log_moves: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """The games of play_chunk_table, before the table: seeds, seat orders, and the kernels'
    scores, boards, stats and move log (or None); results_table turns them into the table.
    Each agent plays with the learned-value weights its spec resolves to under `rules` (registry.for_rules).

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
    log_moves : bool
        Keep the move log.

    Returns
    -------
    tuple of numpy.ndarray
        ``(seeds, order, scores, boards, stats, moves)`` as :func:`results_table` takes them (moves None
        without `log_moves`).
    """
    if seating != "draw" and len(agents) != players:
        raise ValueError("one agent per seat")
    tb = tables_for(rules, players)
    seeds = game_seeds(run_seed, start, stop)
    order = seat_orders(players, seating, start, stop, pool=len(agents), seeds=seeds)
    bank, index = weight_bank(agents, rules)
    prms = rows(agents)
    prms[:, K.P_VALUE] = index
    prms = prms[order]  # [G, players, P_LEN]
    scores, boards, stats, logs = run_games(seeds, prms, tb, log_moves=log_moves, bank=bank)
    return seeds, order, scores, boards, stats, logs


def results_table(
    rules: Rules,
    agents: list[AgentSpec],
    start: int,
    seeds: np.ndarray,
    order: np.ndarray,
    scores: np.ndarray,
    boards: np.ndarray,
    stats: np.ndarray,
) -> pa.Table:
    """The kernels' outputs for games start.. -> the result table (schema SCHEMA), column by
    column with numpy and Arrow: no Python work per row.

    seeds uint64[G]; order int[G, players] (agent index per seat); scores int32[G, players, SC_LEN];
    boards uint64[G, players, 4]; stats int32[G, players, N_STATS] (boardlab.agents.citywright.play.play_games).

    Parameters
    ----------
    rules : Rules
        The rule set.
    agents : list of AgentSpec
        The run's agents.
    start : int
        The first game's index.
    seeds : numpy.ndarray
        uint64, shape ``(G,)``.
    order : numpy.ndarray
        int, shape ``(G, players)``: agent index per seat.
    scores : numpy.ndarray
        int32, shape ``(G, players, SC_LEN)``.
    boards : numpy.ndarray
        uint64, shape ``(G, players, 4)``.
    stats : numpy.ndarray
        int32, shape ``(G, players, N_STATS)``.

    Returns
    -------
    pyarrow.Table
        One row per (game, seat), schema SCHEMA.
    """
    g, players = order.shape
    m = g * players
    # one pass to int16 and one transposed copy: each score is then a contiguous row
    by_score = np.ascontiguousarray(scores.reshape(m, -1).astype(np.int16).T)
    by_stat = np.ascontiguousarray(stats[:, :, :3].reshape(m, 3).astype(np.int16).T)
    rank = by_score[E.SC_RANK]
    win = rank == 1
    winners = np.repeat(win.reshape(g, players).sum(axis=1), players)
    columns = {
        "game": np.repeat(np.arange(start, start + g, dtype=np.int64), players),
        "game_seed": np.repeat(seeds, players),
        "rules": pa.repeat(pa.scalar(rules.name, pa.large_string()), m),
        "players": np.full(m, players, dtype=np.int8),
        "seat": np.tile(np.arange(1, players + 1, dtype=np.int8), g),
        "agent": pa.array([str(for_rules(a, rules)) for a in agents], pa.large_string()).take(  # the weights played
            order.ravel().astype(np.int64)
        ),
        "residential": by_score[E.SC_R],
        "commercial": by_score[E.SC_C],
        "park": by_score[E.SC_P],
        "industrial": by_score[E.SC_I],
        "achievements": by_score[E.SC_ACH],
        "compensation": by_score[E.SC_COMP],
        "total": by_score[E.SC_TOTAL],
        "empty": by_score[E.SC_EMPTY].astype(np.int8),
        "tiles_taken": by_stat[0],
        "waste": by_stat[1],
        "forced_discards": by_stat[2].astype(np.int8),
        "shapes_distinct": by_score[E.SC_DISTINCT].astype(np.int8),
        "rank": rank.astype(np.int8),
        "win_share": np.where(win, 1.0 / np.maximum(winners, 1), 0.0),
        "win": win,
        "board": board_strings(boards.reshape(m, 4)),
        "shapes_placed": shapes_placed_strings(stats[:, :, 4 : 4 + len(rules.shapes)].reshape(m, -1), rules),
    }
    return table(columns, SCHEMA)
