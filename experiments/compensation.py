"""Seat-compensation solver: seat win shares under any compensation vector, without re-simulating.

Play does not depend on the compensation (agents maximise their own points, not
the ranking), so a stored game is re-ranked under another vector by adding it to
the raw scores (``total - compensation``) and applying the tie-breaks again
(``sim.citywright.rules.RANKING``: fewer empty cells, then more distinct shapes,
then a shared win).  The search tries every integer vector with entries 0..max
(vectors that differ by a constant rank games identically, so the smallest
entry is 0) and keeps those whose largest seat deviation from 1/N is smallest.  The chosen vector is then
verified by re-simulating with it.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from sim.citywright.ranking import rank_key
from sim.stats import wilson


def game_arrays(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """raw score, empty cells and distinct shapes as [games, seats] arrays (seat order)."""
    players = int(df["players"].iloc[0])
    if (df["players"] != players).any():
        raise ValueError("the tables mix player counts")
    d = df.sort_values(["game_seed", "game", "seat"])
    n = len(d) // players
    raw = (d["total"] - d["compensation"]).to_numpy(np.int64).reshape(n, players)
    empty = d["empty"].to_numpy(np.int64).reshape(n, players)
    shapes = d["shapes_distinct"].to_numpy(np.int64).reshape(n, players)
    return raw, empty, shapes, players


def seat_shares(raw: np.ndarray, empty: np.ndarray, shapes: np.ndarray, comp) -> np.ndarray:
    """Win share of each seat (mean over games) when `comp` is added to the raw scores."""
    total = raw + np.asarray(comp, dtype=np.int64)[None, :]
    key = rank_key({"total": total, "empty": empty, "shapes_distinct": shapes})
    best = key.max(axis=1, keepdims=True)
    win = key == best
    return (win / win.sum(axis=1, keepdims=True)).mean(axis=0)


def search(df: pd.DataFrame, max_points: int = 5, top: int = 5) -> pd.DataFrame:
    """The `top` vectors with the smallest largest deviation from 1/N, with each seat's share and interval."""
    raw, empty, shapes, players = game_arrays(df)
    games = raw.shape[0]
    fair = 1.0 / players
    rows = []
    for comp in itertools.product(range(max_points + 1), repeat=players):
        if min(comp) != 0:
            continue
        s = seat_shares(raw, empty, shapes, comp)
        rows.append((comp, float(np.abs(s - fair).max()), s))
    rows.sort(key=lambda r: (r[1], sum(r[0])))
    out = []
    for comp, dev, s in rows[:top]:
        rec = {"compensation": "/".join(map(str, comp)), "max_deviation": dev, "games": games}
        for i, x in enumerate(s):
            lo, hi = wilson(x * games, games)
            rec[f"seat{i + 1}"] = x
            rec[f"seat{i + 1}_lo"] = lo
            rec[f"seat{i + 1}_hi"] = hi
        out.append(rec)
    return pd.DataFrame(out)


def current(df: pd.DataFrame) -> pd.DataFrame:
    """Seat win shares as stored (the run's own compensation), in the same layout as `search`."""
    raw, empty, shapes, players = game_arrays(df)
    d = df.sort_values(["game_seed", "game", "seat"])
    comp = d["compensation"].to_numpy().reshape(-1, players)[0]
    s = seat_shares(raw, empty, shapes, comp)
    games = raw.shape[0]
    rec = {
        "compensation": "/".join(map(str, comp)),
        "max_deviation": float(np.abs(s - 1 / players).max()),
        "games": games,
    }
    for i, x in enumerate(s):
        lo, hi = wilson(x * games, games)
        rec[f"seat{i + 1}"] = x
        rec[f"seat{i + 1}_lo"] = lo
        rec[f"seat{i + 1}_hi"] = hi
    return pd.DataFrame([rec])


def verify(meta: dict, vector: list[int], games: int, jobs: int = 1) -> pd.DataFrame:
    """Re-simulate a stored run's agents, seats and seeds with compensation `vector` (first `games` games);
    the seat shares as `current` gives them."""
    import tempfile
    from pathlib import Path

    from experiments import simulate as S
    from sim.games import get_game

    game = get_game(meta.get("spec", {}).get("game", "citywright"))
    n = len(vector)
    rules = game.rules_from_mapping(meta["rules"]).with_overrides({f"game.compensation.{n}": list(vector)})
    spec = S.make_spec(n, meta["agents"], games, meta["seed"], rules, meta["seating"], game=game.id)
    with tempfile.TemporaryDirectory() as d:
        S.run(spec, Path(d) / "verify.parquet", jobs=jobs)
        return current(pd.read_parquet(Path(d) / "verify.parquet"))
