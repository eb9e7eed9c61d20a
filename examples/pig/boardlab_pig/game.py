"""Pig's entry in boardlab's game registry, found through the entry point ``boardlab.games`` (pyproject.toml).

Its agents are boardlab's generic ones (``random``, ``ismcts``, and any ``py:module:Name``), its chunk
player boardlab's generic one (:mod:`boardlab.experiments.play`, bound to this game below), its result columns
the ten every game shares and its own (:func:`rows`).
"""

from __future__ import annotations

import numpy as np

from boardlab.sim.games import GameDef, register
from boardlab.sim.rulesets import RulesError

from .api import Game, invariants
from .rules import MAX_PLAYERS, PRESETS, from_mapping, load_rules

OWN_COLUMNS = ("start_points", "turns", "rolls", "busts", "holds")
RESULT_COLUMNS = (
    "game", "game_seed", "rules", "players", "seat", "agent", "total", "rank", "win_share", "win", *OWN_COLUMNS,
)  # fmt: skip


def _schema():
    import pyarrow as pa

    from boardlab.experiments.schema import result_schema  # the experiments layer, imported when a run asks for it

    return result_schema(RESULT_COLUMNS, {c: pa.int32() for c in OWN_COLUMNS})


def __getattr__(name: str):
    # SCHEMA is built on first use, so that registering the game imports nothing above sim
    if name == "SCHEMA":
        return _schema()
    raise AttributeError(name)


def rows(game: Game) -> dict[str, np.ndarray]:
    """Pig's own result columns from a finished game: one value per seat."""
    scores = game.scores()
    return {c: np.array([s[c] for s in scores], dtype=np.int32) for c in OWN_COLUMNS}


def play_chunk(rules, players, agents, seating, run_seed, start, stop):
    """Games start..stop-1 of a run: boardlab's generic chunk player, for this game."""
    from boardlab.experiments.play import play_table

    return play_table(GAME, rules, players, agents, seating, run_seed, start, stop)


GAME = register(
    GameDef(
        id="pig",
        title="Pig",
        description="1-6 players roll a die, pushing their luck: a 1 loses the turn's points; first to 100 wins",
        presets=tuple(PRESETS),
        load_rules=load_rules,
        rules_error=RulesError,
        rules_from_mapping=lambda data: from_mapping(data, base=data),
        tables=lambda rules, players: None,  # no kernels, so no tables
        new_game=Game,
        reference_game=None,
        information="perfect",
        chance=True,
        simultaneous=False,
        invariants=invariants,
        result_columns=RESULT_COLUMNS,
        players=(1, MAX_PLAYERS),
        kernel_sources=(),
        agents_module="boardlab.agents.generic.registry",
        chunk_player="boardlab_pig.game:play_chunk",
        api_rows="boardlab_pig.game:rows",
        schema="boardlab_pig.game:SCHEMA",
    )
)
