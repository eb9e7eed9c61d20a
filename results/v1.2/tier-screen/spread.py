# Usage: python spread.py WORK [...] > spread.csv  (the --work folders of sweeps of the four specialists)
# Each specialist's mean final total and its spread (standard deviation over games) per candidate and tier:
# with equal means, the specialist whose totals spread more wins a 4-player game more often.
import glob
import sys

import pandas as pd

rows = []
for work in sys.argv[1:]:
    for f in sorted(glob.glob(f"{work}/*.parquet")):
        df = pd.read_parquet(f, columns=["agent", "total", "win_share"])
        tier = "expert" if df.agent.iloc[0].startswith("expert") else "strong"
        df["specialist"] = df.agent.str.extract(r"specialist:(\w)")[0]
        g = df.groupby("specialist").agg(games=("total", "size"), win_pct=("win_share", "mean"),
                                         mean_total=("total", "mean"), sd_total=("total", "std"))  # fmt: skip
        g["win_pct"] *= 100
        g.insert(0, "tier", tier)
        g.insert(0, "tiers", f.split("=", 1)[1].removesuffix(".parquet"))
        rows.append(g.reset_index())
print(pd.concat(rows).round(2).to_csv(index=False), end="")
