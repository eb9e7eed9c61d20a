"""The built-in agents' games with every decision recorded for the game-anatomy panel, played by the game loop
(:func:`boardlab.agents.citadels.kernels.play_games`' `record`), without returning to Python.

Per decision the loop records the seat that decides, its kind (its phase: ``select``, ``discard``, ``turn`` or
``graveyard``), its number of legal moves (``legal_moves``' count: ``Game.legal_moves()``'s length) and, after the
move, every seat's running score (``Game.progress``: its score as §6 counts it now); per game, whether the round
cap ended it.  The moves are the game loop's, drawn from the same streams: the games are the ones ``play_games``
plays, move for move.
"""

from __future__ import annotations

import numpy as np

from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels.tables import RP_MAX_ROUNDS

from . import kernels as K

KINDS = ("select", "discard", "turn", "graveyard")  # a decision's kind: its phase (E.PH_PICK .. E.PH_GRAVE)


def run_recorded_games(seeds: np.ndarray, tables, rows: np.ndarray, seats: np.ndarray) -> dict[str, np.ndarray]:
    """Play one game per seed as :func:`boardlab.agents.citadels.kernels.run_games` does, each decision recorded.

    Parameters
    ----------
    seeds : numpy.ndarray
        uint64[G].
    tables : Tables
        The rule set's tables for the player count.
    rows : numpy.ndarray
        float64[A, P_LEN]: the agents.
    seats : numpy.ndarray
        int[G, players]: the agent index of each seat.

    Returns
    -------
    dict of str to numpy.ndarray
        run_games' ``scores``, ``info``, ``hist``; and ``seat``, ``kind``, ``legal`` int32[G, D] (per decision the
        seat, its kind as an index into KINDS, its number of legal moves), ``progress`` float64[G, D, players]
        (every seat's score after each decision), ``steps`` int64[G] (decisions per game), ``capped`` bool[G].
    """
    g, n = len(seeds), tables.players
    rp, dt = tables.kernel_args()
    decisions = _decision_bound(int(rp[RP_MAX_ROUNDS]), n)
    out = {
        "scores": np.zeros((g, n, E.SC_LEN), dtype=np.int32),
        "info": np.zeros((g, n, E.IN_LEN), dtype=np.int32),
        "hist": np.zeros((E.HIST_ROUNDS, g, E.HS_LEN), dtype=np.int32),
        "seat": np.zeros((g, decisions), dtype=np.int32),
        "kind": np.zeros((g, decisions), dtype=np.int32),
        "legal": np.zeros((g, decisions), dtype=np.int32),
        "progress": np.zeros((g, decisions, n), dtype=np.float64),
        "steps": np.zeros(g, dtype=np.int64),
    }
    K.play_games(np.ascontiguousarray(seeds, dtype=np.uint64), rp, dt, np.ascontiguousarray(rows, dtype=np.float64),
                 np.ascontiguousarray(seats, dtype=np.int64), out["scores"], out["info"], out["hist"],
                 (out["seat"], out["kind"], out["legal"], out["progress"], out["steps"]))  # fmt: skip
    out["capped"] = out["info"][:, 0, E.IN_CAPPED] != 0
    return out


def _decision_bound(max_rounds: int, players: int) -> int:
    """Decisions a game of up to `max_rounds` rounds can hold at most, generously: 64 per seat and round."""
    return max_rounds * players * 64
