"""The balance figures across skill (GameDef.reports.skill_report): `boardlab reproduce --skill`.

Design notes: docs/games/citywright/usage.md#skill-report-module.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from boardlab.agents.citywright.registry import (
    EXPERT_LEVERS,
    AgentError,
    for_rules,
    parse_agent,
    rules_hash,
    weights_name,
)
from boardlab.experiments import simulate as S
from boardlab.experiments.citywright import appendix as A
from boardlab.experiments.citywright import charts
from boardlab.experiments.io import staged_directory
from boardlab.experiments.pipelines import mean_ci
from boardlab.experiments.report import Report, provenance, render, rules_tag, run_jobs, write_tables
from boardlab.experiments.report import ci as _ci
from boardlab.sim.citywright.game import GAME
from boardlab.sim.citywright.rules import Rules, load_rules


@dataclass(frozen=True)
class Tier:
    """One skill tier of the axis: its name (the family), its every-seat agent and its restricted specialists."""

    name: str
    agent: str
    specialist: str  # format string with {d} for the district letter
    size: str  # "big" or "expert": which table size it plays (see sizes)
    compensation_aware: bool  # does its play depend on compensation (then "before" needs its own games)

    def specialists(self) -> tuple[str, ...]:
        """The tier's four district specialists' specs.

        Returns
        -------
        tuple of str
            One specialist spec per district R, C, P, I.
        """
        return tuple(self.specialist.format(d=d) for d in A.DISTRICTS)


TIERS = (
    Tier("greedy", "greedy", "specialist:{d}", "big", False),
    Tier("strong", "strong", "strong-specialist:{d}", "big", False),
    Tier("expert", "expert", "expert-specialist:{d}," + EXPERT_LEVERS, "expert", False),
)


def sizes(games: int) -> dict[str, int]:
    """Games per table for a skill reproduction of size `games`: greedy and strong play `games`, the expert a
    quarter (at the full size, 20,000 and 5,000); the solver's re-simulation half a table.  No table is
    smaller than 20 games unless `games` is (a smoke-size run is not made larger than it asked for).

    Parameters
    ----------
    games : int
        The report's size.

    Returns
    -------
    dict of str to int
        Games per kind of table.
    """
    least = min(20, games)
    return {"big": games, "expert": max(games // 4, least), "verify_big": max(games // 2, least),
            "verify_expert": max(games // 8, least)}  # fmt: skip


def plan(games: int, tiers=TIERS, rules: Rules | None = None) -> list[A.Job]:
    """Every run of the skill axis (the solver's verification runs come later, see `verify_jobs`): the
    rulebook's (v1.0 and v1.1), or with `rules` that rule set's (:func:`variant_plan`).

    Parameters
    ----------
    games : int
        The report's size.
    tiers : sequence of Tier
        The skill tiers, weakest first.
    rules : Rules or None
        A rule set (None: the rulebook's two).

    Returns
    -------
    list of Job
        The runs.
    """
    if rules is not None:
        return variant_plan(games, tiers, rules)
    n = sizes(games)
    jobs: list[A.Job] = []
    for t in tiers:
        g = n[t.size]
        for ver in ("v1.0", "v1.1"):
            key = f"spec_{ver.replace('.', '')}_{t.name}"
            jobs.append(A.Job(key, "specialists", t.name, 4, t.specialists(), "rotate", ver, (), g, ver))
        jobs.append(A.Job(f"waste_v10_{t.name}", "waste", t.name, 2, (t.agent,), "rotate", "v1.0", (), g,
                          "v1.0 (16 turns)"))  # fmt: skip
        for p in (2, 3, 4):
            jobs.append(A.Job(f"seats_{p}p_{t.name}", "seats", t.name, p, (t.agent,), "rotate", "v1.1", (), g, "v1.1"))
            if t.compensation_aware:
                nocomp = ((f"game.compensation.{p}", (0,) * p),)
                jobs.append(A.Job(f"seats_{p}p_{t.name}_nocomp", "seats-before", t.name, p, (t.agent,), "rotate",
                                  "v1.1", nocomp, g, "v1.1 without compensation"))  # fmt: skip
        jobs.append(A.Job(f"solo_{t.name}", "solo", t.name, 1, (t.agent,), "fixed", "v1.1", (), g, "v1.1"))
    return jobs


def variant_plan(games: int, tiers, rules: Rules) -> list[A.Job]:
    """The skill axis under one rule set: per tier, the specialists (4 players, seats rotated), the seats at 2, 3
    and 4 players with the rules' compensation ("before": the same games re-ranked without it, or games of
    their own for a compensation-aware tier) and solo.  Each job carries the rules' content (A.job_rules) and
    its key their tag (rules_tag): another file content, other runs.

    Parameters
    ----------
    games : int
        The report's size.
    tiers : sequence of Tier
        The skill tiers, weakest first.
    rules : Rules
        The rule set.

    Returns
    -------
    list of Job
        The runs.
    """
    n = sizes(games)
    rs, tag, name = A.job_rules(rules), rules_tag(rules), rules.name
    jobs: list[A.Job] = []
    for t in tiers:
        g = n[t.size]
        jobs.append(A.Job(f"spec_{tag}_{t.name}", "specialists", t.name, 4, t.specialists(), "rotate", rs, (), g, name))
        for p in (2, 3, 4):
            jobs.append(A.Job(f"seats_{p}p_{tag}_{t.name}", "seats", t.name, p, (t.agent,), "rotate", rs, (), g, name))
            if t.compensation_aware:
                nocomp = ((f"game.compensation.{p}", (0,) * p),)
                jobs.append(A.Job(f"seats_{p}p_{tag}_{t.name}_nocomp", "seats-before", t.name, p, (t.agent,),
                                  "rotate", rs, nocomp, g, f"{name} without compensation"))  # fmt: skip
        jobs.append(A.Job(f"solo_{tag}_{t.name}", "solo", t.name, 1, (t.agent,), "fixed", rs, (), g, name))
    return jobs


def verify_jobs(solver: pd.DataFrame, games: int, tiers=TIERS, rules: Rules | None = None) -> list[A.Job]:
    """Re-simulation of every tier's best vector at 2, 3 and 4 players (the tier's table size), under v1.1 or
    `rules`.

    Parameters
    ----------
    solver : pandas.DataFrame
        The compensation solver's table (each tier's best vector per player count).
    games : int
        The report's size.
    tiers : sequence of Tier
        The skill tiers, weakest first.
    rules : Rules or None
        The rule set (None: v1.1).

    Returns
    -------
    list of Job
        The runs.
    """
    n = sizes(games)
    by_name = {t.name: t for t in tiers}
    rs = "v1.1" if rules is None else A.job_rules(rules)
    tag = "" if rules is None else f"{rules_tag(rules)}_"
    label = "v1.1" if rules is None else rules.name
    out = []
    for _, r in solver[solver["choice"] == 1].iterrows():
        t = by_name[r["family"]]
        p = int(r["players"])
        vec = [int(x) for x in r["compensation"].split("/")]
        out.append(
            A.Job(
                f"verify_{p}p_{tag}{t.name}_{'-'.join(map(str, vec))}",
                "verify",
                t.name,
                p,
                (t.agent,),
                "rotate",
                rs,
                ((f"game.compensation.{p}", tuple(vec)),),
                n[f"verify_{t.size}"],
                f"{label}, solver compensation",
            )
        )
    return out


# --- the cross-tier questions -------------------------------------------------------------


def _sep(a_lo, a_hi, b_lo, b_hi) -> bool:
    return bool(a_hi < b_lo or b_hi < a_lo)


def dominance_table(spec: pd.DataFrame) -> pd.DataFrame:
    """Per rule set and district: each tier's win share with its interval, and the change from the first
    tier to the last ('shrinks' / 'grows' when the two intervals separate, else 'no clear change').

    Parameters
    ----------
    spec : pandas.DataFrame
        The specialists' table.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    rows = []
    main = spec[spec["figure"] == "specialists"].astype({"family": str, "district": str})
    tiers = list(dict.fromkeys(main["family"]))
    for (rules, d), t in main.groupby(["rules", "district"], sort=True):
        t = t.set_index("family").reindex(tiers)
        first, last = t.iloc[0], t.iloc[-1]
        if _sep(first["lo"], first["hi"], last["lo"], last["hi"]):
            change = "shrinks" if last["win_pct"] < first["win_pct"] else "grows"
        else:
            change = "no clear change"
        row = {"rules": rules, "district": d}
        for name, r in t.iterrows():
            row[name] = _ci(r["win_pct"], r["lo"], r["hi"])
        row[f"{tiers[0]} -> {tiers[-1]}"] = change
        rows.append(row)
    return pd.DataFrame(rows)


