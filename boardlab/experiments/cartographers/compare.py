"""Cartographers' own sections of ``boardlab compare`` (the GameDef part ``compare_sections``).

The generic compare pairs win shares and the summary columns (``points_a`` .. ``points_d``: the points of
edicts A-D, whichever cards they are).  What a designer asks of a Cartographers variant is per **scoring
card** and, solo, per **title** (docs/games/cartographers.md 4 and 6.2):

* ``card points``: the points a scoring card scored over the game (its two seasons), per map, in the games
  where it is one of the four edicts, under A and under B on the same game seeds.  In a game with several
  players every map scores the same four cards, so a game's value is the mean over its maps and the
  pairing unit is the game (the maps of one game are not independent draws).  The interval of B − A is
  the normal one on the paired per-game differences; A's and B's are normal intervals of their means.
  A card counts only in the games where it is in play under both rule sets (``n``).
* ``card excess`` (solo games only): the card's points minus its printed solo number under each rule set
  (its term of the solo rating, 6.2), paired by game: a variant of the solo numbers moves it by exactly the
  change of the number, and its spread over the cards says how evenly the numbers charge.
* ``title`` (solo games only): the share of games earning each title of the title table, "(no title)"
  included when it occurs; ``threshold``: the share whose solo rating reaches each title's rating.  A's
  and B's shares carry Wilson intervals, B − A the normal interval of the paired indicator differences.

The solo numbers (``cards.scoring.<id>.solo``) enter the rating only, not play: a variant that changes only
them leaves every card-points difference exactly 0 and moves the title shares
(tests/cartographers/test_cartographers_compare.py).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from boardlab.experiments.compare import OUT_COLUMNS, CompareSections, ExtraSection
from boardlab.experiments.pipelines import Z95, wilson

EDICTS = ("a", "b", "c", "d")
NO_TITLE = "(no title)"


def _card_points(df: pd.DataFrame) -> pd.DataFrame:
    """(game_seed, card, points): each scoring card in play in a game, its points per map (mean over maps)."""
    long = pd.concat(
        [
            df[["game_seed", f"card_{e}", f"points_{e}"]].set_axis(["game_seed", "card", "points"], axis=1)
            for e in EDICTS
        ],
        ignore_index=True,
    )
    long["points"] = long["points"].astype(float)
    return long.groupby(["game_seed", "card"], sort=True, observed=True)["points"].mean().reset_index()


def _normal(x: pd.Series) -> tuple[float, float, float]:
    m = float(x.mean())
    half = Z95 * float(np.nan_to_num(x.std())) / np.sqrt(len(x))
    return m, m - half, m + half


def card_rows(a: pd.DataFrame, b: pd.DataFrame, rules_a, rules_b) -> list[dict]:
    """One row per scoring card in play under both: points per map, A, B and B − A paired by game.

    Parameters
    ----------
    a, b : pandas.DataFrame
        The result rows of rules A and B (the same seeds).
    rules_a, rules_b : Rules
        The two rule sets.

    Returns
    -------
    list of dict
        Rows of OUT_COLUMNS (boardlab.experiments.compare).
    """
    names = {c.id: c.name for c in rules_a.scoring_cards}
    m = _card_points(a).merge(_card_points(b), on=["game_seed", "card"], suffixes=("_a", "_b"))
    rows = []
    for card, g in m.groupby("card", sort=True):
        (ma, la, ha), (mb, lb, hb) = _normal(g["points_a"]), _normal(g["points_b"])
        d, lo, hi = _normal(g["points_b"] - g["points_a"])
        rows.append(
            dict(section="card points", by="card", group=f"{int(card)} {names.get(int(card), '')}".strip(),
                 metric="points", n=len(g), a=ma, a_lo=la, a_hi=ha, b=mb, b_lo=lb, b_hi=hb, diff=d, lo=lo, hi=hi)
        )  # fmt: skip
    return rows


def excess_rows(a: pd.DataFrame, b: pd.DataFrame, rules_a, rules_b) -> list[dict]:
    """Solo games: per scoring card in play under both, its points minus each rule set's solo number.

    Parameters
    ----------
    a, b : pandas.DataFrame
        The result rows of rules A and B (the same seeds).
    rules_a, rules_b : Rules
        The two rule sets.

    Returns
    -------
    list of dict
        Rows of OUT_COLUMNS.
    """
    if not (a["players"] == 1).all() or not (b["players"] == 1).all():
        return []
    names = {c.id: c.name for c in rules_a.scoring_cards}
    solo_a = {c.id: c.solo for c in rules_a.scoring_cards}
    solo_b = {c.id: c.solo for c in rules_b.scoring_cards}
    m = _card_points(a).merge(_card_points(b), on=["game_seed", "card"], suffixes=("_a", "_b"))
    rows = []
    for card, g in m.groupby("card", sort=True):
        xa, xb = g["points_a"] - solo_a[int(card)], g["points_b"] - solo_b[int(card)]
        (ma, la, ha), (mb, lb, hb) = _normal(xa), _normal(xb)
        d, lo, hi = _normal(xb - xa)
        rows.append(
            dict(section="card excess", by="card", group=f"{int(card)} {names.get(int(card), '')}".strip(),
                 metric="excess", n=len(g), a=ma, a_lo=la, a_hi=ha, b=mb, b_lo=lb, b_hi=hb, diff=d, lo=lo, hi=hi)
        )  # fmt: skip
    return rows


def _share_row(section: str, by: str, group: str, metric: str, xa: np.ndarray, xb: np.ndarray) -> dict:
    n = len(xa)
    ka, kb = int(xa.sum()), int(xb.sum())
    (la, ha), (lb, hb) = wilson(ka, n), wilson(kb, n)
    d, lo, hi = _normal(pd.Series(xb.astype(float) - xa.astype(float)))
    return dict(section=section, by=by, group=group, metric=metric, n=n, a=ka / n, a_lo=la, a_hi=ha,
                b=kb / n, b_lo=lb, b_hi=hb, diff=d, lo=lo, hi=hi)  # fmt: skip


def title_rows(a: pd.DataFrame, b: pd.DataFrame, rules_a, rules_b) -> list[dict]:
    """Solo games: the share earning each title and reaching each title's rating, A, B and B − A paired.

    Parameters
    ----------
    a, b : pandas.DataFrame
        The result rows of rules A and B (the same seeds).
    rules_a, rules_b : Rules
        The two rule sets.

    Returns
    -------
    list of dict
        Rows of OUT_COLUMNS.
    """
    if not (a["players"] == 1).all() or not (b["players"] == 1).all():
        return []
    m = a[["game_seed", "seat", "rating", "title"]].merge(
        b[["game_seed", "seat", "rating", "title"]], on=["game_seed", "seat"], suffixes=("_a", "_b"),
        validate="one_to_one",
    )  # fmt: skip
    titles = list(dict.fromkeys(t for rules in (rules_a, rules_b) for _, t in rules.titles))
    ta, tb = m["title_a"].replace("", NO_TITLE), m["title_b"].replace("", NO_TITLE)
    if (ta == NO_TITLE).any() or (tb == NO_TITLE).any():
        titles.append(NO_TITLE)
    rows = [_share_row("title", "title", t, "earned", (ta == t).to_numpy(), (tb == t).to_numpy()) for t in titles]
    thresholds = sorted({r for rules in (rules_a, rules_b) for r, _ in rules.titles}, reverse=True)
    ra, rb = m["rating_a"].to_numpy(), m["rating_b"].to_numpy()
    rows += [_share_row("threshold", "threshold", f"rating ≥ {t}", "reached", ra >= t, rb >= t) for t in thresholds]
    return rows


def sections(a: pd.DataFrame, b: pd.DataFrame, rules_a, rules_b) -> pd.DataFrame:
    """The rows of every section below (CompareSections.rows).

    Parameters
    ----------
    a, b : pandas.DataFrame
        The result rows of rules A and B (the same seeds).
    rules_a, rules_b : Rules
        The two rule sets.

    Returns
    -------
    pandas.DataFrame
        Columns OUT_COLUMNS.
    """
    rows = card_rows(a, b, rules_a, rules_b) + excess_rows(a, b, rules_a, rules_b) + title_rows(a, b, rules_a, rules_b)
    return pd.DataFrame(rows, columns=OUT_COLUMNS)


SECTIONS = CompareSections(
    rows=sections,
    sections=(
        ExtraSection("card points", "points per scoring card in play (per map over the game, paired by game)"),
        ExtraSection("card excess", "solo: card points minus its printed solo number (its term of the rating)"),
        ExtraSection("title", "solo title earned, % of games", percent=True),
        ExtraSection("threshold", "solo rating reaching a title's threshold, % of games", percent=True),
    ),
)
