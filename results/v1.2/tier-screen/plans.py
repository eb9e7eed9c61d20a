# Usage: python plans.py STRONG_WORK EXPERT_WORK > plans-....csv  (the --work folders of a strong and an expert sweep)
# The commercial specialist's plan per candidate and tier: share of its games ending on exactly 14 commercial
# tiles, its mean commercial tiles, its mean total and the other specialists' mean totals.
import glob
import sys

import pandas as pd

rows = []
for tier, work in (("strong", sys.argv[1]), ("expert", sys.argv[2])):
    for f in sorted(glob.glob(f"{work}/*.parquet")):
        df = pd.read_parquet(f, columns=["agent", "board", "total"])
        df["d"] = df.agent.str.extract(r"specialist:(\w)")[0]
        c = df[df.d == "C"]
        tiles = c.board.str.count("C")
        others = df[df.d != "C"].groupby("d").total.mean()
        value = f.split("=", 1)[1].removesuffix(".parquet")
        weights = df.agent.iloc[0].rsplit("weights=", 1)[1]
        rows.append(
            (
                value,
                tier,
                weights,
                f"{(tiles == 14).mean():.0%}",
                f"{tiles.mean():.1f}",
                f"{c.total.mean():.1f}",
                " / ".join(f"{others[x]:.1f}" for x in "RPI"),
                len(c),
            )
        )
cols = ["tiers", "tier", "weights", "C stops at 14", "C tiles", "C total", "R / P / I totals", "games"]
pd.DataFrame(rows, columns=cols).to_csv(sys.stdout, index=False)
