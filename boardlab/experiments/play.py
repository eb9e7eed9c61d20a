"""The generic chunk player: games start..stop-1 of a run through a game's public API, any mix of agents.

A seat is a Python agent -- a generic one (``random``, ``ismcts``: :mod:`boardlab.agents.generic`) or a user's
``py:module:Name`` -- or one of the game's built-in agents, which the game's registry turns into a
per-move player (``builtin_player(spec)``: its kernel move, made in place).  A Python agent is given
only its observation, the listed moves and its generator (:mod:`boardlab.agents.generic.base`).

Everything about game g is a function of (run seed, g, seating): its seed (:func:`boardlab.sim.seeds.game_seeds`),
its seats (:func:`boardlab.experiments.seating.seat_orders`), every agent's generator (seeded from a keyed hash of
the game seed and the seat: :func:`boardlab.agents.generic.base.agent_rng`) and the agents themselves (a Python
agent is made afresh for every game).  So a chunk gives the same rows on any process, in any order, on
any number of processes -- and with Python agents in processes of their own (:mod:`boardlab.experiments.isolation`).

A Python agent that raises, calls ``sys.exit``, returns ``None`` or a move the game refuses ends the chunk
with an :class:`boardlab.experiments.isolation.AgentFailure` naming the game, its seed, the seat and the agent.

The rows, one per (game, seat), hold the columns every game shares (``game, game_seed, rules, players,
seat, agent, total, rank, win_share, win``) and the game's own, which its ``api_rows`` function (named
in its :class:`boardlab.sim.games.Simulation` by import path) reads from the finished game.  Nothing here names a
game.

Asked for trajectories (:func:`play_tables`), it also records one row per move in a separate table
(:data:`TRAJECTORY_SCHEMA`) from the optional capabilities ``decision_kind()``, ``progress(player)`` and
``capped()``: what the anatomy panel (:mod:`boardlab.experiments.anatomy`) reads; its branching, from
``legal_count()`` where the game counts its moves without listing them, else ``len(legal_moves())``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import pyarrow as pa

from boardlab.agents.generic.base import agent_rng, agent_rngs, observes
from boardlab.agents.generic.prefers import family_of, restrict
from boardlab.experiments.isolation import AgentFailure, AgentProcesses, Isolation, failure_of
from boardlab.experiments.schema import schema_of, table
from boardlab.experiments.seating import seat_orders
from boardlab.sim.games import GameDef, get_game
from boardlab.sim.seeds import game_seeds


def needs_api(agents: list) -> bool:
    """Whether a run with these parsed agents must be played here (some agent is a Python agent).

    Parameters
    ----------
    agents : list of AgentSpec or PythonSpec
        The parsed agents.

    Returns
    -------
    bool
        True when some agent is a Python agent.
    """
    return any(getattr(a, "python", False) for a in agents)


def api_rows_of(game: GameDef) -> Callable | None:
    """The game's function from a finished API game to its own result columns (None: the shared ones only).

    Parameters
    ----------
    game : GameDef
        The game.

    Returns
    -------
    callable or None
        ``rows(game) -> dict of column -> per-seat values``.
    """
    return game.optional("api_rows")


def seat_players(game: GameDef, agents: list) -> list[Callable[[], object]]:
    """Per agent, a maker of its seat's player for one game: a fresh Python agent (an object with act),
    or the game's per-move player of a built-in agent (a callable on the game; made once, it keeps no
    state between games).

    Parameters
    ----------
    game : GameDef
        The game.
    agents : list of AgentSpec or PythonSpec
        The run's agents.

    Returns
    -------
    list of callable
        One maker per agent.
    """
    reg = game.agents()
    makers = []
    for a in agents:
        if getattr(a, "python", False):
            makers.append(a.make)
        else:
            play = reg.builtin_player(a)
            makers.append(lambda play=play: play)
    return makers


TRAJECTORY_SCHEMA = pa.schema(
    [
        ("game", pa.int64()), ("step", pa.int32()), ("seat", pa.int8()), ("legal", pa.int32()),
        ("kind", pa.large_string()), ("progress", pa.list_(pa.float64())), ("capped", pa.bool_()),
    ]
)  # fmt: skip


def trajectory_table(
    start: int,
    steps: np.ndarray,
    seat: np.ndarray,
    legal: np.ndarray,
    progress: np.ndarray,
    capped: np.ndarray | None = None,
    kinds: np.ndarray | None = None,
    kind_names: tuple[str, ...] = (),
) -> pa.Table:
    """A game loop's recorded decisions as the trajectory table (:data:`TRAJECTORY_SCHEMA`): what a game's
    ``trajectory_player`` (:class:`boardlab.sim.games.Simulation`) returns beside its result table.

    Parameters
    ----------
    start : int
        The first game's number (games start, start + 1, ...).
    steps : numpy.ndarray
        int[G]: each game's number of decisions.
    seat : numpy.ndarray
        int[G, D]: per decision the seat (0-based) that decided (entries past a game's steps are ignored).
    legal : numpy.ndarray
        int[G, D]: per decision its number of legal moves.
    progress : numpy.ndarray
        float[G, D, N]: every seat's progress after each decision.
    capped : numpy.ndarray, optional
        bool[G]: whether each game ended at a cap (default: none did).
    kinds : numpy.ndarray, optional
        int[G, D]: per decision its kind's index into `kind_names` (default: no kinds, "").
    kind_names : tuple of str
        The kinds' names.

    Returns
    -------
    pyarrow.Table
        One row per decision, games in order.
    """
    steps = np.asarray(steps, dtype=np.int64)
    g, d = seat.shape[:2]
    players = progress.shape[2]
    keep = np.arange(d)[None, :] < steps[:, None]  # [G, D]
    rows = int(steps.sum())
    game = np.repeat(np.arange(start, start + g, dtype=np.int64), steps)
    step = (np.nonzero(keep)[1] + 1).astype(np.int32)
    if kinds is None:
        kind = pa.repeat(pa.scalar("", pa.large_string()), rows)
    else:
        kind = pa.array(list(kind_names), pa.large_string()).take(np.asarray(kinds, dtype=np.int64)[keep])
    values = pa.array(np.ascontiguousarray(progress[keep], dtype=np.float64).reshape(-1))
    offsets = pa.array(np.arange(0, players * (rows + 1), players, dtype=np.int32))
    flags = np.zeros(g, dtype=bool) if capped is None else np.asarray(capped, dtype=bool)
    return pa.Table.from_arrays(
        [
            pa.array(game), pa.array(step), pa.array(seat[keep].astype(np.int8) + 1),
            pa.array(legal[keep].astype(np.int32)), kind, pa.ListArray.from_arrays(offsets, values),
            pa.array(np.repeat(flags, steps)),
        ],
        schema=TRAJECTORY_SCHEMA,
    )  # fmt: skip


def has_progress(g) -> bool:
    """Whether a public-API game object declares the running-score capability ``progress(player)``.

    Parameters
    ----------
    g : Game
        The public-API game.

    Returns
    -------
    bool
        True when it has ``progress``.
    """
    return callable(getattr(g, "progress", None))


class Recorder:
    """One game's course as the generic chunk player sees it: per decision the seat, the legal moves, the kind and
    every seat's ``progress`` after the move (:func:`play_game`'s `record`).

    Parameters
    ----------
    players : int
        Seats per game.
    """

    def __init__(self, players: int):
        self.players = players
        self.seats: list[int] = []
        self.legal: list[int] = []
        self.kinds: list[str] = []
        self.progress: list[list[float]] = []
        self.capped = False

    def before(self, g) -> None:
        """Called before a move: the seat to move, its number of legal moves and the decision's kind.

        Parameters
        ----------
        g : Game
            The public-API game.
        """
        self.seats.append(g.current)
        count = getattr(g, "legal_count", None)  # a game whose listings are long counts them without listing
        self.legal.append(int(count()) if callable(count) else len(g.legal_moves()))
        kind = getattr(g, "decision_kind", None)
        self.kinds.append(str(kind()) if callable(kind) else "")

    def after(self, g) -> None:
        """Called after a move: every seat's points so far.

        Parameters
        ----------
        g : Game
            The public-API game.
        """
        self.progress.append([float(g.progress(p)) for p in range(self.players)])

    def end(self, g) -> None:
        """Called at the end of the game: whether it ended at a cap.

        Parameters
        ----------
        g : Game
            The public-API game.
        """
        capped = getattr(g, "capped", None)
        self.capped = bool(capped()) if callable(capped) else False

    def columns(self, game_number: int) -> dict[str, list]:
        """The trajectory table's columns of this game (empty lists when no move was made).

        Parameters
        ----------
        game_number : int
            The game's index in the run.

        Returns
        -------
        dict of str to list
            Column name -> one value per decision.
        """
        n = len(self.seats)
        return {
            "game": [game_number] * n, "step": list(range(1, n + 1)), "seat": [s + 1 for s in self.seats],
            "legal": self.legal, "kind": self.kinds, "progress": self.progress, "capped": [self.capped] * n,
        }  # fmt: skip


def play_game(
    game: GameDef, rules, seats: list, seed: int, names: list[str] | None = None, record=None, rngs: list | None = None
):
    """One game from its seed, seat s played by seats[s] (Python agents or built-in per-move players).

    Parameters
    ----------
    game : GameDef
        The game.
    rules :
        Its rule set.
    seats : list
        Per seat, a Python agent (an object with ``act``) or a built-in per-move player (a callable on the game).
    seed : int
        The game seed.
    names : list of str, optional
        Per seat, the agent's spec, for an AgentFailure's message.
    record : Recorder, optional
        Told of every move (before and after it) and of the end, for the trajectory table.
    rngs : list of numpy.random.Generator, optional
        Per seat, its agent's generator, as :func:`boardlab.agents.generic.base.agent_rng` makes it from the game
        seed (a chunk makes its games' together: ``agent_rngs``); default: made here.

    Returns
    -------
    game
        The finished API game.  A Python agent's failure (an exception, ``sys.exit``, ``None`` or a move the game
        refuses) raises :class:`boardlab.experiments.isolation.AgentFailure` naming the seat and the agent.
    """
    g = game.new_game(len(seats), rules, int(seed))
    if rngs is None:
        rngs = [agent_rng(g.seed, s) for s in range(len(seats))]
    listing = getattr(g, "agent_moves", None) or g.legal_moves  # boardlab.agents.generic.base.agent_moves
    chooses = [_chooser(a, rngs[s]) for s, a in enumerate(seats)]
    if record is None and None not in chooses:
        _play_chosen(g, chooses, listing, names or [type(a).__name__ for a in seats])
        return g
    movers = [_mover(g, a, rngs[s], listing, chooses[s]) for s, a in enumerate(seats)]  # per seat, once a game
    while not g.done:
        p = g.current
        if record is not None:
            record.before(g)
        try:
            movers[p]()
        except AgentFailure as e:
            e.locate(game_seed=g.seed, seat=p, spec=names[p] if names else type(seats[p]).__name__)
            raise
        if record is not None:
            record.after(g)
    if record is not None:
        record.end(g)
    return g


def _chooser(agent, rng) -> Callable[[list], object] | None:
    """A Python agent's moves of one game as a function of the listed moves (its ``chooser(rng)``: an agent that
    observes nothing and draws only from `rng`, boardlab.agents.generic.uniform); None for any other seat, and for
    a restricted agent (offered its family's moves by :func:`restrict`)."""
    chooser = getattr(agent, "chooser", None)
    if not callable(chooser) or not callable(getattr(agent, "act", None)) or getattr(agent, "prefers", None):
        return None
    return chooser(rng)


def _play_chosen(g, chooses: list, listing, names: list[str]) -> None:
    """`g` played to its end by seats that all choose from the listed moves alone (:func:`_chooser`): the loop
    of :func:`play_game` without the observation, the restriction and the recorder, the same moves."""
    while not g.done:
        p = g.current
        try:
            chosen = chooses[p](listing())
        except (Exception, SystemExit) as e:
            raise failure_of(e).locate(game_seed=g.seed, seat=p, spec=names[p]) from e
        try:
            g.apply(chosen)
        except Exception as e:
            failure = failure_of(e, f"returned a move the game refuses ({_short(chosen)})")
            raise failure.locate(game_seed=g.seed, seat=p, spec=names[p]) from e


def _mover(g, agent, rng, listing, choose) -> Callable[[], None]:
    """Seat's move in `g` as a function of nothing: a built-in per-move player's, or a Python agent's
    (:func:`_python_move`, or by its `choose`: :func:`_chooser`)."""
    if not callable(getattr(agent, "act", None)):
        return lambda: agent(g)
    looks = observes(agent)
    narrow = bool(getattr(agent, "prefers", None))
    if choose is None:
        return lambda: _python_move(g, agent, rng, listing, looks, narrow)

    def move() -> None:
        try:
            chosen = choose(listing())
        except (Exception, SystemExit) as e:
            raise failure_of(e) from e
        try:
            g.apply(chosen)
        except Exception as e:
            raise failure_of(e, f"returned a move the game refuses ({_short(chosen)})") from e

    return move


def _python_move(g, agent, rng, listing, looks: bool, narrow: bool) -> None:
    """The Python agent's move for the seat to move, given its observation (never the game; None when it `looks`
    at none: boardlab.agents.generic.base.observes) and the moves `listing()` gives, applied; an AgentFailure when
    it fails to give one the game takes.  A restricted agent (`narrow`) is offered only the moves of its family
    when one is listed (boardlab.agents.generic.prefers)."""
    observation = g.observation(g.current) if looks else None
    moves = listing()
    if narrow:
        moves = restrict(g, agent, moves)
    try:
        move = agent.act(observation, moves, rng)
    except AgentFailure:
        raise
    except (Exception, SystemExit) as e:  # sys.exit inside act is the agent's failure, not the run's end
        raise failure_of(e) from e
    if move is None:
        raise AgentFailure("returned None, not a move", f"act() returned None; {len(moves)} legal moves were listed.")
    try:
        g.apply(move)  # checked: a move the game refuses leaves it unchanged
    except Exception as e:
        raise failure_of(e, f"returned a move the game refuses ({_short(move)})") from e


def _short(move) -> str:
    text = str(move)
    return text if len(text) <= 80 else text[:77] + "..."


def play_table(
    game: GameDef | str,
    rules,
    players: int,
    agents: list,
    seating: str,
    run_seed: int,
    start: int,
    stop: int,
    isolation: Isolation | None = None,
) -> pa.Table:
    """Games start..stop-1 of a run, one row per (game, seat), as a table of the game's result schema (its
    ``schema`` part, or the core columns alone), so a column has the same type in every chunk.

    `isolation` (:class:`boardlab.experiments.isolation.Isolation`): Python agents each in a subprocess of its own seat,
    with a time limit per move; the rows are the same.  A Python agent's failure raises AgentFailure naming the
    game, its seed, the seat and the agent.

    Parameters
    ----------
    game : GameDef or str
        The game.
    rules : RuleSet
        The rule set.
    players : int
        Seats per game.
    agents : list of AgentSpec or PythonSpec
        The run's agents.
    seating : str
        The seating.
    run_seed : int
        The run seed.
    start, stop : int
        The games played: start..stop-1.
    isolation : Isolation or None
        How Python agents play.

    Returns
    -------
    pyarrow.Table
        One row per (game, seat).
    """
    game = get_game(game)
    if isolation is not None and isolation.active and needs_api(agents):
        with AgentProcesses(game.id, isolation.move_timeout) as procs:
            return _play_table(game, rules, players, agents, seating, run_seed, start, stop, procs)
    return _play_table(game, rules, players, agents, seating, run_seed, start, stop, None)


def play_tables(
    game: GameDef | str, rules, players: int, agents: list, seating: str, run_seed: int, start: int, stop: int
) -> tuple[pa.Table, pa.Table]:
    """Games start..stop-1 of a run as :func:`play_table` gives them, and their trajectory table (module docstring).

    Parameters
    ----------
    game : GameDef or str
        The game; its API object must declare ``progress(player)``.
    rules :
        Its rule set.
    players : int
        Players per game.
    agents : list
        Parsed agents, one per seat (or a draw pool).
    seating : str
        fixed, rotate, permute or draw.
    run_seed : int
        The run's seed.
    start, stop : int
        The games' numbers.

    Returns
    -------
    (pyarrow.Table, pyarrow.Table)
        The result table (the same rows as :func:`play_table`'s) and the trajectory table
        (:data:`TRAJECTORY_SCHEMA`, one row per decision).  ValueError when the game declares no ``progress``.
    """
    game = get_game(game)
    trajectory: dict[str, list] = {f.name: [] for f in TRAJECTORY_SCHEMA}
    result = _play_table(game, rules, players, agents, seating, run_seed, start, stop, None, trajectory)
    return result, pa.Table.from_pydict(trajectory, schema=TRAJECTORY_SCHEMA)


_RNG_BLOCK = 256  # games whose agents' generators are made together (agent_rngs)


def _play_table(
    game: GameDef,
    rules,
    players: int,
    agents: list,
    seating: str,
    run_seed: int,
    start: int,
    stop: int,
    procs,
    trajectory: dict[str, list] | None = None,
) -> pa.Table:
    if seating != "draw" and len(agents) != players:
        raise ValueError("one agent per seat")
    resolve = game.agents().for_rules  # agents whose play depends on the rules (weights), or None
    if resolve is not None:
        agents = [resolve(a, rules) if not getattr(a, "python", False) else a for a in agents]
    seeds = game_seeds(run_seed, start, stop)
    order = seat_orders(players, seating, start, stop, pool=len(agents), seeds=seeds)
    makers = seat_players(game, agents)
    names = [str(a) for a in agents]
    own = api_rows_of(game)
    columns: dict[str, list] = {c: [] for c in game.result_columns}
    python = [getattr(a, "python", False) for a in agents]
    if trajectory is not None and len(seeds) and not has_progress(game.new_game(players, rules, int(seeds[0]))):
        raise ValueError(f"{game.id} declares no progress(player): it records no trajectory")
    for i, seed in enumerate(seeds):
        if i % _RNG_BLOCK == 0:
            block = agent_rngs(seeds[i : i + _RNG_BLOCK], players)
        if procs is None:
            seats = [makers[k]() for k in order[i]]
        else:
            seats = [
                procs.agent(s, names[k], family_of(agents[k])) if python[k] else makers[k]()
                for s, k in enumerate(order[i])
            ]
        record = Recorder(players) if trajectory is not None else None
        try:
            g = play_game(game, rules, seats, seed, [names[k] for k in order[i]], record, block[i % _RNG_BLOCK])
        except AgentFailure as e:
            e.locate(game=start + i)
            raise
        if record is not None and trajectory is not None:
            for c, v in record.columns(start + i).items():
                trajectory[c].extend(v)
        scores = g.scores()
        values: dict[str, object] = {
            "game": [start + i] * players,
            "game_seed": [seed] * players,
            "rules": [rules.name] * players,
            "players": [players] * players,
            "seat": list(range(1, players + 1)),
            "agent": [names[k] for k in order[i]],
            "total": [s["total"] for s in scores],
            "rank": [s["rank"] for s in scores],
            "win_share": [s["win_share"] for s in scores],
            "win": [s["rank"] == 1 for s in scores],
        }
        if own is not None:
            values.update(own(g))
        for c in columns:
            if c not in values:
                raise KeyError(f"{game.id}: result column {c!r} is neither shared nor given by its api_rows")
            columns[c].append(values[c])
    flat = {c: _column(parts) for c, parts in columns.items()}
    return table(flat, schema_of(game))


def play_chunk(
    game: GameDef | str,
    rules,
    players: int,
    agents: list,
    seating: str,
    run_seed: int,
    start: int,
    stop: int,
    isolation: Isolation | None = None,
) -> pd.DataFrame:
    """play_table as a pandas DataFrame (what analyses and tests read).

    Parameters
    ----------
    game : GameDef or str
        The game.
    rules : RuleSet
        The rule set.
    players : int
        Seats per game.
    agents : list of AgentSpec or PythonSpec
        The run's agents.
    seating : str
        The seating.
    run_seed : int
        The run seed.
    start, stop : int
        The games played: start..stop-1.
    isolation : Isolation or None
        How Python agents play.

    Returns
    -------
    pandas.DataFrame
        One row per (game, seat).
    """
    return play_table(game, rules, players, agents, seating, run_seed, start, stop, isolation).to_pandas()


def _column(parts: list) -> object:
    """One column from per-game parts (lists, or typed arrays from api_rows, whose dtype is kept)."""
    if parts and isinstance(parts[0], np.ndarray):
        return np.concatenate(parts)
    return [v for part in parts for v in part]
