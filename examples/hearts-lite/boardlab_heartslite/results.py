"""Hearts-lite's result rows: boardlab's generic chunk player bound to Hearts-lite, its own columns and the schema.

The registry entry (``game.py``) names these by import path, so that registering the game imports nothing
of boardlab's upper layers; this module is imported when a run first asks for them.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from boardlab.experiments.play import play_table
from boardlab.experiments.schema import result_schema

from .api import Game
from .game import GAME, OWN_COLUMNS, RESULT_COLUMNS

SCHEMA = result_schema(RESULT_COLUMNS, {c: pa.int32() for c in OWN_COLUMNS})


def rows(game: Game) -> dict[str, np.ndarray]:
    """Hearts-lite's own result columns from a finished game.

    Parameters
    ----------
    game : Game
        A finished game.

    Returns
    -------
    dict of str to ndarray(int32, ndim=1)
        Per own column, one value per seat.
    """
    deals = game.deal + (0 if game.done else 1)
    return {
        "deals": np.full(game.players, deals, dtype=np.int32),
        **{c: np.array(getattr(game, c), dtype=np.int32) for c in ("tricks", "hearts", "queens", "moons")},
    }


def play_chunk(rules, players, agents, seating, run_seed, start, stop):
    """Games start..stop-1 of a run: boardlab's generic chunk player, for this game."""
    return play_table(GAME, rules, players, agents, seating, run_seed, start, stop)
