"""The game registry: one :class:`GameDef` per game, looked up by string id.

A game lives in three layers (``docs/architecture.md``): its rules, tables,
kernels, reference and public API in ``sim/<game>/``; its agents in
``agents/<game>/``; its chunk player (a batch of games -> result rows), result
schema, report, bench and other parts in ``experiments/<game>/``.  The registry
sits at the bottom, beside the core, because the numba cache guard (:mod:`boardlab.sim._cache`) needs every game's kernel files
before any kernel loads.  So a definition holds its own layer's parts as
objects and names the upper layers' parts by import path, resolved on demand
-- as Gymnasium's registry names environments by entry-point strings.  Nothing
here imports ``agents`` or ``experiments`` when it loads; ``tests/core/test_layers.py``
holds every module to that.

Each game registers itself in its ``sim/<game>/game.py``.  Built-in games and plugins are found the same
way: through the entry-point group ``boardlab.games`` (the toolkit's own ``pyproject.toml`` declares the
built-in ones there, as a plugin's does); this module names no game but the default.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from boardlab.sim.contract import Game

DEFAULT_GAME = "citywright"


class GameError(ValueError):
    """An unknown game id (the message lists the registered ones), or a part a game does not have
    ("cartographers has no move log"); one line for the user."""


def default_game() -> str:
    """The id every ``--game`` option and game-agnostic function defaults to (the registry decides it)."""
    return DEFAULT_GAME


# The parts a game may name by import path (GameDef's block "the upper layers' parts"), as a user
# reads them in "<game> has no <part>".
PARTS = {
    "chunk_player": "chunk player",
    "schema": "result schema",
    "chunk_size": "chunk-size rule",
    "move_log": "move log",
    "report": "report",
    "skill_report": "skill report",
    "bench": "benchmark",
    "scorer": "board scorer",
    "pairings": "fixed ladder pairings",
    "skill_tiers": "skill tiers",
    "api_rows": "reader of result columns from a finished game",
    "seat_compensation": "seat compensation",
    "rescorer": "rescorer",
    "trainer": "trainer (train fits learned weights)",
    "compare_sections": "compare sections of its own",
    "seat_agent": "every-seat agent for the specialists' tier",
}


def no_placeholders(rules) -> dict[str, str]:
    """GameDef.placeholders of a game whose every rule number is the designer's: none."""
    return {}


def none_unused(rules) -> dict[str, str]:
    """GameDef.unused of a game whose every rule key plays a part under any rules: none."""
    return {}


