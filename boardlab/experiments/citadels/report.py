"""Citadels' balance report (GameDef.reports.report, `boardlab reproduce --game citadels`).

Design notes: docs/games/citadels/usage.md#report-module.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from boardlab.experiments.citadels.columns import PURPLE_COLUMNS, PURPLES
from boardlab.experiments.io import staged_directory
from boardlab.experiments.pipelines import Z95, mean_ci
from boardlab.experiments.report import Report, pct, provenance, render, run_jobs, write_tables
from boardlab.experiments.report import ci as _ci
from boardlab.sim.citadels.rules import N_RANKS, Rules, load_rules
from boardlab.sim.stats import wilson

GAME = "citadels"
RANK_NAMES = ("Assassin", "Thief", "Magician", "King", "Bishop", "Merchant", "Architect", "Warlord")
SEAT_COUNTS = (2, 3, 4, 5, 6, 7)
TABLES = (
    "seats",
    "final_positions",
    "characters",
    "specialists",
    "assassin_thief",
    "length",
    "completion",
    "purples",
    "plain_purples",
    "pick_positions",
    "house_rules",
    "short_game",
)


def tiers() -> dict[str, str]:
    """The report's skill tiers, weakest first: tier name -> the full agent spec it plays (the registry's TIERS).

    Returns
    -------
    dict of str to str
        Tier name -> agent spec.
    """
    from boardlab.agents.citadels.registry import TIERS

    return {name: TIERS[name][0] for name in ("basic", "strong", "expert") if name in TIERS}


def prefers(spec: str, rank: int) -> str:
    """The tier's restricted-play specialist: `spec` that takes `rank` whenever offered (its ``prefers``).

    Parameters
    ----------
    spec : str
        The tier's agent spec.
    rank : int
        The character rank, 1..8.

    Returns
    -------
    str
        The specialist's spec.
    """
    if re.search(r"\bprefers=\d+", spec):
        return re.sub(r"\bprefers=\d+", f"prefers={rank}", spec)
    return f"{spec}{',' if ':' in spec else ':'}prefers={rank}"


@dataclass(frozen=True)
class Job:
    """One simulation of the report (boardlab.experiments.report.Job: the fields
    :func:`boardlab.experiments.report.run_jobs` reads)."""

    key: str  # file stem in the run cache
    figure: str  # seats | specialist | house | short
    tier: str
    players: int
    agents: tuple[str, ...]
    rules: str  # preset
    games: int
    seating: str = "fixed"
    overrides: tuple[tuple[str, object], ...] = ()
    rank: int = 0  # a specialist's rank

    def rule_set(self) -> Rules:
        """The run's rule set (its preset with its overrides).

        Returns
        -------
        Rules
            The run's rules.
        """
        r = load_rules(self.rules)
        if not self.overrides:
            return r
        over = {k: list(v) if isinstance(v, tuple) else v for k, v in self.overrides}  # tuples: a Job is hashable
        return r.with_overrides({**over, "name": f"{self.rules}+{self.key}"})


# The expert's games cost about a thousand times a basic one's: its tier plays a fortieth of the games, and
# only the 4-player tables.
EXPERT_SCALE = 40

# The purple districts swapped for a plain district of the same cost (rule `plain_purples`, docs/games/citadels.md
# §2.3), each on the seeds of the tier's official 4-player table: every purple at the basic and strong tiers; at the
# expert tier the most and the least valuable by the adjusted odds ratio of the report before this check (commit
# 451ca6e: the Dragon Gate highest at every tier, the Keep lowest at basic and strong).
EXPERT_PLAIN = ("Dragon Gate", "Keep")


def sizes(games: int, tier: str) -> dict[str, int]:
    """Games per run: the 4-player tables N, the other player counts and the specialists N/2 (the expert tier
    N / EXPERT_SCALE and half that).

    Parameters
    ----------
    games : int
        The report's size (N).
    tier : str
        The tier.

    Returns
    -------
    dict of str to int
        Games per kind of run.
    """
    scale = EXPERT_SCALE if tier == "expert" else 1
    return {"main": max(games // scale, 10), "half": max(games // (2 * scale), 10)}


def plan(games: int, tier_specs: dict[str, str] | None = None) -> list[Job]:
    """Every run of the report for size `games`.

    Parameters
    ----------
    games : int
        The report's size.
    tier_specs : dict of str to str or None
        Tier -> agent spec (None: :func:`tiers`).

    Returns
    -------
    list of Job
        The runs.
    """
    tier_specs = tier_specs or tiers()
    jobs: list[Job] = []
    for tier, spec in tier_specs.items():
        n = sizes(games, tier)
        for p in SEAT_COUNTS if tier != "expert" else (4,):
            size = n["main" if p == 4 else "half"]
            jobs.append(Job(f"seats_{p}p_{tier}", "seats", tier, p, (spec,) * p, "official", size))
        for r in range(1, N_RANKS + 1):
            agents = (prefers(spec, r), spec, spec, spec)
            jobs.append(
                Job(f"prefers{r}_4p_{tier}", "specialist", tier, 4, agents, "official", n["half"], "rotate", rank=r)
            )
        jobs.append(Job(f"seed_4p_{tier}", "house", tier, 4, (spec,) * 4, "seed-summary", n["main"]))
        short = (("complete_size", 7),)
        jobs.append(Job(f"short_4p_{tier}", "short", tier, 4, (spec,) * 4, "official", n["main"], overrides=short))
        for d in PURPLES:
            if tier == "expert" and d.name not in EXPERT_PLAIN:
                continue
            plain = (("plain_purples", (d.name,)),)
            key = f"plain_{d.name.lower().replace(' ', '_')}_4p_{tier}"
            size = n["half"] if tier == "expert" else n["main"]
            jobs.append(Job(key, "plain", tier, 4, (spec,) * 4, "official", size, overrides=plain))
    return jobs


# --- reading the per-round columns ----------------------------------------------------------------


def _rounds(text: pd.Series) -> list[list[str]]:
    return [s.split("-") if s else [] for s in text.tolist()]


def held_ranks(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per row: a [rows, 9] count of the rounds each rank 1..8 was held (index 0 unused), and a [rows, 9] 0/1 of the
    ranks held in the final round.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows with the per-round history columns.

    Returns
    -------
    tuple of numpy.ndarray
        The two int arrays, each of shape ``(rows, 9)``.
    """
    over = np.zeros((len(df), N_RANKS + 1), dtype=np.int32)
    final = np.zeros((len(df), N_RANKS + 1), dtype=np.int8)
    for i, rounds in enumerate(_rounds(df["characters"])):
        for entry in rounds:
            for ch in entry:
                over[i, int(ch)] += 1
        for ch in rounds[-1] if rounds else ():
            final[i, int(ch)] = 1
    over[:, 0] = 0
    final[:, 0] = 0
    return over, final


