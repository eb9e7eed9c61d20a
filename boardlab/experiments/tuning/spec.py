"""The study's specification: :func:`make_tune_spec` checks a :class:`~boardlab.experiments.tuning.TuneSettings`
(one-line errors) into the :class:`TuneSpec` that decides every trial (what ``--resume`` must match), and the
tables a trial plays (:class:`Table`)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass

import pandas as pd

from boardlab.experiments import simulate as S
from boardlab.sim.games import DEFAULT_GAME, get_game

from .objective import shares
from .settings import OBJECTIVES, SAMPLERS, STOP_Z, Rules, TuneError, TuneSettings
from .space import Param, check_placeholders, check_unused
from .training import _train_settings, _trained_with


@dataclass(frozen=True)
class Table:
    """One table of games a trial plays in every seed block: the study's agents at its player count, whose loss
    is over agents, or a seat table, one agent in every seat at one player count, whose loss is over seats."""

    name: str  # "agents" or "seats-3p": how files and reports name it
    players: int
    agents: tuple[str, ...]
    block_games: int
    by: str  # "agent" or "seat": the groups its loss sums over

    def loss(self, df: pd.DataFrame) -> float:
        """Sum over the table's groups of (100 · (win share − 1/N))², points².

        Parameters
        ----------
        df : pandas.DataFrame
            The table's result rows.

        Returns
        -------
        float
            The loss.
        """
        return float(((100 * (shares(df, self.by) - 1 / self.players)) ** 2).sum())

    def blocks_text(self, blocks: int) -> str:
        """The table's games in words, for reports.

        Parameters
        ----------
        blocks : int
            Blocks played.

        Returns
        -------
        str
            E.g. "4,000 of the agents at 4 players".
        """
        who = "the agents" if self.by == "agent" else f"`{self.agents[0]}` in every seat"
        return f"{blocks * self.block_games:,} of {who} at {self.players} players"

    def file(self, b: int) -> str:
        """The file name of block `b`'s games of this table.

        Parameters
        ----------
        b : int
            The block.

        Returns
        -------
        str
            ``block-NNN.parquet`` for the agents' table, ``<name>-block-NNN.parquet`` for a seat table.
        """
        return f"block-{b:03d}.parquet" if self.name == "agents" else f"{self.name}-block-{b:03d}.parquet"


def pin_agents(game, agents, rules: Rules) -> tuple[str, ...]:
    """The canonical specs as they play under `rules`, pinned there (the registry's ``pin_rules``: Citywright's
    ``weights=auto`` made the base's weights), so every trial's rules play the same agents.

    Parameters
    ----------
    game : GameDef
        The game.
    agents : sequence of str
        Agent specs.
    rules : RuleSet
        The base rules.

    Returns
    -------
    tuple of str
        The pinned specs (the specs as given when the game pins nothing).
    """
    reg = game.agents()
    pin = reg.pin_rules
    if pin is None:
        return tuple(agents)
    try:
        return tuple(str(pin(reg.parse_agent(a), rules)) for a in agents)
    except reg.AgentError as e:
        raise TuneError(f"--agents: {e}") from None


@dataclass(frozen=True)
class TuneSpec:
    """Everything that decides a study's trials (what --resume must match)."""

    params: tuple[Param, ...]
    objective: str
    players: int
    agents: tuple[str, ...]  # canonical specs
    labels: tuple[str, ...]  # as given, for tables and charts
    rules: str  # canonical JSON of the base rule set
    rules_name: str
    blocks: int
    block_games: int
    seed: int
    keep_mean_total: float | None
    max_changes: int | None
    prune_p: float
    prune_after: int
    sampler: str = "cmaes"  # resolved: cmaes or tpe
    game: str = DEFAULT_GAME  # a study stored before the registry names none: the default game's, the only one
    allow_placeholders: tuple[str, ...] = ()  # placeholder keys (or their prefixes) the user allowed to tune
    seat_players: tuple[int, ...] = ()  # the seat games' player counts (objective seats or both)
    seat_agent: str = ""  # their every-seat agent (canonical, weights as under the base rules)
    seat_block_games: tuple[int, ...] = ()  # games per block of each seat table
    stop_z: float = STOP_Z  # early stop: standard errors of the paired block difference (0: none)
    race: float = 0.0  # racing's indifference margin, points² (0: no race; the early stop's worse side only)
    # --train: weights fitted under each trial's rules by the game's trainer (games per round; () = agents pinned
    # under the base rules), with its seed, k and ridge
    train_games: tuple[int, ...] = ()
    train_seed: int = 0
    train_k: int = 0
    train_ridge: float = 0.0

    def tables(self) -> tuple[Table, ...]:
        """The tables every trial plays, block by block: the agents' (objective specialists or both), then one
        seat table per seat player count (seats or both).

        Returns
        -------
        tuple of Table
            The tables.
        """
        out = []
        if self.objective in ("specialists", "both"):
            out.append(Table("agents", self.players, self.agents, self.block_games, "agent"))
        if self.objective in ("seats", "both"):
            out += [
                Table(f"seats-{p}p", p, (self.seat_agent,), g, "seat")
                for p, g in zip(self.seat_players, self.seat_block_games, strict=True)
            ]
        return tuple(out)

    @property
    def block_total(self) -> int:
        """Games of one block over all the tables."""
        return sum(t.block_games for t in self.tables())

    @property
    def games(self) -> int:
        """Games of a whole trial over all the tables."""
        return self.blocks * self.block_total

    def game_def(self):
        """The study's game.

        Returns
        -------
        GameDef
            The registered game.
        """
        return get_game(self.game)

    @property
    def trains(self) -> bool:
        """Whether every trial's rules play weights fitted under them (--train)."""
        return bool(self.train_games)

    def train_settings(self) -> dict:
        """The training settings of --train, as the game's trainer records them (``Trainer.trained_with``).

        Returns
        -------
        dict
            The settings.
        """
        return _trained_with(asdict(self))

    def base_rules(self) -> Rules:
        """The base rules, rebuilt from their canonical JSON.

        Returns
        -------
        RuleSet
            The base rule set.
        """
        return self.game_def().rules_from_mapping(json.loads(self.rules))

    def to_json(self) -> dict:
        """Plain JSON types (what the study stores and a resume compares).

        Returns
        -------
        dict
            Every field, tuples as lists.
        """
        return json.loads(json.dumps(asdict(self)))

    def label(self, agent: str) -> str:
        """The label of an agent as the user wrote it.

        Parameters
        ----------
        agent : str
            A canonical spec of the study.

        Returns
        -------
        str
            Its label (the spec itself when it is not one of the study's).
        """
        return dict(zip(self.agents, self.labels, strict=True)).get(agent, agent)

    @property
    def n_startup(self) -> int:
        """Random trials before TPE models the history (Optuna's default is 10)."""
        return min(10, max(4, 2 * len(self.params)))


def make_tune_spec(settings: TuneSettings) -> TuneSpec:
    """The study's specification, every setting checked (before any work; nothing is written).

    Parameters
    ----------
    settings : TuneSettings
        What to tune, how to play and how to search (its session is not read).

    Returns
    -------
    TuneSpec
        The spec: the agents canonical and pinned under the base rules (or, with ``train``, resolved under each
        trial's), the block sizes rounded up to whole seat rotations, the sampler resolved.

    Raises
    ------
    TuneError
        A setting that cannot be played, in one line (SimulateError, also one line, for the agents' table).
    """
    what, play, search = settings.what, settings.play, settings.search
    base, params, objective, players, blocks = what.base, list(what.params), what.objective, play.players, search.blocks
    gdef = get_game(play.game)
    training = _train_settings(gdef, base, None if play.train is None else list(play.train), play.train_seed)
    if objective not in OBJECTIVES:
        raise TuneError(f"--objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if blocks < 2:
        raise TuneError(f"--blocks must be at least 2 (the pruner pairs blocks), got {blocks}")
    if play.games < 1:
        raise TuneError(f"--games must be at least 1, got {play.games}")
    if play.games < blocks * players:
        raise TuneError(
            f"--games {play.games}: a trial is {blocks} seed blocks of whole seat rotations ({players} games each),"
            f" at least {blocks * players} games; give more --games or fewer --blocks"
        )
    block_games = -(-play.games // (blocks * players)) * players  # whole rotations of the seats
    agents = list(play.agents)
    sim = S.make_spec(players, agents, block_games, search.seed, base, "rotate", game=gdef.id, resolve=not training)
    if objective in ("specialists", "both") and len(set(sim.agents)) < 2:
        raise TuneError(f"--objective {objective} compares agents: give at least two different --agents")
    check_unused(params, gdef.unused(base))
    allowed = check_placeholders(params, gdef.placeholders(base), list(what.allow_placeholders))
    seats = _seat_settings(gdef, settings, pin=not training)
    sampler = _check_search(settings)
    pinned = sim.agents if training else pin_agents(gdef, sim.agents, base)
    return TuneSpec(
        params=tuple(params),
        objective=objective,
        players=players,
        agents=pinned,
        labels=tuple(agents) if len(agents) == len(pinned) else pinned,
        rules=base.to_json(),
        rules_name=base.name,
        blocks=blocks,
        block_games=block_games,
        seed=sim.seed,
        keep_mean_total=what.keep_mean_total,
        max_changes=what.max_changes,
        prune_p=search.prune_p,
        prune_after=search.prune_after,
        sampler=sampler,
        game=gdef.id,
        allow_placeholders=allowed,
        stop_z=float(search.stop_z),
        race=float(search.race),
        **seats,
        **training,
    )


def _check_search(settings: TuneSettings) -> str:
    """The search's settings and the constraints checked; the sampler resolved (``auto``: CMA-ES for two
    parameters or more, which it needs, else TPE)."""
    what, search = settings.what, settings.search
    stop_z, race = search.stop_z, search.race
    if not (0 <= stop_z < math.inf):
        raise TuneError(f"--stop-z must be a non-negative number of standard errors (0: no early stop), got {stop_z}")
    if not (0 <= race < math.inf):
        raise TuneError(f"--race must be a non-negative margin in points² (0: no race), got {race}")
    if race > 0 and stop_z == 0:
        raise TuneError("--race decides with --stop-z's standard errors: give --stop-z above 0 (or --race 0)")
    if what.keep_mean_total is not None and not 0 < what.keep_mean_total < math.inf:
        raise TuneError(f"--keep-mean-total must be a positive percentage, got {what.keep_mean_total}")
    if what.max_changes is not None and what.max_changes < 1:
        raise TuneError(f"--max-changes must be at least 1, got {what.max_changes}")
    if not 0 <= search.prune_p < 1:
        raise TuneError(f"--prune-p must be in [0, 1), got {search.prune_p}")
    if search.sampler not in SAMPLERS:
        raise TuneError(f"--sampler must be one of {', '.join(SAMPLERS)}, got {search.sampler!r}")
    if search.sampler == "auto":
        return "cmaes" if len(what.params) >= 2 else "tpe"  # CMA-ES needs two dimensions at least
    if search.sampler == "cmaes" and len(what.params) < 2:
        raise TuneError("--sampler cmaes needs at least two --param (use tpe for one)")
    return search.sampler


def _seat_settings(gdef, settings: TuneSettings, pin: bool = True) -> dict:
    """The seat games' TuneSpec fields, checked (none for --objective specialists, which refuses them); `pin`:
    the seat agent pinned under the base rules (False with --train: resolved under each trial's)."""
    what, play, blocks, seed = settings.what, settings.play, settings.search.blocks, settings.search.seed
    base, objective, players, agents, games = what.base, what.objective, play.players, play.agents, play.games
    seat_players, seat_agent, seat_games = play.seat_players, play.seat_agent, play.seat_games
    if objective == "specialists":
        for flag, v in (("--seat-players", seat_players), ("--seat-agent", seat_agent), ("--seat-games", seat_games)):
            if v is not None:
                raise TuneError(f"{flag}: seat games are played only with --objective seats or both")
        return {"seat_players": (), "seat_agent": "", "seat_block_games": ()}
    counts = list(seat_players) if seat_players is not None else [players]
    lo, hi = gdef.players
    if not counts:
        raise TuneError("--seat-players: give at least one player count")
    for p in counts:
        if not max(2, lo) <= p <= hi:
            raise TuneError(f"--seat-players: {p} is not a player count of {gdef.id} with seats to balance"
                            f" ({max(2, lo)}..{hi})")  # fmt: skip
        if counts.count(p) > 1:
            raise TuneError(f"--seat-players: {p} given twice")
    n = seat_games if seat_games is not None else games
    if n < 1:
        raise TuneError(f"--seat-games must be at least 1, got {n}")
    for p in counts:
        if n < blocks * p:
            raise TuneError(
                f"--seat-games {n}: a seat table at {p} players is {blocks} seed blocks of whole seat rotations,"
                f" at least {blocks * p} games; give more --seat-games or fewer --blocks"
            )
    if seat_agent is None:
        seat_agent = gdef.require("seat_agent")(list(agents)) if gdef.scoring.seat_agent else agents[0]
    try:
        sim = S.make_spec(counts[0], [seat_agent], counts[0], seed, base, "rotate", game=gdef, resolve=pin)
    except S.SimulateError as e:
        raise TuneError(str(e).replace("--agents:", "--seat-agent:", 1)) from None
    return {
        "seat_players": tuple(counts),
        "seat_agent": pin_agents(gdef, sim.agents[:1], base)[0] if pin else sim.agents[0],
        "seat_block_games": tuple(-(-n // (blocks * p)) * p for p in counts),
    }
