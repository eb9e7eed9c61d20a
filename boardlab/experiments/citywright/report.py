"""Citywright's report (GameDef.reports.report, `boardlab reproduce`): play the appendix plan, write tables, charts
and REPORT.md.

Runs go to a run cache (``--work``, by default ``runs/appendix/games-N/runs``,
not committed): each is a resumable simulation (:func:`boardlab.experiments.report.run_jobs`),
so an interrupted reproduction continues where it stopped and a finished one is
only re-analysed.  The outputs (``--out``) are small: CSV tables, PNG charts and
``REPORT.md``; each file is written whole and renamed into place, REPORT.md last,
so a failed run never leaves a half-written report.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from boardlab.experiments.citywright import appendix as A
from boardlab.experiments.citywright import charts
from boardlab.experiments.io import staged_directory
from boardlab.experiments.report import Progress, Report, provenance, render, run_jobs, write_tables
from boardlab.experiments.report import ci as _ci
from boardlab.sim.citywright.game import GAME

TABLES = ("specialists", "calibration", "waste", "seats", "solver", "claims", "solo", "solo_ratings")


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
    progress: Progress | None = None,
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
    frames = run_jobs(GAME, A.plan(games), work, seed, n_jobs, log, backend, scheduler, progress)
    solver = A.solver_table(frames)
    frames.update(run_jobs(GAME, A.verify_jobs(solver, games), work, seed, n_jobs, log, backend, scheduler, progress))
    spec = A.specialist_table(frames)
    tables = {
        "specialists": spec[spec["figure"] == "specialists"].drop(
            columns=["figure", "weight", "progress"], errors="ignore"
        ),
        "calibration": A.calibration_table(spec),
        "waste": A.waste_table(frames),
        "seats": A.seat_table(frames),
        "solver": solver,
    }
    tables["claims"] = A.claims_table(spec, tables["waste"], tables["seats"])
    solo, strongest = A.solo_table(frames)
    tables["solo"] = solo
    solo_frame = next(df for j, df in frames.items() if j.figure == "solo" and j.family == strongest)
    tables["solo_ratings"] = A.rating_table(solo_frame)
    elapsed = time.perf_counter() - t0
    write_outputs(tables, frames, out, games, seed, command, elapsed, strongest, solo_frame)
    return tables


def write_outputs(tables, frames, out: Path, games, seed, command, elapsed, strongest, solo_frame) -> None:
    """Write every file into a temporary directory beside `out`, then move each into place (REPORT.md last).

    Each file is replaced whole; files of `out` that the reproduction does not write are left alone.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The report's tables.
    frames : dict of Job to pandas.DataFrame
        Each run and its rows.
    out : pathlib.Path
        The report's directory.
    games : int
        The reproduction's size.
    seed : int
        The run seed.
    command : str
        The command line.
    elapsed : float
        Seconds the runs took.
    strongest : str
        The strongest family (its solo games are charted).
    solo_frame : pandas.DataFrame
        Its solo games.
    """
    with staged_directory(out) as tmp:
        write_tables(tmp, tables)
        charts.specialists_chart(tables["specialists"], tmp / "specialists.png")
        charts.seats_chart(tables["seats"], tmp / "seats.png")
        charts.waste_chart(tables["waste"], tmp / "waste.png")
        charts.calibration_chart(tables["calibration"], tmp / "calibration.png")
        charts.solo_chart(solo_frame["total"].to_numpy(), tables["solo_ratings"], strongest, tmp / "solo.png")
        total_games = sum(len(df) // j.players for j, df in frames.items())
        sim_seconds = sum(df.attrs.get("seconds", 0.0) for df in frames.values())
        text = report(tables, games, seed, command, elapsed, strongest, total_games, len(frames), sim_seconds)
        (tmp / "REPORT.md").write_text(text, encoding="utf-8")


# --- the report -----------------------------------------------------------------------


def _mark(ok: bool) -> str:
    return "yes" if ok else "no"


ASSUMPTIONS = [
    "3 players play 3 rounds of 4 turns, 4 players 4 rounds of 3 (`game.rounds`) [interpretation]: the only "
    "lengths that fit the rulebook's seat figures.",
    "The two-player swap exists only at 2 players (`game.swap_players`) and needs an empty cell "
    "(`game.swap_requires_empty_cell`) [interpretation].",
    "The achievements' text is missing from the rulebook; the three cards are placeholders of the rule set "
    "(`achievements.cards`: versatile = 6 distinct shapes +4, mastery = 4 of one shape +4, green canopy = "
    "highest park score +4, solo park >= 40) [interpretation]. The specialist table is shown with them on and off.",
    "v1.0's taking may have removed tiles from the market; `game.market_depletes` [interpretation] models it, "
    "off in both presets; v1.0 figures are shown with it off and on. v1.0's 'pentomino restriction' is unknown "
    "and not modelled.",
    "Seat figures: 'before' = v1.1 rules without compensation, 'after' = v1.1 with it [interpretation]. Greedy and "
    "the specialists do not see compensation (their objectives are board points), so for them both come from the "
    "same games, re-ranked; mcts's reward is the win, which compensation changes, so its 'before' games are played "
    "without compensation. The solver re-ranks stored games, which is exact for greedy and the specialists and an "
    "approximation for mcts; its greedy vectors are verified by re-simulation (a zero vector replays the 'before' "
    "games exactly, which checks that play ignores compensation).",
    "Specialist figures: v1.0 without compensation, v1.1 with it, seats rotated; 4 players.",
    "Which agents produced the rulebook's figures is not stated; every figure here names its agents.",
]


def agents_table(tables) -> pd.DataFrame:
    """family -> the exact agent spec strings (as `citywright simulate --agents` takes them).

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The report's tables.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    rows = {}
    for name in ("specialists", "waste", "solo"):
        t = tables[name]
        if "agents" in t:
            for fam, a in zip(t["family"].astype(str), t["agents"], strict=True):
                rows.setdefault(fam, a)
    return pd.DataFrame(
        {"family": list(rows), "agents, seat by seat (rotated; spec-mix: each seat draws one)": list(rows.values())}
    )


