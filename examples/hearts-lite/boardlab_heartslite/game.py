"""Hearts-lite's entry in boardlab's game registry, found through the entry point ``boardlab.games`` (pyproject.toml).

Its agents are boardlab's generic ones (``random``, ``ismcts``, ``random-prefers:SUIT`` and any ``py:module:Name``),
its chunk player boardlab's generic one (:mod:`boardlab.experiments.play`, bound to this game in ``results.py``), its
result columns the ten every game shares and its own (``results.rows``).  The lowest score wins
(``score_direction="lower"``).  Hearts-lite is pure Python: it declares no kernels.
"""

from __future__ import annotations

from boardlab.sim.games import GameDef, Lazy, Simulation, register
from boardlab.sim.rulesets import RulesError

from .api import Game, invariants
from .rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, from_mapping, load_rules

OWN_COLUMNS = ("deals", "tricks", "hearts", "queens", "moons")
RESULT_COLUMNS = (
    "game", "game_seed", "rules", "players", "seat", "agent", "total", "rank", "win_share", "win", *OWN_COLUMNS,
)  # fmt: skip

GAME = register(
    GameDef(
        id="heartslite",
        title="Hearts-lite",
        description="3-4 players take tricks from hidden hands, avoiding hearts and the queen of spades; lowest wins",
        presets=tuple(PRESETS),
        load_rules=load_rules,
        rules_error=RulesError,
        rules_from_mapping=lambda data: from_mapping(data, base=data),
        new_game=Game,
        reference_game=None,
        information="imperfect",
        chance=True,
        simultaneous=False,
        score_direction="lower",
        invariants=invariants,
        result_columns=RESULT_COLUMNS,
        players=(MIN_PLAYERS, MAX_PLAYERS),
        agents_module="boardlab.agents.generic.registry",
        simulation=Simulation(
            chunk_player=Lazy("boardlab_heartslite.results:play_chunk"),
            schema=Lazy("boardlab_heartslite.results:SCHEMA"),
            api_rows=Lazy("boardlab_heartslite.results:rows"),
        ),
    )
)
