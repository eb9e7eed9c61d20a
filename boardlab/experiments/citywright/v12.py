"""The tables of the v1.2 rule-revision studies (``results/v1.2/*/study.toml``), from their runs.

Each function reads run files (paths relative to the working directory: a study runs its tables in its own
folder) and returns the DataFrame its study writes as CSV.  The specialist runs are named
``<tier>-<rules>-w<training seed>.parquet`` (4 players, seats rotated); :func:`specialist_runs` reads them.
"""

from __future__ import annotations

import glob
import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from boardlab.experiments.citywright.rescore import rescore
from boardlab.experiments.pipelines import win_share
from boardlab.sim.citywright.rules import load_rules
from boardlab.sim.stats import wilson

DISTRICTS = "RCPI"
DISTRICT = {"R": "residential", "C": "commercial", "P": "park", "I": "industrial"}
RUN_NAME = re.compile(r"(strong|expert)-(.+)-w(\d+)\.parquet")


def _specialist(df: pd.DataFrame) -> pd.Series:
    """Each row's specialist district letter (from its agent spec)."""
    return df.agent.str.extract(r"specialist:(\w)")[0]


def specialist_runs(
    runs: str, columns: list[str], rules: list[str] | None = None
) -> Iterator[tuple[str, str, int, pd.DataFrame]]:
    """The specialist runs of a folder, in file-name order.

    Parameters
    ----------
    runs : str
        The runs folder.
    columns : list of str
        The result columns to read.
    rules : list of str, optional
        Only the runs of these rule sets (the ``<rules>`` of the file names); all when None.

    Returns
    -------
    iterator of (str, str, int, DataFrame)
        (tier, rules, training seed, the run's rows with the specialist's district in column ``d``).
    """
    for f in sorted(glob.glob(f"{runs}/*-w*.parquet")):
        m = RUN_NAME.fullmatch(f.rsplit("/", 1)[1])
        if m is None:
            continue
        tier, name, seed = m.groups()
        if rules is not None and name not in rules:
            continue
        df = pd.read_parquet(f, columns=columns)
        df["d"] = _specialist(df)
        yield tier, name, int(seed), df


def specialists(runs: str, rules: list[str] | None = None) -> pd.DataFrame:
    """The four specialists' win shares per tier, rule set and training seed, with the commercial specialist's
    share of games ending on exactly 14 commercial tiles.

    Parameters
    ----------
    runs : str
        The runs folder (:func:`specialist_runs`).
    rules : list of str, optional
        Only these rule sets' runs.

    Returns
    -------
    DataFrame
        One row per run and specialist: tier, rules, train_seed, weights, specialist, games, win_pct, lo, hi
        (Wilson 95%), mean_total, c_stops_at_14_pct; rounded to 2 decimals.
    """
    rows = []
    for tier, name, seed, df in specialist_runs(runs, ["game", "agent", "board", "total", "win_share"], rules):
        c_tiles = df[df.d == "C"].board.str.count("C")
        shares = win_share(df, "d").set_index("d")
        for d in DISTRICTS:
            g, w = df[df.d == d], shares.loc[d]
            rows.append(dict(tier=tier, rules=name, train_seed=seed, weights=g.agent.iloc[0].rsplit("weights=", 1)[1],
                             specialist=d, games=df.game.nunique(), win_pct=100 * w.win_share, lo=100 * w.lo,
                             hi=100 * w.hi, mean_total=g.total.mean(),
                             c_stops_at_14_pct=100 * (c_tiles == 14).mean()))  # fmt: skip
    return pd.DataFrame(rows).round(2)


