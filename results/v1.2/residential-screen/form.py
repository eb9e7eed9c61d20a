# Usage: python results/v1.2/residential-screen/form.py SEEDS_FOLDER > results/v1.2/residential-screen/form.csv
# Prices one rule outside the scoring numbers -- the form of residential's largest cluster score
# (scoring.residential.largest: the print "pairs", 5 per full pair; v1.0's "tiles", largest_tile_points per tile) --
# with the second cluster's points and commercial's 10-14 and 15+ tiers, by rescoring the print's specialist games
# of ../train-seeds/ (SEEDS_FOLDER: its runs.sh output; strong 4,000 games with weights from training seeds 1, 2
# and 3, expert 600 games with seeds 1 and 2; 4 players, seats rotated, run seed 41). Play is held fixed.
import sys

import pandas as pd

from boardlab.experiments.citywright.rescore import rescore
from boardlab.experiments.pipelines import win_share
from boardlab.sim.citywright.rules import load_rules

PRINT = load_rules("results/v1.2/v1.2-no-compensation.toml").with_overrides({"game.two_player_tie": "second_seat"})
RUNS = [("strong", 1), ("strong", 2), ("strong", 3), ("expert", 1), ("expert", 2)]
tables = {run: pd.read_parquet(f"{sys.argv[1]}/{run[0]}-v1.2-no-compensation-w{run[1]}.parquet") for run in RUNS}
variants = [("pairs", 2, 1, 15, 11)]  # the print
variants += [("tiles", tp, sp, t1, t2) for tp in (2, 3) for sp in (1, 0) for t1, t2 in ((15, 11), (16, 12), (17, 13))]
rows = []
for largest, tile_points, second, t1, t2 in variants:
    rules = PRINT.with_overrides(
        {
            "scoring.residential.largest": largest,
            "scoring.residential.largest_tile_points": tile_points,
            "scoring.residential.second_tile_points": second,
            "scoring.commercial.tier_points": [5, t1, t2],
        }
    )
    for (tier, seed), df in tables.items():
        r = rescore(df, rules)
        r["d"] = r.agent.str.extract(r"specialist:(\w)")[0]
        shares = win_share(r, "d").set_index("d")
        for d in "RCPI":
            w = shares.loc[d]
            rows.append(dict(largest=largest, largest_tile_points=tile_points, second_tile_points=second,
                             tier_10_14=t1, tier_15=t2, tier=tier, train_seed=seed, specialist=d,
                             games=r.game.nunique(), win_pct=100 * w.win_share, lo=100 * w.lo, hi=100 * w.hi,
                             mean_total=r[r.d == d].total.mean()))  # fmt: skip
print(pd.DataFrame(rows).round(2).to_csv(index=False), end="")
