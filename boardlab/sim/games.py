"""The game registry: one :class:`GameDef` per game, looked up by string id.

A game lives in three layers (``docs/architecture.md``): its rules, tables, kernels, reference and public API
in ``sim/<game>/``; its agents in ``agents/<game>/``; its chunk player (a batch of games -> result rows),
result schema, report, bench and other parts in ``experiments/<game>/``.  The registry sits at the bottom,
beside the core, because the numba cache guard (:mod:`boardlab.sim._cache`) needs every game's kernel files
before any kernel loads.

A definition is a small core (what the game is, its rules, its public API, its agents' module, its result
columns) and typed capabilities (:data:`CAPABILITIES`): :class:`Kernels` (numba games only),
:class:`Simulation`, :class:`Reports`, :class:`Bench`, :class:`Training`, :class:`Scoring`, :class:`Ladder`.
A capability holds its own layer's objects as they are and names the upper layers' parts by import path,
as :class:`Lazy` references resolved on demand -- as Gymnasium's registry names environments by entry-point
strings.  Nothing here imports ``agents`` or ``experiments`` when it loads; ``tests/core/test_layers.py``
holds every module to that.  A command asks for the part it needs with :meth:`GameDef.require` (a one-line
:class:`GameError` when the game lacks it) or :meth:`GameDef.optional`; :data:`NEEDS` lists every part.

Each game registers itself in its ``sim/<game>/game.py``.  Built-in games and plugins are found the same
way: through the entry-point group ``boardlab.games`` (the toolkit's own ``pyproject.toml`` declares the
built-in ones there, as a plugin's does); this module names no game but the default.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from boardlab.sim.contract import Game

DEFAULT_GAME = "citywright"


class GameError(ValueError):
    """An unknown game id (the message lists the registered ones), or a part a game does not have
    ("cartographers has no move log"); one line for the user."""


def default_game() -> str:
    """The id every ``--game`` option and game-agnostic function defaults to (the registry decides it).

    Returns
    -------
    str
        The default game's id.
    """
    return DEFAULT_GAME


T = TypeVar("T")


@dataclass(frozen=True)
class Lazy(Generic[T]):
    """A reference to an object of an upper layer by import path, imported on first :meth:`get`.

    The registry sits below the layers whose parts it names (a chunk player, a report), so it holds them as
    ``"module:attr"`` paths; nothing is imported until a command asks for the part.

    Parameters
    ----------
    path : str
        ``"package.module:attribute"``.
    """

    path: str

    def __post_init__(self) -> None:
        module, sep, attr = self.path.partition(":") if isinstance(self.path, str) else ("", "", "")
        if not (module and sep and attr):
            raise GameError(f"a lazy part is named 'module:attr', got {self.path!r}")

    def get(self) -> T:
        """The object the path names, its module imported if need be.

        Returns
        -------
        T
            The module's attribute.
        """
        module, _, attr = self.path.partition(":")
        return getattr(importlib.import_module(module), attr)


def _about(what: str, command: str) -> dict[str, str]:
    """A capability part's description for the need table (:data:`NEEDS`): how a user reads it, who needs it."""
    return {"what": what, "command": command}


@dataclass(frozen=True)
class Kernels:
    """A numba game's kernels: what the cache guard hashes and the arrays they read.

    Parameters
    ----------
    tables : callable(rules, players) -> tables
        Rule set -> the plain arrays the kernels read.
    sources : tuple of str
        Every file (relative to the repository root) the game's numba kernels -- engine and agents -- are
        compiled from, constants included (:mod:`boardlab.sim._cache` hashes them; ``boardlab warmup`` reports
        them).
    """

    tables: Callable[[Any, int], Any]
    sources: tuple[str, ...]