def plans(runs: str, rules: list[str] | None = None) -> pd.DataFrame:
    """The commercial specialist's two plans per run: games ending on exactly 14 commercial tiles and on 15 or
    more, with its win share and mean total in each, beside the other specialists' mean totals.

    Parameters
    ----------
    runs : str
        The runs folder (:func:`specialist_runs`).
    rules : list of str, optional
        Only these rule sets' runs.

    Returns
    -------
    DataFrame
        tier, rules, train_seed, plan (``<14``, ``14``, ``15+``), games_pct, win_pct, mean_total,
        others_mean_total (R / P / I); rounded to 2 decimals.
    """
    rows = []
    for tier, name, seed, df in specialist_runs(runs, ["agent", "board", "total", "win_share"], rules):
        others = df[df.d != "C"].groupby("d").total.mean()
        c = df[df.d == "C"]
        tiles = c.board.str.count("C")
        for plan, g in c.groupby(tiles.map(lambda n: "14" if n == 14 else ("15+" if n > 14 else "<14"))):
            rows.append(dict(tier=tier, rules=name, train_seed=seed, plan=plan, games_pct=100 * len(g) / len(c),
                             win_pct=100 * g.win_share.mean(), mean_total=g.total.mean(),
                             others_mean_total=" / ".join(f"{others[d]:.1f}" for d in "RPI")))  # fmt: skip
    return pd.DataFrame(rows).round(2)


def points(runs: str, rules: list[str] | None = None) -> pd.DataFrame:
    """Where each specialist's points come from per run: its own district's points, the other three's,
    achievements, total, and the tiles of its own district it placed.

    Parameters
    ----------
    runs : str
        The runs folder (:func:`specialist_runs`).
    rules : list of str, optional
        Only these rule sets' runs.

    Returns
    -------
    DataFrame
        tier, rules, train_seed, specialist, games, own_points, other_points, achievements, total, own_tiles
        (means over games); rounded to 2 decimals.
    """
    rows = []
    cols = ["game", "agent", "board", "total", *DISTRICT.values(), "achievements"]
    for tier, name, seed, df in specialist_runs(runs, cols, rules):
        for d, district in DISTRICT.items():
            g = df[df.d == d]
            others = g[[c for c in DISTRICT.values() if c != district]].sum(axis=1)
            rows.append(dict(tier=tier, rules=name, train_seed=seed, specialist=d, games=df.game.nunique(),
                             own_points=g[district].mean(), other_points=others.mean(),
                             achievements=g.achievements.mean(), total=g.total.mean(),
                             own_tiles=g.board.str.count(d).mean()))  # fmt: skip
    return pd.DataFrame(rows).round(2)


def _rescored_shares(df: pd.DataFrame, rules) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`df` rescored under `rules`, with its specialists' win shares."""
    r = rescore(df, rules)
    r["d"] = _specialist(r)
    return r, win_share(r, "d").set_index("d")


def _seed_runs(runs: str, name: str, seeds: list[list]) -> dict[tuple[str, int], pd.DataFrame]:
    return {(t, int(s)): pd.read_parquet(f"{runs}/{t}-{name}-w{s}.parquet") for t, s in seeds}


# The print's specialist runs the screens rescore: strong with training seeds 1, 2, 3 and expert with 1, 2.
PRINT_RUNS = [["strong", 1], ["strong", 2], ["strong", 3], ["expert", 1], ["expert", 2]]


def _print_rules(path: str):
    return load_rules(path).with_overrides({"game.two_player_tie": "second_seat"})


