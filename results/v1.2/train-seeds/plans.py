# Usage: python plans.py RUNS_FOLDER > plans.csv
# The commercial specialist's two plans in README.md's runs (files <tier>-<rules>-w<seed>.parquet): games ending
# on exactly 14 commercial tiles (the stop at the 10-14 tier) and on 15 or more, with its win share and mean
# total in each, beside the other three specialists' mean totals in the same runs.
import sys

import pandas as pd
from table import runs  # this folder's table.py: the run files and their specialists

rows = []
for tier, rules, seed, df in runs(sys.argv[1], ["agent", "board", "total", "win_share"]):
    others = df[df.d != "C"].groupby("d").total.mean()
    c = df[df.d == "C"]
    tiles = c.board.str.count("C")
    for plan, g in c.groupby(tiles.map(lambda n: "14" if n == 14 else ("15+" if n > 14 else "<14"))):
        rows.append(dict(tier=tier, rules=rules, train_seed=seed, plan=plan, games_pct=100 * len(g) / len(c),
                         win_pct=100 * g.win_share.mean(), mean_total=g.total.mean(),
                         others_mean_total=" / ".join(f"{others[d]:.1f}" for d in "RPI")))  # fmt: skip
print(pd.DataFrame(rows).round(2).to_csv(index=False), end="")
