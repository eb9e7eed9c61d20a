# Usage: python table.py RUNS_FOLDER > specialists.csv
# The four specialists' win shares per tier, rule set and training seed, from the runs of README.md's commands
# (files <tier>-<rules>-w<seed>.parquet: 4 players, seats rotated, run seed 41), with the
# commercial specialist's plan: the share of its games ending on exactly 14 commercial tiles.
import glob
import re
import sys

import pandas as pd

from boardlab.experiments.pipelines import win_share


def runs(folder: str, columns: list[str]):
    """(tier, rules, training seed, table with the specialist's district in column d) per run file in folder."""
    for f in sorted(glob.glob(f"{folder}/*-w*.parquet")):
        tier, rules, seed = re.fullmatch(r"(strong|expert)-(.+)-w(\d+)\.parquet", f.rsplit("/", 1)[1]).groups()
        df = pd.read_parquet(f, columns=columns)
        df["d"] = df.agent.str.extract(r"specialist:(\w)")[0]
        yield tier, rules, int(seed), df


def main(folder: str) -> None:
    rows = []
    for tier, rules, seed, df in runs(folder, ["game", "agent", "board", "total", "win_share"]):
        c_tiles = df[df.d == "C"].board.str.count("C")
        shares = win_share(df, "d").set_index("d")
        for d in "RCPI":
            g, w = df[df.d == d], shares.loc[d]
            rows.append(dict(tier=tier, rules=rules, train_seed=seed, weights=g.agent.iloc[0].rsplit("weights=", 1)[1],
                             specialist=d, games=df.game.nunique(), win_pct=100 * w.win_share, lo=100 * w.lo,
                             hi=100 * w.hi, mean_total=g.total.mean(),
                             c_stops_at_14_pct=100 * (c_tiles == 14).mean()))  # fmt: skip
    print(pd.DataFrame(rows).round(2).to_csv(index=False), end="")


if __name__ == "__main__":
    main(sys.argv[1])