def park_screen(runs: str, print_rules: str, name: str = "v1.2-no-compensation") -> pd.DataFrame:
    """Which districts a park must touch to score its adjacency (``scoring.park.adjacent_to``), alone and with
    commercial's 10-14 and 15+ tiers, priced by rescoring the print's specialist runs (play held fixed).

    Parameters
    ----------
    runs : str
        The runs folder holding ``<tier>-<name>-w<seed>.parquet`` for :data:`PRINT_RUNS`.
    print_rules : str
        The print's rule file (with the 2-player tie rule applied here).
    name : str
        The print's name in the run files.

    Returns
    -------
    DataFrame
        adjacent_to, tier_10_14, tier_15, tier, train_seed, specialist, games, win_pct, lo, hi, mean_total.
    """
    base = _print_rules(print_rules)
    tables = _seed_runs(runs, name, PRINT_RUNS)
    variants = [(a, 15, 11) for a in ("RC", "C", "CP", "CI", "CPI", "RCI", "RCP", "R", "RI")]
    variants += [(a, t1, t2) for a in ("RC", "CP", "CI", "CPI") for t1 in (15, 16, 17) for t2 in (11, 12, 13, 14)]
    rows = []
    for adjacent_to, t1, t2 in dict.fromkeys(variants):
        rules = base.with_overrides(
            {"scoring.park.adjacent_to": adjacent_to, "scoring.commercial.tier_points": [5, t1, t2]}
        )
        for (tier, seed), df in tables.items():
            r, shares = _rescored_shares(df, rules)
            for d in DISTRICTS:
                w = shares.loc[d]
                rows.append(dict(adjacent_to=adjacent_to, tier_10_14=t1, tier_15=t2, tier=tier, train_seed=seed,
                                 specialist=d, games=r.game.nunique(), win_pct=100 * w.win_share, lo=100 * w.lo,
                                 hi=100 * w.hi, mean_total=r[r.d == d].total.mean()))  # fmt: skip
    return pd.DataFrame(rows).round(2)


def residential_form(runs: str, print_rules: str, name: str = "v1.2-no-compensation") -> pd.DataFrame:
    """The form of residential's largest cluster score (``scoring.residential.largest``: pairs or tiles) with
    the second cluster's points and commercial's 10-14 and 15+ tiers, priced by rescoring the print's specialist
    runs (play held fixed).

    Parameters
    ----------
    runs : str
        The runs folder holding ``<tier>-<name>-w<seed>.parquet`` for :data:`PRINT_RUNS`.
    print_rules : str
        The print's rule file (with the 2-player tie rule applied here).
    name : str
        The print's name in the run files.

    Returns
    -------
    DataFrame
        largest, largest_tile_points, second_tile_points, tier_10_14, tier_15, tier, train_seed, specialist,
        games, win_pct, lo, hi, mean_total.
    """
    base = _print_rules(print_rules)
    tables = _seed_runs(runs, name, PRINT_RUNS)
    variants = [("pairs", 2, 1, 15, 11)]  # the print
    variants += [
        ("tiles", tp, sp, t1, t2) for tp in (2, 3) for sp in (1, 0) for t1, t2 in ((15, 11), (16, 12), (17, 13))
    ]
    rows = []
    for largest, tile_points, second, t1, t2 in variants:
        rules = base.with_overrides(
            {
                "scoring.residential.largest": largest,
                "scoring.residential.largest_tile_points": tile_points,
                "scoring.residential.second_tile_points": second,
                "scoring.commercial.tier_points": [5, t1, t2],
            }
        )
        for (tier, seed), df in tables.items():
            r, shares = _rescored_shares(df, rules)
            for d in DISTRICTS:
                w = shares.loc[d]
                rows.append(dict(largest=largest, largest_tile_points=tile_points, second_tile_points=second,
                                 tier_10_14=t1, tier_15=t2, tier=tier, train_seed=seed, specialist=d,
                                 games=r.game.nunique(), win_pct=100 * w.win_share, lo=100 * w.lo, hi=100 * w.hi,
                                 mean_total=r[r.d == d].total.mean()))  # fmt: skip
    return pd.DataFrame(rows).round(2)


