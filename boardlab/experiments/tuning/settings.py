"""The settings of one `tune scoring` command, built once from its options: what to tune (:class:`Target`), how
each trial plays (:class:`Play`), how to search (:class:`Search`) and where the study runs (:class:`Session`),
together a :class:`TuneSettings`.  Nothing here is checked: :func:`boardlab.experiments.tuning.make_tune_spec`
checks them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .space import Param

Rules = Any  # a rule set of the study's game (what its GameDef.load_rules gives)
OBJECTIVES = ("specialists", "seats", "both")
SAMPLERS = ("auto", "cmaes", "tpe")
STOP_Z = 3.0  # --stop-z's default: standard errors of the paired block difference (0: no early stop)


class TuneError(ValueError):
    """A tuning run that cannot start or continue; one line for the user."""


@dataclass(frozen=True)
class Target:
    """What to tune: the base rules, the parameters searched and the objective, with its constraints.

    Parameters
    ----------
    base : Rules
        The base rule set (every parameter's base value, trial 0).
    params : tuple of Param
        The tuned parameters (:func:`boardlab.experiments.tuning.parse_params`).
    objective : str
        ``specialists`` (each agent), ``seats`` (each seat of the seat games) or ``both``.
    keep_mean_total : float or None
        Keep the mean total score within ±this percentage of the base's (None: no constraint).
    max_changes : int or None
        At most this many parameters move from the base (None: any).
    allow_placeholders : tuple of str
        Placeholder keys (or dotted prefixes of them) that may be tuned anyway.
    """

    base: Rules
    params: tuple[Param, ...]
    objective: str = "specialists"
    keep_mean_total: float | None = None
    max_changes: int | None = None
    allow_placeholders: tuple[str, ...] = ()


@dataclass(frozen=True)
class Play:
    """How every trial plays: the game, its tables of agents and the weights they play.

    Parameters
    ----------
    game : str
        The registered game's id.
    players : int
        Players of the agents' table.
    agents : tuple of str
        One agent spec per seat, as given.
    games : int
        Games per trial of the agents' table (whole seat rotations per block, rounded up).
    seat_players : tuple of int or None
        Player counts of the seat games (objective seats or both; None: `players`).
    seat_agent : str or None
        The agent in every seat of the seat games (None: the game's seat agent for `agents`, else the first).
    seat_games : int or None
        Games per trial of each seat table (None: `games`).
    train : tuple of int or None
        Games per self-play round of the weights fitted under each trial's rules (None: the agents play the
        base's weights in every trial).
    train_seed : int
        Seed of that self-play.
    """

    game: str
    players: int
    agents: tuple[str, ...]
    games: int = 4_000
    seat_players: tuple[int, ...] | None = None
    seat_agent: str | None = None
    seat_games: int | None = None
    train: tuple[int, ...] | None = None
    train_seed: int = 1


@dataclass(frozen=True)
class Search:
    """How to search: the seed blocks, the sampler, the pruner, the early stop and the trials to finish.

    Parameters
    ----------
    blocks : int
        Seed blocks per trial (the pruner's steps).
    seed : int
        Seed of the seed blocks and of the sampler.
    sampler : str
        ``cmaes``, ``tpe`` or ``auto`` (CMA-ES for two parameters or more, else TPE).
    prune_p : float
        The WilcoxonPruner's p threshold (0: no pruning).
    prune_after : int
        The first block after which the pruner looks.
    stop_z : float
        The early stop's standard errors of the paired block difference (0: no early stop).
    race : float
        The race's indifference margin, points² (0: no race).
    trials : int
        Trials to finish (complete or pruned), the base's included; not part of the study's identity (a resumed
        study may run more).
    """

    blocks: int = 10
    seed: int = 0
    sampler: str = "auto"
    prune_p: float = 0.05
    prune_after: int = 5
    stop_z: float = STOP_Z
    race: float = 0.0
    trials: int = 50


@dataclass(frozen=True)
class Session:
    """Where and how this command runs the study: its folders, the verification, the processes.

    Parameters
    ----------
    out : Path
        The output folder; the study is ``OUT/study.db``.
    work : Path or None
        The run cache (None: ``OUT/runs``).
    resume : bool
        Continue the study in `out` (its settings must match).
    verify_games : int
        Games of the base and the best re-simulated on fresh seeds (0: no verification).
    jobs : int
        Worker processes.
    backend : str
        ``loky`` or ``dask``.
    scheduler : str or None
        The Dask scheduler's address (backend dask).
    command : str
        The command line, quoted in the report.
    chunk_size : int or None
        Games per chunk of every run (None: a block shared out over the processes).  Chunking never changes a
        run's games, so a finished run of another chunk size is reused.
    """

    out: Path = Path("runs/tune-scoring")
    work: Path | None = None
    resume: bool = False
    verify_games: int = 20_000
    jobs: int = 1
    backend: str = "loky"
    scheduler: str | None = None
    command: str = ""
    chunk_size: int | None = None

    @property
    def runs(self) -> Path:
        """The run cache: `work`, else ``OUT/runs``."""
        return self.work if self.work is not None else self.out / "runs"

    @property
    def where(self) -> dict:
        """The runs' backend, scheduler and chunk size, as every run takes them."""
        return {"backend": self.backend, "scheduler": self.scheduler, "chunk_size": self.chunk_size}


@dataclass(frozen=True)
class TuneSettings:
    """Everything one `tune scoring` command was given.

    Parameters
    ----------
    what : Target
        What to tune.
    play : Play
        How every trial plays.
    search : Search
        How to search.
    session : Session
        Where and how this command runs the study.
    """

    what: Target
    play: Play
    search: Search = field(default_factory=Search)
    session: Session = field(default_factory=Session)