@dataclass(frozen=True)
class Simulation:
    """How a batch of games becomes result rows: what ``simulate`` and everything that plays needs.

    Parameters
    ----------
    chunk_player : Lazy
        ``(rules, players, agents, seating, run_seed, start, stop) -> pyarrow.Table``: games ``start..stop-1``
        of a run as one row per (game, seat), a table of the game's result schema
        (``boardlab.experiments.schema.table`` builds one from columns).  A game whose table costs as much as its
        play may return a function of no arguments that builds it: ``simulate --jobs 1`` then builds it on its
        writer thread while the next chunk plays.  Everything about game g must come from (run_seed, g, seating)
        alone.  A pure-Python game binds ``boardlab.experiments.play.play_table`` to itself.
    schema : Lazy or None
        The result ``pyarrow.Schema``, in ``result_columns`` order: the core columns with the core's types and
        the game's own (``boardlab.experiments.schema.result_schema``).  None: the core columns only.
    chunk_size : Lazy or None
        ``(agents, games) -> int`` games per chunk of a run of these parsed agents (a few seconds of work each).
        None: ``boardlab.experiments.simulate.DEFAULT_CHUNK``.
    move_log : Lazy or None
        The chunk player that also logs every move (``simulate --moves``): ``(...) -> (table, moves)``, or a
        function giving the pair.
    api_rows : Lazy or None
        A finished public-API game -> its own result columns, ``{column: one value per seat}``, for the generic
        chunk player (:mod:`boardlab.experiments.play`, which plays Python agents).  None: no columns but the
        core's.
    trajectory_player : Lazy or None
        ``(rules, players, agents, seating, run_seed, start, stop) -> (result table, trajectory table)`` for
        built-in agents: the games the chunk player plays, with every decision recorded
        (:data:`boardlab.experiments.play.TRAJECTORY_SCHEMA`), as ``boardlab.experiments.play.play_tables``
        records them through the public API, without it.  The game-anatomy report plays through it when every
        seat is a built-in agent.  None: the generic chunk player's trajectories.
    """

    chunk_player: Lazy[Callable[..., Any]] = field(metadata=_about("chunk player", "simulate"))
    schema: Lazy[Any] | None = field(default=None, metadata=_about("result schema", "every table written"))
    chunk_size: Lazy[Callable[[Any, int], int]] | None = field(
        default=None, metadata=_about("chunk-size rule", "simulate")
    )
    move_log: Lazy[Callable[..., Any]] | None = field(default=None, metadata=_about("move log", "simulate --moves"))
    api_rows: Lazy[Callable[[Any], dict]] | None = field(
        default=None, metadata=_about("reader of result columns from a finished game", "simulate with Python agents")
    )
    trajectory_player: Lazy[Callable[..., Any]] | None = field(
        default=None, metadata=_about("recorded game loop", "reproduce's game-anatomy report")
    )


DEFAULT_SUMMARY: tuple[tuple[str, str, tuple[str, ...]], ...] = (("score", "mean points", ("total",)),)


@dataclass(frozen=True)
class Reports:
    """What the reporting commands (``reproduce``, ``compare``, ``demo``) read of a game.

    Parameters
    ----------
    report : Lazy or None
        A :class:`boardlab.experiments.report.Report`: what ``reproduce`` plays and writes.  None: the generic
        balance report, where the game declares ``progress(player)``.
    skill_report : Lazy or None
        ``reproduce --skill``: the report across the game's skill tiers.
    summary : tuple of (name, what, columns)
        The per-player numbers of a result row worth summarising, in sections: ``compare`` reports each column's
        paired difference, ``demo`` its mean.  Default: the total score.
    compare_sections : Lazy or None
        A :class:`boardlab.experiments.compare.CompareSections`: ``compare``'s sections of the game's own, after
        the generic ones (long rows of compare's columns, B - A paired on the same games, with 95% intervals,
        and how REPORT.md shows each section).
    """

    report: Lazy[Any] | None = field(default=None, metadata=_about("report", "reproduce"))
    skill_report: Lazy[Any] | None = field(default=None, metadata=_about("skill report", "reproduce --skill"))
    summary: tuple[tuple[str, str, tuple[str, ...]], ...] = DEFAULT_SUMMARY
    compare_sections: Lazy[Any] | None = field(default=None, metadata=_about("compare sections of its own", "compare"))


@dataclass(frozen=True)
class Bench:
    """``boardlab bench``: the game's throughput on this machine.

    Parameters
    ----------
    bench : Lazy
        A :class:`boardlab.experiments.bench.Bench`: the figures (a function) and their targets.
    """

    bench: Lazy[Any] = field(metadata=_about("benchmark", "bench"))


@dataclass(frozen=True)
class Training:
    """``boardlab train``: fitting the learned weights of one of the game's agents.

    Parameters
    ----------
    trainer : Lazy
        A :class:`boardlab.experiments.train.Trainer`; with ``out_for`` and ``trained_with`` (weights per rule
        set) it also serves ``tune scoring --train``.
    """

    trainer: Lazy[Any] = field(metadata=_about("trainer (train fits learned weights)", "train"))