def _calibration_variants() -> Iterator[tuple[str, dict, dict]]:
    """(played rule set, the variant's numbers, commercial's overrides) of :func:`structure_calibrate`."""
    for bonus, adj, row in itertools.product((0, 10, 14, 18, 22), (2, 3), (3, 4)):
        com = {"tier_thresholds": [15], "tier_points": [bonus]} if bonus else {}
        yield "per-tile2-iso0", dict(rate=2, bonus_15=bonus, free=0, adjacent=adj, to="RC", row=row, column=2), com
    for free, adj, row, col in itertools.product((0, 3), (2, 3), (3, 4), (2, 3)):
        v = dict(rate=3, bonus_15=0, free=free, adjacent=adj, to="RC", row=row, column=col)
        yield "per-tile3-iso0", v, {"extra_from": free}
    for rate, bonus in ((2, 10), (2, 12), (3, 0)):
        for adj, to in itertools.product((2, 3, 4), ("R", "C", "RC", "CI", "RCI", "RCP", "CPI")):
            if (bonus in (0, 10) and adj in (2, 3) and to == "RC") or (rate, adj, to) == (3, 2, "RC"):
                continue  # in grid 1
            com = {"tier_thresholds": [15], "tier_points": [bonus]} if bonus else {}
            v = dict(rate=rate, bonus_15=bonus, free=0, adjacent=adj, to=to, row=3, column=2)
            yield f"per-tile{rate}-iso0", v, com


def structure_calibrate(runs: str, rules_folder: str = ".") -> pd.DataFrame:
    """Scoring numbers around the two per-tile forms without an isolation bonus (``per-tile2-iso0``,
    ``per-tile3-iso0``), priced by rescoring their specialist runs (strong and expert, training seeds 1 and 2).

    Parameters
    ----------
    runs : str
        The runs folder holding ``<tier>-<form>-w<seed>.parquet``.
    rules_folder : str
        The folder of the two forms' rule files.

    Returns
    -------
    DataFrame
        played, rate, bonus_15, free, adjacent, to, row, column, tier, train_seed, specialist, games, win_pct,
        mean_total.
    """
    seeds = [("strong", 1), ("strong", 2), ("expert", 1), ("expert", 2)]
    games = {(base, run): pd.read_parquet(f"{runs}/{run[0]}-{base}-w{run[1]}.parquet")
             for base in ("per-tile2-iso0", "per-tile3-iso0") for run in seeds}  # fmt: skip
    rows = []
    for base, v, com in _calibration_variants():
        over = {f"scoring.commercial.{k}": x for k, x in com.items()}
        over |= {"scoring.park.adjacent_points": v["adjacent"], "scoring.park.adjacent_to": v["to"],
                 "scoring.park.row_points": v["row"], "scoring.park.column_points": v["column"]}  # fmt: skip
        rules = load_rules(f"{rules_folder}/{base}.toml").with_overrides(over)
        for tier, seed in seeds:
            r, shares = _rescored_shares(games[base, (tier, seed)], rules)
            for d in DISTRICTS:
                rows.append(dict(played=base, **v, tier=tier, train_seed=seed, specialist=d,
                                 games=r.game.nunique(), win_pct=100 * shares.loc[d].win_share,
                                 mean_total=r[r.d == d].total.mean()))  # fmt: skip
    return pd.DataFrame(rows).round(2)


def tie_prices(paths: list[str]) -> pd.DataFrame:
    """Three 2-player tie rules priced on stored 2-player games (no tier's play reads the tie-breaks, so only
    the ranking changes): ties to seat 2, shared ties, and fewest empty squares then seat 2.

    Parameters
    ----------
    paths : list of str
        2-player result files (their sidecar ``.json`` names the tier).

    Returns
    -------
    DataFrame
        tier, games, ties_on_points_pct, ties_on_points_and_empty_pct, rule, seat1_pct, seat2_pct, seat2_lo,
        seat2_hi.
    """
    rows = []
    for path in paths:
        d = pd.read_parquet(path, columns=["game", "seat", "agent", "total", "empty", "win_share"])
        if set(d.seat) != {1, 2}:
            raise ValueError(f"{path}: a 2-player table is needed")
        total = d.pivot(index="game", columns="seat", values="total")
        share = d.pivot(index="game", columns="seat", values="win_share")
        empty = d.pivot(index="game", columns="seat", values="empty")
        tie = total[1] == total[2]
        tie_on_empty = tie & (empty[1] == empty[2])  # what v1.2's last tie-break (most distinct shapes) decides
        n = len(total)
        rules = (
            ("v1.2 (fewest empty squares, then most shapes)", share[2]),
            ("ties go to seat 2", share[2].where(~tie, 1.0)),
            ("ties are shared", share[2].where(~tie, 0.5)),
            ("fewest empty squares, then seat 2", share[2].where(~tie_on_empty, 1.0)),
        )
        tiers = json.loads(Path(path + ".json").read_text())["spec"]["tiers"]
        tier = tiers[0] if tiers else d.agent.iloc[0].split(":")[0]
        for rule, second in rules:
            s2 = second.sum()
            lo, hi = wilson(s2, n)
            rows.append({"tier": tier, "games": n, "ties_on_points_pct": round(100 * tie.mean(), 2),
                         "ties_on_points_and_empty_pct": round(100 * tie_on_empty.mean(), 2), "rule": rule,
                         "seat1_pct": round(100 * (1 - s2 / n), 2), "seat2_pct": round(100 * s2 / n, 2),
                         "seat2_lo": round(100 * lo, 2), "seat2_hi": round(100 * hi, 2)})  # fmt: skip
    return pd.DataFrame(rows)


