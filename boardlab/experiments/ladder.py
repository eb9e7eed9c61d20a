"""The agents' strength ladder: pairings played with seats rotated, win shares with 95% intervals.

Each pairing is a table of agents (one per seat); seats rotate game by game so
every agent sits in every seat equally often.  An agent's win share is the
mean over its seats of the games' win shares (a k-way shared win counts 1/k),
with a Wilson 95% interval over the number of (game, seat) rows it played.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pandas as pd
from joblib import Parallel, delayed

from boardlab.experiments.io import read_runs
from boardlab.experiments.pipelines import win_share
from boardlab.sim.games import GameDef

# Games per chunk of a fixed pairing (play_pairing): each chunk is one task of its worker pool.
PAIRING_CHUNK = 100


def play_pairing(
    game: GameDef,
    specs: list[str],
    games: int,
    seed: int = 0,
    rules=None,
    jobs: int = 1,
    chunk: int = PAIRING_CHUNK,
) -> pd.DataFrame:
    """`games` games of `game` with `specs` one per seat, seats rotated (default rules when None).

    Parameters
    ----------
    game : GameDef
        The game.
    specs : list of str
        One agent spec per seat.
    games : int
        Number of games.
    seed : int
        The run seed.
    rules : RuleSet or None
        The rules; None: the default preset.
    jobs : int
        Worker processes.
    chunk : int
        Games per chunk.

    Returns
    -------
    pandas.DataFrame
        The chunk player's rows (one per game and seat).
    """
    g = game
    rules = rules if rules is not None else g.load_rules(g.default_preset)
    agents = [g.agents().parse_agent(s) for s in specs]
    bounds = [(a, min(a + chunk, games)) for a in range(0, games, chunk)]
    parts = Parallel(n_jobs=jobs)(
        delayed(g.play_chunk)(rules, len(agents), agents, "rotate", seed, a, b) for a, b in bounds
    )
    return pd.concat(parts, ignore_index=True)


def ladder(
    game: GameDef, rules, games: int, seed: int = 0, jobs: int = 1, log: Callable[[str], None] = print
) -> pd.DataFrame:
    """Every fixed pairing of `game` (its Ladder's pairings; GameError when it has none): one row per (pairing, agent)
    with win share, interval and target; a line per pairing.

    Parameters
    ----------
    game : GameDef
        The game.
    rules : RuleSet or None
        The rules.
    games : int
        Games per pairing.
    seed : int
        The run seed.
    jobs : int
        Worker processes.
    log : callable
        Receives one line per pairing (its verdict).

    Returns
    -------
    pandas.DataFrame
        :func:`win_shares`' rows per pairing, with the pairing's name and its target (on its first agent's row).
    """
    tables = []
    for name, specs, target in game.require("pairings"):
        t = time.perf_counter()
        ws = win_shares(play_pairing(game, specs, games, seed=seed, rules=rules, jobs=jobs))
        first = ws.iloc[0]
        verdict = "met" if first["win_share"] >= target else "NOT met"
        log(
            f"{name}: {first['agent']} win share {100 * first['win_share']:.1f}% "
            f"[95% Wilson {100 * first['lo']:.1f}, {100 * first['hi']:.1f}] over {first['n']} games "
            f"(target >= {100 * target:.0f}%: {verdict}; {time.perf_counter() - t:.0f} s)"
        )
        ws.insert(0, "pairing", name)
        ws["target"] = [target] + [float("nan")] * (len(ws) - 1)
        tables.append(ws)
    return pd.concat(tables, ignore_index=True)


def win_shares(df: pd.DataFrame) -> pd.DataFrame:
    """Win share per agent with its Wilson interval, agents in the order they first sit (the pairing's order).

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows.

    Returns
    -------
    pandas.DataFrame
        :func:`boardlab.experiments.pipelines.win_share` by agent, in seating order.
    """
    order = list(dict.fromkeys(df["agent"]))
    return win_share(df, "agent").set_index("agent").loc[order].reset_index()


# --- ratings over any set of agents ---------------------------------------------------------


def write_rating_ladder(ratings, spread, shares, out, about: dict) -> None:
    """ratings.csv, spread.csv, win_shares.csv, ratings.png and ladder.json in `out`, each written whole.

    Parameters
    ----------
    ratings, spread, shares : pandas.DataFrame
        :func:`rating_ladder`'s three tables.
    out : pathlib.Path
        The output directory.
    about : dict
        The ladder's facts (game, agents, games, seed, ...), written to ladder.json.
    """
    import json
    from pathlib import Path

    from boardlab.experiments import charts
    from boardlab.experiments.io import atomic_write_text

    out = Path(out)
    atomic_write_text(ratings.to_csv(index=False, float_format="%.4f"), out / "ratings.csv")
    atomic_write_text(spread.to_csv(index=False, float_format="%.4f"), out / "spread.csv")
    atomic_write_text(shares.to_csv(index=False, float_format="%.4f"), out / "win_shares.csv")
    charts.ratings_chart(ratings, out / "ratings.png")
    atomic_write_text(json.dumps(about, indent=1), out / "ladder.json")


def rating_ladder(
    game: GameDef,
    agents: list[str],
    players: list[int],
    games: int,
    work,
    rules=None,
    seed: int = 0,
    jobs: int = 1,
    boot: int = 200,
    log: Callable[[str], None] = print,
    progress: Callable[[str, int, int, float], None] | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
    chunk_size: int | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Plackett–Luce ratings of `agents` of `game` from `games` games per player count, tables drawn from the pool.

    Each seat of each game draws its agent uniformly from the pool (seating ``draw``), so every agent meets
    every other in every seat; runs are cached in `work` (resumable).

    Parameters
    ----------
    game : GameDef
        The game.
    agents : list of str
        The pool's agent specs.
    players : list of int
        The player counts.
    games : int
        Games per player count.
    work : pathlib.Path
        The run cache.
    rules : RuleSet or None
        The rules; None: the default preset.
    seed : int
        The run seed.
    jobs : int
        Worker processes.
    boot : int
        Bootstrap resamples of the intervals.
    log : callable
        Receives progress lines.
    progress : callable or None
        Called ``progress(label, done, total, rate)`` per run.
    backend, scheduler : str, str or None
        As in :func:`boardlab.experiments.simulate.run`.
    chunk_size : int or None
        Games per chunk (boardlab.experiments.simulate.make_spec; None: the game's rule).

    Returns
    -------
    tuple of pandas.DataFrame
        (ratings, spread, win shares): ratings per player count and for all games together
        (boardlab.experiments.ratings), the skill spread per player count, and each agent's win share with its
        Wilson interval per player count.
    """
    from pathlib import Path

    from boardlab.experiments import ratings as R
    from boardlab.experiments import simulate as S

    g = game
    rules = rules if rules is not None else g.load_rules(g.default_preset)
    # the name each agent was given (a tier, or the spec as typed), beside the full spec results store (as the
    # run resolved it for the rules)
    names: dict[str, str] = {}
    tables, spreads, shares, frames = [], [], [], []
    for n in players:
        spec = S.make_spec(n, agents, games, seed, rules, "draw", chunk_size, game=g)
        names.update(zip(spec.agents, agents, strict=True))
        path = Path(work) / f"ladder-{n}p.parquet"

        def tick(done: int, total: int, rate: float, label=f"{n} players") -> None:
            if progress:
                progress(label, done, total, rate)

        _, reused = S.run_or_reuse(spec, path, jobs=jobs, backend=backend, scheduler=scheduler, progress=tick)
        df = read_runs([path])
        log(f"{n} players: {games:,} games ({'reused' if reused else 'played'})")
        frames.append(df)
        t, s = R.rating_table(df, boot=boot, seed=seed)
        tables.append(t.assign(players=str(n)))
        spreads.append({"players": str(n), **s})
        shares.append(win_share(df, "agent").assign(players=n))
    if len(players) > 1:
        t, s = R.rating_table(pd.concat(frames, ignore_index=True), boot=boot, seed=seed)
        tables.append(t.assign(players="all"))
        spreads.append({"players": "all", **s})
    cols = [
        "players",
        "name",
        "agent",
        "seats",
        "games",
        "rating",
        "lo",
        "hi",
        "separated",
        "p_beats_reference",
        "p_lo",
        "p_hi",
    ]
    ratings = pd.concat(tables, ignore_index=True)
    shares = pd.concat(shares, ignore_index=True)
    for t in (ratings, shares):
        t["name"] = t["agent"].map(names).fillna(t["agent"])
    return ratings[cols], pd.DataFrame(spreads), shares[["players", "name", "agent", "n", "win_share", "lo", "hi"]]


def ratings_text(ratings: pd.DataFrame, spread: pd.DataFrame) -> str:
    """The ratings as the command prints them: per player count, best first, with intervals and the spread.

    Parameters
    ----------
    ratings, spread : pandas.DataFrame
        :func:`rating_ladder`'s ratings and spread tables.

    Returns
    -------
    str
        The text, a block per player count.
    """
    lines = []
    for label, t in ratings.groupby("players", sort=False):
        s = spread.set_index("players").loc[label]
        head = f"{label} players" if label != "all" else "all games"
        lines.append(
            f"\n{head}: {int(s['games']):,} games; ratings relative to {s['reference']} (95% bootstrap); skill spread "
            f"{s['skill_spread']:.2f} [{s['skill_spread_lo']:.2f}, {s['skill_spread_hi']:.2f}]"
        )
        for _, r in t.iterrows():
            lines.append(
                f"  {r.get('name', r['agent']):<48} {r['rating']:+6.2f} [{r['lo']:+6.2f}, {r['hi']:+6.2f}]"
                f"   beats {s['reference']} head to head {100 * r['p_beats_reference']:5.1f}%"
                + (
                    "   (never ahead of or never behind another agent: only the side is meaningful)"
                    if r["separated"]
                    else ""
                )
            )
    return "\n".join(lines)


def default_player_counts(players: tuple[int, int]) -> list[int]:
    """``ladder``'s player counts when none are given, from the game's range (``GameDef.players``): its smallest
    count of at least 2, and 4 (or the nearest count the game allows).

    Parameters
    ----------
    players : (int, int)
        The game's smallest and largest player count.

    Returns
    -------
    list of int
        One or two counts, ascending (empty for a solo-only game).
    """
    lo, hi = max(players[0], 2), players[1]
    if lo > hi:
        return []
    return sorted({lo, min(max(4, lo), hi)})