def seat_effect_table(seats: pd.DataFrame) -> pd.DataFrame:
    """Per player count and tier, without compensation: the largest seat deviation from 1/N and whether a
    seat effect is shown (some seat's interval excludes 1/N), with the seats' shares.

    Parameters
    ----------
    seats : pandas.DataFrame
        The seats' table.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    rows = []
    b = seats[seats["compensation"] == "before (none)"]
    for (p, fam), t in b.groupby(["players", "family"], sort=False):
        fair = 100 / p
        off = t[(t["lo"] > fair) | (t["hi"] < fair)]
        rows.append(
            {
                "players": p,
                "tier": fam,
                "games": int(t["games"].iloc[0]),
                "max_deviation_pts": round(float(t["max_deviation_pts"].iloc[0]), 1),
                "seat effect": "yes: seat " + ", ".join(str(s) for s in off["seat"]) if len(off) else "no",
                "seats (%)": ", ".join(_ci(r["win_pct"], r["lo"], r["hi"]) for _, r in t.iterrows()),
            }
        )
    return pd.DataFrame(rows).sort_values(["players"], kind="stable").reset_index(drop=True)


def compensation_table(
    solver: pd.DataFrame, seats: pd.DataFrame, after: str = "after (v1.1)", name: str = "v1.1"
) -> pd.DataFrame:
    """Per player count and tier: the solver's best vector, its predicted largest deviation (re-ranked
    games), and the verified one (re-simulated), beside the rules' own vector's (v1.1's, or `name`'s: the
    seat rows labelled `after`).

    Parameters
    ----------
    solver : pandas.DataFrame
        The solver's table.
    seats : pandas.DataFrame
        The seats' table (re-simulated vectors included).
    after : str
        The label of the seat rows played with the rules' own vector.
    name : str
        The rules' name.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    rows = []
    for _, r in solver[solver["choice"] == 1].iterrows():
        p, fam = int(r["players"]), r["family"]
        t = seats[(seats["players"] == p) & (seats["family"] == fam)]
        ver = t[t["compensation"] == "solver (re-simulated)"]
        v11 = t[t["compensation"] == after]
        before = t[t["compensation"] == "before (none)"]
        rows.append(
            {
                "players": p,
                "tier": fam,
                "none: max dev (pts)": round(float(before["max_deviation_pts"].iloc[0]), 1) if len(before) else np.nan,
                f"{name} vector": v11["vector"].iloc[0] if len(v11) else "",
                f"{name}: max dev (pts)": round(float(v11["max_deviation_pts"].iloc[0]), 1) if len(v11) else np.nan,
                "solver vector": r["compensation"],
                "solver: predicted (pts)": round(100 * float(r["max_deviation"]), 1),
                "solver: re-simulated (pts)": round(float(ver["max_deviation_pts"].iloc[0]), 1) if len(ver) else np.nan,
                "re-simulated seats (%)": ", ".join(_ci(x["win_pct"], x["lo"], x["hi"]) for _, x in ver.iterrows()),
            }
        )
    return pd.DataFrame(rows).sort_values(["players"], kind="stable").reset_index(drop=True)