def market_cards(strong: str, expert: str, base_rules: str) -> pd.DataFrame:
    """One new achievement card for commercial priced on a rule set's strong and expert specialist games by
    rescoring (play held fixed): the highest commercial score for 1-2 points, or N+ commercial tiles for 1-3.

    Parameters
    ----------
    strong, expert : str
        The specialist result files of each tier (``reproduce --skill``'s ``spec_*`` tables).
    base_rules : str
        The rule file they were played under.

    Returns
    -------
    DataFrame
        card, tier, specialist, games, win_pct, lo, hi, mean_total; rounded to 2 decimals.
    """
    base = load_rules(base_rules)
    tables = {"strong": pd.read_parquet(strong), "expert": pd.read_parquet(expert)}
    cards: list[tuple[str, dict | None]] = [("none", None)]
    for pts in (1, 2):
        cards.append((f"highest commercial score, {pts}", dict(kind="highest_district", district="C",
                                                              solo_threshold=1000, points=pts)))  # fmt: skip
    for threshold, pts in itertools.product((10, 12, 14, 15), (1, 2, 3)):
        card = dict(kind="district_count", district="C", threshold=threshold, points=pts)
        cards.append((f"{threshold}+ commercial tiles, {pts}", card))
    rows = []
    for name, card in cards:
        rules = (
            base
            if card is None
            else base.with_overrides({"achievements.cards.market_leader": {**card, "enabled": True}})
        )
        for tier, df in tables.items():
            r = rescore(df, rules)
            r["specialist"] = _specialist(r)
            games = r.game.nunique()
            for d, g in r.groupby("specialist"):
                lo, hi = wilson(g.win_share.sum(), games)
                rows.append(dict(card=name, tier=tier, specialist=d, games=games, win_pct=100 * g.win_share.mean(),
                                 lo=100 * lo, hi=100 * hi, mean_total=g.total.mean()))  # fmt: skip
    return pd.DataFrame(rows).round(2)


def market_played(files: list[str]) -> pd.DataFrame:
    """Specialist win shares of ``reproduce --skill`` specialist tables (``spec_<run>_<tier>.parquet``), with
    the weights each played and the commercial specialist's share of games ending on exactly 14 tiles.

    Parameters
    ----------
    files : list of str
        The specialist tables, in the order of the rows wanted.

    Returns
    -------
    DataFrame
        rules, run, tier, weights, specialist, games, win_pct, lo, hi, mean_total, c_stops_at_14_pct.
    """
    rows = []
    for f in files:
        m = re.fullmatch(r"spec_(\w+)_(greedy|strong|expert)\.parquet", Path(f).name)
        if m is None:
            raise ValueError(f"{f}: not a specialist table of reproduce --skill (spec_<run>_<tier>.parquet)")
        run, tier = m.groups()
        df = pd.read_parquet(f, columns=["game", "rules", "agent", "board", "total", "win_share"])
        df["d"] = _specialist(df)
        c_tiles = df[df.d == "C"].board.str.count("C")
        weights = df.agent.str.extract(r"weights=(\w+)")[0].fillna("none").iloc[0]
        shares = win_share(df, "d").set_index("d")
        for d in DISTRICTS:
            g, w = df[df.d == d], shares.loc[d]
            rows.append(dict(rules=df.rules.iloc[0], run=run, tier=tier, weights=weights, specialist=d,
                             games=df.game.nunique(), win_pct=100 * w.win_share, lo=100 * w.lo, hi=100 * w.hi,
                             mean_total=g.total.mean(), c_stops_at_14_pct=100 * (c_tiles == 14).mean()))  # fmt: skip
    return pd.DataFrame(rows).round(2)


