"""Cartographers across skill (GameDef.reports.skill_report): `boardlab reproduce --game cartographers --skill`.

Design notes: docs/games/cartographers/usage.md#skill-report-module.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import norm, rankdata
from statsmodels.stats.multitest import multipletests

from boardlab.experiments import charts
from boardlab.experiments.io import staged_directory
from boardlab.experiments.report import Report, provenance, render, run_jobs, write_tables
from boardlab.experiments.report import ci as _ci
from boardlab.experiments.report import pct as _pct

from . import report as R
from .report import GAME, MIN_PAIR_GAMES, Job, card_info

TIERS = ("greedy", "planner", "strong", "expert")
PLAYER_RANGE = ("planner", "strong", "expert")  # recalibrated.toml: the median of their numbers
EXPERT_SCALE = 8  # the expert's tables are 1/EXPERT_SCALE of the others (solo: twice that share)
FDR = 0.05  # Benjamini-Hochberg false discovery rate of the card-pair interactions
BOOTSTRAP = 4000  # parametric bootstrap draws of the Spearman interval
TABLES = (
    "solo_cards",
    "solo_ratings",
    "solo_titles",
    "excess_by_tier",
    "spearman",
    "recalibrated",
    "proposal_cards",
    "proposal_titles",
    "recommended_cards",
    "recommended_titles",
    "edict_cards",
    "card_pairs",
    "sides",
    "ambush",
    "seats",
)


def tier_sizes(games: int, tier: str) -> dict[str, int]:
    """Games per kind of run for one tier: solo, main (4 players, seats), half (ambush, pass direction).

    Parameters
    ----------
    games : int
        The report's size.
    tier : str
        The tier.

    Returns
    -------
    dict of str to int
        ``solo``, ``main`` and ``half``: games per kind of run.
    """
    if tier == "expert":
        n = max(games // EXPERT_SCALE, 20)
        return {"solo": 4 * n, "main": n, "half": max(n // 2, 10), "proposal": 2 * n}
    return {"solo": 2 * games, "main": games, "half": max(games // 2, 10), "proposal": 2 * games}


def tier_plan(games: int, tier: str) -> list[Job]:
    """The report's runs for one tier: every seat plays `tier` (its ambush adversarial unless said).

    Parameters
    ----------
    games : int
        The report's size.
    tier : str
        The tier.

    Returns
    -------
    list of Job
        The runs.
    """
    n = tier_sizes(games, tier)
    t = tier
    prev = (("ambush.pass_clockwise_to", "previous"),)
    jobs = [
        Job(f"solo_{t}_A", "solo", 1, (t,), "base-a", n["solo"]),
        Job(f"solo_{t}_B", "solo", 1, (t,), "base-b", n["main"]),
        Job(f"multi_4p_{t}_A", "multi", 4, (t,), "base-a", n["main"]),
        Job(f"multi_4p_{t}_B", "multi", 4, (t,), "base-b", n["main"]),
        Job("ambush_4p_random_A", "ambush", 4, (f"{t}:ambush=random",), "base-a", n["half"]),
        Job(
            "ambush_4p_mixed_A",
            "ambush",
            4,
            (t, f"{t}:ambush=random") * 2,
            "base-a",
            n["half"],
            "rotate",
            label="adversarial and random seats alternating",
        ),
    ]
    for p in (2, 3, 5):
        jobs.append(Job(f"seats_{p}p_{t}_A", "seats", p, (t,), "base-a", n["main"]))
    for p in (3, 4):
        jobs.append(Job(f"seats_{p}p_{t}_A_prev", "seats", p, (t,), "base-a", n["half"], overrides=prev))
    return jobs


def proposal_job(games: int, tier: str, numbers: dict[int, int], label: str = "own") -> Job:
    """Solo, side A, `tier` under recalibrated `numbers` (label "own": the tier's, "recommended":
    recalibrated.toml's); its key names the numbers' hash: a new proposal is a new run, never a cached one of
    other numbers.

    Parameters
    ----------
    games : int
        The report's size.
    tier : str
        The tier.
    numbers : dict of int to int
        Scoring card -> its solo number.
    label : str
        ``own`` or ``recommended``.

    Returns
    -------
    Job
        The run.
    """
    overrides = tuple((f"cards.scoring.{c}.solo", int(v)) for c, v in sorted(numbers.items()))
    digest = hashlib.sha256(repr(overrides).encode()).hexdigest()[:8]
    n = tier_sizes(games, tier)["proposal"]
    key = f"proposal_solo_{tier}_A_{digest}" if label == "own" else f"{label}_solo_{tier}_A_{digest}"
    return Job(key, "solo", 1, (tier,), "base-a", n, overrides=overrides, label=label)


# --- tables ---------------------------------------------------------------------------


def stack(per_tier: dict[str, dict[str, pd.DataFrame]], name: str) -> pd.DataFrame:
    """One table of every tier, a ``tier`` column first.

    Parameters
    ----------
    per_tier : dict of str to dict of str to pandas.DataFrame
        Tier -> its report's tables.
    name : str
        The table stacked.

    Returns
    -------
    pandas.DataFrame
        Every tier's table, one below the other.
    """
    return pd.concat([t[name].assign(tier=tier) for tier, t in per_tier.items()], ignore_index=True).pipe(
        lambda d: d[["tier", *[c for c in d.columns if c != "tier"]]]
    )


def pair_tests(pairs: pd.DataFrame) -> pd.DataFrame:
    """Card pairs with a two-sided p of 'no interaction' (normal, from the pair's interval) and the
    Benjamini-Hochberg decision per tier and side over the pairs seen in at least MIN_PAIR_GAMES games.

    Parameters
    ----------
    pairs : pandas.DataFrame
        The card-pair table of every tier.

    Returns
    -------
    pandas.DataFrame
        `pairs` with ``p``, ``q`` (Benjamini-Hochberg) and ``survives``.
    """
    se = (pairs["int_hi"] - pairs["int_lo"]) / (2 * R.Z95)
    p = 2 * norm.sf(np.abs(pairs["interaction"] / se.where(se > 0)))
    out = pairs.assign(p=p, q=np.nan, survives=False)
    for _, idx in out.groupby(["tier", "side"]).groups.items():
        sub = out.loc[idx]
        ok = sub.index[(sub["n"] >= MIN_PAIR_GAMES) & sub["p"].notna()]
        if len(ok):
            reject, q, _, _ = multipletests(out.loc[ok, "p"], alpha=FDR, method="fdr_bh")
            out.loc[ok, "q"] = q
            out.loc[ok, "survives"] = reject
    return out


def spearman_table(cards: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Per tier (side A): Spearman correlation of the printed solo numbers and the cards' mean points, with
    a 95% parametric-bootstrap interval (card means drawn from N(mean, se), seeded).

    Parameters
    ----------
    cards : pandas.DataFrame
        The solo cards' table of every tier.
    seed : int
        Seeds the bootstrap.

    Returns
    -------
    pandas.DataFrame
        One row per tier.
    """
    rows = []
    rng = np.random.default_rng(seed)
    for tier, t in cards[cards["side"] == "A"].groupby("tier", sort=False):
        t = t.sort_values("card")
        printed = rankdata(t["solo"])
        mean = t["mean"].to_numpy()
        se = (t["hi"] - t["lo"]).to_numpy() / (2 * R.Z95)
        rho = float(np.corrcoef(printed, rankdata(mean))[0, 1])
        draws = mean + rng.standard_normal((BOOTSTRAP, len(mean))) * se
        ranks = rankdata(draws, axis=1)  # as the point estimate ranks (ties averaged)
        a = printed - printed.mean()
        b = ranks - ranks.mean(axis=1, keepdims=True)
        boot = (b @ a) / np.sqrt((a @ a) * (b * b).sum(axis=1))
        lo, hi = np.quantile(boot, [0.025, 0.975])
        rows.append({"tier": tier, "cards": len(t), "spearman": rho, "lo": lo, "hi": hi})
    return pd.DataFrame(rows)


def recalibrate(cards: pd.DataFrame) -> pd.DataFrame:
    """Per tier (side A): each card's number that gives it the tier's mean excess, rounded (ties to even).

    ``proposed = round(points - mean excess)``: every card's expected excess becomes the tier's mean
    excess (up to the rounding), the printed numbers' mean stays today's (up to the rounding).

    Parameters
    ----------
    cards : pandas.DataFrame
        The solo cards' table of every tier.

    Returns
    -------
    pandas.DataFrame
        One row per (tier, card) with the proposed number.
    """
    a = cards[cards["side"] == "A"]
    rows = []
    for tier, t in a.groupby("tier", sort=False):
        level = t["excess"].mean()
        for r in t.itertuples():
            rows.append(
                {
                    "tier": tier,
                    "card": r.card,
                    "name": r.name,
                    "solo": r.solo,
                    "points": r.mean,
                    "level": level,
                    "exact": r.mean - level,
                    "proposed": int(np.rint(r.mean - level)),
                }
            )
    return pd.DataFrame(rows)


def recommended(recal: pd.DataFrame) -> dict[int, int]:
    """card -> the number for a player between planner and expert: the median of the PLAYER_RANGE tiers'
    unrounded numbers (those of them in `recal`), rounded.

    Parameters
    ----------
    recal : pandas.DataFrame
        :func:`recalibrate`.

    Returns
    -------
    dict of int to int
        Card -> recommended number.
    """
    r = recal[recal["tier"].isin(PLAYER_RANGE)]
    med = r.groupby("card")["exact"].median()
    return {int(c): int(np.rint(v)) for c, v in med.items()}


def recalibrated_wide(recal: pd.DataFrame) -> pd.DataFrame:
    """card, name, today's number, each tier's proposal, the recommended one, and the spread of the
    PLAYER_RANGE tiers' proposals (greedy's aside).

    Parameters
    ----------
    recal : pandas.DataFrame
        :func:`recalibrate`.

    Returns
    -------
    pandas.DataFrame
        One row per card.
    """
    w = recal.pivot(index=["card", "name", "solo"], columns="tier", values="proposed").reset_index()
    tiers = [t for t in TIERS if t in w.columns]
    w = w[["card", "name", "solo", *tiers]]
    w["recommended"] = w["card"].map(recommended(recal))
    span = [t for t in PLAYER_RANGE if t in tiers] or tiers
    w["spread"] = w[span].max(axis=1) - w[span].min(axis=1)
    return w


def variant_toml(numbers: dict[int, int], tier: str | None, command: str) -> str:
    """A Cartographers variant (base-a) setting the printed solo numbers (`boardlab rules --game cartographers`);
    tier None: the recommended numbers.

    Parameters
    ----------
    numbers : dict of int to int
        Card -> solo number.
    tier : str or None
        The tier whose proposal it is (None: the recommended numbers).
    command : str
        The command line, named in the header.

    Returns
    -------
    str
        The TOML text.
    """
    what = (
        f"recalibrated at the {tier} tier: every card's expected excess equal to the tier's mean excess"
        if tier
        else "recommended for a player between planner and expert: per card the median of the planner, strong and"
        "\n# expert tiers' recalibrated numbers (each: every card's expected excess equal to the tier's mean excess)"
    )
    lines = [
        f"# Printed solo numbers {what};",
        "# the numbers' mean unchanged (boardlab/experiments/cartographers/skill.py, recalibrate).",
        f"# Written by: {command}",
        'base = "base-a"',
        f'name = "recalibrated{"-" + tier if tier else ""}"',
        "",
    ]
    for c, v in sorted(numbers.items()):
        lines += [f"[cards.scoring.{c}]", f"solo = {int(v)}", ""]
    return "\n".join(lines)


def proposal_tables(today: dict[str, pd.DataFrame], fresh: dict[str, pd.DataFrame]):
    """Card excesses and title shares under each tier's proposal (fresh seeds) beside today's numbers.

    Parameters
    ----------
    today : dict of str to pandas.DataFrame
        ``solo_cards`` and ``solo_titles`` under today's numbers.
    fresh : dict of str to pandas.DataFrame
        The same under the proposals, on fresh seeds.

    Returns
    -------
    tuple of pandas.DataFrame
        The cards' and the titles' tables, today beside the proposal.
    """
    cards = fresh["solo_cards"]
    pc = cards[["tier", "card", "name", "solo", "n", "mean", "lo", "hi", "excess", "relative", "rel_lo", "rel_hi"]]
    old = today["solo_cards"]
    old = old[old["side"] == "A"][["tier", "card", "solo", "excess", "relative"]]
    pc = pc.merge(old.rename(columns={"solo": "solo_today", "excess": "excess_today", "relative": "relative_today"}),
                  on=["tier", "card"])  # fmt: skip
    ti = today["solo_titles"]
    ti = ti[ti["side"] == "A"][["tier", "title", "rating_at_least", "n", "reaching", "lo", "hi", "exact"]]
    fr = fresh["solo_titles"][["tier", "title", "n", "reaching", "lo", "hi", "exact"]]
    pt = ti.merge(fr, on=["tier", "title"], suffixes=("_today", "_proposal"))
    return pc, pt


def skill_tables(per_tier, proposals, seed: int, recommended_runs=None) -> dict[str, pd.DataFrame]:
    """Every table of the skill axis from each tier's balance tables and the proposals' runs.

    Parameters
    ----------
    per_tier : dict of str to dict of str to pandas.DataFrame
        Tier -> its balance report's tables.
    proposals : dict of str to dict of str to pandas.DataFrame or None
        The tables of the proposals' runs (fresh seeds).
    seed : int
        The run seed (seeds the bootstrap).
    recommended_runs : dict of str to pandas.DataFrame or None
        The tables of the recommended numbers' runs.

    Returns
    -------
    dict of str to pandas.DataFrame
        Table name -> table.
    """
    cards = stack(per_tier, "solo_cards")
    excess = cards[cards["side"] == "A"][
        ["tier", "card", "name", "solo", "n", "mean", "lo", "hi", "excess", "relative", "rel_lo", "rel_hi",
         "verdict", "relative_verdict"]
    ].reset_index(drop=True)  # fmt: skip
    today = {"solo_cards": cards, "solo_titles": stack(per_tier, "solo_titles")}
    out = {
        "solo_cards": cards,
        "solo_ratings": stack(per_tier, "solo_ratings"),
        "solo_titles": today["solo_titles"],
        "excess_by_tier": excess,
        "spearman": spearman_table(cards, seed),
        "recalibrated": recalibrated_wide(recalibrate(cards)),
        "edict_cards": stack(per_tier, "edict_cards"),
        "card_pairs": pair_tests(stack(per_tier, "card_pairs")),
        "sides": stack(per_tier, "sides"),
        "ambush": stack(per_tier, "ambush"),
        "seats": stack(per_tier, "seats"),
    }
    if proposals:
        fresh = {
            "solo_cards": stack(proposals, "solo_cards"),
            "solo_titles": stack(proposals, "solo_titles"),
        }
        out["proposal_cards"], out["proposal_titles"] = proposal_tables(today, fresh)
    if recommended_runs:
        fresh = {
            "solo_cards": stack(recommended_runs, "solo_cards"),
            "solo_titles": stack(recommended_runs, "solo_titles"),
        }
        out["recommended_cards"], out["recommended_titles"] = proposal_tables(today, fresh)
    return out


# --- the run --------------------------------------------------------------------------


def chunk_size(games: int) -> Callable[[Job], int]:
    """Per job: a few dozen games a chunk for the expert (its search is slow), the balance report's size else.

    Parameters
    ----------
    games : int
        The report's size.

    Returns
    -------
    callable
        Job -> games per chunk.
    """

    def size(job: Job) -> int:
        return 50 if any(a.split(":")[0] == "expert" for a in job.agents) else R.chunk_size(games)

    return size


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
    tiers: tuple[str, ...] = TIERS,
) -> dict[str, pd.DataFrame]:
    """Every tier's plan (reusing finished runs), then each tier's recalibrated numbers on fresh seeds;
    tables, charts, variants and REPORT.md into `out`.

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
    tiers : tuple of str
        The tiers, weakest first.

    Returns
    -------
    dict of str to pandas.DataFrame
        The report's tables.
    """
    t0 = time.perf_counter()
    work = Path(work)
    frames, per_tier = {}, {}
    for tier in tiers:
        log(f"tier {tier}:")
        fr = run_jobs(GAME, tier_plan(games, tier), work / tier, seed, n_jobs, log, backend, scheduler, progress,
                      chunk_size=chunk_size(games))  # fmt: skip
        frames[tier] = fr
        per_tier[tier] = R.build_tables(fr, agent=tier)
    recal = recalibrate(stack(per_tier, "solo_cards"))
    proposals, proposal_frames, numbers = {}, {}, {}
    chosen = recommended(recal)
    recommended_tables = {}
    for tier in tiers:
        numbers[tier] = dict(zip(*recal[recal["tier"] == tier][["card", "proposed"]].to_numpy().T, strict=True))
        jobs = [proposal_job(games, tier, numbers[tier])]
        if tier in PLAYER_RANGE:
            jobs.append(proposal_job(games, tier, chosen, "recommended"))
        fresh = (seed + 1) % 2**64  # the next run seed, 2**64 - 1 wrapping to 0
        log(f"tier {tier}, recalibrated numbers on fresh seeds (run seed {fresh}):")
        fr = run_jobs(GAME, jobs, work / tier, fresh, n_jobs, log, backend, scheduler, progress,
                      chunk_size=chunk_size(games))  # fmt: skip
        proposal_frames[tier] = fr
        own = {j: df for j, df in fr.items() if j.label == "own"}
        proposals[tier] = {"solo_cards": R.solo_card_table(own), "solo_titles": R.solo_title_table(own)}
        rec = {j: df for j, df in fr.items() if j.label == "recommended"}
        if rec:
            recommended_tables[tier] = {"solo_cards": R.solo_card_table(rec), "solo_titles": R.solo_title_table(rec)}
    tables = skill_tables(per_tier, proposals, seed, recommended_tables)
    elapsed = time.perf_counter() - t0
    write_outputs(tables, frames, proposal_frames, numbers, Path(out), games, seed, command, elapsed)
    return tables


def write_outputs(tables, frames, proposal_frames, numbers, out: Path, games, seed, command, elapsed) -> None:
    """Every file (tables, recalibrated variants, charts, REPORT.md) into a staging folder, then moved into `out`.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The report's tables.
    frames : dict of str to dict
        Tier -> its runs and their rows.
    proposal_frames : dict of str to dict
        Tier -> its proposal's runs and their rows.
    numbers : dict of str to dict of int to int
        Tier -> its proposed numbers.
    out : pathlib.Path
        The report's directory.
    games : int
        The report's size.
    seed : int
        The run seed.
    command : str
        The command line.
    elapsed : float
        Seconds the runs took.
    """
    with staged_directory(out) as tmp:
        write_tables(tmp, tables)
        for tier, nums in numbers.items():
            (tmp / f"recalibrated-{tier}.toml").write_text(variant_toml(nums, tier, command), encoding="utf-8")
        chosen = dict(zip(tables["recalibrated"]["card"], tables["recalibrated"]["recommended"], strict=True))
        (tmp / "recalibrated.toml").write_text(variant_toml(chosen, None, command), encoding="utf-8")
        excess_chart(tables["excess_by_tier"], tmp / "excess_by_tier.png")
        titles_chart(tables, tmp / "titles.png")
        seats_chart(tables["seats"], tmp / "seats.png")
        text = report(tables, frames, proposal_frames, games, seed, command, elapsed)
        (tmp / "REPORT.md").write_text(text, encoding="utf-8")


# --- charts ---------------------------------------------------------------------------

CATEGORY_STYLE = {"forest": "-", "farm_water": "--", "village": "-.", "placement": ":"}


def excess_chart(t: pd.DataFrame, path: Path) -> None:
    """Each card's excess against tier: absolute (left) and relative to the 16 cards' mean (right).

    Parameters
    ----------
    t : pandas.DataFrame
        The chart's table.
    path : pathlib.Path
        The PNG file.
    """
    plt = charts.plt
    tiers = [x for x in TIERS if x in set(t["tier"])]
    info = card_info().set_index("card")
    fig, axes = plt.subplots(1, 2, figsize=(11, 5.2), layout="constrained")
    maps = {"forest": "Greens", "farm_water": "Blues", "village": "Reds", "placement": "Purples"}
    shade = {}  # each category a colour family, its four cards four shades
    for cat, cards in info.groupby("category").groups.items():
        for k, card in enumerate(sorted(cards)):
            shade[card] = plt.get_cmap(maps.get(cat, "Greys"))(0.45 + 0.17 * k)
    for ax, (col, lo, hi, title) in zip(
        axes,
        (("excess", None, None, "excess = points − printed number"),
         ("relative", "rel_lo", "rel_hi", "relative excess (minus the 16 cards' mean), 95% CI")),
        strict=True,
    ):  # fmt: skip
        for i, (card, c) in enumerate(t.groupby("card")):
            c = c.set_index("tier").reindex(tiers)
            x = np.arange(len(tiers)) + (i - 7.5) * 0.012
            style = CATEGORY_STYLE.get(info.at[card, "category"], "-")
            ax.plot(x, c[col], style, color=shade[card], lw=1.3, marker="o", ms=3)
            if lo:
                ax.vlines(x, c[lo], c[hi], color=shade[card], lw=0.6)
            ax.annotate(str(card), (x[-1], c[col].iloc[-1]), xytext=(4, 0), textcoords="offset points",
                        fontsize=7, va="center", color=shade[card])  # fmt: skip
        ax.axhline(0, color="grey", lw=0.6, ls=":")
        ax.set_xticks(range(len(tiers)), tiers)
        ax.set_xlabel("skill tier (solo, side A)")
        ax.set_title(title, fontsize=9)
    axes[0].set_ylabel("points over the game")
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], color=plt.get_cmap(maps[c])(0.75), ls=s, label=c.replace("_", " & "))
        for c, s in CATEGORY_STYLE.items()
    ]
    axes[1].legend(handles=handles, fontsize=7, title="category", title_fontsize=7, loc="best")
    fig.suptitle("Cartographers: each scoring card's excess over its printed solo number, by skill tier", fontsize=10)
    charts.save(fig, path)


