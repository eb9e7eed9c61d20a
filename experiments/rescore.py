"""Rescoring stored games under other scoring rules, play held fixed.

The boards and the shapes each player placed are in the result table, so every
score can be recomputed without replaying: district points from the boards
(the engine's kernel), achievements from boards, shapes and the other players'
new district points, compensation from the new rules, then totals, ranks and
win shares with the rules' tie-breaks.  What cannot change is play: agents
chose their moves under the old scoring (use a sweep to let them replan).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.citywright.runner import COLUMNS, parse_shapes_placed
from sim.citywright import engine as E
from sim.citywright.boards import to_bitboards
from sim.citywright.ranking import rank_key
from sim.citywright.rules import (
    ACHIEVEMENT_CODES,
    DISTRICTS,
    KIND_DISTINCT_SHAPES,
    KIND_DISTRICT_COUNT,
    KIND_FULL_LINE,
    KIND_HIGHEST_DISTRICT,
    KIND_NO_EMPTY,
    KIND_SAME_SHAPE,
    KIND_SHAPE_COUNT,
    Rules,
)
from sim.citywright.tables import tables_for

DISTRICT_COLUMNS = ["residential", "commercial", "park", "industrial"]


def _full_line(boards: pd.Series, district: str) -> np.ndarray:
    grid = np.array([list(b) for b in boards], dtype="<U1").reshape(-1, 7, 7)
    ok = grid != "." if district == "any" else grid == district
    return ok.all(axis=2).any(axis=1) | ok.all(axis=1).any(axis=1)


def achievements(df: pd.DataFrame, rules: Rules) -> np.ndarray:
    """Achievement points per row under `rules` (df has the new district columns)."""
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
    """The table with scores, ranks and win shares recomputed under `rules`; play unchanged."""
    if "shapes_placed" not in df.columns:
        raise ValueError("this table has no shapes_placed column (made by an older version): cannot rescore")
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
    # rank: 1 + players strictly ahead (rules.RANKING)
    key = rank_key(out)
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


def rescore_files(paths: list, rules: Rules) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(before, after) for stored result files; each file is its own run (games are ranked within it)."""
    from experiments.pipelines import load_results

    before = load_results(paths)
    after = pd.concat(
        [rescore(part.drop(columns="run"), rules).assign(run=run) for run, part in before.groupby("run", sort=False)],
        ignore_index=True,
    )
    return before, after


def write_rescored(after: pd.DataFrame, out, rules: Rules, sources: list) -> None:
    """The rescored table as Parquet (atomically), with metadata naming its sources and new rules."""
    import json

    import pyarrow as pa

    from experiments import simulate as S
    from experiments.io import atomic_write_parquet

    meta = {
        "rescored_from": [str(r) for r in sources],
        "rules": rules.to_dict(),
        "note": "scores, ranks and win shares recomputed from stored boards; play held fixed",
    }
    try:
        meta["original"] = S.read_metadata(sources[0])
    except S.SimulateError:
        pass
    table = pa.Table.from_pandas(after.drop(columns="run"), preserve_index=False)
    atomic_write_parquet(table.replace_schema_metadata({S.METADATA_KEY: json.dumps(meta).encode()}), out)
