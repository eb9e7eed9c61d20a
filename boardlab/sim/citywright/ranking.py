"""Ranks from score sheets, for tables of stored games (rescoring, seat compensation).

The order is :data:`boardlab.sim.citywright.rules.RANKING`, the one the engine's kernels
use too: one int64 key per player orders players exactly as the rules do, so a
player's rank is 1 + the number of keys above theirs and the winners hold the
largest key.  The rule ``game.two_player_tie`` may put the seat in the last column's place in a
2-player game (:func:`rank_key`'s `two_player_tie`).
"""

from __future__ import annotations

import numpy as np

from .rules import RANKING, TWO_PLAYER_TIES

# Every tie-break column (all but the first) takes values within a span of fewer than this
# many (empty cells 0..49, distinct shapes 0..16), so each column's digit cannot carry into
# the one before it.
TIE_BREAK_SPAN = 100


def rank_key(columns, two_player_tie: str = "distinct_shapes") -> np.ndarray:
    """int64 key per player from the RANKING columns of `columns` (a DataFrame or a mapping of arrays).

    `two_player_tie` is the rule ``game.two_player_tie``: under "second_seat" the last column of a
    2-player game's rows is their seat (``seat`` and ``players`` columns needed), so the second player
    wins a game tied on total and empty cells.  Keys are compared within one game only.

    Parameters
    ----------
    columns : pandas.DataFrame or mapping of str to numpy.ndarray
        The ranking columns, one value per player.
    two_player_tie : str
        The rule ``game.two_player_tie``.

    Returns
    -------
    numpy.ndarray
        int64, one key per player.
    """
    if two_player_tie not in TWO_PLAYER_TIES:
        raise ValueError(f"two_player_tie: expected one of {', '.join(TWO_PLAYER_TIES)}, got {two_player_tie!r}")
    key = None
    last = len(RANKING) - 1
    for j, (name, more_is_better) in enumerate(RANKING):
        v = np.asarray(columns[name], dtype=np.int64)
        v = v if more_is_better else -v
        if j == last and two_player_tie == "second_seat":
            two = np.asarray(columns["players"], dtype=np.int64) == 2
            v = np.where(two, np.asarray(columns["seat"], dtype=np.int64), v)
        if key is None:
            key = v
        else:
            if v.size and int(v.max()) - int(v.min()) >= TIE_BREAK_SPAN:
                raise ValueError(f"{name}: values span {TIE_BREAK_SPAN} or more; the rank key cannot hold them")
            key = key * TIE_BREAK_SPAN + v
    return key
