"""Pig's entry in boardlab's game registry, found through the entry point ``boardlab.games`` (pyproject.toml).

Its agents are boardlab's generic ones (``random``, ``ismcts``, and any ``py:module:Name``), its chunk
player boardlab's generic one (:mod:`boardlab.experiments.play`, bound to this game in ``results.py``), its
result columns the ten every game shares and its own (``results.rows``).  Pig is pure Python: it declares
no kernels.
"""

from __future__ import annotations

from boardlab.sim.games import GameDef, Lazy, Simulation, register
from boardlab.sim.rulesets import RulesError

from .api import Game, invariants
from .rules import MAX_PLAYERS, PRESETS, from_mapping, load_rules

OWN_COLUMNS = ("start_points", "turns", "rolls", "busts", "holds")
RESULT_COLUMNS = (
    "game", "game_seed", "rules", "players", "seat", "agent", "total", "rank", "win_share", "win", *OWN_COLUMNS,
)  # fmt: skip

GAME = register(
    GameDef(
        id="pig",
        title="Pig",
        description="1-6 players roll a die, pushing their luck: a 1 loses the turn's points; first to 100 wins",
        presets=tuple(PRESETS),
        load_rules=load_rules,
        rules_error=RulesError,
        rules_from_mapping=lambda data: from_mapping(data, base=data),
        new_game=Game,
        reference_game=None,
        information="perfect",
        chance=True,
        simultaneous=False,
        invariants=invariants,
        result_columns=RESULT_COLUMNS,
        players=(1, MAX_PLAYERS),
        agents_module="boardlab.agents.generic.registry",
        # the upper layers' parts by import path: results.py is imported when a run first asks for them
        simulation=Simulation(
            chunk_player=Lazy("boardlab_pig.results:play_chunk"),
            schema=Lazy("boardlab_pig.results:SCHEMA"),
            api_rows=Lazy("boardlab_pig.results:rows"),
        ),
    )
)