def titles_chart(tables, path: Path) -> None:
    """Share of solo games reaching each title per tier, today's numbers (the balance report's chart by tier).

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The report's tables (:func:`build_tables`).
    path : pathlib.Path
        The PNG file.
    """
    R.titles_chart(
        tables["solo_titles"],
        path,
        by="tier",
        title="Solo, side A, today's printed numbers: share of games reaching each title, by tier",
    )


def seats_chart(t: pd.DataFrame, path: Path) -> None:
    """Seat win shares minus 1/N per tier (arrow to the next seat), one panel per player count.

    Parameters
    ----------
    t : pandas.DataFrame
        The chart's table.
    path : pathlib.Path
        The PNG file.
    """
    plt = charts.plt
    t = t[t["passes"] == "next"]
    players = sorted(t["players"].unique())
    fig, axes = plt.subplots(1, len(players), figsize=(3.4 * len(players), 3.4), squeeze=False, layout="constrained")
    t = t.assign(dev=100 * (t["win_share"] - t["fair"]), lo=100 * (t["lo"] - t["fair"]), hi=100 * (t["hi"] - t["fair"]))
    colours = charts.family_colours(t["tier"])
    for ax, p in zip(axes[0], players, strict=True):
        charts.grouped_bars(ax, t[t["players"] == p], "seat", "tier", "dev", colours=colours)
        ax.axhline(0, color="grey", lw=0.6, ls=":")
        ax.set_title(f"{p} players", fontsize=9)
        ax.set_xlabel("seat")
    axes[0][0].set_ylabel("win share − 1/N, points (95% Wilson)")
    axes[0][-1].legend(fontsize=7)
    charts.save(fig, path)


