# Usage: python plans.py RUNS_FOLDER > plans.csv
# The commercial specialist's two plans in README.md's runs (files <tier>-<rules>-w<seed>.parquet): games ending
# on exactly 14 commercial tiles (the stop at the 10-14 tier) and on 15 or more, with its win share and mean
# total in each, beside the other three specialists' mean totals in the same runs.
import glob
import re
import sys

import pandas as pd

rows = []
for f in sorted(glob.glob(f"{sys.argv[1]}/*-w*.parquet")):
    tier, rules, seed = re.fullmatch(r"(strong|expert)-(.+)-w(\d+)\.parquet", f.rsplit("/", 1)[1]).groups()
    df = pd.read_parquet(f, columns=["agent", "board", "total", "win_share"])
    df["d"] = df.agent.str.extract(r"specialist:(\w)")[0]
    others = df[df.d != "C"].groupby("d").total.mean()
    c = df[df.d == "C"]
    tiles = c.board.str.count("C")
    for plan, g in c.groupby(tiles.map(lambda n: "14" if n == 14 else ("15+" if n > 14 else "<14"))):
        rows.append(dict(tier=tier, rules=rules, train_seed=int(seed), plan=plan, games_pct=100 * len(g) / len(c),
                         win_pct=100 * g.win_share.mean(), mean_total=g.total.mean(),
                         others_mean_total=" / ".join(f"{others[d]:.1f}" for d in "RPI")))  # fmt: skip
print(pd.DataFrame(rows).round(2).to_csv(index=False), end="")