@dataclass(frozen=True)
class Scoring:
    """Scores outside a played run: boards from files, stored games under other rules, seat compensation.

    Parameters
    ----------
    scorer : Lazy or None
        ``score``: ``(sources, rules) -> list[(result, text)]``; ``sources`` is a list of (text, name) read from
        the user's files, ``rules`` a rule set or None; each board or map found, as a JSON-able dict and as
        printed text.  A malformed board raises ValueError (one line, naming it).
    rescorer : Lazy or None
        ``rescore``: ``(rows of one run, rules) -> rows`` recomputing scores, ranks and win shares from stored
        play under other rules; ValueError, one line, on a table it cannot rescore.
    seat_compensation : Lazy or None
        ``tune seats``: a :class:`boardlab.experiments.compensation.SeatCompensation` (the compensation column,
        its rule key and the rank key) to re-rank stored games with.
    seat_agent : Lazy or None
        ``(agent specs) -> spec``: the agent in every seat of the seat games ``tune scoring --objective
        seats|both`` measures, given the study's agents (Citywright: a tier's specialists -> the tier's plain
        agent).  None: the first of the agents.
    """

    scorer: Lazy[Callable[..., list]] | None = field(default=None, metadata=_about("board scorer", "score"))
    rescorer: Lazy[Callable[..., Any]] | None = field(default=None, metadata=_about("rescorer", "rescore"))
    seat_compensation: Lazy[Any] | None = field(default=None, metadata=_about("seat compensation", "tune seats"))
    seat_agent: Lazy[Callable[[list[str]], str]] | None = field(
        default=None, metadata=_about("every-seat agent for the specialists' tier", "tune scoring --objective seats")
    )


@dataclass(frozen=True)
class Ladder:
    """Which agents play when none are named: ladders, tiers and the balance agents.

    Parameters
    ----------
    pairings : Lazy or None
        ``ladder`` without ``--agents``: a list of (name, one agent spec per seat, the win share the first agent
        should reach).
    skill_tiers : Lazy or None
        ``() -> {name: (spec, description)}``: names for full agent specs (``agents`` lists them; results store
        the spec and the tier).  None: the game has no tiers of its own.
    default_agents : str
        The ``--agents`` of ``compare``, ``sweep`` and ``tune scoring`` when none are given.
    """

    pairings: Lazy[list] | None = field(
        default=None, metadata=_about("fixed ladder pairings", "ladder without --agents")
    )
    skill_tiers: Lazy[Callable[[], dict]] | None = field(default=None, metadata=_about("skill tiers", "agents"))
    default_agents: str = "random"


# The capabilities a GameDef may carry: its field name -> the capability's type.
CAPABILITIES: dict[str, type] = {
    "kernels": Kernels,
    "simulation": Simulation,
    "reports": Reports,
    "bench": Bench,
    "training": Training,
    "scoring": Scoring,
    "ladder": Ladder,
}


@dataclass(frozen=True)
class Need:
    """One part a command may need of a game (a :class:`Lazy` field of a capability): where it sits, and how a
    user reads it in "<game> has no <what>"."""

    name: str
    capability: str
    what: str
    command: str

    def lazy(self, game: GameDef) -> Lazy | None:
        """The game's reference to this part, or None where the game has none.

        Parameters
        ----------
        game : GameDef
            The game asked.

        Returns
        -------
        Lazy or None
            The part's import path, unresolved.
        """
        cap = getattr(game, self.capability)
        return None if cap is None else getattr(cap, self.name)


# Every part a command may need: part name -> Need, read off the capabilities' fields (a new capability's parts
# join this table, and the tests that walk it, without an edit here).
NEEDS: dict[str, Need] = {
    f.name: Need(f.name, cap_name, f.metadata["what"], f.metadata["command"])
    for cap_name, cap in CAPABILITIES.items()
    for f in fields(cap)
    if "what" in f.metadata
}


def no_placeholders(rules) -> dict[str, str]:
    """GameDef.placeholders of a game whose every rule number is the designer's: none.

    Parameters
    ----------
    rules : RuleSet
        The rule set (not read).

    Returns
    -------
    dict of str to str
        Always empty.
    """
    return {}