def sweep_plans(strong_work: str | None = None, expert_work: str | None = None) -> pd.DataFrame:
    """The commercial specialist's plan per value and tier of a strong and an expert sweep (their ``--work``
    folders, runs named ``...=<value>.parquet``): games ending on exactly 14 commercial tiles, mean tiles and
    total, and the other specialists' mean totals.

    Parameters
    ----------
    strong_work, expert_work : str, optional
        The sweeps' --work folders (none, or a missing folder: no rows of that tier).

    Returns
    -------
    DataFrame
        tiers, tier, weights, C stops at 14, C tiles, C total, R / P / I totals, games (formatted).
    """
    rows = []
    for tier, work in (("strong", strong_work), ("expert", expert_work)):
        for f in sorted(glob.glob(f"{work}/*.parquet")) if work else []:
            df = pd.read_parquet(f, columns=["agent", "board", "total"])
            df["d"] = _specialist(df)
            c = df[df.d == "C"]
            tiles = c.board.str.count("C")
            others = df[df.d != "C"].groupby("d").total.mean()
            value = f.split("=", 1)[1].removesuffix(".parquet")
            weights = df.agent.iloc[0].rsplit("weights=", 1)[1]
            rows.append((value, tier, weights, f"{(tiles == 14).mean():.0%}", f"{tiles.mean():.1f}",
                         f"{c.total.mean():.1f}", " / ".join(f"{others[x]:.1f}" for x in "RPI"), len(c)))  # fmt: skip
    cols = ["tiers", "tier", "weights", "C stops at 14", "C tiles", "C total", "R / P / I totals", "games"]
    return pd.DataFrame(rows, columns=cols)


def seat_shares(paths: list[str]) -> pd.DataFrame:
    """Each seat's win share with its 95% Wilson interval per every-seat table, and the largest deviation from
    1/N.

    Parameters
    ----------
    paths : list of str
        Result files of one agent in every seat.

    Returns
    -------
    DataFrame
        table (file name), agent, players, games, seat, win_pct, lo, hi, max_deviation_pts; rounded to 2
        decimals.
    """
    rows = []
    for path in paths:
        df = pd.read_parquet(path, columns=["game", "seat", "players", "agent", "win_share"])
        games, players = df.game.nunique(), int(df.players.iloc[0])
        shares = df.groupby("seat").win_share.sum()
        for seat, wins in shares.items():
            lo, hi = wilson(wins, games)
            rows.append(dict(table=Path(path).name, agent=df.agent.iloc[0], players=players, games=games, seat=seat,
                             win_pct=100 * wins / games, lo=100 * lo, hi=100 * hi,
                             max_deviation_pts=100 * max(abs(shares / games - 1 / players))))  # fmt: skip
    return pd.DataFrame(rows).round(2)