# --- the report -----------------------------------------------------------------------


def _names(ids) -> str:
    info = card_info().set_index("card")["name"]
    return ", ".join(f"{i} {info[i]}" for i in ids) or "none"


def spread_rows(pc: pd.DataFrame | None) -> list[dict]:
    """Per tier: how far the cards' excesses spread today and under recalibrated numbers (fresh seeds).

    Parameters
    ----------
    pc : pandas.DataFrame or None
        The proposals' cards table (None: no proposals).

    Returns
    -------
    list of dict
        One row per tier.
    """
    rows = []
    if pc is None:
        return rows
    for tier, t in pc.groupby("tier", sort=False):
        rows.append(
            {
                "tier": tier,
                "games (fresh seeds)": f"{int(t['n'].sum() // 4):,}",
                "spread of card excess, today": f"{t['excess_today'].max() - t['excess_today'].min():.1f}",
                "spread under the numbers": f"{t['excess'].max() - t['excess'].min():.1f}",
                "cards off the level (relative interval excludes 0)": int(
                    ((t["rel_lo"] > 0) | (t["rel_hi"] < 0)).sum()
                ),
                "largest |relative excess|": f"{t['relative'].abs().max():.1f}",
            }
        )
    return rows


def verdict_lists(excess: pd.DataFrame, column: str, tiers) -> dict[str, list[int]]:
    """Cards generous at every tier, harsh at every tier, and those whose verdict changes with the tier.

    Parameters
    ----------
    excess : pandas.DataFrame
        The excess table of every tier.
    column : str
        The verdict column read.
    tiers : sequence of str
        The tiers.

    Returns
    -------
    dict of str to list of int
        ``generous``, ``harsh`` and ``depends``: card ids.
    """
    w = excess.pivot(index="card", columns="tier", values=column)[list(tiers)]
    return {
        "generous": [int(c) for c, r in w.iterrows() if (r == "generous").all()],
        "harsh": [int(c) for c, r in w.iterrows() if (r == "harsh").all()],
        "depends": [int(c) for c, r in w.iterrows() if r.nunique() > 1],
    }


