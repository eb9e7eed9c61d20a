# Usage: python points.py RUNS_FOLDER > points.csv
# Where each specialist's points come from, per tier, rule set and training seed (the runs of README.md: files
# <tier>-<rules>-w<seed>.parquet, 4 players, seats rotated, run seed 41): its own district's points, the other
# three districts' points, achievements, total, and how many tiles of its own district it placed.
import sys

import pandas as pd

sys.path.insert(0, "results/v1.2/train-seeds")
from table import runs

DISTRICT = {"R": "residential", "C": "commercial", "P": "park", "I": "industrial"}


def main(folder: str) -> None:
    rows = []
    cols = ["game", "agent", "board", "total", *DISTRICT.values(), "achievements"]
    for tier, rules, seed, df in runs(folder, cols):
        for d, name in DISTRICT.items():
            g = df[df.d == d]
            others = g[[c for c in DISTRICT.values() if c != name]].sum(axis=1)
            rows.append(dict(tier=tier, rules=rules, train_seed=seed, specialist=d, games=df.game.nunique(),
                             own_points=g[name].mean(), other_points=others.mean(),
                             achievements=g.achievements.mean(), total=g.total.mean(),
                             own_tiles=g.board.str.count(d).mean()))  # fmt: skip
    print(pd.DataFrame(rows).round(2).to_csv(index=False), end="")


if __name__ == "__main__":
    main(sys.argv[1])