TABLES = ("specialists", "waste", "seats", "solver", "claims", "dominance", "seat_effects", "compensation", "solo",
          "solo_ratings")  # fmt: skip


def skill_reproduce(
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
    tiers=TIERS,
    rules: str | Path | Rules | None = None,
) -> dict[str, pd.DataFrame]:
    """Play the skill plan (reusing finished runs), analyse it, write tables, charts and REPORT.md into `out`;
    with `rules` (a preset name, a TOML variant file or a Rules) the plan under that rule set and the balance
    targets in place of the rulebook's claims (:func:`variant_reproduce`).  Every tier's agents are checked
    under the rules before any run (:func:`check`).

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
    tiers : sequence of Tier
        The skill tiers, weakest first.
    rules : str or pathlib.Path or Rules or None
        A rule set to play the plan under (None: the rulebook's plan).

    Returns
    -------
    dict of str to pandas.DataFrame
        The report's tables.
    """
    check(games, rules, tiers)
    if rules is not None:
        return variant_reproduce(games, out, work, load_rules(rules), _source(rules), seed, n_jobs, log, command,
                                 backend, scheduler, progress, tiers)  # fmt: skip
    t0 = time.perf_counter()
    frames = run_jobs(GAME, plan(games, tiers), work, seed, n_jobs, log, backend, scheduler, progress)
    solver = A.solver_table(frames)
    frames.update(
        run_jobs(GAME, verify_jobs(solver, games, tiers), work, seed, n_jobs, log, backend, scheduler, progress)
    )
    spec = A.specialist_table(frames)
    tables = {
        "specialists": spec.drop(columns=["figure"], errors="ignore"),
        "waste": A.waste_table(frames),
        "seats": A.seat_table(frames),
        "solver": solver,
    }
    tables["claims"] = A.claims_table(spec, tables["waste"], tables["seats"])
    tables["dominance"] = dominance_table(spec)
    tables["seat_effects"] = seat_effect_table(tables["seats"])
    tables["compensation"] = compensation_table(solver, tables["seats"])
    solo, _ = A.solo_table(frames)
    tables["solo"] = solo
    top = tiers[-1].name
    solo_frame = next(df for j, df in frames.items() if j.figure == "solo" and j.family == top)
    tables["solo_ratings"] = A.rating_table(solo_frame)
    elapsed = time.perf_counter() - t0
    write_outputs(tables, frames, out, games, seed, command, elapsed, top, solo_frame)
    return tables