def multiplayer_rows(tables) -> dict:
    """The multiplayer tables of REPORT.md across skill, as the template reads them: edicts per slot and card,
    card pairs, sides, ambush placement and seats, per tier.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The report's tables.

    Returns
    -------
    dict
        ``slot_rows``, ``edict_rows``, ``pair_rows``, ``side_rows``, ``ambush_rows`` (lists of row dicts),
        ``seat_rows`` (pandas.DataFrame), ``rank_spread`` and ``rank_spread_card`` (the card whose difficulty
        rank moves most between tiers), ``seat_tables`` and ``small_p`` (the seat tables rejecting equal seats
        after a Bonferroni correction).
    """
    pairs, seats = tables["card_pairs"], tables["seats"]
    # edicts per tier and slot
    ed = tables["edict_cards"]
    slot_rows = []
    for (tier, side), t in ed[ed["card"] == 0].groupby(["tier", "side"], sort=False):
        slot_rows.append(
            {
                "tier": tier,
                "side": side,
                "games": f"{t['n'].iloc[0]:,}",
                **{f"slot {r['slot']}": _ci(r["mean"], r["lo"], r["hi"]) for _, r in t.iterrows()},
            }
        )
    every = ed[(ed["slot"] == "all") & (ed["card"] > 0) & (ed["side"] == "A")]
    edict_rows = []
    for card, t in every.groupby("card"):
        row = {"card": card, "name": t["name"].iloc[0]}
        for r in t.itertuples():
            row[r.tier] = _ci(r.mean, r.lo, r.hi)
        edict_rows.append(row)
    ranks = every.assign(rank=every.groupby("tier")["mean"].rank(ascending=False))
    rank_spread = ranks.groupby("card")["rank"].agg(lambda s: s.max() - s.min())
    # card pairs
    pa = pairs[(pairs["side"] == "A") & (pairs["n"] >= MIN_PAIR_GAMES)]
    pair_rows = []
    for tier, t in pa.groupby("tier", sort=False):
        raw = int(((t["int_lo"] > 0) | (t["int_hi"] < 0)).sum())
        surv = t[t["survives"]]
        pair_rows.append(
            {
                "tier": tier,
                "pairs tested": len(t),
                "games per pair (median)": int(t["n"].median()),
                "interval excludes 0 (uncorrected)": raw,
                f"survive Benjamini-Hochberg at {FDR:.0%}": len(surv),
                "surviving pairs": "; ".join(
                    f"{int(r.card_x)}+{int(r.card_y)} {r.interaction:+.1f}" for r in surv.sort_values("p").itertuples()
                )
                or "none",
            }
        )
    # sides
    sd = tables["sides"]
    side_rows = []
    for (tier, players), t in sd[(sd["side"] == "B-A") & (sd["metric"].isin(["total", "rating"]))].groupby(
        ["tier", "players"], sort=False
    ):
        for r in t.itertuples():
            side_rows.append(
                {"tier": tier, "players": players, "metric": r.metric, "games": f"{r.n:,}",
                 "B − A (paired)": _ci(r.mean, r.lo, r.hi)}
            )  # fmt: skip
    # ambush
    am = tables["ambush"]
    amb_rows = [
        {
            "tier": r.tier,
            "table": r.table,
            "placement": r.ambush,
            "games": f"{r.games:,}",
            "monster penalty suffered": _ci(r.monster_penalty, r.penalty_lo, r.penalty_hi),
            "total": _ci(r.total, r.total_lo, r.total_hi),
            "win share": _pct(r.win_share, r.lo, r.hi),
        }
        for r in am.itertuples()
    ]
    # seats
    seat_rows = []
    for (tier, players, passes), t in seats.groupby(["tier", "players", "passes"], sort=False):
        seat_rows.append(
            {
                "tier": tier,
                "players": players,
                "arrow to": passes,
                "games": f"{t['n'].iloc[0]:,}",
                "largest |seat − 1/N|, points": f"{100 * (t['win_share'] - t['fair']).abs().max():.1f}",
                "seats missing 1/N": int((~t["inside"]).sum()),
                "p (all seats 1/N)": f"{t['p_equal'].iloc[0]:.3f}",
            }
        )
    seat_df = pd.DataFrame(seat_rows).sort_values(["players", "arrow to"], kind="stable")
    n_seat_tables = len(seat_df)
    min_p = seats.groupby(["tier", "players", "passes"])["p_equal"].first()
    small_p = min_p[min_p < 0.05 / n_seat_tables]
    return {
        "slot_rows": slot_rows,
        "edict_rows": edict_rows,
        "rank_spread": rank_spread.max(),
        "rank_spread_card": int(rank_spread.idxmax()),
        "pair_rows": pair_rows,
        "side_rows": side_rows,
        "ambush_rows": amb_rows,
        "seat_rows": seat_df,
        "seat_tables": n_seat_tables,
        "small_p": [f"{t} {p}p {d}" for t, p, d in small_p.index],
    }