def spread(works: list[str]) -> pd.DataFrame:
    """Each specialist's mean final total and its standard deviation over games, per sweep value and tier (the
    --work folders of sweeps of the four specialists).

    Parameters
    ----------
    works : list of str
        The sweeps' --work folders.

    Returns
    -------
    DataFrame
        tiers, tier, specialist, games, win_pct, mean_total, sd_total; rounded to 2 decimals.
    """
    rows = []
    for work in works:
        for f in sorted(glob.glob(f"{work}/*.parquet")):
            df = pd.read_parquet(f, columns=["agent", "total", "win_share"])
            tier = "expert" if df.agent.iloc[0].startswith("expert") else "strong"
            df["specialist"] = _specialist(df)
            g = df.groupby("specialist").agg(games=("total", "size"), win_pct=("win_share", "mean"),
                                             mean_total=("total", "mean"), sd_total=("total", "std"))  # fmt: skip
            g["win_pct"] *= 100
            g.insert(0, "tier", tier)
            g.insert(0, "tiers", f.split("=", 1)[1].removesuffix(".parquet"))
            rows.append(g.reset_index())
    return pd.concat(rows).round(2)


# The structure screen's rule sets in the order of its rounds (file names do not keep it).
STRUCTURE_FIRST = ["print", "depletes", "depletes-per-tile", "per-tile", "per-tile-iso1", "per-tile-park-adj3",
                   "per-tile2-iso0", "per-tile3-iso0", "res-tiles2", "per-tile2-b10-ci3"]  # fmt: skip


def structure_summary(specialists: pd.DataFrame, points: pd.DataFrame) -> str:
    """The structure screen's two Markdown tables: win shares R / C / P / I per tier and training seed (bold:
    outside 25 ± 5) with commercial's gap between the tiers (strong minus expert, mean over the seeds), and what
    each specialist's points do from strong to expert play (own district / the other three, means over seeds).

    Parameters
    ----------
    specialists : DataFrame
        :func:`specialists` of the screen's runs.
    points : DataFrame
        :func:`points` of the same runs.

    Returns
    -------
    str
        The two tables, separated by a blank line.
    """
    spec = specialists
    order = list(dict.fromkeys(spec.rules))
    order = STRUCTURE_FIRST + sorted(r for r in order if r not in STRUCTURE_FIRST)

    def shares(rules: str, tier: str, seed: int) -> str:
        x = spec[(spec.rules == rules) & (spec.tier == tier) & (spec.train_seed == seed)]
        x = x.set_index("specialist").win_pct
        if x.empty:
            return "–"
        return " / ".join(("**%.1f**" if abs(x[d] - 25) > 5 else "%.1f") % x[d] for d in DISTRICTS)

    lines = [
        "| rules | strong, seed 1 | strong, seed 2 | expert, seed 1 | expert, seed 2 | C gap |",
        "|---|---|---|---|---|---|",
    ]
    for r in order:
        c = {
            t: spec[(spec.rules == r) & (spec.tier == t) & (spec.specialist == "C")].win_pct.mean()
            for t in ("strong", "expert")
        }
        cells = [shares(r, t, s) for t in ("strong", "expert") for s in (1, 2)]
        lines.append(f"| {r} | " + " | ".join(cells) + f" | {c['strong'] - c['expert']:.1f} |")
    lines += ["", "| rules | R | C | P | I | C's own tiles, strong / expert |", "|---|---|---|---|---|---|"]
    g = points.groupby(["rules", "tier", "specialist"])[["own_points", "other_points", "own_tiles"]].mean()
    strong, expert = g.xs("strong", level=1), g.xs("expert", level=1)
    gain = expert - strong
    for r in order:
        if r not in strong.index.get_level_values(0) or r not in expert.index.get_level_values(0):
            continue  # a rule set not yet played at both tiers
        x = gain.loc[r]
        cells = [f"{x.loc[d, 'own_points']:+.1f} / {x.loc[d, 'other_points']:+.1f}" for d in DISTRICTS]
        own = f"{strong.loc[(r, 'C'), 'own_tiles']:.1f} / {expert.loc[(r, 'C'), 'own_tiles']:.1f}"
        lines.append(f"| {r} | " + " | ".join(cells) + f" | {own} |")
    return "\n".join(lines) + "\n"