def summary(tables) -> list[str]:
    """A few sentences with the headline numbers, computed from the tables.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The report's tables.

    Returns
    -------
    list of str
        The sentences.
    """
    spec, waste, seats, solver, claims = (tables[k] for k in ("specialists", "waste", "seats", "solver", "claims"))
    lines = []
    for rules, t in spec.groupby("rules", sort=True):
        fam = t["family"].iloc[0]
        d = t[t["family"] == fam].sort_values("win_pct", ascending=False)
        top, low = d.iloc[0], d.iloc[-1]
        inside = int(t["reproduced"].sum())
        lines.append(
            f"- **Specialists, {rules}**: with {fam}, the {top['district']} specialist wins "
            f"{_ci(top['win_pct'], top['lo'], top['hi'])}% (rulebook {top['rulebook']}%), the {low['district']} "
            f"specialist {_ci(low['win_pct'], low['lo'], low['hi'])}% (rulebook {low['rulebook']}%); "
            f"{inside} of {len(t)} figures ({t['family'].nunique()} famil{'ies' if t['family'].nunique() > 1 else 'y'})"
            " contain the rulebook's value."
        )
    c = tables["calibration"].sort_values("rms_pts").groupby("rules", sort=True).head(1)
    for _, r in c.iterrows():
        lines.append(
            f"- **Calibration, {r['rules']}**: the closest specialist objective (weight {r['weight']:g}, progress "
            f"{r['progress']:g}) is still {r['rms_pts']:.1f} points (RMS) from the rulebook's table "
            f"(largest gap {r['max_gap_pts']:.1f})."
        )
    for fam, t in waste.groupby("family", sort=False):
        if fam != "greedy":
            continue
        w0, w1 = t[t["version"] == "v1.0"].iloc[0], t[t["version"] == "v1.1"].iloc[0]
        lines.append(
            f"- **Two-player waste** (greedy): {_ci(w0['waste'], w0['lo'], w0['hi'], 2)} tiles per player at 16 turns "
            f"(rulebook 20.5), {_ci(w1['waste'], w1['lo'], w1['hi'], 2)} at 12 turns (rulebook 4.7)."
        )
    for p, t in seats[seats["family"] == "greedy"].groupby("players", sort=True):
        b = t[t["compensation"] == "before (none)"]["max_deviation_pts"].iloc[0]
        a = t[t["compensation"] == "after (v1.1)"]["max_deviation_pts"].iloc[0]
        best = solver[(solver["players"] == p) & (solver["family"] == "greedy") & (solver["choice"] == 1)].iloc[0]
        lines.append(
            f"- **Seats, {p} players** (greedy): largest deviation from 1/N {b:.1f} points without compensation, "
            f"{a:.1f} with v1.1's; the solver's vector {best['compensation']} gives "
            f"{100 * best['max_deviation']:.1f}."
        )
    held = claims.groupby("verdict").size().to_dict()
    lines.append(
        "- **Claims** (each claim x family): "
        + ", ".join(f"{k} {v}" for k, v in sorted(held.items()))
        + " (see the table below)."
    )
    return lines


