"""Reproducing the rulebook's appendix (docs/games/citywright.md §10): the plan of runs and the figures.

The rulebook does not say which agents produced its figures, so every figure is
computed, with the rulebook's definition, for several *agent families*:

* ``greedy``      every seat greedy;
* ``spec-mix``    every seat draws one of the four specialists (``--seating draw``);
* ``mcts-LO``, ``mcts-HI``  every seat mcts at two budgets (fewer games: mcts is slow);
* for the specialist table, the specialists under three objective weights.

A figure is *reproduced* by a family when the rulebook's value lies inside our
95% interval.  Qualitative claims are marked holds / does not hold / unclear
(the ordering is right but the intervals overlap).

Definitions (docs/games/citywright.md §10 and its [interpretation]): specialist win shares at 4
players, seats rotated, v1.0 without and v1.1 with compensation; two-player waste
per player under v1.0 (16 turns) and v1.1 (12 turns); seat win shares under v1.1
rules, "before" = the same games re-ranked without compensation (play does not
depend on compensation for greedy and the specialists, whose objectives do not
contain it), "after" = with v1.1's.  mcts's reward is the win, which compensation
changes, so its "before" comes from games played without compensation.

This module plans runs (:func:`plan`), plays them through the resumable run cache
of :mod:`boardlab.experiments.simulate`, and turns the result files into long-format tables
(:func:`specialist_table`, :func:`waste_table`, :func:`seat_table`, ...).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from boardlab.experiments import compensation as C
from boardlab.experiments.pipelines import mean_ci, win_share
from boardlab.sim.citywright.rules import PRESETS, Rules, from_mapping, load_rules
from boardlab.sim.stats import wilson

DISTRICTS = ("R", "C", "P", "I")
SPECIALISTS = tuple(f"specialist:{d}" for d in DISTRICTS)

# docs/games/citywright.md §10, as printed (percent / tiles)
RULEBOOK_SPECIALISTS = {"v1.0": (14.5, 25.9, 26.9, 32.7), "v1.1": (28.8, 19.5, 25.1, 26.6)}
RULEBOOK_WASTE = {"v1.0": 20.5, "v1.1": 4.7}  # two players: 16 turns (v1.0), 12 turns (v1.1)
RULEBOOK_SEATS = {
    2: {"before": (53, 47), "after": (50, 50)},
    3: {"before": (30, 28, 41), "after": (34, 31, 36)},
    4: {"before": (23, 23, 24, 30), "after": (26, 25, 23, 26)},
}

MCTS_BUDGETS = (100, 300)
# specialist objective weights tried for the table (weight on the own district, progress bonus)
SPECIALIST_VARIANTS = (
    ("weight 3, progress 0.5 (default)", 3.0, 0.5),
    ("weight 1.5", 1.5, 0.5),
    ("weight 10", 10.0, 0.5),
)
CALIBRATION_WEIGHTS = (1.0, 2.0, 3.0, 5.0, 10.0)
CALIBRATION_PROGRESS = (0.0, 0.5, 2.0)


@dataclass(frozen=True)
class Job:
    """One simulation of the reproduction: what to play and how to label it."""

    key: str  # file stem in the run cache
    figure: str  # specialists | waste | seats | solo | calibration | verify
    family: str
    players: int
    agents: tuple[str, ...]
    seating: str
    rules: str  # a preset name, or a variant's canonical JSON (job_rules): the rules' content, not a file's name
    overrides: tuple[tuple[str, object], ...] = ()
    games: int = 0
    label: str = ""  # the rule variant, for tables
    extra: tuple[tuple[str, object], ...] = ()

    def rule_set(self) -> Rules:
        """The run's rule set.

        Returns
        -------
        Rules
            The run's rules (a preset, or the variant its canonical JSON holds).
        """
        r = _rules_of(self.rules)
        over = {k: list(v) if isinstance(v, tuple) else v for k, v in self.overrides}
        return r.with_overrides(over) if over else r


def job_rules(rules: Rules) -> str:
    """What a job carries of `rules`: a preset's name, else the rules' canonical JSON (so a job, and the run it
    keys, changes whenever a variant file's content does).

    Parameters
    ----------
    rules : Rules
        The rule set.

    Returns
    -------
    str
        The preset's name or the canonical JSON.
    """
    return rules.name if rules.name in PRESETS and rules == load_rules(rules.name) else rules.to_json()


@lru_cache(maxsize=8)
def _rules_of(rules: str) -> Rules:
    """Job.rules as a rule set (parsed once per process: a plan's jobs share a few)."""
    return from_mapping(json.loads(rules)) if rules.startswith("{") else load_rules(rules)


def specialist_agents(weight: float, progress: float) -> tuple[str, ...]:
    """The four district specialists' specs at one calibration point (weight, progress).

    Parameters
    ----------
    weight : float
        The specialists' ``weight`` parameter.
    progress : float
        Their ``progress`` parameter.

    Returns
    -------
    tuple of str
        One spec per district R, C, P, I.
    """
    return tuple(f"specialist:{d},weight={weight:g},progress={progress:g}" for d in DISTRICTS)


def sizes(games: int) -> dict[str, int]:
    """Games per run for a reproduction of size `games` (the big tables' count).

    The smaller runs scale from it with a floor (200, 100, 20 games), itself capped at `games` (mcts's,
    the slowest, at a quarter of it): a smoke-size reproduction is not made larger than it asked for.

    Parameters
    ----------
    games : int
        The reproduction's size.

    Returns
    -------
    dict of str to int
        Games per kind of run.
    """
    return {
        "main": games,
        "variant": max(games // 5, min(200, games)),
        "calibration": max(games // 20, min(100, games)),
        "mcts": max(games // 100, min(20, games // 4)),
        "verify": max(games // 5, min(200, games)),
    }


def plan(games: int) -> list[Job]:
    """Every run of the reproduction (the solver's verification runs come later, see `verify_jobs`).

    Parameters
    ----------
    games : int
        The reproduction's size.

    Returns
    -------
    list of Job
        The runs.
    """
    n = sizes(games)
    jobs: list[Job] = []
    # 1. specialist table, 4 players, seats rotated
    for ver, label, over in (
        ("v1.0", "v1.0", ()),
        ("v1.0", "v1.0, market depletes", (("game.market_depletes", True),)),
        ("v1.1", "v1.1", ()),
        ("v1.1", "v1.1, no achievements", (("achievements.enabled", False),)),
    ):
        for i, (fam, w, pr) in enumerate(SPECIALIST_VARIANTS):
            if i and label not in ("v1.0", "v1.1"):
                continue  # weight variants only on the presets
            key = f"spec_{label.replace(', ', '_').replace(' ', '-').replace('.', '')}_w{w:g}"
            jobs.append(
                Job(
                    key,
                    "specialists",
                    f"specialists {fam}",
                    4,
                    specialist_agents(w, pr),
                    "rotate",
                    ver,
                    over,
                    n["main"] if i == 0 else n["variant"],
                    label,
                )
            )
    # 2. + 3. two-player waste (v1.0 and v1.1) and seat shares (v1.1; 2-player runs shared)
    families = [("greedy", ("greedy",), "rotate", "main"), ("spec-mix", SPECIALISTS, "draw", "main")]
    families += [(f"mcts-{b}", (f"mcts:iters={b}",), "rotate", "mcts") for b in MCTS_BUDGETS]
    for fam, agents, seating, size in families:
        jobs.append(Job(f"waste_v10_{fam}", "waste", fam, 2, agents, seating, "v1.0", (), n[size], "v1.0 (16 turns)"))
        for p in (2, 3, 4):
            jobs.append(Job(f"seats_{p}p_{fam}", "seats", fam, p, agents, seating, "v1.1", (), n[size], "v1.1"))
            if fam.startswith("mcts"):
                # mcts's reward is the win, which compensation changes: "before" needs its own games
                nocomp = ((f"game.compensation.{p}", (0,) * p),)
                label = "v1.1 without compensation"
                jobs.append(Job(f"seats_{p}p_{fam}_nocomp", "seats-before", fam, p, agents, seating, "v1.1", nocomp,
                                n[size], label))  # fmt: skip
    # random players: context for waste
    jobs.append(
        Job("waste_v10_random", "waste", "random", 2, ("random",), "rotate", "v1.0", (), n["main"], "v1.0 (16 turns)")
    )
    jobs.append(Job("seats_2p_random", "waste", "random", 2, ("random",), "rotate", "v1.1", (), n["main"], "v1.1"))
    # 4. solo
    jobs.append(Job("solo_greedy", "solo", "greedy", 1, ("greedy",), "fixed", "v1.1", (), n["main"], "v1.1"))
    b = MCTS_BUDGETS[-1]
    jobs.append(
        Job(
            f"solo_mcts-{b}",
            "solo",
            f"mcts-{b} (margin)",
            1,
            (f"mcts:iters={b},reward=margin",),
            "fixed",
            "v1.1",
            (),
            n["mcts"],
            "v1.1",
        )
    )
    # 5. calibration of the specialists' objective
    for ver in ("v1.0", "v1.1"):
        for w in CALIBRATION_WEIGHTS:
            for pr in CALIBRATION_PROGRESS:
                jobs.append(
                    Job(
                        f"calib_{ver.replace('.', '')}_w{w:g}_p{pr:g}",
                        "calibration",
                        f"weight {w:g}, progress {pr:g}",
                        4,
                        specialist_agents(w, pr),
                        "rotate",
                        ver,
                        (),
                        n["calibration"],
                        ver,
                        (("weight", w), ("progress", pr)),
                    )
                )
    return jobs


def verify_jobs(solver: pd.DataFrame, games: int) -> list[Job]:
    """Re-simulation of the solver's best vector for the greedy family at 2, 3 and 4 players.

    Parameters
    ----------
    solver : pandas.DataFrame
        :func:`solver_table`.
    games : int
        The reproduction's size.

    Returns
    -------
    list of Job
        The runs.
    """
    out = []
    for _, r in solver[(solver["family"] == "greedy") & (solver["choice"] == 1)].iterrows():
        p = int(r["players"])
        vec = [int(x) for x in r["compensation"].split("/")]
        out.append(
            Job(
                f"verify_{p}p_greedy_{'-'.join(map(str, vec))}",
                "verify",
                "greedy",
                p,
                ("greedy",),
                "rotate",
                "v1.1",
                ((f"game.compensation.{p}", tuple(vec)),),
                sizes(games)["verify"],
                "v1.1, solver compensation",
            )
        )
    return out


# --- figures --------------------------------------------------------------------------


def _district(agent: str) -> str:
    return agent.split(":")[1].split(",")[0]


def _inside(value: float, lo: float, hi: float) -> bool:
    return bool(lo <= value <= hi)


def specialist_table(frames: dict[Job, pd.DataFrame]) -> pd.DataFrame:
    """Win share per specialist, rule variant and family, beside the rulebook's figure (percent).

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
        if job.figure not in ("specialists", "calibration"):
            continue
        book = RULEBOOK_SPECIALISTS.get(job.rules)  # none for a variant
        for _, r in win_share(df, "agent").iterrows():
            d = _district(r["agent"])
            ref = book[DISTRICTS.index(d)] if book else np.nan
            rows.append(
                {
                    "figure": job.figure,
                    "rules": job.label,
                    "family": job.family,
                    "district": d,
                    "games": len(df) // job.players,
                    "n": int(r["n"]),
                    "win_pct": 100 * r["win_share"],
                    "lo": 100 * r["lo"],
                    "hi": 100 * r["hi"],
                    "rulebook": ref,
                    "diff": 100 * r["win_share"] - ref,
                    "reproduced": _inside(ref, 100 * r["lo"], 100 * r["hi"]),
                    "agents": "; ".join(job.agents),
                    **dict(job.extra),
                }
            )
    t = pd.DataFrame(rows)
    t["district"] = pd.Categorical(t["district"], DISTRICTS, ordered=True)
    t["family"] = pd.Categorical(t["family"], list(dict.fromkeys(t["family"])), ordered=True)  # plan order
    return t.sort_values(["figure", "rules", "family", "district"]).reset_index(drop=True)


def waste_table(frames: dict[Job, pd.DataFrame]) -> pd.DataFrame:
    """Two-player wasted tiles per player: v1.0 (16 turns) and v1.1 (12 turns), per family.

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
        if job.players != 2 or job.figure not in ("waste", "seats"):
            continue
        m = mean_ci(df.assign(k=0), ["waste", "empty", "forced_discards"], "k").set_index("metric")
        ver = job.rules
        w = m.loc["waste"]
        rows.append(
            {
                "rules": job.label if ver == "v1.0" else "v1.1 (12 turns)",
                "version": ver,
                "family": job.family,
                "games": len(df) // 2,
                "n": int(w["n"]),
                "waste": w["mean"],
                "lo": w["lo"],
                "hi": w["hi"],
                "empty": m.loc["empty", "mean"],
                "forced_discards": m.loc["forced_discards", "mean"],
                "rulebook": RULEBOOK_WASTE[ver],
                "reproduced": _inside(RULEBOOK_WASTE[ver], w["lo"], w["hi"]),
                "agents": "; ".join(job.agents),
            }
        )
    t = pd.DataFrame(rows)
    t["order"] = t.groupby("family", sort=False).ngroup()  # plan order of the families
    return t.sort_values(["order", "version"]).drop(columns="order").reset_index(drop=True)


def _seat_rows(df: pd.DataFrame, comp, players: int, family: str, label: str, book, rules: Rules) -> list[dict]:
    arrays = C.game_arrays(df, "citywright", rules.data)
    s = C.seat_shares(arrays, comp)
    games = arrays.games
    rows = []
    for i, x in enumerate(s):
        lo, hi = wilson(x * games, games)
        ref = book[i] if book is not None else np.nan
        rows.append(
            {
                "players": players,
                "family": family,
                "compensation": label,
                "vector": "/".join(map(str, comp)),
                "seat": i + 1,
                "games": games,
                "win_pct": 100 * x,
                "lo": 100 * lo,
                "hi": 100 * hi,
                "rulebook": ref,
                "diff": 100 * x - ref,
                "reproduced": _inside(ref, 100 * lo, 100 * hi),
                "max_deviation_pts": 100 * float(np.abs(s - 1 / players).max()),
            }
        )
    return rows


def seat_table(
    frames: dict[Job, pd.DataFrame], rules: Rules | None = None, after: str = "after (v1.1)", book=RULEBOOK_SEATS
) -> pd.DataFrame:
    """Seat win shares at 2, 3, 4 players without ("before") and with the compensation of `rules` (default
    v1.1's; "after", labelled `after`), beside `book`'s figures (None: no rulebook figures, a variant).

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.
    rules : Rules or None
        Whose compensation is "after" (None: v1.1).
    after : str
        The label of the rows with it.
    book : dict or None
        The rulebook's seat figures (None: none, a variant).

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    rules = rules or load_rules("v1.1")
    own_before = {(j.players, j.family): df for j, df in frames.items() if j.figure == "seats-before"}
    rows = []
    for job, df in frames.items():
        if job.figure != "seats":
            continue
        p = job.players
        comp = rules.data["game"]["compensation"][str(p)]
        # agents blind to compensation: the same games re-ranked; others (mcts): games played without it
        before = own_before.get((p, job.family), df)
        rows += _seat_rows(before, [0] * p, p, job.family, "before (none)", book[p]["before"] if book else None, rules)
        rows += _seat_rows(df, comp, p, job.family, after, book[p]["after"] if book else None, rules)
    for job, df in frames.items():
        if job.figure == "verify":
            comp = list(dict(job.overrides)[f"game.compensation.{job.players}"])
            rows += _seat_rows(df, comp, job.players, job.family, "solver (re-simulated)", None, rules)
    return pd.DataFrame(rows)


def solver_table(
    frames: dict[Job, pd.DataFrame], top: int = 3, max_points: int = 5, rules: Rules | None = None
) -> pd.DataFrame:
    """The solver's best compensation vectors per family and player count (re-ranked stored games, under the
    tie-break rules of `rules`, default v1.1).

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.
    top : int
        Vectors kept per family and player count.
    max_points : int
        The largest compensation of a seat.
    rules : Rules or None
        Whose tie-break rules rank the games (None: v1.1).

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    rules = rules or load_rules("v1.1")
    parts = []
    for job, df in frames.items():
        if job.figure != "seats":
            continue
        best = C.search(df, "citywright", max_points=max_points, top=top, rules=rules.data)
        best.insert(0, "choice", np.arange(1, len(best) + 1))
        best.insert(0, "family", job.family)
        best.insert(0, "players", job.players)
        parts.append(best)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def calibration_table(spec: pd.DataFrame) -> pd.DataFrame:
    """Distance of each calibration point's specialist table to the rulebook's: RMS and largest gap (points).

    Parameters
    ----------
    spec : pandas.DataFrame
        :func:`specialist_table`.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    c = spec[spec["figure"] == "calibration"]
    g = c.groupby(["rules", "weight", "progress"], observed=True)
    out = g.apply(
        lambda t: pd.Series(
            {
                "games": int(t["games"].iloc[0]),
                "rms_pts": float(np.sqrt((t["diff"] ** 2).mean())),
                "max_gap_pts": float(t["diff"].abs().max()),
                "reproduced": int(t["reproduced"].sum()),
                "R": t.loc[t["district"] == "R", "win_pct"].iloc[0],
                "C": t.loc[t["district"] == "C", "win_pct"].iloc[0],
                "P": t.loc[t["district"] == "P", "win_pct"].iloc[0],
                "I": t.loc[t["district"] == "I", "win_pct"].iloc[0],
            }
        ),
        include_groups=False,
    ).reset_index()
    out = out.astype({"games": int, "reproduced": int})
    return out.sort_values(["rules", "rms_pts"]).reset_index(drop=True)


def solo_table(frames: dict[Job, pd.DataFrame], percentiles=(10, 25, 50, 75, 90, 97.5)) -> tuple[pd.DataFrame, str]:
    """Solo score percentiles per family and a rating table from the strongest family (highest mean).

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.
    percentiles : sequence of float
        The percentiles reported.

    Returns
    -------
    tuple of (pandas.DataFrame, str)
        The percentiles per family, and the strongest family's name.
    """
    rows, means = [], {}
    for job, df in frames.items():
        if job.figure != "solo":
            continue
        tot = df["total"].to_numpy()
        means[job.family] = tot.mean()
        rec = {"family": job.family, "games": len(tot), "mean": tot.mean(), "sd": tot.std(ddof=1)}
        rec.update({f"p{q:g}": float(np.percentile(tot, q)) for q in percentiles})
        rec["agents"] = "; ".join(job.agents)
        rows.append(rec)
    return pd.DataFrame(rows), max(means, key=means.get) if means else ""


RATINGS = (("1 star", 0), ("2 stars", 25), ("3 stars", 50), ("4 stars", 75), ("5 stars", 90), ("6 stars", 97.5))


def rating_table(df: pd.DataFrame) -> pd.DataFrame:
    """Rating tiers from a solo score sample: tier k starts at the given percentile of the strongest agent.

    Parameters
    ----------
    df : pandas.DataFrame
        Solo result rows of one agent.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    tot = df["total"].to_numpy()
    rows = []
    for name, q in RATINGS:
        lo = int(np.ceil(np.percentile(tot, q))) if q else 0
        rows.append(
            {"rating": name, "from_percentile": q, "score_at_least": lo, "share_reaching": float((tot >= lo).mean())}
        )
    return pd.DataFrame(rows)


# --- qualitative claims ---------------------------------------------------------------


def _order_claim(t: pd.DataFrame, district: str, strongest: bool) -> tuple[str, str]:
    """holds: `district` is strongest (weakest) and its interval clears every other's; unclear: ordering only."""
    me = t[t["district"] == district].iloc[0]
    others = t[t["district"] != district]
    if strongest:
        order = me["win_pct"] > others["win_pct"].max()
        sep = me["lo"] > others["hi"].max()
    else:
        order = me["win_pct"] < others["win_pct"].min()
        sep = me["hi"] < others["lo"].min()
    verdict = "holds" if order and sep else ("unclear" if order else "does not hold")
    ev = ", ".join(f"{r['district']} {r['win_pct']:.1f} [{r['lo']:.1f}, {r['hi']:.1f}]" for _, r in t.iterrows())
    return verdict, ev


def claims_table(spec: pd.DataFrame, waste: pd.DataFrame, seats: pd.DataFrame) -> pd.DataFrame:
    """Each claim of the rulebook's appendix checked against the tables: a verdict and its evidence per family.

    Parameters
    ----------
    spec : pandas.DataFrame
        :func:`specialist_table`.
    waste : pandas.DataFrame
        :func:`waste_table`.
    seats : pandas.DataFrame
        :func:`seat_table`.

    Returns
    -------
    pandas.DataFrame
        One row per (claim, family): claim, family, verdict, evidence.
    """
    rows = []
    main = spec[spec["figure"] == "specialists"]
    for (rules, family), t in main.groupby(["rules", "family"], observed=True, sort=True):
        if rules == "v1.0":
            for d, strong, text in (
                ("R", False, "v1.0: residential is the weakest specialist"),
                ("I", True, "v1.0: industrial is the strongest specialist"),
            ):
                v, ev = _order_claim(t, d, strong)
                rows.append({"claim": text, "family": family, "verdict": v, "evidence": ev})
        if rules == "v1.1":
            v, ev = _order_claim(t, "R", True)
            rows.append(
                {
                    "claim": "v1.1: residential is the strongest specialist",
                    "family": family,
                    "verdict": v,
                    "evidence": ev,
                }
            )
    for (p, family), t in seats.groupby(["players", "family"], sort=True):
        b = t[t["compensation"] == "before (none)"]
        a = t[t["compensation"] == "after (v1.1)"]
        if b.empty or a.empty:
            continue
        db, da = b["max_deviation_pts"].iloc[0], a["max_deviation_pts"].iloc[0]
        # each seat's share moves toward 1/N (or stays within its interval of it)
        fair = 100 / p
        toward = all(
            abs(ra["win_pct"] - fair) <= abs(rb["win_pct"] - fair) or ra["lo"] <= fair <= ra["hi"]
            for (_, rb), (_, ra) in zip(b.iterrows(), a.iterrows(), strict=True)
        )
        v = "holds" if da < db and toward else ("unclear" if da < db else "does not hold")
        ev = (
            f"largest seat deviation from {fair:.1f}%: {db:.1f} pts before, {da:.1f} pts after; seats after: "
            + ", ".join(f"{r['win_pct']:.1f} [{r['lo']:.1f}, {r['hi']:.1f}]" for _, r in a.iterrows())
        )
        rows.append(
            {
                "claim": f"{p} players: compensation moves seats toward 1/N",
                "family": family,
                "verdict": v,
                "evidence": ev,
            }
        )
    for family, t in waste.groupby("family", sort=True):
        if set(t["version"]) != {"v1.0", "v1.1"}:
            continue
        w0, w1 = t[t["version"] == "v1.0"].iloc[0], t[t["version"] == "v1.1"].iloc[0]
        cut = 1 - w1["waste"] / w0["waste"] if w0["waste"] else 0.0
        sep = w1["hi"] < w0["lo"]
        v = "holds" if sep and cut >= 0.5 else ("unclear" if sep else "does not hold")
        ev = (
            f"{w0['waste']:.2f} [{w0['lo']:.2f}, {w0['hi']:.2f}] -> {w1['waste']:.2f} [{w1['lo']:.2f}, {w1['hi']:.2f}]"
            f" tiles per player, {100 * cut:.0f}% less (rulebook 20.5 -> 4.7, 77% less; 'sharply' read as >= 50%)"
        )
        rows.append(
            {"claim": "2 players: 16 -> 12 turns cuts waste sharply", "family": family, "verdict": v, "evidence": ev}
        )
    return pd.DataFrame(rows)
