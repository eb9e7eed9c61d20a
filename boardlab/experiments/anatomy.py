"""The game-anatomy panel: how a game runs its course, from per-game trajectories, for any game.

A game's course is a :class:`Trajectory`: the running score of every player after each of its T steps (a decision,
a turn or a round, as the recorder chose), its final ranks, and per decision the seat that decided, how many legal
moves it had and, where the game names them, the decision's kind.  The functions below are pure: one figure of one
game (``lead_changes``, ``decisiveness``, ...), or a figure over many games with its 95% interval (:func:`panel`).

Steps are numbered 1..T; "score" is read in the game's direction (with ``direction="lower"`` a smaller score is
better, and "ahead", "leads" and "margin" follow it).  The leader after a step is the one player whose score beats
every other's (none when the best is shared); the winner is the one player of rank 1 (a shared win has none, and the
figures that need one leave the game out).  Each function's docstring gives its figure's definition: lead changes,
decisiveness, leader wins at a fraction, comebacks, drama (Browne, 2008), final margin, duration, branching, outcome.

Intervals (:func:`panel`): Wilson for a share of games (statsmodels' ``proportion_confint``), else a percentile
bootstrap over games (``BOOTSTRAP`` resamples, from a seeded generator: the same games give the same interval).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from boardlab.sim.stats import wilson

BOOTSTRAP = 1000
FRACTIONS = (0.25, 0.5, 0.75)
QUANTILES = (0.5, 0.9)
DIRECTIONS = ("higher", "lower")
_NONE = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class Trajectory:
    """One game's course.

    Attributes
    ----------
    scores : numpy.ndarray
        ``[T, N]``: each player's running score after each of the game's T steps (T >= 1).
    ranks : numpy.ndarray
        ``[N]``: final ranks, 1 for the winner(s); ties share a rank.
    legal : numpy.ndarray
        ``[D]``: the number of legal moves at each decision (empty when not recorded).
    movers : numpy.ndarray
        ``[D]``: the seat (0-based) that made each decision (empty when not recorded).
    kinds : tuple of str
        Per decision, its kind, where the game names kinds (empty otherwise).
    capped : bool
        Whether the game ended at a cap (a round limit) rather than by its rules.
    direction : {"higher", "lower"}
        Which scores are better.
    """

    scores: np.ndarray
    ranks: np.ndarray
    legal: np.ndarray = field(default_factory=lambda: _NONE)
    movers: np.ndarray = field(default_factory=lambda: _NONE)
    kinds: tuple[str, ...] = ()
    capped: bool = False
    direction: str = "higher"

    def __post_init__(self):
        scores = np.asarray(self.scores, dtype=np.float64)
        if scores.ndim != 2 or scores.shape[0] < 1 or scores.shape[1] < 1:
            raise ValueError(f"scores must be [steps >= 1, players >= 1], got shape {scores.shape}")
        ranks = np.asarray(self.ranks, dtype=np.int64)
        if ranks.shape != (scores.shape[1],):
            raise ValueError(f"ranks must hold one rank per player ({scores.shape[1]}), got shape {ranks.shape}")
        legal = np.asarray(self.legal, dtype=np.int64)
        movers = np.asarray(self.movers, dtype=np.int64)
        if len(movers) and len(movers) != len(legal):
            raise ValueError("movers and legal must hold one entry per decision each")
        if self.kinds and len(self.kinds) != len(legal):
            raise ValueError("kinds must hold one entry per decision")
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, got {self.direction!r}")
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "ranks", ranks)
        object.__setattr__(self, "legal", legal)
        object.__setattr__(self, "movers", movers)

    @property
    def steps(self) -> int:
        """T, the number of steps."""
        return self.scores.shape[0]

    @property
    def players(self) -> int:
        """N, the number of players."""
        return self.scores.shape[1]

    @property
    def key(self) -> np.ndarray:
        """The scores oriented so that larger is better (negated for ``direction="lower"``)."""
        return self.scores if self.direction == "higher" else -self.scores


# --- one game ---------------------------------------------------------------------------------------


def leaders(t: Trajectory) -> np.ndarray:
    """The leader after each step: the one player whose score is better than every other's, -1 where the best
    score is shared.

    Parameters
    ----------
    t : Trajectory
        The game.

    Returns
    -------
    numpy.ndarray
        ``[T]`` seats (0-based), -1 for no leader.
    """
    key = t.key
    best = key.max(axis=1, keepdims=True)
    at_best = key == best
    return np.where(at_best.sum(axis=1) == 1, at_best.argmax(axis=1), -1)


def winner(t: Trajectory) -> int:
    """The one player of rank 1 (0-based seat), or -1 when the win is shared.

    Parameters
    ----------
    t : Trajectory
        The game.

    Returns
    -------
    int
        The winner's seat, or -1.
    """
    first = np.flatnonzero(t.ranks == 1)
    return int(first[0]) if len(first) == 1 else -1


def lead_changes(t: Trajectory) -> int:
    """How often the leader differs from the previous leader (steps with no leader skipped).

    Parameters
    ----------
    t : Trajectory
        The game.

    Returns
    -------
    int
        The number of lead changes (0 when one player leads throughout, or no one ever leads).
    """
    led = leaders(t)
    led = led[led >= 0]
    return int((led[1:] != led[:-1]).sum())


def decisiveness(t: Trajectory) -> float:
    """k*/T, k* the first step (1-based) from which the winner leads at every step to the last; 1 when the winner
    does not lead after the last step.

    Parameters
    ----------
    t : Trajectory
        The game.

    Returns
    -------
    float
        In (0, 1]; NaN for a game with a shared win.
    """
    w = winner(t)
    if w < 0:
        return math.nan
    leads = leaders(t) == w
    if not leads[-1]:
        return 1.0
    behind = np.flatnonzero(~leads)  # steps at which the winner does not lead
    first = behind[-1] + 2 if len(behind) else 1  # 1-based step after the last one not led
    return first / t.steps


def step_at(t: Trajectory, fraction: float) -> int:
    """The step (1-based) at `fraction` of the game: max(1, ceil(fraction * T)).

    Parameters
    ----------
    t : Trajectory
        The game.
    fraction : float
        In (0, 1].

    Returns
    -------
    int
        The step.
    """
    return max(1, math.ceil(fraction * t.steps - 1e-9))


def leader_wins(t: Trajectory, fraction: float) -> float:
    """Whether the leader at `fraction` of the game (:func:`step_at`) is the winner.

    Parameters
    ----------
    t : Trajectory
        The game.
    fraction : float
        In (0, 1].

    Returns
    -------
    float
        1.0 or 0.0 (0 when no one leads then); NaN for a game with a shared win.
    """
    w = winner(t)
    if w < 0:
        return math.nan
    return float(leaders(t)[step_at(t, fraction) - 1] == w)


def comeback(t: Trajectory) -> float:
    """Whether the winner was behind (another player's score better) at half-time, after step ceil(T/2).

    Parameters
    ----------
    t : Trajectory
        The game.

    Returns
    -------
    float
        1.0 or 0.0; NaN for a game with a shared win.
    """
    w = winner(t)
    if w < 0:
        return math.nan
    row = t.key[step_at(t, 0.5) - 1]
    return float(row.max() > row[w])


def drama(t: Trajectory) -> float:
    """Browne's drama: the winner's mean deficit (the best score minus the winner's) over the steps at which the
    winner is behind; 0 when the winner is never behind.

    Parameters
    ----------
    t : Trajectory
        The game.

    Returns
    -------
    float
        In points (>= 0); NaN for a game with a shared win.
    """
    w = winner(t)
    if w < 0:
        return math.nan
    deficit = t.key.max(axis=1) - t.key[:, w]
    behind = deficit[deficit > 0]
    return float(behind.mean()) if len(behind) else 0.0


def final_margin(t: Trajectory) -> float:
    """The winner's final score minus the best final score of the others (in the game's direction: how far ahead).

    Parameters
    ----------
    t : Trajectory
        The game.

    Returns
    -------
    float
        In points (0 with one player); NaN for a game with a shared win.
    """
    w = winner(t)
    if w < 0:
        return math.nan
    last = t.key[-1]
    others = np.delete(last, w)
    return float(last[w] - others.max()) if len(others) else 0.0


def turns(t: Trajectory) -> int:
    """Turns: maximal runs of consecutive decisions by one seat.

    Parameters
    ----------
    t : Trajectory
        The game (its ``movers``).

    Returns
    -------
    int
        The number of turns (0 when no decision was recorded).
    """
    m = t.movers
    return int(len(m) and 1 + (m[1:] != m[:-1]).sum())


def rounds(t: Trajectory) -> int:
    """Rounds: ceil(turns / players).

    Parameters
    ----------
    t : Trajectory
        The game.

    Returns
    -------
    int
        The number of rounds begun.
    """
    return -(-turns(t) // t.players)


def decisions(t: Trajectory) -> int:
    """Decisions recorded (moves chosen).

    Parameters
    ----------
    t : Trajectory
        The game.

    Returns
    -------
    int
        D.
    """
    return len(t.legal)


def real_decisions(t: Trajectory) -> int:
    """Decisions with a real choice: more than one legal move.

    Parameters
    ----------
    t : Trajectory
        The game.

    Returns
    -------
    int
        Their number.
    """
    return int((t.legal > 1).sum())


def win_shares(t: Trajectory) -> np.ndarray:
    """Each seat's share of the win: 1/k for each of k players of rank 1, else 0.

    Parameters
    ----------
    t : Trajectory
        The game.

    Returns
    -------
    numpy.ndarray
        ``[N]``, summing to 1.
    """
    first = t.ranks == 1
    return first / first.sum()


# --- many games: figures with intervals ---------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    """One figure of the panel over games: its value, 95% interval and the games behind it."""

    section: str
    name: str
    value: float
    lo: float
    hi: float
    n: int
    interval: str  # "wilson", "bootstrap" or "" (no interval: no games)


def proportion(section: str, name: str, successes: float, n: int) -> Figure:
    """A share of games with its 95% Wilson interval.

    Parameters
    ----------
    section, name : str
        Where the figure belongs and what it is.
    successes : float
        The games counted (fractional: a shared win).
    n : int
        The games.

    Returns
    -------
    Figure
        NaN value and no interval when n is 0.
    """
    if n <= 0:
        return Figure(section, name, math.nan, math.nan, math.nan, 0, "")
    lo, hi = wilson(successes, n)
    return Figure(section, name, successes / n, lo, hi, n, "wilson")


def bootstrap(section: str, name: str, stat, data: Sequence[np.ndarray], rng: np.random.Generator) -> Figure:
    """A statistic over games with its 95% percentile-bootstrap interval (games resampled with replacement).

    Parameters
    ----------
    section, name : str
        Where the figure belongs and what it is.
    stat : callable(*arrays) -> float
        The statistic, of arrays whose first axis is the games (each resample indexes every array alike).
    data : sequence of numpy.ndarray
        The per-game arrays.
    rng : numpy.random.Generator
        The resampling generator (seeded by the caller).

    Returns
    -------
    Figure
        NaN value and no interval when there are no games.
    """
    n = len(data[0])
    if n == 0:
        return Figure(section, name, math.nan, math.nan, math.nan, 0, "")
    value = float(stat(*data))
    idx = rng.integers(n, size=(BOOTSTRAP, n))
    draws = np.array([stat(*(a[i] for a in data)) for i in idx], dtype=np.float64)
    lo, hi = np.nanquantile(draws, [0.025, 0.975])
    return Figure(section, name, value, float(lo), float(hi), n, "bootstrap")


def _mean(v: np.ndarray) -> float:
    return float(v.mean())


def _pooled(sums: np.ndarray, counts: np.ndarray) -> float:
    total = counts.sum()
    return float(sums.sum() / total) if total else math.nan


def _max_deviation(shares: np.ndarray) -> float:
    return float(np.abs(shares.mean(axis=0) - 1.0 / shares.shape[1]).max())


def histogram_quantile(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """The q-quantile of a histogram: the smallest value such that a share q of the observations is at most it.

    Parameters
    ----------
    values : numpy.ndarray
        ``[V]`` the distinct values, ascending.
    counts : numpy.ndarray
        ``[V]`` how often each occurs.
    q : float
        In [0, 1].

    Returns
    -------
    float
        The quantile; NaN for an empty histogram.
    """
    total = counts.sum()
    if total <= 0:
        return math.nan
    return float(values[np.searchsorted(np.cumsum(counts), q * total - 1e-9)])


def panel(games: Sequence[Trajectory], seed: int = 0) -> list[Figure]:
    """Every figure of the anatomy panel (module docstring) over `games`, each with its 95% interval.

    Parameters
    ----------
    games : sequence of Trajectory
        The games, all of one player count.
    seed : int
        Seed of the bootstrap's generator.

    Returns
    -------
    list of Figure
        In sections ``outcome``, ``duration``, ``branching``, ``trajectory``; trajectory figures only when the
        games' scores have more than one step, branching and real-decision figures only when decisions were
        recorded.  ValueError when the games mix player counts.
    """
    games = list(games)
    if not games:
        return []
    n_players = {t.players for t in games}
    if len(n_players) != 1:
        raise ValueError(f"the games mix player counts {sorted(n_players)}")
    (players,) = n_players
    rng = np.random.default_rng(seed)
    G = len(games)
    out: list[Figure] = []

    # outcome
    shares = np.array([win_shares(t) for t in games])
    for s in range(players):
        out.append(proportion("outcome", f"seat {s + 1} win share", float(shares[:, s].sum()), G))
    if players > 1:
        out.append(bootstrap("outcome", "largest seat deviation from 1/N", _max_deviation, [shares], rng))
    out.append(proportion("outcome", "games with a shared win", float(sum(winner(t) < 0 for t in games)), G))
    out.append(proportion("outcome", "completion (ended by the rules)", float(sum(not t.capped for t in games)), G))

    # duration
    recorded = [t for t in games if len(t.legal)]
    if recorded:
        for name, f in (
            ("turns", turns), ("rounds", rounds), ("decisions", decisions), ("decisions with a real choice",
            real_decisions),
        ):  # fmt: skip
            out.append(bootstrap("duration", name, _mean, [np.array([f(t) for t in recorded], float)], rng))
        # branching: legal moves per decision, pooled over the games' decisions
        sums = np.array([t.legal.sum() for t in recorded], float)
        counts = np.array([len(t.legal) for t in recorded], float)
        out.append(bootstrap("branching", "legal moves per decision (mean)", _pooled, [sums, counts], rng))
        # the quantiles of the pooled decisions: a resample weighs each decision by its game's draws (no histogram
        # per game and value: a game of tens of thousands of distinct counts would make it games x values)
        legal = np.concatenate([t.legal for t in recorded])
        game_of = np.repeat(np.arange(len(recorded)), [len(t.legal) for t in recorded])
        by_value = np.argsort(legal, kind="stable")
        values, owners = legal[by_value], game_of[by_value]
        for q in QUANTILES:
            name = f"legal moves per decision (q{round(100 * q)})"
            out.append(
                bootstrap(
                    "branching",
                    name,
                    lambda g, q=q: histogram_quantile(values, np.bincount(g, minlength=len(recorded))[owners], q),
                    [np.arange(len(recorded))],
                    rng,
                )
            )
        kinds = sorted({k for t in recorded for k in t.kinds if k})
        for kind in kinds:
            ks = np.array([t.legal[np.array(t.kinds) == kind].sum() if t.kinds else 0 for t in recorded], float)
            kc = np.array([np.sum(np.array(t.kinds) == kind) if t.kinds else 0 for t in recorded], float)
            out.append(bootstrap("branching", f"legal moves per decision: {kind}", _pooled, [ks, kc], rng))

    # trajectory (games with one winner)
    won = [t for t in games if winner(t) >= 0 and t.steps > 1]
    if any(t.steps > 1 for t in games):
        out.append(bootstrap("trajectory", "lead changes per game", _mean, [_per(won, lead_changes)], rng))
        out.append(bootstrap("trajectory", "decisiveness (winner leads for good from)", _mean,
                             [_per(won, decisiveness)], rng))  # fmt: skip
        for f in FRACTIONS:
            hits = float(sum(leader_wins(t, f) for t in won))
            out.append(proportion("trajectory", f"winner = leader at {round(100 * f)}%", hits, len(won)))
        out.append(proportion("trajectory", "comeback (winner behind at half-time)",
                              float(sum(comeback(t) for t in won)), len(won)))  # fmt: skip
        out.append(bootstrap("trajectory", "drama (winner's mean deficit while behind)", _mean,
                             [_per(won, drama)], rng))  # fmt: skip
        out.append(bootstrap("trajectory", "final margin", _mean, [_per(won, final_margin)], rng))
    return out


def _per(games: list[Trajectory], f) -> np.ndarray:
    return np.array([f(t) for t in games], dtype=np.float64)


def panel_table(games: Sequence[Trajectory], seed: int = 0) -> pd.DataFrame:
    """:func:`panel` as a table: section, figure, value, lo, hi, n, interval.

    Parameters
    ----------
    games : sequence of Trajectory
        The games, all of one player count.
    seed : int
        Seed of the bootstrap's generator.

    Returns
    -------
    pandas.DataFrame
        One row per figure.
    """
    rows = [
        {"section": f.section, "figure": f.name, "value": f.value, "lo": f.lo, "hi": f.hi, "n": f.n,
         "interval": f.interval}
        for f in panel(games, seed)
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=["section", "figure", "value", "lo", "hi", "n", "interval"])


def from_tables(results: pd.DataFrame, steps: pd.DataFrame, direction: str = "higher") -> list[Trajectory]:
    """The games of one run as trajectories: its result rows (their ranks) and its trajectory table (one row per
    decision: ``game``, ``step``, ``seat`` 1-based, ``legal``, ``kind``, ``progress`` per seat, ``capped``:
    :data:`boardlab.experiments.play.TRAJECTORY_SCHEMA`).

    Parameters
    ----------
    results : pandas.DataFrame
        Result rows of one run (``game``, ``seat``, ``rank``).
    steps : pandas.DataFrame
        Its trajectory rows.
    direction : {"higher", "lower"}
        The game's score direction.

    Returns
    -------
    list of Trajectory
        One per game of `results` that made a move, in game order; the steps are its decisions.
    """
    ranks = {
        int(g): part.sort_values("seat")["rank"].to_numpy(np.int64) for g, part in results.groupby("game", sort=True)
    }
    out = []
    for g, part in steps.sort_values(["game", "step"]).groupby("game", sort=True):
        if int(g) not in ranks:
            raise ValueError(f"game {g} has a trajectory but no result rows")
        kinds = tuple(part["kind"].astype(str))
        out.append(
            Trajectory(
                scores=np.array(part["progress"].tolist(), dtype=np.float64), ranks=ranks[int(g)],
                legal=part["legal"].to_numpy(np.int64), movers=part["seat"].to_numpy(np.int64) - 1,
                kinds=kinds if any(kinds) else (), capped=bool(part["capped"].iloc[-1]), direction=direction,
            )
        )  # fmt: skip
    return out
