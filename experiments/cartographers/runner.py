"""Cartographers' chunk player: games start..stop-1 of a run -> one row per (game, seat).

Everything about game g (its seed, its seating) is a function of (run seed, g, seating
mode), as for every game (:mod:`experiments.citywright.runner`), so a chunk gives the same rows
wherever and whenever it runs.  The table is built from numpy columns, with no Python
loop over rows; its columns are ``sim.cartographers.game.RESULT_COLUMNS`` (README.md,
"Cartographers", documents them).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from agents.cartographers.play import run_games
from agents.cartographers.registry import AgentSpec, rows
from experiments.seating import seat_orders
from sim.cartographers import engine as E
from sim.cartographers.api import codes_to_strings, planes_to_codes
from sim.cartographers.game import EDICT_KEYS, RESULT_COLUMNS, SEASON_KEYS
from sim.cartographers.rules import Rules
from sim.cartographers.tables import tables_for
from sim.seeds import game_seeds


def solo_titles(ratings: np.ndarray, rules: Rules) -> np.ndarray:
    """The title of each solo rating (docs/games/cartographers.md 6.2): the first row of the table it meets;
    "" for none."""
    titles = rules.titles
    below = titles[-1][1] if rules.solo["below_titles"] == "lowest" else ""
    out = np.full(ratings.shape, below, dtype=object)
    for threshold, title in reversed(titles):  # higher rows overwrite lower ones
        out[ratings >= threshold] = title
    return out


def play_chunk(
    rules: Rules, players: int, agents: list[AgentSpec], seating: str, run_seed: int, start: int, stop: int
) -> pd.DataFrame:
    """Games start..stop-1 of a run, one row per (game, seat), columns RESULT_COLUMNS."""
    if seating != "draw" and len(agents) != players:
        raise ValueError("one agent per seat")
    tb = tables_for(rules, players)
    seeds = game_seeds(run_seed, start, stop)
    order = seat_orders(players, seating, start, stop, pool=len(agents), seeds=seeds)
    prms = rows(agents)[order]  # [G, players, P_LEN]
    res = run_games(seeds, prms, tb)
    g = stop - start
    sc = res["scores"]
    rec = res["records"]
    rank = sc[:, :, E.SC_RANK]
    winners = (rank == 1).sum(axis=1, keepdims=True)
    names = np.array([str(a) for a in agents], dtype=object)
    edicts = np.repeat(res["edicts"], players, axis=0)  # [G * players, 4]
    total = sc[:, :, E.SC_TOTAL].ravel()
    cols: dict[str, object] = {
        "game": np.repeat(np.arange(start, stop, dtype=np.int64), players),
        "game_seed": np.repeat(seeds, players),
        "rules": rules.name,
        "players": np.int8(players),
        "seat": np.tile(np.arange(1, players + 1, dtype=np.int8), g),
        "agent": names[order].ravel(),
        "side": rules.side,
    }
    for e, key in enumerate(EDICT_KEYS):
        cols[f"card_{key}"] = edicts[:, e].astype(np.int8)
    for s, key in enumerate(SEASON_KEYS):
        cols[f"{key}_e1"] = rec[:, :, s, E.REC_E1].ravel().astype(np.int16)
        cols[f"{key}_e2"] = rec[:, :, s, E.REC_E2].ravel().astype(np.int16)
    for e, key in enumerate(EDICT_KEYS):
        cols[f"points_{key}"] = sc[:, :, E.SC_EDICT + e].ravel().astype(np.int16)
    cols["edict_points"] = sc[:, :, E.SC_EDICT_POINTS].ravel().astype(np.int16)
    cols["coins"] = res["coins"].ravel().astype(np.int16)
    cols["coin_points"] = sc[:, :, E.SC_COIN_POINTS].ravel().astype(np.int16)
    cols["monster_penalty"] = sc[:, :, E.SC_MONSTER].ravel().astype(np.int16)
    cols["total"] = total.astype(np.int16)
    cols["rank"] = rank.ravel().astype(np.int8)
    cols["win_share"] = np.where(rank == 1, 1.0 / winners, 0.0).ravel()
    cols["win"] = (rank == 1).ravel()
    if players == 1:
        solo = np.array([c.solo for c in rules.scoring_cards], dtype=np.int64)
        first = rules.scoring_cards[0].id
        rating = total - solo[edicts - first].sum(axis=1)
        cols["rating"] = rating.astype(np.float64)
        cols["title"] = solo_titles(rating, rules)
    else:
        # No rating with 2+ players.  float64 with NaN (not a nullable integer column) so that the
        # type is the same at every player count after a Parquet round trip.
        cols["rating"] = np.full(g * players, np.nan)
        cols["title"] = np.full(g * players, "", dtype=object)
    cols["grid"] = codes_to_strings(planes_to_codes(res["planes"]).reshape(g * players, -1))
    df = pd.DataFrame(cols)
    return df[list(RESULT_COLUMNS)]
