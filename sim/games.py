"""The game registry: one :class:`GameDef` per game, looked up by string id.

A game lives in three layers (``docs/architecture.md``): its rules, tables,
kernels, reference and public API in ``sim/<game>/``; its agents in
``agents/<game>/``; its chunk player (a batch of games -> result rows) in
``experiments/``.  The registry sits at the bottom, beside the core, because
the numba cache guard (:mod:`sim._cache`) needs every game's kernel files
before any kernel loads.  So a definition holds its own layer's parts as
objects and names the upper layers' parts by import path, resolved on demand
-- as Gymnasium's registry names environments by entry-point strings.  Nothing
here imports ``agents`` or ``experiments`` when it loads; ``tests/core/test_layers.py``
holds every module to that.

Each game registers itself in its ``sim/<game>/game.py``; this module lists
the built-in ones.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

DEFAULT_GAME = "citywright"
# Built-in games: the id and the module whose import registers it.
_BUILTIN = {
    "citywright": "sim.citywright.game",
    "cartographers": "sim.cartographers.game",
    "citadels": "sim.citadels.game",
}


class GameError(ValueError):
    """An unknown game id; the message lists the registered ones."""


@dataclass(frozen=True)
class GameDef:
    """What the toolkit needs to know of one game.

    Attributes
    ----------
    id : str
        Registry key and ``--game`` value.
    title, description : str
        For ``citywright games``.
    presets : tuple[str, ...]
        Rule presets; the first is the default.
    load_rules : callable(spec) -> rules
        A preset name, a TOML variant file or a rules object -> a validated rule set.
    rules_error : type[Exception]
        What ``load_rules`` raises on bad input (its message is one line for the user).
    rules_from_mapping : callable(dict) -> rules
        A full rule mapping, as a result's metadata stores it -> the rule set.
    tables : callable(rules, players) -> tables
        Rule set -> the plain arrays the kernels read.
    new_game : callable(players, rules, seed) -> game
        The public API's game (``done``, ``current``, ``legal_moves()``, ``is_legal``,
        ``apply``, ``snapshot()``, ``scores()``, ``random_move()``, ``copy()``).
    reference_game : callable(players, rules, seed) -> game or None
        The plain-Python oracle with the same methods, where the game has one.
    information : {"perfect", "imperfect"}
        Whether some player may not see part of the state (a deck's order, another's hand).
        An imperfect-information game's API gives ``observation(player)``: all that player
        may see, the only thing an agent is given.
    chance : bool
        Whether chance events (shuffles, dice) occur.
    simultaneous : bool
        Whether players decide at the same time (otherwise one decider at a time: ``current``).
    invariants : callable(game) -> list[str]
        Violations of the game's declared invariants in a position (empty when all hold).
    result_columns : tuple[str, ...]
        The columns of a result table, one row per (game, seat).
    players : tuple[int, int]
        Smallest and largest player count.
    kernel_sources : tuple[str, ...]
        Every file (relative to the repository root) that numba kernels of this
        game -- engine and agents -- are compiled from, constants included.
    agents_module : str
        Import path of the game's agent registry (agents layer): it provides
        ``available_agents``, ``parse_agent``, ``split_specs`` and ``AgentError``.
    chunk_player : str
        ``module:function`` of the chunk player (experiments layer):
        ``(rules, players, agents, seating, run_seed, start, stop) -> DataFrame``.
    """

    id: str
    title: str
    description: str
    presets: tuple[str, ...]
    load_rules: Callable[[Any], Any]
    rules_error: type[Exception]
    rules_from_mapping: Callable[[dict], Any]
    tables: Callable[[Any, int], Any]
    new_game: Callable[[int, Any, int], Any]
    invariants: Callable[[Any], list[str]]
    result_columns: tuple[str, ...]
    players: tuple[int, int]
    kernel_sources: tuple[str, ...]
    agents_module: str
    chunk_player: str
    reference_game: Callable[[int, Any, int], Any] | None = None
    information: str = "perfect"
    chance: bool = True
    simultaneous: bool = False
    notes: dict = field(default_factory=dict)

    @property
    def default_preset(self) -> str:
        return self.presets[0]

    def agents(self):
        """The game's agent registry module (imported on first use)."""
        return importlib.import_module(self.agents_module)

    def play_chunk(self, *args, **kwargs):
        """Run the game's chunk player (imported on first use)."""
        module, _, name = self.chunk_player.partition(":")
        return getattr(importlib.import_module(module), name)(*args, **kwargs)


_GAMES: dict[str, GameDef] = {}


def register(game: GameDef) -> GameDef:
    """Add a game under its id (a second registration of the same id is refused)."""
    if game.id in _GAMES and _GAMES[game.id] is not game:
        raise GameError(f"game {game.id!r} is already registered")
    _GAMES[game.id] = game
    return game


def _load_builtin() -> None:
    for gid, module in _BUILTIN.items():
        if gid not in _GAMES:
            importlib.import_module(module)


def available_games() -> list[GameDef]:
    """Every registered game, built-in ones first."""
    _load_builtin()
    return list(_GAMES.values())


def get_game(game_id: str | GameDef = DEFAULT_GAME) -> GameDef:
    """The definition of `game_id`; GameError (one line, naming the valid ids) if unknown."""
    if isinstance(game_id, GameDef):
        return game_id
    _load_builtin()
    key = str(game_id).strip().lower()
    if key not in _GAMES:
        raise GameError(f"unknown game {game_id!r} (valid: {', '.join(_GAMES)})")
    return _GAMES[key]


def kernel_sources() -> tuple[str, ...]:
    """Every registered game's kernel files (what the numba cache guard hashes)."""
    return tuple(dict.fromkeys(f for g in available_games() for f in g.kernel_sources))
