"""The recorded game loop: the built-in agents' games (as :func:`boardlab.agents.citadels.kernels.play_games`
plays them) with every decision recorded for the game-anatomy panel, without returning to Python.

Per decision it records the seat that decides, its kind (its phase: ``select``, ``discard``, ``turn`` or
``graveyard``), its number of legal moves (``legal_moves``' count: ``Game.legal_moves()``'s length) and, after the
move, every seat's running score (``Game.progress``: its score as §6 counts it now); per game, whether the round
cap ended it.  The moves are the game loop's, drawn from the same streams: the games are the ones ``play_games``
plays, move for move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels.tables import RP_MAX_ROUNDS, RP_PLAYERS

from . import kernels as K
from . import strong as S

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
    scratch = (
        np.zeros(E.ST_LEN, dtype=np.int32), np.zeros(2, dtype=np.uint64), np.zeros((1, E.EV_LEN), dtype=np.int32),
        np.zeros((E.MAX_MOVES, E.MV_LEN), dtype=np.int32), np.zeros((E.MAX_MOVES, E.MV_LEN), dtype=np.int32),
        np.zeros(E.MAX_MOVES, dtype=np.float64), np.zeros(E.MV_LEN, dtype=np.int32), np.zeros(2, dtype=np.uint64),
        np.zeros((K.MAX_PLAYERS, K.M_LEN), dtype=np.int32), np.zeros(S.WORK_LEN, dtype=np.int32),
        np.zeros(S.N_FEATURES, dtype=np.float64), np.zeros(2, dtype=np.uint64), K.SE.make_work(),
        np.zeros((n, E.SC_LEN), dtype=np.int32),
    )  # fmt: skip
    args = (np.ascontiguousarray(seeds, dtype=np.uint64), rp, dt, np.ascontiguousarray(rows, dtype=np.float64),
            np.ascontiguousarray(seats, dtype=np.int64), *out.values(), *scratch)  # fmt: skip
    st, rng, _, moves, _, vals, mv, arng, mem, work, fwork, wrng, swork, _ = scratch
    K.with_choose(play_recorded_games, args, (st, rng, rp, dt, args[3][0], arng, mem[0], moves, vals, mv, work, fwork,
                                              wrng, swork))  # the agents called by address  # fmt: skip
    out["capped"] = out["info"][:, 0, E.IN_CAPPED] != 0
    return out


def _decision_bound(max_rounds: int, players: int) -> int:
    """Decisions a game of up to `max_rounds` rounds can hold at most, generously: 64 per seat and round."""
    return max_rounds * players * 64


@njit(cache=True, _nrt=False)
def play_recorded_games(
    choose, seeds, rp, dt, rows, seats, scores, info, hist, seat, kind, legal, progress, steps,
    st, rng, ev, moves, listed, vals, mv, arng, mem, work, fwork, wrng, swork, now,
):  # fmt: skip
    """The loop of :func:`run_recorded_games` (its arrays; the rest scratch, as play_games' loop takes it).  A game
    of more decisions than the recording holds raises ValueError.

    Parameters
    ----------
    choose : first-class function
        :func:`boardlab.agents.citadels.kernels.choose_move`, called by its address: its call tree is compiled
        once, on its own, and not again inside this loop (docs/architecture/compile-time.md).
    seeds : ndarray(uint64, ndim=1)
        One seed per game.
    rp, dt : ndarray(int32)
        The rule parameters and the district types' table (``Tables.kernel_args()``).
    rows : ndarray(float64, ndim=2)
        ``[A, P_LEN]``: the agents.
    seats : ndarray(int64, ndim=2)
        ``[G, players]``: the agent index of each seat.
    scores, info, hist : ndarray(int32, ndim=3)
        ``[G, players, SC_LEN]``, ``[G, players, IN_LEN]``, ``[HIST_ROUNDS, G, HS_LEN]`` (zeroed): filled.
    seat, kind, legal : ndarray(int32, ndim=2)
        ``[G, D]``: filled per decision with the seat that decides, its phase and its number of legal moves.
    progress : ndarray(float64, ndim=3)
        ``[G, D, players]``: filled with every seat's score after each decision.
    steps : ndarray(int64, ndim=1)
        ``[G]``: filled with each game's number of decisions.
    st, rng, ev, moves, listed, vals, mv, arng, mem, work, fwork, wrng : ndarray
        Scratch, as :func:`boardlab.agents.citadels.kernels.run_games` makes it (``listed`` a second move list).
    swork : tuple of ndarray
        The expert search's scratch (``SE.make_work()``).
    now : ndarray(int32, ndim=2)
        ``[players, SC_LEN]``: scratch for the running scores.

    Returns
    -------
    None
    """
    n = rp[RP_PLAYERS]
    for g in range(seeds.shape[0]):
        seed = seeds[g]
        E.setup(st, rng, ev, seed, rp, dt, 0)
        for p in range(n):
            for j in range(K.M_LEN):
                mem[p, j] = 0
        t = 0
        while st[E.ST_PHASE] != E.PH_DONE:
            if t >= seat.shape[1]:
                raise ValueError("more decisions than the recording holds")
            p = st[E.ST_CURRENT]
            seat[g, t] = p
            kind[g, t] = st[E.ST_PHASE]
            legal[g, t] = E.legal_moves(st, rp, dt, listed)
            row = rows[seats[g, p]]
            if int(row[K.P_CODE]) == K.A_RANDOM:  # as choose_move plays it, without the call by address
                E.random_move(st, rng, rp, dt, moves, mv)
            else:
                choose(st, rng, rp, dt, p, row, seed, arng, mem[p], moves, vals, mv, work, fwork, wrng, swork)
            E.apply_move(st, rng, ev, rp, dt, mv)
            E.final_scores(st, rp, dt, now)
            for q in range(n):
                progress[g, t, q] = now[q, E.SC_TOTAL]
            t += 1
        steps[g] = t
        E.record_results(st, rp, dt, g, scores, info, hist)