def none_unused(rules) -> dict[str, str]:
    """GameDef.unused of a game whose every rule key plays a part under any rules: none.

    Parameters
    ----------
    rules : RuleSet
        The rule set (not read).

    Returns
    -------
    dict of str to str
        Always empty.
    """
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
    """What the toolkit needs to know of one game: a small core, and the capabilities it has.

    The core (every field without a default is required):

    Attributes
    ----------
    id : str
        Registry key and ``--game`` value.
    title, description : str
        For ``boardlab games``.
    presets : tuple[str, ...]
        Rule presets; the first is the default.
    load_rules : callable(spec) -> rules
        A preset name, a TOML variant file or a rules object -> a validated rule set.
    rules_error : type[Exception]
        What ``load_rules`` raises on bad input (its message is one line for the user).
    rules_from_mapping : callable(dict) -> rules
        A full rule mapping, as a result's metadata stores it -> the rule set.
    new_game : callable(players, rules, seed) -> boardlab.sim.contract.Game
        The public API's game: the members of the :class:`boardlab.sim.contract.Game` protocol
        (``done``, ``current``, ``legal_moves()``, ``is_legal``, ``apply``, ``snapshot()``, ``scores()``,
        ``random_move()``, ``copy()``, ``observation()``, ``redeal()``).
    invariants : callable(game) -> list[str]
        Violations of the game's declared invariants in a position (empty when all hold).
    result_columns : tuple[str, ...]
        The columns of a result table, one row per (game, seat): the core columns every
        game shares (``boardlab.experiments.schema.CORE_COLUMNS``) among the game's own.
    players : tuple[int, int]
        Smallest and largest player count under any rule set the game accepts (the union of
        :meth:`players_for` over its presets spans exactly this range).
    agents_module : str
        Import path of the game's agent registry module (agents layer), whose ``REGISTRY`` (a
        :class:`boardlab.agents.specs.Registry`) is what :meth:`agents` returns.
    simulation : Simulation
        Its chunk player and result schema: what ``simulate`` and everything that plays needs.
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
    rules_players : callable(rules) -> tuple[int, ...] or None
        The player counts a rule set supports (Citadels' ``players_allowed``: ``official`` plays 2..7, its
        ``seed-summary`` 2..8).  None: every count of ``players``, whatever the rules.  :meth:`players_for`
        asks it; every command checks a player count there once it knows the rules.

    The capabilities, each a typed object (:data:`CAPABILITIES`) whose upper-layer parts are :class:`Lazy`
    references, imported on first use; a command that needs a part the game lacks says so in one line
    (:meth:`require`):

    kernels : Kernels or None
        Numba games only: the kernels' tables and source files.  None: a pure-Python game.
    reports : Reports
        ``reproduce``'s reports, and what ``compare`` and ``demo`` summarise.
    bench : Bench or None
        ``bench``.
    training : Training or None
        ``train`` (and ``tune scoring --train``).
    scoring : Scoring
        ``score``, ``rescore``, ``tune seats`` and ``tune scoring``'s seat agent.
    ladder : Ladder
        ``ladder``'s fixed pairings, the skill tiers and the default agents.
    """

    id: str
    title: str
    description: str
    presets: tuple[str, ...]
    load_rules: Callable[[Any], Any]
    rules_error: type[Exception]
    rules_from_mapping: Callable[[dict], Any]
    new_game: Callable[[int, Any, int], Game]
    invariants: Callable[[Any], list[str]]
    result_columns: tuple[str, ...]
    players: tuple[int, int]
    agents_module: str
    simulation: Simulation
    reference_game: Callable[[int, Any, int], Game] | None = None
    information: str = "perfect"
    chance: bool = True
    simultaneous: bool = False
    score_direction: str = "higher"
    placeholders: Callable[[Any], dict[str, str]] = no_placeholders
    unused: Callable[[Any], dict[str, str]] = none_unused
    rules_players: Callable[[Any], tuple[int, ...]] | None = None
    # --- the capabilities (CAPABILITIES); None, or a part left None: the game has none ---
    kernels: Kernels | None = None
    reports: Reports = Reports()
    bench: Bench | None = None
    training: Training | None = None
    scoring: Scoring = Scoring()
    ladder: Ladder = Ladder()

    def __post_init__(self):
        if self.score_direction not in ("higher", "lower"):
            raise GameError(f"{self.id}: score_direction must be 'higher' or 'lower', got {self.score_direction!r}")
        for name, cap in CAPABILITIES.items():
            value = getattr(self, name)
            if not (isinstance(value, cap) or (value is None and name not in _ALWAYS)):
                raise GameError(f"{self.id}: {name} must be a {cap.__name__}, got {type(value).__name__}")

    @property
    def default_preset(self) -> str:
        """The game's default preset: the first of ``presets``."""
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

    def require(self, need: str) -> Any:
        """The part a command needs (imported on first use); GameError, one line, when the game has none.

        Parameters
        ----------
        need : str
            A part's name in :data:`NEEDS` (``"move_log"``, ``"bench"``, ``"trainer"``, ...).

        Returns
        -------
        object
            What the part's :class:`Lazy` names.

        Raises
        ------
        GameError
            ``"cartographers has no move log"``.
        """
        lazy = _need(need).lazy(self)
        if lazy is None:
            raise GameError(f"{self.id} has no {NEEDS[need].what}")
        return lazy.get()

    def optional(self, need: str) -> Any | None:
        """The part a command uses where the game has it (imported on first use), or None.

        Parameters
        ----------
        need : str
            A part's name in :data:`NEEDS`.

        Returns
        -------
        object or None
            What the part's :class:`Lazy` names; None when the game has none.
        """
        lazy = _need(need).lazy(self)
        return None if lazy is None else lazy.get()

    def tiers(self) -> dict[str, tuple[str, str]]:
        """The game's skill tiers (its Ladder's ``skill_tiers``), or {} for a game that declares none.

        Returns
        -------
        dict of str to (str, str)
            Tier name -> (full agent spec, description), weakest first.
        """
        skill_tiers = self.optional("skill_tiers")
        return dict(skill_tiers()) if skill_tiers is not None else {}

    def play_chunk(self, *args, **kwargs):
        """The chunk player's rows as a pandas DataFrame (what analyses and the conformance test read).

        Parameters
        ----------
        *args, **kwargs
            Passed to the game's chunk player (``simulation.chunk_player``) as they are.

        Returns
        -------
        pandas.DataFrame
            One row per (game, seat), the game's result columns.
        """
        table = self.simulation.chunk_player.get()(*args, **kwargs)
        return (table() if callable(table) else table).to_pandas()


