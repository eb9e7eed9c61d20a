"""Citywright's rescorer (``GameDef.scoring.rescorer``): stored games under other scoring rules, play held fixed.

The boards and the shapes each player placed are in the result table, so every
score can be recomputed without replaying: district points from the boards
(the engine's kernel), achievements from boards, shapes and the other players'
new district points, compensation from the new rules, then totals, ranks and
win shares with the rules' tie-breaks.  What cannot change is play: agents
chose their moves under the old scoring (use a sweep to let them replan).  The generic command is
:mod:`boardlab.experiments.rescore`; :func:`rescore` checks the table first and says in one line what it lacks.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from boardlab.experiments.citywright.runner import COLUMNS, parse_shapes_placed
from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.boards import to_bitboards
from boardlab.sim.citywright.ranking import rank_key
from boardlab.sim.citywright.rules import (
    ACHIEVEMENT_CODES,
    DISTRICTS,
    KIND_DISTINCT_SHAPES,
    KIND_DISTRICT_COUNT,
    KIND_FULL_LINE,
    KIND_HIGHEST_DISTRICT,
    KIND_NO_EMPTY,
    KIND_SAME_SHAPE,
    KIND_SHAPE_COUNT,
    MAX_PLAYERS,
    Rules,
)
from boardlab.sim.citywright.tables import tables_for

DISTRICT_COLUMNS = ["residential", "commercial", "park", "industrial"]
# What rescoring reads of a stored table: the boards and shapes played, and the rank key's tie-breaks.
NEEDED = ("game", "seat", "players", "board", "shapes_placed", "empty", "shapes_distinct")
_BOARD = r"[" + "".join(DISTRICTS) + r".]{49}"
_SHAPES = r"(?:\S+:\d+(?: \S+:\d+)*)?"


def check_table(df: pd.DataFrame) -> None:
    """ValueError (one line) unless `df` holds what rescoring reads: the columns, 7x7 boards, shape counts.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows of a Citywright run.
    """
    missing = [c for c in NEEDED if c not in df.columns]
    if missing:
        s = "s" if len(missing) > 1 else ""
        raise ValueError(f"the table has no {', '.join(missing)} column{s}: cannot rescore (needs {', '.join(NEEDED)})")
    for column, pattern, what in (
        ("board", _BOARD, f"49 cells of {' '.join(DISTRICTS)} ."),
        ("shapes_placed", _SHAPES, "SHAPE:COUNT pairs"),
    ):
        bad = ~df[column].astype("string").str.fullmatch(pattern).fillna(False).to_numpy(bool)
        if bad.any():
            r = df[bad].iloc[0]
            raise ValueError(
                f"game {r['game']}, seat {r['seat']}: {column} {r[column]!r} is not {what} (a damaged table?)"
            )
    players, seat = df["players"].to_numpy(np.int64), df["seat"].to_numpy(np.int64)
    if ((players < 1) | (players > MAX_PLAYERS) | (seat < 1) | (seat > players)).any():
        raise ValueError(f"the table's players and seat columns are not games of 1-{MAX_PLAYERS} seats")


def _full_line(boards: pd.Series, district: str) -> np.ndarray:
    grid = np.array([list(b) for b in boards], dtype="<U1").reshape(-1, 7, 7)
    ok = grid != "." if district == "any" else grid == district
    return ok.all(axis=2).any(axis=1) | ok.all(axis=1).any(axis=1)


def achievements(df: pd.DataFrame, rules: Rules) -> np.ndarray:
    """Achievement points per row under `rules` (df has the new district columns).

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows, their district columns already rescored.
    rules : Rules
        The new rules.

    Returns
    -------
    numpy.ndarray
        int, shape ``(rows,)``.
    """
    pts = np.zeros(len(df), dtype=np.int64)
    placed = [parse_shapes_placed(s) for s in df["shapes_placed"]]
    for card in rules.achievements():
        kind = ACHIEVEMENT_CODES[card.kind]
        if kind == KIND_DISTINCT_SHAPES:
            got = np.array([sum(1 for v in p.values() if v > 0) >= card.threshold for p in placed])
        elif kind == KIND_SAME_SHAPE:
            got = np.array([max(p.values(), default=0) >= card.threshold for p in placed])
        elif kind == KIND_SHAPE_COUNT:
            got = np.array([p.get(card.shape, 0) >= card.threshold for p in placed])
        elif kind == KIND_DISTRICT_COUNT:
            got = (df["board"].str.count(card.district) >= card.threshold).to_numpy()
        elif kind == KIND_FULL_LINE:
            got = _full_line(df["board"], card.district)
        elif kind == KIND_NO_EMPTY:
            got = (df["board"].str.count(r"\.") == 0).to_numpy()
        elif kind == KIND_HIGHEST_DISTRICT:
            col = DISTRICT_COLUMNS[DISTRICTS.index(card.district)]
            best = df.groupby("game")[col].transform("max")
            solo = df["players"] == 1
            got = np.where(solo, df[col] >= card.solo_threshold, df[col] == best)
        else:  # pragma: no cover - the rule set validates kinds
            raise ValueError(card.kind)
        pts += np.where(got, card.points, 0)
    return pts


def rescore(df: pd.DataFrame, rules: Rules) -> pd.DataFrame:
    """The table with scores, ranks and win shares recomputed under `rules`; play unchanged.

    ValueError (one line) on a table without what rescoring reads (:func:`check_table`).

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows of a Citywright run.
    rules : Rules
        The new rules.

    Returns
    -------
    pandas.DataFrame
        The rescored rows.
    """
    check_table(df)
    out = df.sort_values(["game", "seat"]).reset_index(drop=True).copy()
    scores = np.zeros((len(out), 5), dtype=np.int32)
    E.score_boards(to_bitboards(list(out["board"])), tables_for(rules, 4).rp, scores)
    for i, col in enumerate(DISTRICT_COLUMNS):
        out[col] = scores[:, i].astype(np.int16)
    out["achievements"] = achievements(out, rules).astype(np.int16)
    comp = np.zeros(len(out), dtype=np.int64)
    for n in out["players"].unique():
        vec = np.array(rules.compensation(int(n)))
        sel = (out["players"] == n).to_numpy()
        comp[sel] = vec[out.loc[sel, "seat"].to_numpy() - 1]
    out["compensation"] = comp.astype(np.int16)
    out["total"] = (out[DISTRICT_COLUMNS].sum(axis=1) + out["achievements"] + out["compensation"]).astype(np.int16)
    # rank: 1 + players strictly ahead (rules.RANKING, with the rules' two_player_tie)
    key = rank_key(out, rules.game["two_player_tie"])
    ahead = np.zeros(len(out), dtype=np.int64)
    for _, idx in out.groupby("game").indices.items():
        k = key[idx]
        ahead[idx] = (k[None, :] > k[:, None]).sum(axis=1)
    out["rank"] = (1 + ahead).astype(np.int8)
    winners = out.groupby("game")["rank"].transform(lambda r: (r == 1).sum())
    out["win"] = out["rank"] == 1
    out["win_share"] = np.where(out["win"], 1.0 / winners, 0.0)
    out["rules"] = rules.name
    return out[[c for c in COLUMNS if c in out.columns]]