def report(tables, frames, proposal_frames, games, seed, command, elapsed) -> str:
    """REPORT.md of the skill axis: per tier, the cards' excesses, the titles, seats and the recalibration.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The report's tables.
    frames, proposal_frames : dict of str to dict
        Tier -> its runs (and its proposal's runs) and their rows.
    games : int
        The report's size.
    seed : int
        The run seed.
    command : str
        The command line.
    elapsed : float
        Seconds the runs took.

    Returns
    -------
    str
        REPORT.md's Markdown.
    """
    tiers = list(frames)
    all_frames = [(t, j, df) for t in tiers for j, df in frames[t].items()]
    all_frames += [(t, j, df) for t in tiers for j, df in proposal_frames.get(t, {}).items()]
    total_games = sum(len(df) // j.players for _, j, df in all_frames)
    sim_seconds = sum(df.attrs.get("seconds", 0.0) for _, _, df in all_frames)
    ex = tables["excess_by_tier"]
    ratings = tables["solo_ratings"]
    absolute = verdict_lists(ex, "verdict", tiers)
    relative = verdict_lists(ex, "relative_verdict", tiers)
    sp = tables["spearman"]
    recal = tables["recalibrated"]
    n = {t: tier_sizes(games, t) for t in tiers}

    def rating_of(tier, metric="rating"):
        r = ratings[(ratings["tier"] == tier) & (ratings["side"] == "A") & (ratings["metric"] == metric)].iloc[0]
        return r

    rating_rows = []
    for tier in tiers:
        row = {"tier": tier, "games": f"{rating_of(tier)['n']:,}"}
        for m in ("total", "rating", "excess", "coin_points", "monster_penalty"):
            r = rating_of(tier, m)
            row[m] = _ci(r["mean"], r["lo"], r["hi"])
        rating_rows.append(row)
    # card x tier: points, excess and relative verdict
    cal_rows = []
    for card, t in ex.groupby("card"):
        t = t.set_index("tier")
        row = {"card": card, "name": t["name"].iloc[0], "printed": int(t["solo"].iloc[0])}
        for tier in tiers:
            r = t.loc[tier]
            row[f"{tier} points"] = _ci(r["mean"], r["lo"], r["hi"])
        for tier in tiers:
            r = t.loc[tier]
            mark = {"generous": " ▲", "harsh": " ▼"}.get(r["relative_verdict"], "")
            row[f"{tier} rel."] = f"{r['relative']:+.1f}{mark}"
        cal_rows.append(row)
    sp_rows = [
        {"tier": r.tier, "Spearman (printed number, points)": _ci(r.spearman, r.lo, r.hi, 2)} for r in sp.itertuples()
    ]
    recal_md = recal.rename(columns={"solo": "today"}).astype(str)
    prop_rows = spread_rows(tables.get("proposal_cards"))
    rec_rows = spread_rows(tables.get("recommended_cards"))
    title_rows = []
    pt, rt = tables.get("proposal_titles"), tables.get("recommended_titles")
    if pt is not None:
        rec = rt.set_index(["tier", "title"]) if rt is not None else pd.DataFrame()
        for (tier, title), r in pt.set_index(["tier", "title"]).iterrows():
            if pd.isna(r["rating_at_least"]):
                continue
            row = {
                "tier": tier,
                "title": title,
                "rating ≥": int(r["rating_at_least"]),
                "today": _pct(r["reaching_today"], r["lo_today"], r["hi_today"]),
                "the tier's numbers": _pct(r["reaching_proposal"], r["lo_proposal"], r["hi_proposal"]),
                "recalibrated.toml": "",
            }
            if (tier, title) in rec.index:
                q = rec.loc[(tier, title)]
                row["recalibrated.toml"] = _pct(q["reaching_proposal"], q["lo_proposal"], q["hi_proposal"])
            title_rows.append(row)
    # titles per tier
    ti = tables["solo_titles"]
    ti = ti[ti["side"] == "A"]
    titles_rows = []
    for title, t in ti.groupby("title", sort=False):
        row = {
            "title": title,
            "rating ≥": "" if pd.isna(t["rating_at_least"].iloc[0]) else int(t["rating_at_least"].iloc[0]),
        }
        for r in t.itertuples():
            row[r.tier] = f"{100 * r.exact:.1f}%" if pd.isna(r.reaching) else _pct(r.reaching, r.lo, r.hi)
        titles_rows.append(row)
    rho = sp.set_index("tier")
    rec = recal.set_index("card")
    changed = rec[rec["recommended"] != rec["solo"]]
    disagree = rec[rec["spread"] >= 2]  # among the PLAYER_RANGE tiers

    return render(
        "cartographers_skill.md.j2",
        p=provenance(command, len(all_frames), total_games, sim_seconds, elapsed),
        tiers=tiers,
        n=n,
        seed=seed,
        fresh_seed=(seed + 1) % 2**64,
        rating={t: rating_of(t).to_dict() for t in tiers},
        absolute={k: _names(v) for k, v in absolute.items()},
        absolute_depends=len(absolute["depends"]),
        relative={k: _names(v) for k, v in relative.items()},
        rho={t: rho.loc[t].to_dict() for t in tiers},
        proposal_rows=prop_rows,
        recommended_rows=rec_rows,
        player_range=PLAYER_RANGE,
        changed=len(changed),
        disagree=len(disagree),
        disagree_names=_names(disagree.index.tolist()),
        fdr_column=f"survive Benjamini-Hochberg at {FDR:.0%}",
        min_pair_games=MIN_PAIR_GAMES,
        calibration_rows=cal_rows,
        rating_rows=rating_rows,
        bootstrap=BOOTSTRAP,
        spearman_rows=sp_rows,
        recalibrated=recal_md,
        proposal_title_rows=title_rows,
        title_rows=titles_rows,
        runs=[
            {
                "tier": t,
                "run": j.key,
                "players": j.players,
                "rules": j.rules
                + (f" ({j.passes})" if j.passes != "next" else "")
                + {"own": " recalibrated (the tier's)", "recommended": " recalibrated.toml"}.get(j.label, ""),
                "agents": ", ".join(dict.fromkeys(j.agents)),
                "games": f"{j.games:,}",
                "played in (s)": round(df.attrs.get("seconds", 0.0), 1),
            }
            for t, j, df in all_frames
        ],
        tables=TABLES,
        **multiplayer_rows(tables),
    )


def note(games: int) -> str:
    """The plan's note for the command's output: the expert's smaller tables and the full size.

    Parameters
    ----------
    games : int
        The report's size.

    Returns
    -------
    str
        The note.
    """
    n = tier_sizes(games, "expert")
    return (
        f"expert's tables are 1/{EXPERT_SCALE} of the others (solo {n['solo']:,}, 4 players {n['main']:,}); "
        "full size --games 8000"
    )


REPORT = Report(
    reproduce,
    title="Cartographers across skill",
    home="cartographers-skill",
    default_games=1000,
    note=note,
)
