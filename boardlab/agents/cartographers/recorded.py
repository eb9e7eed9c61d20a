"""What the game loop records of every decision for the game-anatomy panel, without returning to Python
(:func:`boardlab.agents.cartographers.play.play_games`' `record`).

Per decision the loop records the seat that decides, its kind (``draw`` or ``monster``: the phase), its number of
legal moves (``enumerate_moves``' count: ``Game.legal_moves()``'s length) and, after the move, every seat's running
score (``Game.progress``: its scored seasons' totals plus, while a season is under way, its coins:
:func:`seat_progress`).  The recorded games are the ones the loop plays unrecorded, move for move.
"""

from __future__ import annotations

from numba import njit

from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.tables import N_SEASONS

KINDS = ("draw", "monster")  # a decision's kind: its phase (E.PHASE_DRAW, E.PHASE_MONSTER)


@njit(cache=True)
def seat_progress(st, p):
    """Seat p's running score: its scored seasons' totals, plus its coins while a season is under way.

    Parameters
    ----------
    st : numpy.ndarray
        int32[ST_LEN], the game state.
    p : int
        The seat.

    Returns
    -------
    int
        Its points so far.
    """
    total = 0
    for s in range(st[E.ST_SCORED]):
        total += st[E.ST_RECORDS + (p * N_SEASONS + s) * E.REC_LEN + E.REC_TOTAL]
    if st[E.ST_PHASE] != E.PHASE_DONE:
        total += st[E.ST_COINS + p]
    return total
