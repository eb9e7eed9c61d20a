"""What the game loop records of every decision for the game-anatomy panel, without returning to Python
(:func:`boardlab.agents.citywright.play.play_games`' `record`).

Per decision the loop records the seat that decides, its number of legal moves (as ``Game.legal_moves()`` lists
them: every distinct tile assignment and free pick of every legal placement, forced discards, swaps, or the one
pass; :func:`legal_count`) and, after the move, every seat's running score (``Game.progress``: the total
``final_scores`` gives for the boards as they stand).  Citywright names no decision kinds.  The recorded games are
the ones the loop plays unrecorded, move for move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardlab.sim.bits import popcount
from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.rules import N_EDGE_SLOTS, N_SLOTS
from boardlab.sim.citywright.tables import (
    RP_DEPLETES,
    RP_SWAP,
    RP_SWAP_NEEDS_EMPTY,
    SHP_PL_END,
    SHP_PL_START,
    SHP_STAR,
)

_FACTORIAL = (1, 1, 2, 6, 24)


@njit(cache=True)
def legal_count(boards, st, rp, shp, pl_mask):
    """How many moves ``Game.legal_moves()`` lists for the seat to move (0 when the game is over).

    Parameters
    ----------
    boards : numpy.ndarray
        uint64[players, 4], the bitboards.
    st : numpy.ndarray
        int32[ST_LEN], the game state.
    rp, shp, pl_mask : numpy.ndarray
        The rule parameters, shape table and placement masks (``Tables``).

    Returns
    -------
    int
        The number of legal moves.
    """
    if st[E.ST_DONE] != 0:
        return 0
    p = st[E.ST_CUR]
    occ = boards[p, 0] | boards[p, 1] | boards[p, 2] | boards[p, 3]
    n_empty = popcount(~occ & E._VALID)
    any_open = False
    total = 0
    for s in range(N_SLOTS):
        shape = st[E.ST_SLOTS + s]
        if shape < 0:
            continue
        any_open = True
        # distinct orders of the line's 4 tiles (a gone tile, -1, is one more value): 4! / prod(count!)
        counts = np.zeros(5, dtype=np.int64)
        for k in range(4):
            counts[st[E.ST_MARKET + E.line_cell(s, k)] + 1] += 1
        perms = 24
        for v in range(5):
            perms //= _FACTORIAL[counts[v]]
        frees = 1
        if shp[shape, SHP_STAR] >= 0 and rp[RP_DEPLETES] != 0:
            present = 0
            for d in range(4):
                found = False
                for c in range(16):
                    if st[E.ST_MARKET + c] == d:
                        in_line = False
                        for k in range(4):
                            if E.line_cell(s, k) == c:
                                in_line = True
                        if not in_line:
                            found = True
                present += 1 if found else 0
            frees = max(present, 1)
        elif shp[shape, SHP_STAR] >= 0:
            frees = 4
        placements = 0
        for pl in range(shp[shape, SHP_PL_START], shp[shape, SHP_PL_END]):
            if pl_mask[pl] & occ == 0:
                placements += 1
        total += placements * perms * frees if placements > 0 else 1  # none: the forced discard
        if rp[RP_SWAP] != 0 and s >= N_EDGE_SLOTS:
            if n_empty > 0:
                total += 4 * n_empty
            elif rp[RP_SWAP_NEEDS_EMPTY] == 0:
                total += 4
    return total if any_open else 1  # no ruler left: the pass
