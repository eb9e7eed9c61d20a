"""Seat-compensation solver: seat win shares under any compensation vector, without re-simulating.

Play does not depend on the compensation (agents maximise their own points, not
the ranking), so a stored game is re-ranked under another vector by adding it to
the raw scores (``total - compensation``) and applying the game's tie-breaks again (or, for a game that names
no rank key, its score in its score direction: where the lowest score wins, compensation points are a penalty).
What a game compensates and how it ranks is its ``GameDef.scoring.seat_compensation``, a
:class:`SeatCompensation` (Citywright's: :mod:`boardlab.experiments.citywright.seats`); a game
without one has nothing to tune here.  The search tries every integer vector with
entries 0..max (vectors that differ by a constant rank games identically, so the
smallest entry is 0) and keeps those whose largest seat deviation from 1/N is
smallest.  The chosen vector is then verified by re-simulating with it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from boardlab.sim.games import GameError, get_game
from boardlab.sim.ranking import score_key
from boardlab.sim.stats import wilson


@dataclass(frozen=True)
class SeatCompensation:
    """How one game's stored games are re-ranked under another seat compensation.

    Attributes
    ----------
    column : str
        The result column of the points each seat got from the compensation (included in `score`).
    rule_key : str
        The dotted rule key of the N-player vector, ``{players}`` standing for N.
    rank_key : callable({column: ndarray(int64)}) -> ndarray(int64), or None
        One key per player from the `rank_columns` (arrays of any one shape); the largest key wins,
        equal largest keys share the win.  None: the score alone, in the game's score direction
        (``GameDef.score_direction``, :func:`boardlab.sim.ranking.score_key`): where the lowest score wins,
        compensation points added to a seat's score count against it.
    rank_columns : tuple[str, ...]
        The columns `rank_key` reads, `score` first.
    score : str
        The final score column.
    check : callable(rules mapping) -> str or None, optional
        A one-line reason why games played under these rules cannot be re-ranked by `rank_key` (e.g. a
        tie-break rule it does not model), or None.
    rank_options : callable(rules mapping) -> dict, optional
        The keyword arguments `rank_key` takes from the rules the games were played under (a tie-break
        rule it models); without it, or without the rules, `rank_key` runs on its defaults.
    """

    column: str
    rule_key: str
    rank_key: Callable[..., np.ndarray] | None = None
    rank_columns: tuple[str, ...] = ("total",)
    score: str = "total"
    check: Callable[[dict], str | None] | None = None
    rank_options: Callable[[dict], dict] | None = None


def seat_compensation(game) -> SeatCompensation:
    """The game's :class:`SeatCompensation` (ValueError, one line, when it has none).

    Parameters
    ----------
    game : GameDef or str
        The game.

    Returns
    -------
    SeatCompensation
        How the game's compensation enters its ranking.
    """
    g = get_game(game)
    try:
        return g.require("seat_compensation")
    except GameError as e:
        raise ValueError(str(e)) from None


@dataclass(frozen=True)
class GameArrays:
    """A table of stored games of one player count as ``[games, seats]`` arrays, seats in order."""

    raw: np.ndarray  # the score without the compensation
    columns: dict[str, np.ndarray]  # the rank key's other columns
    stored: np.ndarray  # the compensation the games were played with, per seat
    how: SeatCompensation
    options: dict = field(default_factory=dict)  # rank_key's keywords from the games' rules (rank_options)
    direction: str = "higher"  # the game's score direction, for a SeatCompensation without a rank_key

    def key(self, total: np.ndarray) -> np.ndarray:
        """The rank key of every seat of every game given these totals (larger is better).

        Parameters
        ----------
        total : numpy.ndarray
            int64, shape ``(games, seats)``: the scores with a compensation added.

        Returns
        -------
        numpy.ndarray
            Shape ``(games, seats)``: the key the game ranks by (ties share the win).
        """
        if self.how.rank_key is None:
            return score_key(total, self.direction)
        return self.how.rank_key({self.how.score: total, **self.columns}, **self.options)

    @property
    def games(self) -> int:
        """The number of games (rows of ``raw``)."""
        return self.raw.shape[0]

    @property
    def players(self) -> int:
        """The number of seats (columns of ``raw``)."""
        return self.raw.shape[1]


def game_arrays(df: pd.DataFrame, game, rules: dict | None = None) -> GameArrays:
    """The stored games of `game` (a GameDef or id) in `df` as arrays.

    A game is the rows sharing ``(run_id, game)``: runs with the same seed play the same game seeds, so a seed
    does not tell games apart (:func:`boardlab.experiments.io.read_runs` adds the column).  A table without the column
    (one run, or runs concatenated by hand) is grouped by ``(game_seed, game)``; runs of one seed concatenated
    so are refused (their games are not whole), not paired.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows of one player count.
    game : GameDef or str
        The game they are of.
    rules : dict, optional
        The mapping the games were played under; it sets the ranking's tie-break rules (``rank_options``).
        None ranks by the game's default tie-breaks.

    Returns
    -------
    GameArrays
        ``[games, seats]`` arrays, games in (run, game) order.  ValueError (one line) on a table that lacks a
        column the re-ranking needs, mixes player counts or does not hold whole games (each seat once).
    """
    from boardlab.experiments.io import RUN_ID

    how = seat_compensation(game)
    options = how.rank_options(rules) if how.rank_options is not None and rules is not None else {}
    # a table without run ids (concatenated by hand) tells runs of different seeds apart by the seed; two runs of
    # one seed then fail the whole-games check below rather than being paired wrongly
    keys = [RUN_ID, "game"] if RUN_ID in df.columns else ["game_seed", "game"]
    need = [*keys, "players", "seat", how.column, *how.rank_columns]
    missing = [c for c in dict.fromkeys(need) if c not in df.columns]
    if missing:
        raise ValueError(f"the table has no {', '.join(missing)} column: not a {get_game(game).id} result")
    if df[need].isna().to_numpy().any():
        bad = [c for c in dict.fromkeys(need) if df[c].isna().any()]
        raise ValueError(f"the table has missing values in {', '.join(bad)}")
    if df.empty:
        raise ValueError("the table holds no games")
    players = int(df["players"].iloc[0])
    if (df["players"] != players).any():
        raise ValueError("the tables mix player counts")
    if len(df) % players:
        raise ValueError(f"the table's {len(df)} rows are not whole games of {players} seats")
    d = df.sort_values([*keys, "seat"], kind="stable")
    n = len(d) // players

    def grid(column: str) -> np.ndarray:
        return d[column].to_numpy(np.int64).reshape(n, players)

    seats = grid("seat")
    whole = (seats == np.arange(1, players + 1)) & (grid("players") == players)
    if not whole.all():
        i = int(np.flatnonzero(~whole.all(axis=1))[0])
        where = d.iloc[i * players][keys].tolist()
        raise ValueError(
            f"the table's games are not whole: game {where[-1]}"
            + (f" of run {where[0]}" if len(keys) > 1 else "")
            + f" does not hold seats 1..{players} once each"
        )
    comp = grid(how.column)
    raw = grid(how.score) - comp
    columns = {c: grid(c) for c in how.rank_columns if c != how.score}
    direction = get_game(game).score_direction
    return GameArrays(raw=raw, columns=columns, stored=comp[0], how=how, options=options, direction=direction)


def seat_shares(arrays: GameArrays, comp) -> np.ndarray:
    """Win share of each seat (mean over games) when `comp` is added to the raw scores.

    Parameters
    ----------
    arrays : GameArrays
        The stored games.
    comp : sequence of int
        Points per seat, one per seat.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(seats,)``: each seat's mean win share (tied winners share), summing to 1.
    """
    total = arrays.raw + np.asarray(comp, dtype=np.int64)[None, :]
    key = arrays.key(total)
    best = key.max(axis=1, keepdims=True)
    win = key == best
    return (win / win.sum(axis=1, keepdims=True)).mean(axis=0)


def _record(comp, s: np.ndarray, games: int) -> dict:
    rec = {
        "compensation": "/".join(map(str, comp)),
        "max_deviation": float(np.abs(s - 1 / len(s)).max()),
        "games": games,
    }
    for i, x in enumerate(s):
        lo, hi = wilson(x * games, games)
        rec[f"seat{i + 1}"] = x
        rec[f"seat{i + 1}_lo"] = lo
        rec[f"seat{i + 1}_hi"] = hi
    return rec


def search(df: pd.DataFrame, game, max_points: int = 5, top: int = 5, rules: dict | None = None) -> pd.DataFrame:
    """The `top` vectors with the smallest largest deviation from 1/N, with each seat's share and interval.

    Every vector of 0..`max_points` per seat with at least one 0 is tried by re-ranking the stored games.

    Parameters
    ----------
    df : pandas.DataFrame
        Stored games of one player count.
    game : GameDef or str
        The game.
    max_points : int
        The largest compensation of a seat.
    top : int
        How many vectors to keep.
    rules : dict or None
        The mapping the games were played under, for its tie-break rules (see :func:`game_arrays`).

    Returns
    -------
    pandas.DataFrame
        One row per vector, best first: ``compensation`` (``"a/b/c"``), ``max_deviation``, ``games`` and
        ``seatK``, ``seatK_lo``, ``seatK_hi`` per seat.
    """
    a = game_arrays(df, game, rules)
    fair = 1.0 / a.players
    rows = []
    for comp in itertools.product(range(max_points + 1), repeat=a.players):
        if min(comp) != 0:
            continue
        s = seat_shares(a, comp)
        rows.append((comp, float(np.abs(s - fair).max()), s))
    rows.sort(key=lambda r: (r[1], sum(r[0])))
    return pd.DataFrame([_record(comp, s, a.games) for comp, _, s in rows[:top]])


def current(df: pd.DataFrame, game, rules: dict | None = None) -> pd.DataFrame:
    """Seat win shares as stored (the run's own compensation), in the same layout as `search`.

    Parameters
    ----------
    df : pandas.DataFrame
        Stored games of one player count.
    game : GameDef or str
        The game.
    rules : dict or None
        The mapping the games were played under.

    Returns
    -------
    pandas.DataFrame
        One row, :func:`search`'s columns.
    """
    a = game_arrays(df, game, rules)
    return pd.DataFrame([_record(a.stored, seat_shares(a, a.stored), a.games)])


def verify(
    meta: dict,
    vector: list[int],
    games: int,
    jobs: int = 1,
    *,
    game,
    backend: str = "loky",
    scheduler: str | None = None,
) -> pd.DataFrame:
    """Re-simulate a stored run of `game` (its agents, seats and seeds) with compensation `vector` (first
    `games` games); the seat shares as `current` gives them.

    Parameters
    ----------
    meta : dict
        The stored run's metadata.
    vector : list of int
        Points per seat.
    games : int
        How many of the run's games to play again.
    jobs : int
        Worker processes.
    game : GameDef or str
        The game.
    backend, scheduler : str, str or None
        As in :func:`boardlab.experiments.simulate.run`.

    Returns
    -------
    pandas.DataFrame
        One row, :func:`search`'s columns.
    """
    import tempfile
    from pathlib import Path

    from boardlab.experiments import simulate as S

    g = get_game(game)
    how = seat_compensation(g)
    n = len(vector)
    rules = g.rules_from_mapping(meta["rules"]).with_overrides({how.rule_key.format(players=n): list(vector)})
    spec = S.make_spec(n, meta["agents"], games, meta["seed"], rules, meta["seating"], game=g.id)
    with tempfile.TemporaryDirectory() as d:
        S.run(spec, Path(d) / "verify.parquet", jobs=jobs, backend=backend, scheduler=scheduler)
        return current(pd.read_parquet(Path(d) / "verify.parquet"), g, rules.data)