_ALWAYS = frozenset({"simulation", "reports", "scoring", "ladder"})  # capabilities every game has (defaults above)


def _need(name: str) -> Need:
    if name not in NEEDS:
        raise KeyError(f"no game part {name!r} (parts: {', '.join(NEEDS)})")
    return NEEDS[name]


_GAMES: dict[str, GameDef] = {}


def register(game: GameDef) -> GameDef:
    """Add a game under its id (a second registration of the same id is refused).

    Parameters
    ----------
    game : GameDef
        The game's definition.

    Returns
    -------
    GameDef
        `game` itself (so a module can write ``GAME = register(GameDef(...))``).

    Raises
    ------
    GameError
        Another definition is registered under the same id.
    """
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
    """Every registered game, built-in ones first, then the installed plugins.

    Returns
    -------
    list of GameDef
        One definition per game, in registration order.

    Raises
    ------
    GameError
        An installed plugin is broken (fails to import, or registers no game of its entry point's name).
    """
    _load_builtin()
    _load_plugins()
    if _BROKEN:
        raise GameError(next(iter(_BROKEN.values())))
    return list(_GAMES.values())


def get_game(game_id: str | GameDef = DEFAULT_GAME) -> GameDef:
    """The definition of a registered game.

    Parameters
    ----------
    game_id : str or GameDef
        The game's id (case and surrounding blanks ignored); a GameDef is returned as it is.

    Returns
    -------
    GameDef
        The game's definition.

    Raises
    ------
    GameError
        The id is unknown (one line, naming the valid ids) or its plugin is broken.
    """
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
    own package, beside their own numba cache).

    Returns
    -------
    tuple of str
        Paths from the repository root, each once, in registration order.
    """
    _load_builtin()
    builtin = builtin_games()
    return tuple(
        dict.fromkeys(
            f for gid, g in _GAMES.items() if gid in builtin and g.kernels is not None for f in g.kernels.sources
        )
    )