def counts_text(counts: tuple[int, ...]) -> str:
    """Player counts as a user reads them: "2..7" for a run of counts, "2, 4, 6" otherwise.

    Parameters
    ----------
    counts : tuple of int
        Ascending player counts.

    Returns
    -------
    str
        The counts, shortest form.
    """
    if len(counts) > 2 and list(counts) == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}..{counts[-1]}"
    return ", ".join(map(str, counts))


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
    new_game : callable(players, rules, seed) -> boardlab.sim.contract.Game
        The public API's game: the members of the :class:`boardlab.sim.contract.Game` protocol
        (``done``, ``current``, ``legal_moves()``, ``is_legal``, ``apply``, ``snapshot()``, ``scores()``,
        ``random_move()``, ``copy()``, ``observation()``, ``redeal()``).
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
    score_direction : {"higher", "lower"}
        Which final scores win: the highest (default) or the lowest.  Everything that ranks players from their
        scores reads it (:mod:`boardlab.sim.ranking`): the game's own ``scores()`` ranks by it (the conformance
        check holds it to that), ``ismcts``'s ``reward=score`` maximises the key it gives, and seat compensation
        re-ranks stored games by it.  A game's API object may declare the same as a ``score_direction`` attribute
        (what a Python agent searching a copy reads); the two must agree.
    placeholders : callable(rules) -> dict[str, str]
        The rule keys whose values are the project's stand-ins, not the designer's (text missing from the
        rulebook): dotted key -> a one-line reason.  ``rules`` marks them, ``tune scoring`` refuses to tune
        them unless named with ``--allow-placeholder``.  Default: none.
    unused : callable(rules) -> dict[str, str]
        The rule keys that play no part under these rules, because another key switches them off (a scoring
        mode that does not read them, a disabled card): dotted key (or a dotted prefix) -> a one-line reason.
        ``tune scoring`` refuses to tune them, since a trial moving one plays the base's game and spends one
        of ``--max-changes`` on nothing.  Default: none.
    result_columns : tuple[str, ...]
        The columns of a result table, one row per (game, seat): the core columns every
        game shares (``boardlab.experiments.schema.CORE_COLUMNS``) among the game's own.
    players : tuple[int, int]
        Smallest and largest player count under any rule set the game accepts (the union of
        :meth:`players_for` over its presets spans exactly this range).
    rules_players : callable(rules) -> tuple[int, ...] or None
        The player counts a rule set supports (Citadels' ``players_allowed``: ``official`` plays 2..7, its
        ``seed-summary`` 2..8).  None: every count of ``players``, whatever the rules.  :meth:`players_for`
        asks it; every command checks a player count there once it knows the rules.
    kernel_sources : tuple[str, ...]
        Every file (relative to the repository root) that numba kernels of this
        game -- engine and agents -- are compiled from, constants included.
    agents_module : str
        Import path of the game's agent registry module (agents layer), whose ``REGISTRY`` (a
        :class:`boardlab.agents.specs.Registry`) is what :meth:`agents` returns.
    chunk_player : str
        ``module:function`` of the chunk player (experiments layer), the one part ``simulate``
        cannot do without: ``(rules, players, agents, seating, run_seed, start, stop) -> table``,
        games ``start..stop-1`` of a run as one row per (game, seat), a ``pyarrow.Table`` of the
        game's result schema (``boardlab.experiments.schema.table`` builds one from columns).  A game whose
        table costs as much as its play may return a function of no arguments that builds it:
        ``simulate --jobs 1`` then builds it on its writer thread while the next chunk plays.
        Everything about game g must come from (run_seed, g, seating) alone.

    The upper layers' parts, each a ``"module:attr"`` string resolved on first use by
    :meth:`part` (``None`` where the game has none; a command that needs it says so in one line):

    schema : pyarrow.Schema
        The result table's types, in ``result_columns`` order: the core columns with the core's
        types (``boardlab.experiments.schema.CORE_TYPES``) and the game's own; build it with
        ``boardlab.experiments.schema.result_schema``.  None: the result columns are the core's only.
    chunk_size : callable(agents, games) -> int
        Games per chunk of a run of these parsed agents (a few seconds of work each).
        None: ``boardlab.experiments.simulate.DEFAULT_CHUNK`` (capped at the run's games).
    move_log : callable(rules, players, agents, seating, run_seed, start, stop) -> (table, moves)
        The chunk player that also logs every move (``simulate --moves``): the result table and
        a move table (one row per move, its own fixed schema), or a function giving the pair.
    report : boardlab.experiments.report.Report
        What ``reproduce`` plays and writes for this game.
    skill_report : boardlab.experiments.report.Report
        ``reproduce --skill``: the report across the game's skill tiers.
    bench : boardlab.experiments.bench.Bench
        ``bench``: the figures (a function) and their targets.
    scorer : callable(sources, rules) -> list[(result, text)]
        ``score``: ``sources`` is a list of (text, name) read from the user's files, ``rules`` a
        rule set or None (the scorer's default); each board or map found, as a JSON-able dict
        and as printed text.  A malformed board raises ValueError (one line, naming it).
    pairings : list[(name, seats, target)]
        ``ladder`` without ``--agents``: each pairing's name, its agent specs one per seat, and
        the win share the first agent should reach.
    skill_tiers : callable() -> dict[name, (spec, description)]
        Names for full agent specs (``agents`` lists them; results store the spec and the tier).

    The analysis commands' parts (``compare``, ``demo``, ``sweep``, ``tune``, ``rescore``) come last;
    a part left ``None`` is one the game does not have, and a command that needs it says so in one line.

    default_agents : str
        The ``--agents`` of ``compare``, ``sweep`` and ``tune scoring`` when none are given.
    summary : tuple[tuple[str, str, tuple[str, ...]], ...]
        The per-player numbers of a result row worth summarising, in sections ``(name, what, columns)``:
        ``compare`` reports each column's paired difference, ``demo`` its mean.
    seat_compensation : str or None
        ``module:NAME`` of an :class:`boardlab.experiments.compensation.SeatCompensation` (the compensation
        column, its rule key and the rank key): what ``tune seats`` re-ranks stored games with.
    rescorer : str or None
        ``module:function`` ``(rows of one run, rules) -> rows`` recomputing scores, ranks and win
        shares from stored play under other rules (``rescore``); it raises ValueError, one line, on a
        table it cannot rescore.
    seat_agent : str or None
        ``module:function`` ``(agent specs) -> spec``: the agent that plays every seat of the seat games
        ``tune scoring --objective seats|both`` measures, given the study's agents (Citywright: a tier's
        specialists -> that tier's plain agent).  None: the first of the agents.
    compare_sections : str or None
        ``module:NAME`` of an :class:`boardlab.experiments.compare.CompareSections`: what ``compare`` reports
        besides the win shares and the summary, from the two runs' frames and rule sets -- long rows of
        compare's columns (B − A paired on the same games, with 95% intervals) and how REPORT.md shows
        each section (Cartographers: points per scoring card in play, solo titles and thresholds).
    """

    id: str
    title: str
    description: str
    presets: tuple[str, ...]
    load_rules: Callable[[Any], Any]
    rules_error: type[Exception]
    rules_from_mapping: Callable[[dict], Any]
    tables: Callable[[Any, int], Any]
    new_game: Callable[[int, Any, int], Game]
    invariants: Callable[[Any], list[str]]
    result_columns: tuple[str, ...]
    players: tuple[int, int]
    kernel_sources: tuple[str, ...]
    agents_module: str
    chunk_player: str
    reference_game: Callable[[int, Any, int], Game] | None = None
    information: str = "perfect"
    chance: bool = True
    simultaneous: bool = False
    notes: dict = field(default_factory=dict)
    score_direction: str = "higher"
    placeholders: Callable[[Any], dict[str, str]] = no_placeholders
    unused: Callable[[Any], dict[str, str]] = none_unused
    rules_players: Callable[[Any], tuple[int, ...]] | None = None
    # --- the upper layers' parts, by import path ("module:attr"; None: the game has none) ---
    schema: str | None = None
    chunk_size: str | None = None
    move_log: str | None = None
    report: str | None = None
    skill_report: str | None = None
    bench: str | None = None
    scorer: str | None = None
    pairings: str | None = None
    skill_tiers: str | None = None
    # --- hidden information and the generic chunk player --------------------------
    # api_rows : str
    #     ``module:function`` (experiments layer): a finished public-API game -> its own result columns,
    #     {column: one value per seat}, for boardlab.experiments.play (the generic chunk player: any mix of Python
    #     agents and the game's built-ins).  The shared columns (game .. agent, total, rank, win_share,
    #     win) are that player's; "" when the game has no others.
    api_rows: str | None = None
    # --- the analysis commands' parts (compare, demo, sweep, tune, rescore); None: the game has none ---
    default_agents: str = "random"
    summary: tuple[tuple[str, str, tuple[str, ...]], ...] = (("score", "mean points", ("total",)),)
    seat_compensation: str | None = None
    rescorer: str | None = None
    # trainer : boardlab.experiments.train.Trainer -- ``train``: fits the learned weights of one of its agents
    trainer: str | None = None
    # compare_sections : boardlab.experiments.compare.CompareSections -- ``compare``'s sections of the game's own
    compare_sections: str | None = None
    # seat_agent : (agent specs) -> spec -- the every-seat agent of tune scoring's seat games (None: the first)
    seat_agent: str | None = None

    def __post_init__(self):
        if self.score_direction not in ("higher", "lower"):
            raise GameError(f"{self.id}: score_direction must be 'higher' or 'lower', got {self.score_direction!r}")

    @property
    def default_preset(self) -> str:
        return self.presets[0]

    def players_for(self, rules) -> tuple[int, ...]:
        """The player counts the game plays under `rules`, ascending.

        Parameters
        ----------
        rules : RuleSet
            A rule set of this game (``load_rules``'s result).

        Returns
        -------
        tuple of int
            The counts of ``rules_players`` within the registry's ``players`` range (all of that range when
            the game names no ``rules_players``).
        """
        lo, hi = self.players
        if self.rules_players is None:
            return tuple(range(lo, hi + 1))
        return tuple(sorted({int(n) for n in self.rules_players(rules) if lo <= n <= hi}))

    def players_error(self, players: int, rules) -> str | None:
        """Why `players` cannot play under `rules` (one line naming the counts allowed), or None if it can.

        Parameters
        ----------
        players : int
            A player count.
        rules : RuleSet
            A rule set of this game.

        Returns
        -------
        str or None
            ``"rules 'official' of citadels allow 2..7 players, got 8"``; None when the count is supported.
        """
        counts = self.players_for(rules)
        if players in counts:
            return None
        name = getattr(rules, "name", "?")
        if not counts:
            return f"rules {name!r} of {self.id} allow no player count"
        return f"rules {name!r} of {self.id} allow {counts_text(counts)} players, got {players}"

    def agents(self):
        """The game's agent registry: the ``REGISTRY`` (a :class:`boardlab.agents.specs.Registry`) of its
        ``agents_module``, imported on first use."""
        return importlib.import_module(self.agents_module).REGISTRY

    def part(self, name: str):
        """The object a part's import path names (imported on first use); GameError, one line, when the
        game has none ("cartographers has no move log")."""
        if name not in PARTS:
            raise KeyError(f"no game part {name!r} (parts: {', '.join(PARTS)})")
        path = getattr(self, name)
        if path is None:
            raise GameError(f"{self.id} has no {PARTS[name]}")
        module, _, attr = path.partition(":")
        return getattr(importlib.import_module(module), attr)

    def has(self, name: str) -> bool:
        """Whether the game names part `name`."""
        if name not in PARTS:
            raise KeyError(f"no game part {name!r} (parts: {', '.join(PARTS)})")
        return getattr(self, name) is not None

    def play_chunk(self, *args, **kwargs):
        """The chunk player's rows as a pandas DataFrame (what analyses and the conformance test read)."""
        table = self.part("chunk_player")(*args, **kwargs)
        return (table() if callable(table) else table).to_pandas()


_GAMES: dict[str, GameDef] = {}


def register(game: GameDef) -> GameDef:
    """Add a game under its id (a second registration of the same id is refused)."""
    if game.id in _GAMES and _GAMES[game.id] is not game:
        raise GameError(f"game {game.id!r} is already registered")
    _GAMES[game.id] = game
    return game


def builtin_games() -> dict[str, str]:
    """The built-in games: id -> the module whose import registers it; the default game first, then by id.

    They are the entry points of group ``boardlab.games`` that lie inside the ``boardlab`` package (the
    toolkit's ``pyproject.toml`` declares them, as a plugin declares its game).  A checkout used without an
    install has no entry points: then every ``boardlab/sim/<game>/game.py`` is one, the default game first.

    Returns
    -------
    dict of str to str
        Game id -> module path.
    """
    global _BUILTIN
    if _BUILTIN is None:
        from importlib.metadata import entry_points

        found = {
            ep.name: ep.module for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.module.startswith(_PACKAGE + ".")
        }
        if not found:  # a source checkout on sys.path without an install
            from pathlib import Path

            found = {p.parent.name: f"{_PACKAGE}.{p.parent.name}.game" for p in Path(__file__).parent.glob("*/game.py")}
        _BUILTIN = {gid: found[gid] for gid in sorted(found, key=lambda g: (g != DEFAULT_GAME, g))}
    return _BUILTIN


_PACKAGE = __name__.rpartition(".")[0]  # boardlab.sim: the built-in games are its subpackages
_BUILTIN: dict[str, str] | None = None  # builtin_games(), read once


def _load_builtin() -> None:
    for gid, module in builtin_games().items():
        if gid not in _GAMES:
            importlib.import_module(module)


# --- games from installed packages ---------------------------------------------------
# A package registers a game through the entry-point group ``boardlab.games`` (the way pytest finds its
# plugins), in its pyproject.toml:
#
#     [project.entry-points."boardlab.games"]
#     pig = "boardlab_pig.game:GAME"          # a GameDef, or a module whose import registers the game
#
# Plugins load after the built-in games, on first need: when every game is listed, or an id that is not
# built in is asked for.  A plugin that fails to load, or registers no game of its entry point's name,
# is a GameError naming it (one line).  The numba cache guard never loads them (kernel_sources()).
ENTRY_POINT_GROUP = "boardlab.games"
# The top-level packages of the layout before the boardlab namespace: a plugin importing one is told where
# they went, in one line, rather than failing with a ModuleNotFoundError.
OLD_LAYOUT = frozenset({"sim", "agents", "experiments"})
_PLUGINS_LOADED = False
_BROKEN: dict[str, str] = {}  # entry-point name -> its one-line error


def _load_plugins() -> None:
    global _PLUGINS_LOADED
    if _PLUGINS_LOADED:
        return
    _PLUGINS_LOADED = True  # once, even if one fails: the error is raised where it was asked for
    from importlib.metadata import entry_points

    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        if ep.name in _GAMES or ep.name in builtin_games():
            continue
        try:
            loaded = ep.load()
            if isinstance(loaded, GameDef) and loaded.id not in _GAMES:
                register(loaded)
        except ModuleNotFoundError as e:
            if (e.name or "").split(".")[0] in OLD_LAYOUT:  # written against the layout before the namespace
                _BROKEN[ep.name] = (
                    f"game plugin {ep.name!r} ({ep.value}) imports {e.name!r} from the layout before the boardlab "
                    "namespace: its imports now start with boardlab. (docs/migrating.md maps every old path)"
                )
            else:
                _BROKEN[ep.name] = f"game plugin {ep.name!r} ({ep.value}) cannot be loaded: ModuleNotFoundError: {e}"
            continue
        except Exception as e:  # a broken plugin is its author's to fix: say which, in one line
            text = str(e).strip().splitlines()
            _BROKEN[ep.name] = f"game plugin {ep.name!r} ({ep.value}) cannot be loaded: {type(e).__name__}: " + (
                text[0] if text else "no message"
            )
            continue
        if ep.name not in _GAMES:
            _BROKEN[ep.name] = f"game plugin {ep.name!r} ({ep.value}) registers no game {ep.name!r}"


def available_games() -> list[GameDef]:
    """Every registered game, built-in ones first, then the installed plugins (GameError if one is broken)."""
    _load_builtin()
    _load_plugins()
    if _BROKEN:
        raise GameError(next(iter(_BROKEN.values())))
    return list(_GAMES.values())


def get_game(game_id: str | GameDef = DEFAULT_GAME) -> GameDef:
    """The definition of `game_id`; GameError (one line, naming the valid ids) if unknown."""
    if isinstance(game_id, GameDef):
        return game_id
    _load_builtin()
    key = str(game_id).strip().lower()
    if key not in _GAMES:
        _load_plugins()
        if key in _BROKEN:
            raise GameError(_BROKEN[key])
    if key not in _GAMES:
        raise GameError(f"unknown game {game_id!r} (valid: {', '.join(_GAMES)})")
    return _GAMES[key]


def kernel_sources() -> tuple[str, ...]:
    """Every built-in game's kernel files (what the numba cache guard hashes; a plugin's kernels are in its
    own package, beside their own numba cache)."""
    _load_builtin()
    builtin = builtin_games()
    return tuple(dict.fromkeys(f for gid, g in _GAMES.items() if gid in builtin for f in g.kernel_sources))
