# Usage: python seats.py SEATS.parquet [...] > seats-....csv  (every-seat tables from `simulate` or a run folder)
# Each seat's win share with its 95% Wilson interval, per table, and the largest deviation from 1/N.
import sys

import pandas as pd

from boardlab.sim.stats import wilson

rows = []
for path in sys.argv[1:]:
    df = pd.read_parquet(path, columns=["game", "seat", "players", "agent", "win_share"])
    games, players = df.game.nunique(), int(df.players.iloc[0])
    shares = df.groupby("seat").win_share.sum()
    for seat, wins in shares.items():
        lo, hi = wilson(wins, games)
        rows.append(dict(table=path.rsplit("/", 1)[-1], agent=df.agent.iloc[0], players=players, games=games, seat=seat,
                         win_pct=100 * wins / games, lo=100 * lo, hi=100 * hi,
                         max_deviation_pts=100 * max(abs(shares / games - 1 / players))))  # fmt: skip
print(pd.DataFrame(rows).round(2).to_csv(index=False), end="")
