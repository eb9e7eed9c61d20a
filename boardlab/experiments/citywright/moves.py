"""Citywright's move log (``simulate --moves``, GameDef.simulation.move_log): one row per turn of every game.

The game loop records each turn as a few integers (``boardlab.agents.citywright.play.LOG_*``); this module
turns a chunk's records into the readable table ``OUT.moves.parquet`` holds, column by column with
numpy and Arrow (README.md, "Move log", documents the columns).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa

from boardlab.agents.citywright import play as P
from boardlab.agents.citywright.registry import AgentSpec
from boardlab.experiments.citywright.runner import play_chunk_arrays, results_table
from boardlab.sim.citywright.rules import N_SLOTS, SLOT_NAMES, Rules
from boardlab.sim.citywright.tables import PL_AC, PL_AR, PL_ORIENT, SHP_PLAIN, SHP_STAR, tables_for

MOVES_SCHEMA = pa.schema(
    [
        ("game", pa.int64()), ("turn", pa.int16()), ("seat", pa.int8()), ("kind", pa.large_string()),
        ("slot", pa.large_string()), ("shape", pa.large_string()), ("orientation", pa.int8()),
        ("anchor", pa.large_string()), ("tiles", pa.large_string()), ("waste", pa.int8()), ("score_change", pa.int16()),
    ]
)  # fmt: skip
MOVE_COLUMNS = MOVES_SCHEMA.names


def chunk_tables_with_moves(
    rules: Rules, players: int, agents: list[AgentSpec], seating: str, run_seed: int, start: int, stop: int
) -> Callable[[], tuple[pa.Table, pa.Table]]:
    """The chunk player with a move log (GameDef.simulation.move_log): games start..stop-1 played now; the result
    table and the move table built when the returned function is called (on simulate's writer thread).

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.
    agents : list of AgentSpec
        The run's agents.
    seating : str
        The seating.
    run_seed : int
        The run seed.
    start, stop : int
        The games played: start..stop-1.

    Returns
    -------
    callable
        A function of no arguments returning (result table, move table).
    """
    seeds, order, scores, boards, stats, log = play_chunk_arrays(
        rules, players, agents, seating, run_seed, start, stop, log_moves=True
    )
    return lambda: (
        results_table(rules, agents, start, seeds, order, scores, boards, stats),
        moves_table(log, rules, players, start),
    )


def moves_table(log: np.ndarray, rules: Rules, players: int, start: int) -> pa.Table:
    """Readable move log from the kernels' records (boardlab.agents.citywright.play.LOG_*).

    Parameters
    ----------
    log : numpy.ndarray
        int32, shape ``(games, turns, LOG_LEN)``: the kernels' records.
    rules : Rules
        The rule set (shape names).
    players : int
        Seats per game.
    start : int
        The first game's index.

    Returns
    -------
    pyarrow.Table
        One row per move.
    """
    tb = tables_for(rules, players)
    g, t, _ = log.shape
    rec = log.reshape(g * t, -1)
    kind = rec[:, P.LOG_KIND]
    slot = rec[:, P.LOG_SLOT]
    shape = rec[:, P.LOG_SHAPE]
    pl = rec[:, P.LOG_PL]
    place = kind == 0
    pli = np.where(place, pl, 0)
    orient = np.where(place, tb.pl_info[pli, PL_ORIENT], -1)
    ar = np.where(place, tb.pl_info[pli, PL_AR], -1)
    ac = np.where(place, tb.pl_info[pli, PL_AC], -1)
    # tiles per shape cell, in the shape's cell order ('-' for no tile; 0 for no cell)
    letters = np.frombuffer(b"RCPI-", dtype=np.uint8)
    row = np.arange(len(rec))
    cells = np.zeros((len(rec), 5), dtype=np.uint8)
    sh = np.where(shape >= 0, shape, 0)
    for m in range(4):
        cells[row, tb.shp[sh, SHP_PLAIN + m]] = letters[np.clip(rec[:, P.LOG_TILES + m], 0, 4)]
    star = tb.shp[sh, SHP_STAR]
    has_star = star >= 0
    cells[row[has_star], star[has_star]] = letters[np.clip(rec[has_star, P.LOG_FREE], 0, 4)]
    swap = kind == 2
    cells[~place] = 0
    cells[swap, 0] = letters[np.clip(rec[swap, P.LOG_TILES], 0, 4)]
    # anchor 'row,col' of a placement, or the cell of a swap, from a table of the pairs that occur
    a = np.where(place, ar, pl // 8)
    b = np.where(place, ac, pl % 8)
    located = place | swap
    both = np.concatenate([a[located], b[located]])
    lo, hi = (int(both.min()), int(both.max()) + 1) if both.size else (0, 0)
    pairs = [f"{x},{y}" for x in range(lo, hi) for y in range(lo, hi)] + [""]
    span = hi - lo
    anchor = pa.array(pairs, pa.large_string()).take(np.where(located, (a - lo) * span + (b - lo), span * span))
    names = {
        "kind": (["place", "discard", "swap", "pass"], kind),
        "slot": ([*SLOT_NAMES, ""], np.where((slot >= 0) & (slot < N_SLOTS), slot, N_SLOTS)),
        "shape": ([s.name for s in rules.shapes] + [""], np.where(shape >= 0, shape, len(rules.shapes))),
    }
    columns = {
        "game": np.repeat(np.arange(start, start + g, dtype=np.int64), t),
        "turn": np.tile(np.arange(1, t + 1, dtype=np.int16), g),
        "seat": (rec[:, P.LOG_SEAT] + 1).astype(np.int8),
        **{k: pa.array(v, pa.large_string()).take(np.asarray(i, dtype=np.int64)) for k, (v, i) in names.items()},
        "orientation": orient.astype(np.int8),
        "anchor": anchor,
        "tiles": _nonzero_bytes_strings(cells),
        "waste": rec[:, P.LOG_WASTE].astype(np.int8),
        "score_change": rec[:, P.LOG_GAIN].astype(np.int16),
    }
    return pa.Table.from_arrays([pa.array(columns[f.name], f.type) for f in MOVES_SCHEMA], schema=MOVES_SCHEMA)


def _nonzero_bytes_strings(rows: np.ndarray) -> pa.LargeStringArray:
    """uint8[M, W] -> M strings: each row's non-zero bytes, in order."""
    keep = rows != 0
    offsets = np.zeros(rows.shape[0] + 1, dtype=np.int64)
    np.cumsum(keep.sum(axis=1), out=offsets[1:])
    return pa.LargeStringArray.from_buffers(rows.shape[0], pa.py_buffer(offsets), pa.py_buffer(rows[keep]))
