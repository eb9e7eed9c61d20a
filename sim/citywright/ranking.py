"""Ranks from score sheets, for tables of stored games (rescoring, seat compensation).

The order is :data:`sim.citywright.rules.RANKING`, the one the engine's kernels
use too: one int64 key per player orders players exactly as the rules do, so a
player's rank is 1 + the number of keys above theirs and the winners hold the
largest key.
"""

from __future__ import annotations

import numpy as np

from .rules import RANKING

# Every tie-break column (all but the first) takes values within a span of fewer than this
# many (empty cells 0..49, distinct shapes 0..16), so each column's digit cannot carry into
# the one before it.
TIE_BREAK_SPAN = 100


def rank_key(columns) -> np.ndarray:
    """int64 key per player from the RANKING columns of `columns` (a DataFrame or a mapping of arrays)."""
    key = None
    for name, more_is_better in RANKING:
        v = np.asarray(columns[name], dtype=np.int64)
        v = v if more_is_better else -v
        if key is None:
            key = v
        else:
            if v.size and int(v.max()) - int(v.min()) >= TIE_BREAK_SPAN:
                raise ValueError(f"{name}: values span {TIE_BREAK_SPAN} or more; the rank key cannot hold them")
            key = key * TIE_BREAK_SPAN + v
    return key