def offers_taken(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per rank 1..8: how often it was offered to a chooser, how often that chooser took it (rows with offers).

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows with the offers' columns.

    Returns
    -------
    tuple of numpy.ndarray
        ``(offered, taken)``, int, shape ``(9,)`` each (index 0 unused).
    """
    offered = np.zeros(N_RANKS + 1, dtype=np.int64)
    taken = np.zeros(N_RANKS + 1, dtype=np.int64)
    for offers, chars in zip(_rounds(df["offered"]), _rounds(df["characters"]), strict=True):
        for o, c in zip(offers, chars, strict=False):
            mask = int(o, 16)
            for r in range(1, N_RANKS + 1):
                if mask >> (r - 1) & 1:
                    offered[r] += 1
                    taken[r] += str(r) in c
    return offered, taken


def round_positions(df: pd.DataFrame, rounds: int) -> np.ndarray:
    """Per row: its place (1 = crown) in the choosing order of rounds 1..`rounds` ([rows, rounds]; 0 = not played).

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows.
    rounds : int
        The rounds read.

    Returns
    -------
    numpy.ndarray
        int, shape ``(rows, rounds)``.
    """
    out = np.zeros((len(df), rounds), dtype=np.int8)
    for i, r in enumerate(_rounds(df["positions"])):
        k = min(len(r), rounds)
        out[i, :k] = [int(x) for x in r[:k]]
    return out


def final_position(df: pd.DataFrame) -> np.ndarray:
    """Per row: its place (1 = crown) in the choosing order of the final round.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows.

    Returns
    -------
    numpy.ndarray
        int, shape ``(rows,)``.
    """
    return np.array([int(r[-1]) if r else 0 for r in _rounds(df["positions"])], dtype=np.int8)


def _share_row(values: pd.Series) -> dict:
    s, n = float(values.sum()), len(values)
    lo, hi = wilson(s, n)
    return {"n": n, "win_share": s / n if n else np.nan, "lo": lo, "hi": hi}


# --- tables -----------------------------------------------------------------------------------------


def _by(frames, figure: str) -> list[tuple[Job, pd.DataFrame]]:
    return [(j, df) for j, df in frames.items() if j.figure == figure]


def seat_table(frames) -> pd.DataFrame:
    """Win share per seat with every seat the same tier (official, house and short-game runs).

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.

    Returns
    -------
    pandas.DataFrame
        One row per (run, seat): tier, run, rules, players, seat, win share with its interval, and whether the
        interval lies above or below 1/N (``separated``).
    """
    rows = []
    for j, df in _by(frames, "seats") + _by(frames, "house") + _by(frames, "short"):
        for seat, t in df.groupby("seat"):
            rows.append(
                {
                    "tier": j.tier,
                    "run": j.key,
                    "rules": j.rules,
                    "players": j.players,
                    "seat": int(seat),
                    **_share_row(t["win_share"]),
                }
            )
    out = pd.DataFrame(rows)
    fair = 1.0 / out["players"]
    out["separated"] = np.where(out["lo"] > fair, "above", np.where(out["hi"] < fair, "below", ""))
    return out


def final_position_table(frames) -> pd.DataFrame:
    """Per tier and player count: win share by place in the final round's choosing order.

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.

    Returns
    -------
    pandas.DataFrame
        One row per (tier, players, place): the win share of the players choosing at that place.
    """
    rows = []
    for j, df in _by(frames, "seats"):
        pos = final_position(df)
        for k in range(1, j.players + 1):
            rows.append({"tier": j.tier, "players": j.players, "position": k, **_share_row(df["win_share"][pos == k])})
    return pd.DataFrame(rows)


PICK_ROUNDS = 10  # the per-round pick-position table's rounds (4-player games last 10-12 rounds)


def pick_position_table(frames) -> pd.DataFrame:
    """Per tier, player count, round 1..PICK_ROUNDS and place in that round's choosing order (1: the crown): the
    win share of the players who chose at that place (official rules, every seat the same tier).

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
    for j, df in _by(frames, "seats"):
        pos = round_positions(df, PICK_ROUNDS)
        share = df["win_share"].reset_index(drop=True)
        for r in range(PICK_ROUNDS):
            for k in range(1, j.players + 1):
                at = pos[:, r] == k
                if at.sum() == 0:
                    continue
                rows.append({"tier": j.tier, "players": j.players, "round": r + 1, "place": k, **_share_row(share[at])})
    out = pd.DataFrame(rows)
    fair = 1.0 / out["players"]
    out["separated"] = np.where(out["lo"] > fair, "above", np.where(out["hi"] < fair, "below", ""))
    return out


def character_table(frames) -> pd.DataFrame:
    """Per tier, player count and rank: taken when offered, holders' win shares (final round, over the game).

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
    for j, df in _by(frames, "seats"):
        over, final = held_ranks(df)
        offered, taken = offers_taken(df) if (df["offered"] != "").any() else (None, None)
        share = df["win_share"].to_numpy()
        for r in range(1, N_RANKS + 1):
            row = {"tier": j.tier, "players": j.players, "rank": r, "character": RANK_NAMES[r - 1]}
            if offered is not None and offered[r]:
                lo, hi = wilson(float(taken[r]), int(offered[r]))
                row.update(offered=int(offered[r]), taken=taken[r] / offered[r], taken_lo=lo, taken_hi=hi)
            f = final[:, r] == 1
            s, n = float(share[f].sum()), int(f.sum())
            lo, hi = wilson(s, n)
            row.update(final_n=n, final_win=s / n if n else np.nan, final_lo=lo, final_hi=hi)
            w = over[:, r]
            s, n = float((share * w).sum()), int(w.sum())
            lo, hi = wilson(s, n)
            row.update(rounds_n=n, rounds_win=s / n if n else np.nan, rounds_lo=lo, rounds_hi=hi)
            rows.append(row)
    return pd.DataFrame(rows)


def specialist_table(frames) -> pd.DataFrame:
    """Each restricted-play specialist's win share against its tier (4 players and more), with a verdict.

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.

    Returns
    -------
    pandas.DataFrame
        One row per specialist run: tier, rank, character, players, win share with its interval, the share of
        its rounds holding the rank, and a verdict against 1/N ("too strong", "weak" or "").
    """
    rows = []
    from boardlab.agents.citadels.registry import parse_agent

    for j, df in _by(frames, "specialist"):
        me = df[df["agent"] == str(parse_agent(j.agents[0]))]  # the agent column holds the full spec
        over, _ = held_ranks(me)
        rounds = me["rounds"].to_numpy()
        row = {"tier": j.tier, "rank": j.rank, "character": RANK_NAMES[j.rank - 1], "players": j.players}
        row.update(_share_row(me["win_share"]))
        row["held_share"] = float(over[:, j.rank].sum() / max(rounds.sum(), 1))  # its rounds holding the rank
        fair = 1.0 / j.players
        row["verdict"] = "too strong" if row["lo"] > fair else ("weak" if row["hi"] < fair else "")
        rows.append(row)
    return pd.DataFrame(rows)


def assassin_thief_table(frames) -> pd.DataFrame:
    """The Assassin's and the Thief's aims and hits, per tier and player count.

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.

    Returns
    -------
    pandas.DataFrame
        Per tier, player count and character (Assassin, Thief): how often it names a rank, its hit rate, and
        the share of its victims that were the leader it aims at (largest city, richest), with intervals.
    """
    rows = []
    for j, df in _by(frames, "seats"):
        g = len(df) // j.players
        for who, named, hit, victims, lead, what in (
            ("Assassin", "kills_named", "kills_hit", "murdered", "murdered_leading", "largest city"),
            ("Thief", "robs_named", "robs_hit", "robbed", "robbed_richest", "richest"),
        ):
            k, h, v, ld = (int(df[c].sum()) for c in (named, hit, victims, lead))
            hlo, hhi = wilson(h, k)
            llo, lhi = wilson(ld, v)
            rows.append(
                {
                    "tier": j.tier,
                    "players": j.players,
                    "character": who,
                    "games": g,
                    "named": k,
                    "named_per_game": k / g,
                    "hit_rate": h / k if k else np.nan,
                    "hit_lo": hlo,
                    "hit_hi": hhi,
                    "victims": v,
                    "victim_is": what,
                    "victim_share": ld / v if v else np.nan,
                    "victim_lo": llo,
                    "victim_hi": lhi,
                }
            )
    return pd.DataFrame(rows)


SCORE_PARTS = ["district_points", "purple_extras", "colour_bonus", "completion_bonus", "total", "districts", "gold"]


def length_table(frames) -> pd.DataFrame:
    """Game length in rounds and score parts per run (official, house and short-game rules).

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.

    Returns
    -------
    pandas.DataFrame
        Per run (long: metric, n, mean, lo, hi): the game's length in rounds and the score parts, with the
        share of games the round cap ended.
    """
    parts = []
    for j, df in _by(frames, "seats") + _by(frames, "house") + _by(frames, "short"):
        one = df[df["seat"] == 1]
        m = mean_ci(one.assign(run=j.key), ["rounds"], "run")
        m = pd.concat([m, mean_ci(df.assign(run=j.key), SCORE_PARTS, "run")])
        m.insert(0, "players", j.players)
        m.insert(0, "rules", j.rules if not j.overrides else f"{j.rules}, complete_size 7")
        m.insert(0, "tier", j.tier)
        capped = float(one["capped"].mean())
        m["capped_share"] = capped
        parts.append(m)
    return pd.concat(parts, ignore_index=True)


def completion_table(frames) -> pd.DataFrame:
    """Win share by the order in which players completed their city, per tier and player count.

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.

    Returns
    -------
    pandas.DataFrame
        Per tier, player count and completion order (first to complete, second, third or later, not
        complete): win share with its interval.
    """
    rows = []
    for j, df in _by(frames, "seats"):
        order = df["completion"].clip(upper=3)
        for k, label in (
            (1, "first to complete"),
            (2, "second to complete"),
            (3, "third or later"),
            (0, "not complete"),
        ):
            t = df[order == k]
            if len(t):
                rows.append({"tier": j.tier, "players": j.players, "completion": label, **_share_row(t["win_share"])})
    return pd.DataFrame(rows)


def purple_table(frames) -> pd.DataFrame:
    """Per tier (4-player official runs): each purple district's builders' win share, and the odds ratio of a win for
    holding it, adjusted for its build round and the city's size (logistic regression).

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    import statsmodels.api as sm

    rows = []
    for j, df in _by(frames, "seats"):
        if j.players != 4:
            continue
        y = (df["win_share"] > 0).astype(float).to_numpy()
        size = df["districts"].to_numpy(dtype=float)
        for d, col in zip(PURPLES, PURPLE_COLUMNS, strict=True):
            built = df[col].to_numpy() > 0
            rnd = np.where(built, df[col].to_numpy(dtype=float), 0.0)
            row = {"tier": j.tier, "district": d.name, "cost": d.cost, "built_share": built.mean()}
            row.update({f"builders_{k}": v for k, v in _share_row(df["win_share"][built]).items()})
            row.update({f"others_{k}": v for k, v in _share_row(df["win_share"][~built]).items()})
            if built.sum() >= 30 and (~built).sum() >= 30:
                centred = np.where(built, rnd - rnd[built].mean(), 0.0)
                x = sm.add_constant(np.column_stack([built.astype(float), centred, size - size.mean()]))
                try:
                    fit = sm.Logit(y, x).fit(disp=0)
                    b, se = float(fit.params[1]), float(fit.bse[1])
                    row.update(
                        odds_ratio=np.exp(b),
                        or_lo=np.exp(b - Z95 * se),
                        or_hi=np.exp(b + Z95 * se),
                        p=float(fit.pvalues[1]),
                        round_coef=float(fit.params[2]),
                    )
                except Exception as e:  # perfect separation and the like: said in the table
                    row.update(odds_ratio=np.nan, note=type(e).__name__)
            rows.append(row)
    return pd.DataFrame(rows)


def _paired(x: np.ndarray) -> tuple[float, float, float]:
    """Mean of per-game paired differences and its 95% normal interval."""
    m = float(x.mean())
    h = Z95 * float(x.std(ddof=1)) / np.sqrt(len(x)) if len(x) > 1 else np.nan
    return m, m - h, m + h


def plain_purple_table(frames) -> pd.DataFrame:
    """Paired removal: each swapped purple district against the tier's official 4-player table on the same seeds
    (game k of both runs has the same deal). Per game: the wins that went to the card's builders (their summed
    win share, 0 if nobody built it) and their mean score, with the card's text and without; the mean paired
    difference is what the text is worth to whoever builds it, the players' choices included.

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.

    Returns
    -------
    pandas.DataFrame
        The table.
    """
    base = {j.tier: df for j, df in _by(frames, "seats") if j.players == 4}
    col = {d.name: c for d, c in zip(PURPLES, PURPLE_COLUMNS, strict=True)}
    rows = []
    for j, df in _by(frames, "plain"):
        (name,) = dict(j.overrides)["plain_purples"]
        official = base.get(j.tier)
        if official is None:
            continue
        official = official[official["game"] < j.games]
        games = {}
        for label, t in (("text", official), ("plain", df)):
            t = t.sort_values(["game", "seat"])
            built = (t[col[name]].to_numpy() > 0).reshape(-1, 4)
            share = t["win_share"].to_numpy().reshape(-1, 4)
            total = t["total"].to_numpy(dtype=float).reshape(-1, 4)
            rounds = t["rounds"].to_numpy(dtype=float).reshape(-1, 4)[:, 0]
            games[label] = (built, share, total, rounds)
        (bt, st, tt, rt), (bp, sp_, tp, rp_) = games["text"], games["plain"]
        wins_t, wins_p = (st * bt).sum(1), (sp_ * bp).sum(1)
        row = {"tier": j.tier, "district": name, "games": len(wins_t)}
        row["built_text"], row["built_plain"] = float(bt.any(1).mean()), float(bp.any(1).mean())
        for label, b, s in (("text", bt, st), ("plain", bp, sp_)):
            r = _share_row(pd.Series(s[b]))
            row.update({f"builders_win_{label}": r["win_share"], f"lo_{label}": r["lo"], f"hi_{label}": r["hi"]})
        row["wins_diff"], row["wins_lo"], row["wins_hi"] = _paired(wins_t - wins_p)
        both = bt.any(1) & bp.any(1)  # games where somebody built it in both runs: the builders' mean score
        score_t = np.where(bt, tt, 0).sum(1)[both] / bt[both].sum(1)
        score_p = np.where(bp, tp, 0).sum(1)[both] / bp[both].sum(1)
        row["score_games"] = int(both.sum())
        row["score_diff"], row["score_lo"], row["score_hi"] = _paired(score_t - score_p)
        row["rounds_diff"], row["rounds_lo"], row["rounds_hi"] = _paired(rt - rp_)
        row["verdict"] = (
            "its text wins games" if row["wins_lo"] > 0 else "its text costs games" if row["wins_hi"] < 0 else ""
        )
        rows.append(row)
    return pd.DataFrame(rows)


def _compare(frames, figure: str, label: str) -> pd.DataFrame:
    """Per tier: a 4-player variant against the official 4-player table: rounds, the largest seat deviation and each
    character's final-round holders' win share."""
    base = {j.tier: df for j, df in _by(frames, "seats") if j.players == 4}
    rows = []
    for j, df in _by(frames, figure):
        for name, t in (("official", base.get(j.tier)), (label, df)):
            if t is None:
                continue
            one = t[t["seat"] == 1]
            r = mean_ci(one.assign(k=0), ["rounds", "total"], "k").set_index("metric")
            seats = t.groupby("seat")["win_share"].mean()
            _, final = held_ranks(t)
            share = t["win_share"].to_numpy()
            row = {
                "tier": j.tier,
                "rules": name,
                "games": len(one),
                "rounds": _ci(*r.loc["rounds", ["mean", "lo", "hi"]], 2),
                "rounds_mean": r.loc["rounds", "mean"],
                "largest_seat_deviation": float((seats - 0.25).abs().max()),
                "seat1": float(seats.get(1, np.nan)),
                "seat4": float(seats.get(4, np.nan)),
            }
            for rk in range(1, N_RANKS + 1):
                f = final[:, rk] == 1
                row[RANK_NAMES[rk - 1]] = float(share[f].sum() / max(f.sum(), 1))
            rows.append(row)
    return pd.DataFrame(rows)


def build_tables(frames) -> dict[str, pd.DataFrame]:
    """Every table of the report from its runs.

    Parameters
    ----------
    frames : dict of Job to pandas.DataFrame
        Each run of the plan and its result rows.

    Returns
    -------
    dict of str to pandas.DataFrame
        Table name -> table.
    """
    return {
        "seats": seat_table(frames),
        "final_positions": final_position_table(frames),
        "characters": character_table(frames),
        "specialists": specialist_table(frames),
        "assassin_thief": assassin_thief_table(frames),
        "length": length_table(frames),
        "completion": completion_table(frames),
        "purples": purple_table(frames),
        "plain_purples": plain_purple_table(frames),
        "pick_positions": pick_position_table(frames),
        "house_rules": _compare(frames, "house", "seed-summary"),
        "short_game": _compare(frames, "short", "complete_size 7"),
    }


# --- the run ------------------------------------------------------------------------------------------


def chunk_size(games: int) -> Callable[[Job], int]:
    """Per job: a few seconds of work per chunk, and at least two chunks a run so both workers have work (an
    expert game costs about a thousand basic ones: its chunks are a few dozen games).

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
        return max(5, min(25, (job.games + 1) // 4)) if job.tier == "expert" else max(10, min(1000, (games + 1) // 2))

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
    tier_specs: dict[str, str] | None = None,
) -> dict[str, pd.DataFrame]:
    """Play the plan (reusing finished runs), analyse it, write tables, charts and REPORT.md into `out`;
    `tier_specs` (tier -> agent spec) replaces :func:`tiers` (tests use one cheap tier).

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
    tier_specs : dict of str to str or None
        Tier -> agent spec (None: :func:`tiers`).

    Returns
    -------
    dict of str to pandas.DataFrame
        The report's tables.
    """
    t0 = time.perf_counter()
    jobs = plan(games, tier_specs)
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
        characters_chart(tables, tmp / "characters.png")
        seats_chart(tables["seats"], tmp / "seats.png")
        (tmp / "REPORT.md").write_text(report(tables, frames, games, seed, command, elapsed), encoding="utf-8")


# --- charts ---------------------------------------------------------------------------------------------


def characters_chart(tables, path: Path) -> None:
    """Per rank: the specialist's win share (4 players) and the final-round holders' win share, per tier.

    Parameters
    ----------
    tables : dict of str to pandas.DataFrame
        The report's tables (:func:`build_tables`).
    path : pathlib.Path
        The PNG file.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from boardlab.experiments.charts import whiskers

    sp, ch = tables["specialists"], tables["characters"]
    ch = ch[ch["players"] == 4]
    tier_names = list(dict.fromkeys(sp["tier"].tolist() or ch["tier"].tolist()))
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    x = np.arange(1, N_RANKS + 1)
    width = 0.8 / max(len(tier_names), 1)
    for ax, t, col, lo, hi, title in (
        (axes[0], sp, "win_share", "lo", "hi", "restricted-play specialist, 1 of 4 seats"),
        (axes[1], ch, "final_win", "final_lo", "final_hi", "players holding it in the final round"),
    ):
        for i, tier in enumerate(tier_names):
            s = t[t["tier"] == tier].set_index("rank").reindex(x)
            pos = x - 0.4 + width * (i + 0.5)
            ax.bar(pos, s[col], width, label=tier)
            ax.errorbar(pos, s[col], yerr=whiskers(s, col, lo, hi), fmt="none", ecolor="black", lw=0.8)
        ax.axhline(0.25, color="grey", ls="--", lw=1)
        ax.set_xticks(x, RANK_NAMES, rotation=30)
        ax.set_title(title)
    axes[0].set_ylabel("win share (4 players; fair 0.25)")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def seats_chart(t: pd.DataFrame, path: Path) -> None:
    """Seat win shares (times the player count: fair is 1) of the official runs, one panel per tier, a line per
    player count.

    Parameters
    ----------
    t : pandas.DataFrame
        :func:`seat_table`.
    path : pathlib.Path
        The PNG file.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from boardlab.experiments.charts import whiskers

    t = t[t["rules"] == "official"]
    t = t[t["run"].str.startswith("seats_")]
    tier_names = list(dict.fromkeys(t["tier"]))
    fig, axes = plt.subplots(1, len(tier_names), figsize=(5 * max(len(tier_names), 1), 4), sharey=True, squeeze=False)
    for ax, tier in zip(axes[0], tier_names, strict=True):
        s = t[t["tier"] == tier]
        for p, g in s.groupby("players"):
            ax.errorbar(
                g["seat"],
                g["win_share"] * p,
                yerr=whiskers(g, "win_share") * p,
                marker="o",
                capsize=2,
                label=f"{p} players",
            )
        ax.axhline(1.0, color="grey", ls="--", lw=1)
        ax.set_title(f"{tier}: win share x players by seat")
        ax.set_xlabel("seat (1 starts with the crown)")
    axes[0][0].set_ylabel("win share x players (fair 1)")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- REPORT.md ------------------------------------------------------------------------------------------


def _text(v) -> str:
    return ", ".join(map(str, v)) if isinstance(v, tuple | list) else str(v)


def _pct(v, lo, hi) -> str:
    return pct(v, lo, hi, unit="")


def _pct_column(t: pd.DataFrame, v: str, lo: str, hi: str) -> list[str]:
    return [_pct(a, b, c) for a, b, c in zip(t[v], t[lo], t[hi], strict=True)]


def _wide(t: pd.DataFrame, index: list[str], columns: str, label: str) -> pd.DataFrame:
    w = t.assign(v=_pct_column(t, "win_share", "lo", "hi")).pivot_table(
        index=index, columns=columns, values="v", aggfunc="first"
    )
    w.columns = [f"{label} {c}" for c in w.columns]
    return w.reset_index().fillna("")


def purple_rows(pur: pd.DataFrame, pp: pd.DataFrame) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    """The purple districts' two tables of REPORT.md, values as the report shows them.

    Parameters
    ----------
    pur : pandas.DataFrame
        The purples table (:func:`purple_table`).
    pp : pandas.DataFrame
        The paired-removal table (:func:`plain_purple_table`).

    Returns
    -------
    tuple of (pandas.DataFrame or None, pandas.DataFrame or None)
        Builders' win shares (with the adjusted odds ratios when fitted), and the paired removal; None for a
        table without rows.
    """
    odds_ratios = "odds_ratio" in pur
    purples = None
    if len(pur):
        purples = pur.assign(
            **{
                "built %": (100 * pur["built_share"]).round(1),
                "builders win %": _pct_column(pur, "builders_win_share", "builders_lo", "builders_hi"),
                "others win %": _pct_column(pur, "others_win_share", "others_lo", "others_hi"),
            }
        )
        if odds_ratios:
            purples["adjusted odds ratio"] = [
                f"{r.odds_ratio:.2f} [{r.or_lo:.2f}, {r.or_hi:.2f}]" if pd.notna(r.odds_ratio) else ""
                for r in purples.itertuples()
            ]
        cols = ["tier", "district", "cost", "built %", "builders win %", "others win %"]
        purples = purples[cols + (["adjusted odds ratio"] if "adjusted odds ratio" in purples else [])]
    plain = None
    if len(pp):
        plain = pp.assign(
            **{
                "built (text / plain) %": [
                    f"{100 * r.built_text:.1f} / {100 * r.built_plain:.1f}" for r in pp.itertuples()
                ],
                "builders win, text %": _pct_column(pp, "builders_win_text", "lo_text", "hi_text"),
                "builders win, plain %": _pct_column(pp, "builders_win_plain", "lo_plain", "hi_plain"),
                "wins from the text per game": [
                    _ci(100 * r.wins_diff, 100 * r.wins_lo, 100 * r.wins_hi, sign=True) for r in pp.itertuples()
                ],
                "builders' score from the text": [
                    _ci(r.score_diff, r.score_lo, r.score_hi, 2, sign=True) for r in pp.itertuples()
                ],
                "rounds": [_ci(r.rounds_diff, r.rounds_lo, r.rounds_hi, 2, sign=True) for r in pp.itertuples()],
            }
        )[
            [
                "tier",
                "district",
                "games",
                "built (text / plain) %",
                "builders win, text %",
                "builders win, plain %",
                "wins from the text per game",
                "builders' score from the text",
                "rounds",
                "verdict",
            ]
        ]
    return purples, plain


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
    specs = {j.tier: j.agents[-1] for j in frames}
    runs = pd.DataFrame(
        [
            {
                "run": j.key,
                "players": j.players,
                "rules": j.rules + "".join(f" ({k} {_text(v)})" for k, v in j.overrides),
                "seating": j.seating,
                "agents": ", ".join(dict.fromkeys(j.agents)),
                "games": f"{j.games:,}",
                "played in (s)": round(df.attrs.get("seconds", 0.0), 1),
            }
            for j, df in frames.items()
        ]
    )
    sp, ch, seats = tables["specialists"], tables["characters"], tables["seats"]
    pur, pp, pk = tables["purples"], tables["plain_purples"], tables["pick_positions"]
    hr, sg = tables["house_rules"], tables["short_game"]
    odds_ratios = "odds_ratio" in pur
    first = pk[(pk["round"] == 1) & (pk["players"] == 4)]

    def pairs(t: pd.DataFrame) -> list[tuple]:
        return [(tier, g.iloc[0], g.iloc[1]) for tier, g in t.groupby("tier", sort=False) if len(g) == 2]

    specialists = sp.assign(
        **{
            "win share %": _pct_column(sp, "win_share", "lo", "hi"),
            "rounds holding it %": (100 * sp["held_share"]).round(1),
        }
    )
    c = ch.copy()
    c["taken %"] = [
        _pct(r.taken, r.taken_lo, r.taken_hi) if "taken" in c and pd.notna(r.taken) else "" for r in c.itertuples()
    ]
    c["final round win %"] = _pct_column(c, "final_win", "final_lo", "final_hi")
    c["over the game win %"] = _pct_column(c, "rounds_win", "rounds_lo", "rounds_hi")
    at = tables["assassin_thief"]
    at = at.assign(
        **{
            "named per game": at["named_per_game"].round(2),
            "hit %": _pct_column(at, "hit_rate", "hit_lo", "hit_hi"),
            "victim was the leader %": _pct_column(at, "victim_share", "victim_lo", "victim_hi"),
        }
    )
    pk4 = pk[pk["players"] == 4]
    ln = tables["length"]
    length = ln.assign(v=[f"{r.mean:.2f}" for r in ln.itertuples()]).pivot_table(
        index=["tier", "rules", "players"], columns="metric", values="v", aggfunc="first"
    )
    cp = tables["completion"]
    purples, plain = purple_rows(pur, pp)
    return render(
        "citadels_report.md.j2",
        p=provenance(command or "boardlab reproduce --game citadels", len(frames), total_games, 0.0, elapsed),
        seed=seed,
        games=games,
        specs=specs,
        too_strong=sp[sp["verdict"] == "too strong"].to_dict("records"),
        weak=sp[sp["verdict"] == "weak"].to_dict("records"),
        separated_seats=seats[(seats["separated"] != "") & seats["run"].str.startswith("seats_")].to_dict("records"),
        odds_ratios=odds_ratios,
        purples_above=pur[pur["or_lo"] > 1].to_dict("records") if odds_ratios else [],
        purples_below=pur[pur["or_hi"] < 1].to_dict("records") if odds_ratios else [],
        plain_purples_by_tier=[
            (tier, t.sort_values("wins_diff", ascending=False).to_dict("records"))
            for tier, t in pp.groupby("tier", sort=False)
        ],
        first_round_by_tier=[(tier, t.to_dict("records")) for tier, t in first.groupby("tier", sort=False)],
        house_rules_pairs=pairs(hr),
        short_game_pairs=pairs(sg),
        specialists=specialists[["tier", "character", "n", "win share %", "rounds holding it %", "verdict"]],
        characters=c[c["players"] == 4][["tier", "character", "taken %", "final round win %", "over the game win %"]],
        assassin_thief=at[
            ["tier", "players", "character", "named per game", "hit %", "victim_is", "victim was the leader %"]
        ],
        seats=_wide(seats[seats["run"].str.startswith("seats_")], ["tier", "players"], "seat", "seat"),
        final_positions=_wide(tables["final_positions"], ["tier", "players"], "position", "place"),
        pick_positions=_wide(pk4, ["tier", "round"], "place", "place") if len(pk4) else None,
        pick_rounds=PICK_ROUNDS,
        length=length.reset_index(),
        completion=cp.assign(v=_pct_column(cp, "win_share", "lo", "hi"))[["tier", "players", "completion", "n", "v"]],
        purples=purples,
        plain_purples=plain,
        house_rules=hr.drop(columns=["rounds_mean"]),
        short_game=sg.drop(columns=["rounds_mean"]),
        runs=runs,
        tables=TABLES,
    )


REPORT = Report(
    reproduce,
    title="Citadels' balance report",
    home="citadels",
    default_games=2000,
)
