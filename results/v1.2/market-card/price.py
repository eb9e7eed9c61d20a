# Usage: python price.py STRONG_SPEC.parquet EXPERT_SPEC.parquet > cards.csv
# Prices one new achievement card for commercial on top of the tier screen's 5 / 18 / 13
# (results/v1.2/tier-screen/tiers-18-13.toml) by rescoring that rule set's verification games
# (the four specialists at 4 players, strong and expert tiers): "the highest commercial score at the table"
# (kind highest_district) or "at least N commercial tiles" (kind district_count), for 1 to 3 points.
# Play is held fixed: the agents chose their moves without the card (see README.md for what that misses).
import itertools
import sys

import pandas as pd

from boardlab.experiments.citywright.rescore import rescore
from boardlab.sim.citywright.rules import load_rules
from boardlab.sim.stats import wilson

BASE = load_rules("results/v1.2/tier-screen/tiers-18-13.toml")
tables = {"strong": pd.read_parquet(sys.argv[1]), "expert": pd.read_parquet(sys.argv[2])}
cards = [("none", None)]
for points in (1, 2):
    card = dict(kind="highest_district", district="C", solo_threshold=1000, points=points)
    cards.append((f"highest commercial score, {points}", card))
for threshold, points in itertools.product((10, 12, 14, 15), (1, 2, 3)):
    card = dict(kind="district_count", district="C", threshold=threshold, points=points)
    cards.append((f"{threshold}+ commercial tiles, {points}", card))
rows = []
for name, card in cards:
    rules = (
        BASE if card is None else BASE.with_overrides({"achievements.cards.market_leader": {**card, "enabled": True}})
    )
    for tier, df in tables.items():
        r = rescore(df, rules)
        r["specialist"] = r.agent.str.extract(r"specialist:(\w)")[0]
        games = r.game.nunique()
        for d, g in r.groupby("specialist"):
            lo, hi = wilson(g.win_share.sum(), games)
            rows.append(dict(card=name, tier=tier, specialist=d, games=games, win_pct=100 * g.win_share.mean(),
                             lo=100 * lo, hi=100 * hi, mean_total=g.total.mean()))  # fmt: skip
print(pd.DataFrame(rows).round(2).to_csv(index=False), end="")
