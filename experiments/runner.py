"""Playing chunks of games into tables: the unit of work of simulations, ladders and sweeps.

A chunk is games ``start..stop-1`` of a run; everything about game g (its seed,
its seating) is a function of (run seed, g, seating mode), so a chunk computes
the same rows wherever and whenever it runs.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from agents.citywright.play import run_games
from agents.citywright.registry import AgentSpec, rows
from sim.citywright import engine as E
from sim.citywright.rules import Rules
from sim.citywright.tables import tables_for
from sim.seeds import _GOLDEN, _mix, game_seeds

SEATINGS = ("fixed", "rotate", "permute", "draw")
COLUMNS = [
    "game", "game_seed", "rules", "players", "seat", "agent",
    "residential", "commercial", "park", "industrial", "achievements", "compensation", "total",
    "empty", "tiles_taken", "waste", "forced_discards", "shapes_distinct", "rank", "win_share", "win",
    "board", "shapes_placed",
]  # fmt: skip

_CELL_BITS = np.array([8 * r + c for r in range(7) for c in range(7)], dtype=np.uint64)
_CHARS = np.frombuffer(b"RCPI", dtype=np.uint8)


def seat_orders(
    players: int, seating: str, start: int, stop: int, pool: int | None = None, seeds: np.ndarray | None = None
) -> np.ndarray:
    """int[G, players]: entry [g, s] is the index of the agent in seat s for game start+g.

    fixed: agent i in seat i.  rotate: game g shifts the agents by g mod N (agent i
    sits in seat (i + g) mod N).  permute: game g uses the (g mod N!)-th seat order
    in lexicographic order, so every order comes equally often.  draw: the agents
    are a pool of any size (`pool`) and each seat's agent is drawn uniformly and
    independently from it, by a hash of the game's seed and the seat (`seeds`).
    """
    if seating == "draw":
        return draw_orders(np.asarray(seeds, dtype=np.uint64), players, int(pool))
    g = np.arange(start, stop)
    seats = np.arange(players)
    if seating == "fixed":
        return np.broadcast_to(seats, (len(g), players)).copy()
    if seating == "rotate":
        return (seats[None, :] - g[:, None]) % players
    if seating == "permute":
        perms = np.array(list(itertools.permutations(range(players))))
        return perms[g % math.factorial(players)]
    raise ValueError(f"seating must be one of {', '.join(SEATINGS)}, got {seating!r}")


def draw_orders(seeds: np.ndarray, players: int, pool: int) -> np.ndarray:
    """Seat s of the game with seed x plays agent mix64(x + (s + 1) * golden) mod pool (uniform for pool <= 8)."""
    with np.errstate(over="ignore"):
        s = np.arange(1, players + 1, dtype=np.uint64)
        h = _mix(seeds[:, None] + s[None, :] * _GOLDEN)
    return (h % np.uint64(pool)).astype(np.int64)


def boards_to_strings(boards: np.ndarray) -> np.ndarray:
    """uint64[M, 4] -> array of 49-character strings from 'RCPI.'."""
    m = boards.shape[0]
    out = np.full((m, 49), ord("."), dtype=np.uint8)
    for d in range(4):
        on = ((boards[:, d, None] >> _CELL_BITS[None, :]) & np.uint64(1)).astype(bool)
        out[on] = _CHARS[d]
    return out.view("S49").ravel().astype(str)


def shapes_placed_strings(counts: np.ndarray, rules: Rules) -> np.ndarray:
    """Placed count per shape -> 'I:2 L:1 T5:1' (rule-set order, shapes never placed left out)."""
    names = [s.name for s in rules.shapes]
    out = np.full(counts.shape[0], "", dtype=object)
    for i, name in enumerate(names):
        c = counts[:, i]
        part = np.where(c > 0, np.char.add(f"{name}:", c.astype(str)), "")
        out = np.where((out != "") & (part != ""), out + " ", out) + part
    return out.astype(str)


def parse_shapes_placed(text: str) -> dict[str, int]:
    """'I:2 L:1' -> {'I': 2, 'L': 1}."""
    out = {}
    for tok in text.split():
        name, _, n = tok.partition(":")
        out[name] = int(n)
    return out


def play_chunk(
    rules: Rules, players: int, agents: list[AgentSpec], seating: str, run_seed: int, start: int, stop: int
) -> pd.DataFrame:
    """Games start..stop-1 of a run, one row per (game, seat), columns COLUMNS."""
    return _play(rules, players, agents, seating, run_seed, start, stop, False)[0]


def play_chunk_with_moves(
    rules: Rules, players: int, agents: list[AgentSpec], seating: str, run_seed: int, start: int, stop: int
) -> tuple[pd.DataFrame, np.ndarray]:
    """As play_chunk, plus the move log int32[games, turns, agents.citywright.play.LOG_LEN]."""
    return _play(rules, players, agents, seating, run_seed, start, stop, True)


def _play(rules, players, agents, seating, run_seed, start, stop, log_moves):
    if seating != "draw" and len(agents) != players:
        raise ValueError("one agent per seat")
    tb = tables_for(rules, players)
    seeds = game_seeds(run_seed, start, stop)
    order = seat_orders(players, seating, start, stop, pool=len(agents), seeds=seeds)
    agent_rows = rows(agents)
    prms = agent_rows[order]  # [G, players, P_LEN]
    scores, boards, stats, logs = run_games(seeds, prms, tb, log_moves=log_moves)
    g = stop - start
    names = np.array([str(a) for a in agents], dtype=object)
    rank = scores[:, :, E.SC_RANK]
    winners = (rank == 1).sum(axis=1, keepdims=True)
    df = pd.DataFrame(
        {
            "game": np.repeat(np.arange(start, stop, dtype=np.int64), players),
            "game_seed": np.repeat(seeds, players),
            "rules": rules.name,
            "players": np.int8(players),
            "seat": np.tile(np.arange(1, players + 1, dtype=np.int8), g),
            "agent": names[order].ravel(),
            "residential": scores[:, :, E.SC_R].ravel().astype(np.int16),
            "commercial": scores[:, :, E.SC_C].ravel().astype(np.int16),
            "park": scores[:, :, E.SC_P].ravel().astype(np.int16),
            "industrial": scores[:, :, E.SC_I].ravel().astype(np.int16),
            "achievements": scores[:, :, E.SC_ACH].ravel().astype(np.int16),
            "compensation": scores[:, :, E.SC_COMP].ravel().astype(np.int16),
            "total": scores[:, :, E.SC_TOTAL].ravel().astype(np.int16),
            "empty": scores[:, :, E.SC_EMPTY].ravel().astype(np.int8),
            "tiles_taken": stats[:, :, 0].ravel().astype(np.int16),
            "waste": stats[:, :, 1].ravel().astype(np.int16),
            "forced_discards": stats[:, :, 2].ravel().astype(np.int8),
            "shapes_distinct": scores[:, :, E.SC_DISTINCT].ravel().astype(np.int8),
            "rank": rank.ravel().astype(np.int8),
            "win_share": np.where(rank == 1, 1.0 / winners, 0.0).ravel(),
            "win": (rank == 1).ravel(),
            "board": boards_to_strings(boards.reshape(-1, 4)),
            "shapes_placed": shapes_placed_strings(stats[:, :, 4:].reshape(g * players, -1), rules),
        }
    )
    return df[COLUMNS], logs
