# Usage: python played.py RUN_FOLDER... > played.csv
# Specialist win shares of `reproduce --skill` runs (their spec_<run>_<tier>.parquet files), Wilson 95% intervals,
# the weights each played and the commercial specialist's share of games ending on exactly 14 commercial tiles.
import glob
import re
import sys

import pandas as pd

from boardlab.experiments.pipelines import win_share

rows = []
for folder in sys.argv[1:]:
    for f in sorted(glob.glob(f"{folder}/spec_*.parquet")):
        run, tier = re.fullmatch(r"spec_(\w+)_(greedy|strong|expert)\.parquet", f.rsplit("/", 1)[1]).groups()
        df = pd.read_parquet(f, columns=["game", "rules", "agent", "board", "total", "win_share"])
        df["d"] = df.agent.str.extract(r"specialist:(\w)")[0]
        c_tiles = df[df.d == "C"].board.str.count("C")
        weights = df.agent.str.extract(r"weights=(\w+)")[0].fillna("none").iloc[0]
        shares = win_share(df, "d").set_index("d")
        for d in "RCPI":
            g, w = df[df.d == d], shares.loc[d]
            rows.append(dict(rules=df.rules.iloc[0], run=run, tier=tier, weights=weights, specialist=d,
                             games=df.game.nunique(), win_pct=100 * w.win_share, lo=100 * w.lo, hi=100 * w.hi,
                             mean_total=g.total.mean(), c_stops_at_14_pct=100 * (c_tiles == 14).mean()))  # fmt: skip
print(pd.DataFrame(rows).round(2).to_csv(index=False), end="")
