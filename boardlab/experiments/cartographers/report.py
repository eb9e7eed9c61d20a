"""Cartographers' balance report (GameDef.reports.report, `boardlab reproduce --game cartographers`).

Design notes: docs/games/cartographers/usage.md#report-module.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import chisquare

from boardlab.experiments import charts
from boardlab.experiments.io import staged_directory
from boardlab.experiments.pipelines import Z95, mean_ci, win_share
from boardlab.experiments.report import Report, provenance, render, run_jobs, write_tables
from boardlab.experiments.report import ci as _ci
from boardlab.experiments.report import pct as _pct
from boardlab.sim.cartographers.rules import Rules, load_rules
from boardlab.sim.stats import wilson

GAME = "cartographers"
EDICTS = "ABCD"
STRONGEST = "planner"
MIN_PAIR_GAMES = 20  # pairs seen in fewer games are left out of the report's lists (kept in the CSV)
TABLES = (
    "solo_cards",
    "solo_ratings",
    "solo_titles",
    "edict_cards",
    "card_pairs",
    "sides",
    "score_shares",
    "ambush",
    "seats",
)


@dataclass(frozen=True)
class Job:
    """One simulation of the report (boardlab.experiments.report.Job: the fields
    :func:`boardlab.experiments.report.run_jobs` reads)."""

    key: str  # file stem in the run cache
    figure: str  # solo | multi | ambush | seats
    players: int
    agents: tuple[str, ...]
    rules: str  # preset: base-a | base-b
    games: int
    seating: str = "fixed"
    overrides: tuple[tuple[str, object], ...] = ()
    label: str = ""

    def rule_set(self) -> Rules:
        """The run's rule set.

        Returns
        -------
        Rules
            The run's rules: its side's preset with its overrides.
        """
        r = load_rules(self.rules)
        return r.with_overrides(dict(self.overrides)) if self.overrides else r

    @property
    def side(self) -> str:
        """The map side the run plays (A or B)."""
        return self.rules[-1].upper()

    @property
    def passes(self) -> str:
        """Where ambushes are passed (``ambush.pass_clockwise_to``): next or previous."""
        return dict(self.overrides).get("ambush.pass_clockwise_to", "next")


def sizes(games: int) -> dict[str, int]:
    """Games per kind of run at report size `games`.

    Parameters
    ----------
    games : int
        The report's size (the 4-player tables' game count).

    Returns
    -------
    dict of str to int
        ``solo`` (twice `games`), ``main`` (`games`) and ``half`` (half, at least 10): games per kind of run.
    """
    return {"solo": 2 * games, "main": games, "half": max(games // 2, 10)}


def plan(games: int) -> list[Job]:
    """Every run of the report for size `games` (the 4-player tables' game count).

    Parameters
    ----------
    games : int
        The report's size (the 4-player tables' game count).

    Returns
    -------
    list of Job
        The runs.
    """
    n = sizes(games)
    prev = (("ambush.pass_clockwise_to", "previous"),)
    jobs = [
        Job("solo_planner_A", "solo", 1, ("planner",), "base-a", n["solo"]),
        Job("solo_greedy_A", "solo", 1, ("greedy",), "base-a", n["solo"]),
        Job("solo_random_A", "solo", 1, ("random",), "base-a", n["solo"]),
        Job("solo_planner_B", "solo", 1, ("planner",), "base-b", n["main"]),
        Job("multi_4p_planner_A", "multi", 4, ("planner",), "base-a", n["main"]),
        Job("multi_4p_planner_B", "multi", 4, ("planner",), "base-b", n["main"]),
        Job("ambush_4p_random_A", "ambush", 4, ("planner:ambush=random",), "base-a", n["half"]),
        Job(
            "ambush_4p_mixed_A",
            "ambush",
            4,
            ("planner", "planner:ambush=random") * 2,
            "base-a",
            n["half"],
            "rotate",
            label="adversarial and random seats alternating",
        ),
    ]
    for p in (2, 3, 5):
        jobs.append(Job(f"seats_{p}p_planner_A", "seats", p, ("planner",), "base-a", n["main"]))
    for p in (3, 4):
        jobs.append(Job(f"seats_{p}p_planner_A_prev", "seats", p, ("planner",), "base-a", n["half"], overrides=prev))
    return jobs


# --- tables -------------------------------------------------------------------------


def card_info(rules: Rules | None = None) -> pd.DataFrame:
    """card, name, category, solo (the printed solo number) of the 16 scoring cards.

    Parameters
    ----------
    rules : Rules or None
        The rule set (None: the default preset).

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    rules = rules or load_rules("base-a")
    return pd.DataFrame(
        [(c.id, c.name, c.category, c.solo) for c in rules.scoring_cards], columns=["card", "name", "category", "solo"]
    )