def report(tables, games, seed, command, elapsed, strongest, total_games, n_runs, sim_seconds=0.0) -> str:
    """REPORT.md of the appendix's reproduction: summary, claims, every table and the charts.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The report's tables.
    games : int
        The reproduction's size.
    seed : int
        The run seed.
    command : str
        The command line.
    elapsed : float
        Seconds this command took.
    strongest : str
        The strongest family.
    total_games : int
        Games over every run.
    n_runs : int
        Runs.
    sim_seconds : float
        Seconds the runs took when played.

    Returns
    -------
    str
        REPORT.md's Markdown.
    """
    spec, waste, seats, solver, claims = (tables[k] for k in ("specialists", "waste", "seats", "solver", "claims"))
    calib = tables["calibration"]
    specialists = []
    for rules, t in spec.groupby("rules", sort=True):
        piv = []
        for d in A.DISTRICTS:
            row = {"specialist": d, "rulebook": t.loc[t["district"] == d, "rulebook"].iloc[0]}
            for fam, f in t.groupby("family", sort=False):
                r = f[f["district"] == d].iloc[0]
                row[f"{fam} (n={r['games']:,})"] = _ci(r["win_pct"], r["lo"], r["hi"]) + (
                    " ✓" if r["reproduced"] else ""
                )
            piv.append(row)
        specialists.append((rules, pd.DataFrame(piv)))
    seat_tables = []
    for p, t in seats.groupby("players", sort=True):
        rows = []
        for (fam, comp), f in t.groupby(["family", "compensation"], sort=False):
            f = f.sort_values("seat")
            rows.append(
                {
                    "family": fam,
                    "compensation": f"{comp} {f['vector'].iloc[0]}",
                    "games": f"{f['games'].iloc[0]:,}",
                    **{
                        f"seat {s}": _ci(r["win_pct"], r["lo"], r["hi"]) + (" ✓" if r["reproduced"] else "")
                        for s, (_, r) in enumerate(f.iterrows(), 1)
                    },
                    "max dev (pts)": round(f["max_deviation_pts"].iloc[0], 1),
                }
            )
        seat_tables.append((p, A.RULEBOOK_SEATS[p], pd.DataFrame(rows)))
    best = calib.sort_values("rms_pts").groupby("rules", sort=True).head(3)
    top = solver[solver["choice"] == 1]
    return render(
        "citywright_report.md.j2",
        p=provenance(command, n_runs, total_games, sim_seconds, elapsed),
        n=A.sizes(games),
        seed=seed,
        summary=summary(tables),
        claims=claims[["claim", "family", "verdict", "evidence"]],
        specialists=specialists,
        calibration=best[
            ["rules", "weight", "progress", "games", "R", "C", "P", "I", "rms_pts", "max_gap_pts", "reproduced"]
        ].round(2),
        waste=waste.assign(
            ours=[_ci(r["waste"], r["lo"], r["hi"], 2) for _, r in waste.iterrows()],
            reproduced=waste["reproduced"].map(_mark),
        )[["rules", "family", "games", "rulebook", "ours", "reproduced", "empty", "forced_discards"]].round(2),
        seats=seat_tables,
        solver=top[["players", "family", "compensation", "max_deviation", "games"]].assign(
            max_deviation=lambda d: (100 * d["max_deviation"]).round(1)
        ),
        strongest=strongest,
        solo=tables["solo"].drop(columns="agents").round(1),
        solo_ratings=tables["solo_ratings"].round(3),
        agents=agents_table(tables),
        assumptions=ASSUMPTIONS,
        tables=TABLES,
    )


REPORT = Report(reproduce, title="docs/games/citywright.md section 10", home="appendix", default_games=2000)