def write_outputs(tables, frames, out: Path, games, seed, command, elapsed, top, solo_frame) -> None:
    """Every file into a temporary directory beside `out`, then each moved into place (REPORT.md last).

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
    top : str
        The strongest tier's name (its solo games are charted).
    solo_frame : pandas.DataFrame
        The strongest tier's solo games.
    """
    with staged_directory(out) as tmp:
        write_tables(tmp, tables, TABLES)
        charts.skill_chart(tables["specialists"], tables["seats"], tmp / "skill.png")
        charts.specialists_chart(tables["specialists"], tmp / "specialists.png")
        charts.seats_chart(tables["seats"], tmp / "seats.png")
        charts.waste_chart(tables["waste"], tmp / "waste.png")
        charts.solo_chart(solo_frame["total"].to_numpy(), tables["solo_ratings"], top, tmp / "solo.png")
        total_games = sum(len(df) // j.players for j, df in frames.items())
        sim_seconds = sum(df.attrs.get("seconds", 0.0) for df in frames.values())
        text = report(tables, frames, games, seed, command, elapsed, top, total_games, sim_seconds)
        (tmp / "REPORT.md").write_text(text, encoding="utf-8")


# --- under a rule set of one's own (reproduce --skill --rules) -----------------------------------

# The balance targets of a rules revision (results/v1.2/REPORT.md), in percentage points of win share
SPECIALIST_TARGET = 25.0  # each of the four specialists' win share at 4 players, seats rotated
SPECIALIST_TOLERANCE = 5.0  # required: within 25 +- 5
SPECIALIST_GOAL = 3.0  # the goal: within 25 +- 3
SEAT_TOLERANCE = 2.0  # every seat at 2-4 players within 1/N +- 2, with the rules' compensation
TOTAL_TOLERANCE = 0.15  # the mean total within +-15% of v1.1's: judged by `compare v1.1 FILE`, not here
TARGET_TIERS = ("strong", "expert")  # the tiers the targets are required at (greedy's verdicts: context)

VARIANT_TABLES = (
    "specialists",
    "seats",
    "solver",
    "targets",
    "means",
    "weights",
    "dominance",
    "seat_effects",
    "compensation",
    "solo",
    "solo_ratings",
)


def _source(rules) -> str:
    return rules.name if isinstance(rules, Rules) else str(rules)


def check(games: int, rules: str | Path | Rules | None = None, tiers=TIERS) -> None:
    """SimulateError, one line, when the skill plan cannot be played under `rules` (None: the rulebook's
    plan): first the tiers whose agents have no weights for these rules (every tier that needs them named,
    with the train command), then every run's spec as :func:`boardlab.experiments.simulate.make_spec` checks it.
    Plays nothing; ``reproduce`` calls it before any work.

    Parameters
    ----------
    games : int
        The report's size.
    rules : str or pathlib.Path or Rules or None
        The rule set (None: the rulebook's plan).
    tiers : sequence of Tier
        The skill tiers, weakest first.
    """
    rs = None if rules is None else load_rules(rules)
    under = rs if rs is not None else load_rules("v1.1")
    missing, first = [], ""
    for t in tiers:
        try:
            for spec in (t.agent, *t.specialists()):
                for_rules(parse_agent(spec), under)
        except AgentError as e:
            missing.append(t.name)
            first = first or str(e)
    if missing:
        which = " and ".join(missing)
        raise S.SimulateError(f"--rules: tier{'s' if len(missing) > 1 else ''} {which}: {first.splitlines()[0]}")
    for job in plan(games, tiers, rs):
        S.make_spec(job.players, list(job.agents), job.games, 0, job.rule_set(), job.seating, game=GAME)


def weights_table(tiers, rules: Rules) -> pd.DataFrame:
    """Per tier: the weight set its every-seat agent and its specialists play under `rules` (weights_name:
    strong-v1, v1.1's committed weights, or the rules hash of weights trained under these rules).

    Parameters
    ----------
    tiers : sequence of Tier
        The skill tiers, weakest first.
    rules : Rules
        The rule set.

    Returns
    -------
    pandas.DataFrame
        One row per tier.
    """

    def name(spec: str) -> str:
        a = parse_agent(spec)
        return weights_name(a, rules) if "weights" in a.params else "none (no learned value)"

    key = rules_hash(rules)
    rows = []
    for t in tiers:
        w, ws = name(t.agent), sorted({name(s) for s in t.specialists()})
        rows.append(
            {
                "tier": t.name,
                "agent": t.agent,
                "weights": w,
                "specialists' weights": ", ".join(ws),
                "trained under these rules": key in (w, *ws),
            }
        )
    return pd.DataFrame(rows)


def means_table(frames: dict[A.Job, pd.DataFrame]) -> pd.DataFrame:
    """Per tier and table (specialists, seats, solo): the mean total and the mean wasted tiles per player,
    every player of every game (with the rules' compensation), with 95% intervals.

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
        if job.figure not in ("specialists", "seats", "solo"):
            continue
        m = mean_ci(df.assign(k=0), ["total", "waste"], "k").set_index("metric")
        rows.append(
            {
                "tier": job.family,
                "table": job.figure,
                "players": job.players,
                "games": len(df) // job.players,
                "n": int(m.loc["total", "n"]),
                "total": m.loc["total", "mean"],
                "total_lo": m.loc["total", "lo"],
                "total_hi": m.loc["total", "hi"],
                "waste": m.loc["waste", "mean"],
                "waste_lo": m.loc["waste", "lo"],
                "waste_hi": m.loc["waste", "hi"],
            }
        )
    return pd.DataFrame(rows)


def _band(t: pd.DataFrame, centre: float, tol: float) -> str:
    """'met': every interval inside centre +- tol; 'met by the estimates': every estimate inside, some interval
    crosses an edge; 'not met': some estimate outside."""
    if ((t["lo"] >= centre - tol) & (t["hi"] <= centre + tol)).all():
        return "met"
    return "met by the estimates" if ((t["win_pct"] - centre).abs() <= tol).all() else "not met"


def targets_table(spec: pd.DataFrame, seats: pd.DataFrame, means: pd.DataFrame, after: str) -> pd.DataFrame:
    """Each balance target's verdict per tier, with its evidence: the specialists within 25 +- 5 (and the goal,
    +- 3), the seats at 2, 3, 4 players within 1/N +- 2 with the rules' compensation (the seat rows labelled
    `after`), and the mean totals per table (judged against v1.1's by `compare`).

    Parameters
    ----------
    spec : pandas.DataFrame
        The specialists' table.
    seats : pandas.DataFrame
        The seats' table.
    means : pandas.DataFrame
        :func:`means_table`.
    after : str
        The label of the seat rows played with the rules' compensation.

    Returns
    -------
    pandas.DataFrame
        One row per (tier, target).
    """
    rows = []
    main = spec[spec["figure"] == "specialists"].astype({"family": str, "district": str})
    tiers = list(dict.fromkeys(main["family"]))

    def row(target, tier, verdict, evidence):
        req = "yes" if tier in TARGET_TIERS else "no (context)"
        rows.append({"target": target, "tier": tier, "required": req, "verdict": verdict, "evidence": evidence})

    for tol, what in ((SPECIALIST_TOLERANCE, ""), (SPECIALIST_GOAL, " (the goal)")):
        for tier in tiers:
            t = main[main["family"] == tier].sort_values("district", key=lambda d: d.map(A.DISTRICTS.index))
            gap = float((t["win_pct"] - SPECIALIST_TARGET).abs().max())
            ev = ", ".join(f"{r['district']} {_ci(r['win_pct'], r['lo'], r['hi'])}" for _, r in t.iterrows())
            row(
                f"specialists within {SPECIALIST_TARGET:g} ± {tol:g} points{what}",
                tier,
                _band(t, SPECIALIST_TARGET, tol),
                f"{ev}; largest gap {gap:.1f} pts",
            )
    a = seats[seats["compensation"] == after]
    for p in (2, 3, 4):
        fair = 100 / p
        for tier in tiers:
            t = a[(a["players"] == p) & (a["family"] == tier)]
            if t.empty:
                continue
            ev = (
                f"vector {t['vector'].iloc[0]}; seats "
                + ", ".join(_ci(r["win_pct"], r["lo"], r["hi"]) for _, r in t.iterrows())
                + f"; largest deviation {t['max_deviation_pts'].iloc[0]:.1f} pts"
            )
            row(
                f"{p} players: every seat within {fair:.1f} ± {SEAT_TOLERANCE:g} points",
                tier,
                _band(t, fair, SEAT_TOLERANCE),
                ev,
            )
    for tier in tiers:
        t = means[means["tier"] == tier]
        ev = "; ".join(
            f"{r['table']} {r['players']}p {_ci(r['total'], r['total_lo'], r['total_hi'])}" for _, r in t.iterrows()
        )
        row(f"mean total within ±{100 * TOTAL_TOLERANCE:.0f}% of v1.1's", tier, "compare", ev)
    return pd.DataFrame(rows)


def variant_reproduce(
    games, out, work, rules: Rules, source, seed, n_jobs, log, command, backend, scheduler, progress, tiers=TIERS
) -> dict[str, pd.DataFrame]:
    """skill_reproduce under `rules` (read from `source`, named in the report): the variant plan, its
    balance targets, its tables and REPORT.md.

    Parameters
    ----------
    games : int
        The report's size.
    out : pathlib.Path
        The report's directory.
    work : pathlib.Path
        The run cache.
    rules : Rules
        The rule set.
    source : str
        Where the rules came from, named in the report.
    seed : int
        The run seed.
    n_jobs : int
        Worker processes.
    log : callable
        Receives progress lines.
    command : str
        The command line.
    backend, scheduler : str, str or None
        As in :func:`boardlab.experiments.simulate.run`.
    progress : callable or None
        Called after each chunk.
    tiers : sequence of Tier
        The skill tiers, weakest first.

    Returns
    -------
    dict of str to pandas.DataFrame
        The report's tables.
    """
    t0 = time.perf_counter()
    frames = run_jobs(GAME, plan(games, tiers, rules), work, seed, n_jobs, log, backend, scheduler, progress)
    solver = A.solver_table(frames, rules=rules)
    more = verify_jobs(solver, games, tiers, rules)
    frames.update(run_jobs(GAME, more, work, seed, n_jobs, log, backend, scheduler, progress))
    after = f"after ({rules.name})"
    spec = A.specialist_table(frames)
    seats = A.seat_table(frames, rules, after=after, book=None)
    book = ["rulebook", "diff", "reproduced"]  # the rulebook's figures are not this rule set's
    tables = {
        "specialists": spec.drop(columns=["figure", *book]),
        "seats": seats.drop(columns=book),
        "solver": solver,
        "means": means_table(frames),
        "weights": weights_table(tiers, rules),
    }
    tables["targets"] = targets_table(spec, seats, tables["means"], after)
    tables["dominance"] = dominance_table(spec)
    tables["seat_effects"] = seat_effect_table(seats)
    tables["compensation"] = compensation_table(solver, seats, after, rules.name)
    tables["solo"], _ = A.solo_table(frames)
    top = tiers[-1].name
    solo_frame = next(df for j, df in frames.items() if j.figure == "solo" and j.family == top)
    tables["solo_ratings"] = A.rating_table(solo_frame)
    elapsed = time.perf_counter() - t0
    with staged_directory(out) as tmp:
        write_tables(tmp, tables, VARIANT_TABLES)
        charts.skill_chart(tables["specialists"], seats, tmp / "skill.png")
        charts.specialists_chart(tables["specialists"], tmp / "specialists.png", book=False)
        charts.seats_chart(seats, tmp / "seats.png", book=False)
        charts.solo_chart(solo_frame["total"].to_numpy(), tables["solo_ratings"], top, tmp / "solo.png")
        text = variant_report(tables, frames, rules, source, games, seed, command, elapsed, top, tiers)
        (tmp / "REPORT.md").write_text(text, encoding="utf-8")
    return tables


def variant_report(tables, frames, rules: Rules, source, games, seed, command, elapsed, top, tiers) -> str:
    """REPORT.md of the skill axis under one rule set: its plan, balance targets, tables and charts.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The report's tables.
    frames : dict of Job to pandas.DataFrame
        Each run and its rows.
    rules : Rules
        The rule set.
    source : str
        Where the rules came from.
    games : int
        The report's size.
    seed : int
        The run seed.
    command : str
        The command line, quoted in the report.
    elapsed : float
        Seconds the runs took.
    top : str
        The strongest tier's name (its solo games are charted).
    tiers : sequence of Tier
        The skill tiers, weakest first.

    Returns
    -------
    str
        REPORT.md's Markdown.
    """
    total_games = sum(len(df) // j.players for j, df in frames.items())
    sim_seconds = sum(df.attrs.get("seconds", 0.0) for df in frames.values())
    runs = pd.DataFrame(
        [
            {"tier": j.family, "games": len(df) // j.players, "minutes": round(df.attrs.get("seconds", 0.0) / 60, 1)}
            for j, df in frames.items()
        ]
    )
    per_tier = runs.groupby("tier", sort=False)[["games", "minutes"]].sum().reset_index()
    seats, means = tables["seats"], tables["means"]
    targets = tables["targets"]
    req = targets[targets["required"] == "yes"]
    judged = req[req["verdict"] != "compare"]
    short = judged[judged["verdict"] == "not met"]
    return render(
        "citywright_variant.md.j2",
        rules=rules.name,
        source=source,
        rules_hash=rules_hash(rules),
        rules_tag=rules_tag(rules),
        p=provenance(command, len(frames), total_games, sim_seconds, elapsed),
        n=sizes(games),
        seed=seed,
        tiers=_tier_specs(tiers),
        weights=tables["weights"],
        target_tiers=TARGET_TIERS,
        judged=len(judged),
        short=[(r["target"], r["tier"]) for _, r in short.iterrows()],
        targets=targets[["target", "tier", "required", "verdict", "evidence"]],
        s=_shared(tables, skill_questions(tables, rules.name), seats, per_tier, top),
        means=pd.DataFrame(
            {
                "tier": means["tier"],
                "table": means["table"],
                "players": means["players"],
                "games": means["games"],
                "total": [_ci(r["total"], r["total_lo"], r["total_hi"]) for _, r in means.iterrows()],
                "waste": [_ci(r["waste"], r["waste_lo"], r["waste_hi"], 2) for _, r in means.iterrows()],
            }
        ),
        tables=VARIANT_TABLES,
    )


def _tier_specs(tiers) -> list[tuple[str, str, str]]:
    """Each tier's name, its agent and its specialists' spec (district X), for the reports' tiers line."""
    return [(t.name, t.agent, t.specialist.format(d="X")) for t in tiers]


def _shared(tables, questions: list[str], seats: pd.DataFrame, per_tier: pd.DataFrame, top: str) -> dict:
    """What the blocks both skill reports share read (``_citywright_skill.md.j2``): the summary's answers, the
    specialists, seat effects and compensation per tier, solo, every seat table and the time per tier."""
    return {
        "questions": questions,
        "dominance": tables["dominance"],
        "seat_effects": tables["seat_effects"],
        "compensation": tables["compensation"],
        "top": top,
        "solo": tables["solo"].drop(columns="agents").round(1),
        "solo_ratings": tables["solo_ratings"].round(3),
        "seat_shares": seats.assign(share=[_ci(r["win_pct"], r["lo"], r["hi"]) for _, r in seats.iterrows()])[
            ["players", "family", "compensation", "vector", "seat", "games", "share"]
        ],
        "per_tier": per_tier,
    }


# --- the report -----------------------------------------------------------------------------


def skill_questions(tables, name: str = "v1.1") -> list[str]:
    """The summary's three answers, each from the tables, each per tier (`name`: the rules whose own
    compensation vector the solver's is set beside).

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The report's tables.
    name : str
        The rules' name.

    Returns
    -------
    list of str
        Three Markdown paragraphs.
    """
    dom, eff, comp = tables["dominance"], tables["seat_effects"], tables["compensation"]
    tiers = [c for c in dom.columns if c not in ("rules", "district") and "->" not in c]
    change = next(c for c in dom.columns if "->" in c)
    lines = []
    for rules, t in dom.groupby("rules", sort=True):
        c = t[t["district"] == "C"].iloc[0]
        lines.append(
            f"- **Does commercial's dominance shrink with skill? ({rules})** Commercial specialist's win share: "
            + "; ".join(f"{name} {c[name]}" for name in tiers)
            + f" — {c[change]} from {tiers[0]} to {tiers[-1]}. Strongest specialist per tier: "
            + ", ".join(f"{name} {_top(tables['specialists'], rules, name)}" for name in tiers)
            + "."
        )
    for p, t in eff.groupby("players", sort=True):
        lines.append(
            f"- **Seat effects, {p} players, no compensation**: "
            + "; ".join(
                f"{r['tier']} largest deviation {r['max_deviation_pts']:.1f} pts ({r['seat effect']})"
                for _, r in t.iterrows()
            )
            + "."
        )
    for p, t in comp.groupby("players", sort=True):
        lines.append(
            f"- **Compensation needed, {p} players**: "
            + "; ".join(
                f"{r['tier']} {r['solver vector']} (re-simulated largest deviation "
                f"{r['solver: re-simulated (pts)']:.1f} pts; {name}'s {r[f'{name} vector']}: "
                f"{r[f'{name}: max dev (pts)']:.1f})"
                for _, r in t.iterrows()
            )
            + "."
        )
    return lines


def _top(spec: pd.DataFrame, rules: str, tier: str) -> str:
    t = spec[(spec["rules"] == rules) & (spec["family"].astype(str) == tier)].sort_values("win_pct")
    r = t.iloc[-1]
    return f"{r['district']} {r['win_pct']:.1f}%"


def report(tables, frames, games, seed, command, elapsed, top, total_games, sim_seconds) -> str:
    """REPORT.md of the skill axis: the three questions answered per tier, every table and the charts.

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
    top : str
        The strongest tier's name (its solo games are charted).
    total_games : int
        Games played over every run.
    sim_seconds : float
        Seconds those games took.

    Returns
    -------
    str
        REPORT.md's Markdown.
    """
    runs = pd.DataFrame(
        [
            {
                "run": j.key,
                "tier": j.family,
                "players": j.players,
                "games": len(df) // j.players,
                "minutes": round(df.attrs.get("seconds", 0.0) / 60, 1),
            }
            for j, df in frames.items()
        ]
    )
    per_tier = runs.groupby("tier", sort=False)[["games", "minutes"]].sum().reset_index()
    claims = tables["claims"].rename(columns={"family": "tier"})
    waste = tables["waste"]
    return render(
        "citywright_skill.md.j2",
        p=provenance(command, len(frames), total_games, sim_seconds, elapsed),
        n=sizes(games),
        seed=seed,
        tiers=_tier_specs(TIERS),
        s=_shared(tables, skill_questions(tables), tables["seats"], per_tier, top),
        claims=claims[["claim", "tier", "verdict", "evidence"]],
        waste=waste.assign(ours=[_ci(r["waste"], r["lo"], r["hi"], 2) for _, r in waste.iterrows()])[
            ["rules", "family", "games", "rulebook", "ours", "empty", "forced_discards"]
        ].round(2),
        tables=TABLES,
    )


REPORT = Report(
    skill_reproduce,
    title="the balance figures across skill tiers",
    home="skill",
    default_games=2000,
    note=lambda games: f"  (the expert's tables: {sizes(games)['expert']:,} games)",
    takes_rules=True,
    check=check,
)