def card_points(df: pd.DataFrame) -> pd.DataFrame:
    """Long table: one row per (game, seat, edict slot): slot, card, points (its two scorings).

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows (one per game and seat).

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    parts = []
    for e in EDICTS:
        k = e.lower()
        part = df[["game", "seat", f"card_{k}", f"points_{k}"]].rename(
            columns={f"card_{k}": "card", f"points_{k}": "points"}
        )
        parts.append(part.assign(slot=e))
    out = pd.concat(parts, ignore_index=True)
    return out.astype({"card": int, "points": float})


def _interval(mean, sd, n):
    half = Z95 * np.nan_to_num(sd) / np.sqrt(np.maximum(n, 1))
    return mean - half, mean + half


def solo_card_table(frames: dict[Job, pd.DataFrame]) -> pd.DataFrame:
    """Per solo run and card: mean points over the game, the printed solo number and the excess.

    ``excess`` = mean points - solo number (the card's term of the rating); ``relative`` =
    excess - the mean excess of the 16 cards, whose interval accounts for both (a card's
    calibration *against the other cards*, whatever the player's overall level).

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    rows = []
    for job, df in frames.items():
        if job.figure != "solo":
            continue
        info = card_info(job.rule_set())  # the printed numbers of the run's own rules
        cp = card_points(df)
        g = cp.groupby("card")["points"].agg(["mean", "std", "count"]).reindex(info["card"])
        t = info.copy()
        t.insert(0, "agent", job.agents[0].split(":")[0])
        t.insert(1, "side", job.side)
        t["n"] = g["count"].to_numpy().astype(int)
        t["mean"] = g["mean"].to_numpy()
        t["lo"], t["hi"] = _interval(t["mean"], g["std"].to_numpy(), t["n"])
        var = (np.nan_to_num(g["std"].to_numpy()) ** 2) / np.maximum(t["n"], 1)
        t["excess"] = t["mean"] - t["solo"]
        mean_excess = t["excess"].mean()
        k = len(t)
        rel_var = var * (1 - 1 / k) ** 2 + (var.sum() - var) / k**2
        t["relative"] = t["excess"] - mean_excess
        half = Z95 * np.sqrt(rel_var)
        t["rel_lo"], t["rel_hi"] = t["relative"] - half, t["relative"] + half
        t["verdict"] = np.select(
            [t["lo"] > t["solo"], t["hi"] < t["solo"]], ["generous", "harsh"], "about right"
        )  # the printed number vs this agent's interval
        t["relative_verdict"] = np.select([t["rel_lo"] > 0, t["rel_hi"] < 0], ["generous", "harsh"], "about right")
        rows.append(t)
    return pd.concat(rows, ignore_index=True)


def solo_rating_table(frames: dict[Job, pd.DataFrame]) -> pd.DataFrame:
    """Per solo run: the rating and its parts, means with intervals (long: metric, n, mean, lo, hi).

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    parts = []
    for job, df in frames.items():
        if job.figure != "solo":
            continue
        info = card_info(job.rule_set()).set_index("card")["solo"]
        d = df.copy()
        d["par"] = sum(d[f"card_{e}"].astype(int).map(info) for e in "abcd")
        d["excess"] = d["edict_points"] - d["par"]
        d["coins_minus_monsters"] = d["coin_points"] - d["monster_penalty"]
        d["agent"] = job.agents[0].split(":")[0]
        d["side"] = job.side
        cols = [
            "total",
            "par",
            "rating",
            "edict_points",
            "excess",
            "coin_points",
            "monster_penalty",
            "coins_minus_monsters",
        ]
        parts.append(mean_ci(d, cols, ["agent", "side"]))
    out = pd.concat(parts, ignore_index=True)
    return out


def solo_title_table(frames: dict[Job, pd.DataFrame], rules: Rules | None = None) -> pd.DataFrame:
    """Per solo run and title: share of games earning exactly that title and reaching it (rating >= threshold).

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.
    rules : Rules or None
        The rule set (None: the default preset).

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    rules = rules or load_rules("base-a")
    rows = []
    for job, df in frames.items():
        if job.figure != "solo":
            continue
        n = len(df)
        rating = df["rating"].to_numpy()
        for threshold, title in [*rules.titles, (None, "(none: below -30)")]:
            exact = int((df["title"] == (title if threshold is not None else "")).sum())
            reach = int((rating >= threshold).sum()) if threshold is not None else np.nan
            lo, hi = wilson(reach, n) if threshold is not None else (np.nan, np.nan)
            elo, ehi = wilson(exact, n)
            rows.append(
                {
                    "agent": job.agents[0].split(":")[0],
                    "side": job.side,
                    "title": title,
                    "rating_at_least": threshold,
                    "n": n,
                    "exact": exact / n,
                    "exact_lo": elo,
                    "exact_hi": ehi,
                    "reaching": reach / n,
                    "lo": lo,
                    "hi": hi,
                }
            )
    return pd.DataFrame(rows)


def game_means(df: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """One row per game: the seats' mean of `columns` (the game's cards kept).

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows (one per game and seat).
    columns : list of str
        The columns averaged over each game's seats.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    keys = ["game", "card_a", "card_b", "card_c", "card_d"]
    return df.groupby(keys, sort=True)[columns].mean().reset_index()


def edict_card_table(frames: dict[Job, pd.DataFrame]) -> pd.DataFrame:
    """Multiplayer: mean points per player of each card, over all slots and per slot A-D; n = games.

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    info = card_info()
    parts = []
    for job, df in frames.items():
        if job.figure != "multi":
            continue
        cp = card_points(df).groupby(["game", "slot", "card"], sort=True)["points"].mean().reset_index()
        every = mean_ci(cp.assign(slot="all"), ["points"], ["slot", "card"])
        per_slot = mean_ci(cp, ["points"], ["slot", "card"])
        slots = mean_ci(cp.assign(card=0), ["points"], ["slot", "card"])  # every card in that slot
        t = pd.concat([every, per_slot, slots], ignore_index=True).drop(columns="metric")
        t.insert(0, "players", job.players)
        t.insert(0, "side", job.side)
        parts.append(t)
    out = pd.concat(parts, ignore_index=True).merge(info, on="card", how="left")
    out["name"] = out["name"].fillna("(every card)")
    out["solo"] = out["solo"].astype("Int64")
    return out[["side", "players", "slot", "card", "name", "category", "solo", "n", "mean", "lo", "hi"]]


def card_pair_table(frames: dict[Job, pd.DataFrame]) -> pd.DataFrame:
    """Multiplayer: mean total per player in games with each pair of cards, and its interaction.

    ``interaction`` = pair mean - (mean with card x + mean with card y - grand mean): what the
    pair adds beyond the two cards' separate effects (an additive model's residual).

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    parts = []
    for job, df in frames.items():
        if job.figure != "multi":
            continue
        g = game_means(df, ["total"])
        grand = g["total"].mean()
        cards = g[["card_a", "card_b", "card_c", "card_d"]].to_numpy()
        single = {c: g.loc[(cards == c).any(axis=1), "total"].mean() for c in np.unique(cards)}
        rows = []
        for x, y in itertools.combinations(range(4), 2):
            a = np.minimum(cards[:, x], cards[:, y])
            b = np.maximum(cards[:, x], cards[:, y])
            rows.append(pd.DataFrame({"card_x": a, "card_y": b, "total": g["total"].to_numpy()}))
        long = pd.concat(rows, ignore_index=True)
        t = long.groupby(["card_x", "card_y"])["total"].agg(["mean", "std", "count"]).reset_index()
        t["lo"], t["hi"] = _interval(t["mean"], t["std"], t["count"])
        t.loc[t["count"] < 2, ["lo", "hi"]] = np.nan  # one game: no interval
        t["expected"] = t["card_x"].map(single) + t["card_y"].map(single) - grand
        t["interaction"] = t["mean"] - t["expected"]
        t["int_lo"] = t["lo"] - t["expected"]
        t["int_hi"] = t["hi"] - t["expected"]
        t.insert(0, "side", job.side)
        parts.append(t.rename(columns={"count": "n"}).drop(columns="std"))
    return pd.concat(parts, ignore_index=True)


def side_table(frames: dict[Job, pd.DataFrame], agent: str = STRONGEST) -> pd.DataFrame:
    """Map side A vs B: `agent`'s mean total and its parts, solo and 4 players (n = games), and B - A.

    Both sides' runs use the same game seeds, which deal the same cards: ``side="B-A"`` rows are the
    mean paired difference over the games both runs played (matched by game number, same cards).

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.
    agent : str
        The agent whose runs give the table.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    parts, games = [], {}
    for job, df in frames.items():
        if job.agents != (agent,) or job.figure not in ("solo", "multi"):
            continue
        cols = ["total", "edict_points", "coin_points", "monster_penalty"] + (["rating"] if job.players == 1 else [])
        g = game_means(df, cols).assign(side=job.side, players=job.players)
        games[(job.players, job.side)] = (g, cols)
        parts.append(mean_ci(g, cols, ["players", "side"]))
    for (players, side), (a, cols) in games.items():
        if side != "A" or (players, "B") not in games:
            continue
        b = games[(players, "B")][0]
        m = a.merge(b, on=["game", "card_a", "card_b", "card_c", "card_d"], suffixes=("_a", "_b"))
        if len(m) < min(len(a), len(b)):  # not the same deals: no pairing
            continue
        diff = pd.DataFrame({c: m[f"{c}_b"] - m[f"{c}_a"] for c in cols}).assign(players=players, side="B-A")
        parts.append(mean_ci(diff, cols, ["players", "side"]))
    return pd.concat(parts, ignore_index=True)


def _ratio(num: np.ndarray, den: np.ndarray) -> tuple[float, float, float]:
    """mean(num)/mean(den) with a delta-method 95% interval."""
    n = len(num)
    r = num.mean() / den.mean()
    sd = np.std(num - r * den, ddof=1) / abs(den.mean()) if n > 1 else 0.0
    half = Z95 * sd / np.sqrt(n)
    return r, r - half, r + half


def score_share_table(frames: dict[Job, pd.DataFrame]) -> pd.DataFrame:
    """Coins' and monsters' share of the final score: ratio of means over games, with intervals.

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    rows = []
    for job, df in frames.items():
        if job.figure == "seats" or job.key == "ambush_4p_mixed_A" or job.agents[0] == "random":
            continue
        g = game_means(df, ["total", "edict_points", "coin_points", "monster_penalty"])
        row = {"run": job.key, "players": job.players, "agent": job.agents[0], "side": job.side, "n": len(g)}
        for c in ("total", "edict_points", "coin_points", "monster_penalty"):
            row[c] = g[c].mean()
        for c, name in (("coin_points", "coin"), ("monster_penalty", "monster")):
            r, lo, hi = _ratio(g[c].to_numpy(), g["total"].to_numpy())
            row[f"{name}_share"], row[f"{name}_lo"], row[f"{name}_hi"] = r, lo, hi
        rows.append(row)
    return pd.DataFrame(rows)


def ambush_table(frames: dict[Job, pd.DataFrame], agent: str = STRONGEST) -> pd.DataFrame:
    """Adversarial vs random ambush placement, 4 players, side A: monster penalty suffered, total, win share
    (`agent`'s runs: every seat adversarial is its 4-player table ``multi_4p_<agent>_A``).

    In the all-one-policy tables every seat's monsters come from that policy; in the mixed table the
    adversarial seats suffer the random seats' placements and the reverse (neighbours alternate).

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.
    agent : str
        The agent whose runs give the table.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    rows = []
    for job, df in frames.items():
        if job.key not in (f"multi_4p_{agent}_A", "ambush_4p_random_A", "ambush_4p_mixed_A"):
            continue
        d = df.assign(ambush=df["agent"].str.extract(r"ambush=(\w+)", expand=False))
        table = "mixed (alternating)" if job.key == "ambush_4p_mixed_A" else f"all {d['ambush'].iloc[0]}"
        if table.startswith("all"):  # seats of one game are not independent: means over games
            m = mean_ci(
                game_means(d, ["monster_penalty", "total"]).assign(ambush=d["ambush"].iloc[0]),
                ["monster_penalty", "total"],
                "ambush",
            )
        else:
            m = mean_ci(d, ["monster_penalty", "total"], "ambush")
        w = win_share(d, "ambush")
        for _, r in w.iterrows():
            pen = m[(m["ambush"] == r["ambush"]) & (m["metric"] == "monster_penalty")].iloc[0]
            tot = m[(m["ambush"] == r["ambush"]) & (m["metric"] == "total")].iloc[0]
            rows.append(
                {
                    "table": table,
                    "ambush": r["ambush"],
                    "games": len(d) // job.players,
                    "n": pen["n"],
                    "monster_penalty": pen["mean"],
                    "penalty_lo": pen["lo"],
                    "penalty_hi": pen["hi"],
                    "total": tot["mean"],
                    "total_lo": tot["lo"],
                    "total_hi": tot["hi"],
                    "seats": int(r["n"]),
                    "win_share": r["win_share"],
                    "lo": r["lo"],
                    "hi": r["hi"],
                }
            )
    return pd.DataFrame(rows)


def seat_table(frames: dict[Job, pd.DataFrame]) -> pd.DataFrame:
    """Seat win shares with identical agents, seating fixed: players, pass direction, seat.

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    parts = []
    for job, df in frames.items():
        if job.figure not in ("seats", "multi") or job.side != "A":
            continue
        w = win_share(df, "seat").assign(players=job.players, passes=job.passes, agent=job.agents[0])
        w["fair"] = 1 / job.players
        w["inside"] = (w["lo"] <= w["fair"]) & (w["fair"] <= w["hi"])
        parts.append(w)
    out = pd.concat(parts, ignore_index=True)
    # one test per table of "every seat wins 1/N" (chi-square on the summed win shares, N - 1 df)
    p_equal = {}
    for key, t in out.groupby(["players", "passes"]):
        wins = t["win_share"] * t["n"]
        p_equal[key] = float(chisquare(wins, np.full(len(t), wins.sum() / len(t))).pvalue)
    out["p_equal"] = [p_equal[(p, d)] for p, d in zip(out["players"], out["passes"], strict=True)]
    cols = ["players", "passes", "agent", "seat", "n", "win_share", "lo", "hi", "fair", "inside", "p_equal"]
    return out[cols].sort_values(["players", "passes", "seat"], ignore_index=True)


def build_tables(frames: dict[Job, pd.DataFrame], agent: str = STRONGEST) -> dict[str, pd.DataFrame]:
    """Every table of the report from its runs; `agent` is the one whose runs give the side and ambush tables.

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.
    agent : str
        The agent whose runs give the table.

    Returns
    -------
    dict of str to pandas.DataFrame
        Table name -> table.
    """
    return {
        "solo_cards": solo_card_table(frames),
        "solo_ratings": solo_rating_table(frames),
        "solo_titles": solo_title_table(frames),
        "edict_cards": edict_card_table(frames),
        "card_pairs": card_pair_table(frames),
        "sides": side_table(frames, agent),
        "score_shares": score_share_table(frames),
        "ambush": ambush_table(frames, agent),
        "seats": seat_table(frames),
    }


# --- the run ------------------------------------------------------------------------


def chunk_size(games: int) -> int:
    """A few seconds of work per chunk, and at least two chunks a run so both workers have work.

    Parameters
    ----------
    games : int
        A run's games.

    Returns
    -------
    int
        Games per chunk.
    """
    return max(10, min(500, (games + 1) // 2))


def reproduce(
    games: int,
    out: Path,
    work: Path,
    seed: int = 0,
    n_jobs: int = 1,
    log: Callable[[str], None] = print,
    command: str = "",
    backend: str = "loky",
    scheduler: str | None = None,
    progress=None,
) -> dict[str, pd.DataFrame]:
    """Play the plan (reusing finished runs), analyse it, write tables, charts and REPORT.md into `out`.

    Parameters
    ----------
    games : int
        The report's size.
    out : pathlib.Path
        The report's directory.
    work : pathlib.Path
        The run cache.
    seed : int
        The run seed.
    n_jobs : int
        Worker processes.
    log : callable
        Receives progress lines.
    command : str
        The command line, quoted in the report.
    backend, scheduler : str, str or None
        As in :func:`boardlab.experiments.simulate.run`.
    progress : callable or None
        Called ``progress(job, done, total, rate)`` after each chunk.

    Returns
    -------
    dict of str to pandas.DataFrame
        The report's tables.
    """
    t0 = time.perf_counter()
    jobs = plan(games)
    frames = run_jobs(
        GAME, jobs, Path(work), seed, n_jobs, log, backend, scheduler, progress, chunk_size=chunk_size(games)
    )
    tables = build_tables(frames)
    elapsed = time.perf_counter() - t0
    write_outputs(tables, frames, Path(out), games, seed, command, elapsed)
    return tables


def write_outputs(tables, frames, out: Path, games, seed, command, elapsed) -> None:
    """Every file into a temporary directory beside `out`, then each moved into place, REPORT.md last.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The report's tables.
    frames : dict of Job to pandas.DataFrame
        Each run and its rows.
    out : pathlib.Path
        The report's directory.
    games : int
        The report's size.
    seed : int
        The run seed.
    command : str
        The command line, quoted in the report.
    elapsed : float
        Seconds the runs took.
    """
    with staged_directory(out) as tmp:
        write_tables(tmp, tables)
        solo_cards_chart(tables["solo_cards"], tmp / "solo_cards.png")
        titles_chart(tables["solo_titles"], tmp / "solo_titles.png")
        edict_chart(tables["edict_cards"], tmp / "edict_cards.png")
        seats_chart(tables["seats"], tmp / "seats.png")
        (tmp / "REPORT.md").write_text(report(tables, frames, games, seed, command, elapsed), encoding="utf-8")


# --- charts ---------------------------------------------------------------------------


def solo_cards_chart(t: pd.DataFrame, path: Path) -> None:
    """Solo, side A: each card's mean points against its printed solo number, per agent.

    Parameters
    ----------
    t : pandas.DataFrame
        The chart's table.
    path : pathlib.Path
        The PNG file.
    """
    plt = charts.plt
    t = t[(t["side"] == "A") & (t["agent"] != "random")].assign(label=lambda d: d["card"].astype(str))
    colours = charts.family_colours(t["agent"])
    fig, ax = plt.subplots(figsize=(10, 4.4), layout="constrained")
    charts.grouped_bars(ax, t, "label", "agent", "mean", book="solo", colours=colours)
    ax.set_ylabel("points over the game (95% CI)")
    ax.set_xlabel("scoring card (printed number)")
    ax.set_title("Solo, side A: each card's points (its two scorings) beside its printed solo number", fontsize=10)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [Patch(color=c, label=a) for a, c in colours.items()]
    handles.append(Line2D([], [], label="printed solo number", **charts.BOOK_STYLE))
    ax.legend(handles=handles, fontsize=8)
    charts.save(fig, path)


def titles_chart(
    t: pd.DataFrame,
    path: Path,
    by: str = "agent",
    title: str = "Solo, side A: share of games reaching each title (rating at least its threshold)",
) -> None:
    """Share of solo games (side A) reaching each title, a bar per value of `by` (agent, or the skill report's tier).

    Parameters
    ----------
    t : pandas.DataFrame
        The chart's table.
    path : pathlib.Path
        The PNG file.
    by : str
        The column of the bars (agent, or the skill report's tier).
    title : str
        The chart's title.
    """
    plt = charts.plt
    t = t[(t["side"] == "A") & t["rating_at_least"].notna()].assign(reaching=lambda d: 100 * d["reaching"])
    t = t.assign(lo=100 * t["lo"], hi=100 * t["hi"], title=t["title"].str.split().str[-1])
    colours = charts.family_colours(t[by])
    fig, ax = plt.subplots(figsize=(9, 4), layout="constrained")
    charts.grouped_bars(ax, t, "title", by, "reaching", colours=colours)
    ax.set_ylabel("games reaching the title, % (95% Wilson)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    charts.save(fig, path)


def edict_chart(t: pd.DataFrame, path: Path) -> None:
    """Multiplayer: each card's mean points per player, per map side.

    Parameters
    ----------
    t : pandas.DataFrame
        The chart's table.
    path : pathlib.Path
        The PNG file.
    """
    plt = charts.plt
    t = t[(t["slot"] == "all") & (t["card"] > 0)].assign(label=lambda d: d["card"].astype(str))
    colours = charts.family_colours("side " + t["side"])
    t = t.assign(side="side " + t["side"])
    fig, ax = plt.subplots(figsize=(10, 4.2), layout="constrained")
    charts.grouped_bars(ax, t, "label", "side", "mean", colours=colours)
    ax.set_ylabel("points per player over the game (95% CI)")
    ax.set_xlabel("scoring card (printed number)")
    ax.set_title("4 players, every seat planner: each card's points per player, by map side", fontsize=10)
    ax.legend(fontsize=8)
    charts.save(fig, path)


def seats_chart(t: pd.DataFrame, path: Path) -> None:
    """Seat win shares with identical agents, one panel per player count, per pass direction.

    Parameters
    ----------
    t : pandas.DataFrame
        The chart's table.
    path : pathlib.Path
        The PNG file.
    """
    plt = charts.plt
    players = sorted(t["players"].unique())
    fig, axes = plt.subplots(1, len(players), figsize=(3.4 * len(players), 3.4), squeeze=False, layout="constrained")
    t = t.assign(win_pct=100 * t["win_share"], lo=100 * t["lo"], hi=100 * t["hi"], passes="to " + t["passes"])
    colours = charts.family_colours(t["passes"])
    for ax, p in zip(axes[0], players, strict=True):
        charts.grouped_bars(ax, t[t["players"] == p], "seat", "passes", "win_pct", colours=colours)
        ax.axhline(100 / p, color="grey", lw=0.6, ls=":")
        ax.set_title(f"{p} players", fontsize=9)
        ax.set_xlabel("seat")
    axes[0][0].set_ylabel("win share, % (95% Wilson)")
    axes[0][-1].legend(title="ambush arrow passes", fontsize=7, title_fontsize=7)
    charts.save(fig, path)


# --- the report -----------------------------------------------------------------------


def _metric(t: pd.DataFrame, metric: str, **where) -> pd.Series:
    m = t["metric"] == metric
    for k, v in where.items():
        m &= t[k] == v
    return t[m].iloc[0]


def solo_calibration_table(tables) -> pd.DataFrame:
    """The solo calibration table of REPORT.md: side A, planner beside greedy, per card.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The report's tables (:func:`build_tables`).

    Returns
    -------
    pandas.DataFrame
        One row per card, every value text as the report shows it.
    """
    c = tables["solo_cards"]
    c = c[c["side"] == "A"]
    p = c[c["agent"] == STRONGEST].set_index("card")
    g = c[c["agent"] == "greedy"].set_index("card")
    rows = []
    for card, r in p.iterrows():
        rows.append(
            {
                "card": card,
                "name": r["name"],
                "solo number": r["solo"],
                "games": f"{r['n']:,}",
                "planner points": _ci(r["mean"], r["lo"], r["hi"]),
                "greedy points": _ci(*g.loc[card, ["mean", "lo", "hi"]]),
                "planner excess": f"{r['excess']:+.1f}",
                "printed number (planner)": r["verdict"],
                "relative to other cards": f"{_ci(r['relative'], r['rel_lo'], r['rel_hi'], sign=True)} "
                f"{r['relative_verdict']}",
            }
        )
    return pd.DataFrame(rows)


def multiplayer_rows(tables) -> dict:
    """The multiplayer tables of REPORT.md as the template reads them: edict slots and cards, card pairs, map
    sides, score shares, ambush placement and seats, with the numbers the summary quotes of them.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The report's tables (:func:`build_tables`).

    Returns
    -------
    dict
        Each table (pandas.DataFrame, values as the report shows them) and number, by its name in
        ``cartographers_report.md.j2``.
    """
    ed = tables["edict_cards"]
    slot_rows = []
    for side, t in ed[ed["card"] == 0].groupby("side"):
        slot_rows.append(
            {
                "side": side,
                "games": f"{t['n'].iloc[0]:,}",
                **{f"slot {r['slot']}": _ci(r["mean"], r["lo"], r["hi"]) for _, r in t.iterrows()},
            }
        )
    card_rows = []
    every = ed[(ed["slot"] == "all") & (ed["card"] > 0)]
    for card, t in every.groupby("card"):
        row = {"card": card, "name": t["name"].iloc[0]}
        for _, r in t.iterrows():
            row[f"side {r['side']} (games)"] = f"{_ci(r['mean'], r['lo'], r['hi'])} ({r['n']:,})"
        card_rows.append(row)
    per_slot = ed[(ed["slot"] != "all") & (ed["card"] > 0) & (ed["side"] == "A")]
    slot_spread = per_slot.groupby("card")["mean"].agg(lambda s: s.max() - s.min())
    pairs = tables["card_pairs"]
    pa_pairs = pairs[(pairs["side"] == "A") & (pairs["n"] >= MIN_PAIR_GAMES)].sort_values("interaction")
    info = card_info().set_index("card")["name"]

    def pair_rows(t):
        return pd.DataFrame(
            [
                {
                    "pair": " + ".join(f"{int(r[k])} {info[int(r[k])]}" for k in ("card_x", "card_y")),
                    "games": int(r["n"]),
                    "mean total": _ci(r["mean"], r["lo"], r["hi"]),
                    "interaction": _ci(r["interaction"], r["int_lo"], r["int_hi"], sign=True),
                }
                for _, r in t.iterrows()
            ]
        )

    n_pairs_out = int(((pa_pairs["int_lo"] > 0) | (pa_pairs["int_hi"] < 0)).sum())
    sides = tables["sides"]
    side_rows = []
    for (players, metric), t in sides.groupby(["players", "metric"], sort=True):
        row = {"players": players, "metric": metric}
        for _, r in t.iterrows():
            label = "B − A (paired games)" if r["side"] == "B-A" else f"side {r['side']}"
            row[label] = _ci(r["mean"], r["lo"], r["hi"]) + (f" ({r['n']:,})" if r["side"] != "A" else "")
            if r["side"] == "A":
                row["side A games"] = f"{r['n']:,}"
        side_rows.append(row)
    shares = tables["score_shares"]
    share_rows = pd.DataFrame(
        [
            {
                "run": r["run"],
                "games": f"{r['n']:,}",
                "mean total": f"{r['total']:.1f}",
                "edict points": f"{r['edict_points']:.1f}",
                "coin points": f"{r['coin_points']:.1f}",
                "monster penalty": f"{r['monster_penalty']:.1f}",
                "coins / total": _pct(r["coin_share"], r["coin_lo"], r["coin_hi"]),
                "monsters / total": _pct(r["monster_share"], r["monster_lo"], r["monster_hi"]),
            }
            for _, r in shares.iterrows()
        ]
    )
    amb = tables["ambush"]
    amb_rows = pd.DataFrame(
        [
            {
                "table": r["table"],
                "placement": r["ambush"],
                "games": f"{r['games']:,}",
                "monster penalty suffered (n)": _ci(r["monster_penalty"], r["penalty_lo"], r["penalty_hi"])
                + f" ({r['n']:,})",
                "total": _ci(r["total"], r["total_lo"], r["total_hi"]),
                "win share (seats)": f"{_pct(r['win_share'], r['lo'], r['hi'])} ({r['seats']:,})",
            }
            for _, r in amb.iterrows()
        ]
    )
    seats = tables["seats"]
    seat_rows = []
    for (players, passes), t in seats.groupby(["players", "passes"], sort=True):
        seat_rows.append(
            {
                "players": players,
                "arrow passes to": passes,
                "games": f"{t['n'].iloc[0]:,}",
                **{f"seat {int(r['seat'])}": _pct(r["win_share"], r["lo"], r["hi"]) for _, r in t.iterrows()},
                "1/N inside every interval": "yes" if t["inside"].all() else "no",
                "p (all seats 1/N)": f"{t['p_equal'].iloc[0]:.2f}",
            }
        )
    seat_df = pd.DataFrame(seat_rows).fillna("")
    last = ["1/N inside every interval", "p (all seats 1/N)"]
    seats = tables["seats"]
    return {
        "seats_out": int((~seats["inside"]).sum()),
        "seat_intervals": len(seats),
        "seat_tables": seats.groupby(["players", "passes"]).ngroups,
        "seat_min_p": seats["p_equal"].min(),
        "pairs_out": n_pairs_out,
        "pairs_seen": len(pa_pairs),
        "slot_rows": pd.DataFrame(slot_rows),
        "card_rows": pd.DataFrame(card_rows),
        "slot_spread": slot_spread.max(),
        "slot_spread_card": f"{int(slot_spread.idxmax())} {info[int(slot_spread.idxmax())]}",
        "pairs_highest": pair_rows(pa_pairs.iloc[::-1].head(5)),
        "pairs_lowest": pair_rows(pa_pairs.head(5)),
        "side_rows": pd.DataFrame(side_rows),
        "share_rows": share_rows,
        "ambush_rows": amb_rows,
        "seat_rows": seat_df[[c for c in seat_df.columns if c not in last] + last],
    }


def report(tables, frames, games, seed, command, elapsed) -> str:
    """REPORT.md: the plan, every table with what it says, and the charts.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The report's tables.
    frames : dict of Job to pandas.DataFrame
        Each run and its rows.
    games : int
        The report's size.
    seed : int
        The run seed.
    command : str
        The command line, quoted in the report.
    elapsed : float
        Seconds the runs took.

    Returns
    -------
    str
        REPORT.md's Markdown.
    """
    total_games = sum(len(df) // j.players for j, df in frames.items())
    sim_seconds = sum(df.attrs.get("seconds", 0.0) for df in frames.values())
    runs = pd.DataFrame(
        [
            {
                "run": j.key,
                "players": j.players,
                "rules": j.rules + (f" ({j.passes})" if j.passes != "next" else ""),
                "seating": j.seating,
                "agents": ", ".join(j.agents),
                "games": f"{j.games:,}",
                "played in (s)": round(df.attrs.get("seconds", 0.0), 1),
            }
            for j, df in frames.items()
        ]
    )
    cards = tables["solo_cards"]
    ratings = tables["solo_ratings"]
    pa = cards[(cards["agent"] == STRONGEST) & (cards["side"] == "A")]
    gen = pa[pa["verdict"] == "generous"]["card"].tolist()
    harsh = pa[pa["verdict"] == "harsh"]["card"].tolist()
    rgen = pa[pa["relative_verdict"] == "generous"]["card"].tolist()
    rharsh = pa[pa["relative_verdict"] == "harsh"]["card"].tolist()
    rho = pa[["mean", "solo"]].corr(method="spearman").iloc[0, 1]
    rt = _metric(ratings, "rating", agent=STRONGEST, side="A")
    ex = _metric(ratings, "excess", agent=STRONGEST, side="A")
    cm = _metric(ratings, "coins_minus_monsters", agent=STRONGEST, side="A")

    def names(ids):
        info = card_info().set_index("card")["name"]
        return ", ".join(f"{i} {info[i]}" for i in ids) or "none"

    rating_rows = []
    for (agent, side), t in ratings.groupby(["agent", "side"], sort=False):
        rating_rows.append(
            {
                "agent": agent,
                "side": side,
                "games": f"{t['n'].iloc[0]:,}",
                **{
                    m: _ci(*_metric(t, m)[["mean", "lo", "hi"]])
                    for m in ("total", "par", "rating", "excess", "coin_points", "monster_penalty")
                },
            }
        )
    titles = tables["solo_titles"]
    title_rows = []
    for title, t in titles[titles["side"] == "A"].groupby("title", sort=False):
        row = {
            "title": title,
            "rating ≥": "" if pd.isna(t["rating_at_least"].iloc[0]) else int(t["rating_at_least"].iloc[0]),
        }
        for _, r in t.iterrows():
            row[f"{r['agent']} reaching"] = "" if pd.isna(r["reaching"]) else _pct(r["reaching"], r["lo"], r["hi"])
            row[f"{r['agent']} exactly"] = f"{100 * r['exact']:.1f}%"
        title_rows.append(row)
    return render(
        "cartographers_report.md.j2",
        p=provenance(command, len(frames), total_games, sim_seconds, elapsed),
        n=sizes(games),
        seed=seed,
        rt=rt.to_dict(),
        ex=ex.to_dict(),
        cm=cm.to_dict(),
        generous=names(gen),
        harsh=names(harsh),
        relative_generous=names(rgen),
        relative_harsh=names(rharsh),
        rho=rho,
        min_pair_games=MIN_PAIR_GAMES,
        solo_calibration=solo_calibration_table(tables),
        rating_rows=pd.DataFrame(rating_rows),
        title_rows=pd.DataFrame(title_rows),
        runs=runs,
        tables=TABLES,
        **multiplayer_rows(tables),
    )


REPORT = Report(
    reproduce,
    title="Cartographers' balance report",
    home="cartographers",
    default_games=1000,
)
