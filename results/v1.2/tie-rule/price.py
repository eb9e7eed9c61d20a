# Usage: python price.py GAMES.parquet [...] > seats.csv  (2-player tables from `boardlab simulate`)
# Prices three tie rules on stored 2-player games: "a tie on points goes to the second seat", "a tie on points is
# a shared victory" (no tie-break), and "fewest empty squares, then seat 2" (seat 2 replaces v1.2's last
# tie-break, most distinct shapes).
# No tier's play looks at tie-breaks (greedy, strong and the expert's margin reward use points only), so the
# games are the games this rule would give, and only their ranking changes.
import json
import sys

import pandas as pd

from boardlab.sim.stats import wilson

rows = []
for path in sys.argv[1:]:
    d = pd.read_parquet(path, columns=["game", "seat", "agent", "total", "empty", "win_share"])
    assert set(d.seat) == {1, 2}, f"{path}: a 2-player table is needed"
    total = d.pivot(index="game", columns="seat", values="total")
    share = d.pivot(index="game", columns="seat", values="win_share")
    empty = d.pivot(index="game", columns="seat", values="empty")
    tie = total[1] == total[2]
    tie_on_empty = tie & (empty[1] == empty[2])  # what v1.2's last tie-break (most distinct shapes) decides
    n = len(total)
    rules = (
        ("v1.2 (fewest empty squares, then most shapes)", share[2]),
        ("ties go to seat 2", share[2].where(~tie, 1.0)),
        ("ties are shared", share[2].where(~tie, 0.5)),
        ("fewest empty squares, then seat 2", share[2].where(~tie_on_empty, 1.0)),
    )
    tiers = json.loads(open(path + ".json").read())["spec"]["tiers"]  # the tier a spec was named by, if not its agent
    tier = tiers[0] if tiers else d.agent.iloc[0].split(":")[0]
    for rule, second in rules:
        s2 = second.sum()
        lo, hi = wilson(s2, n)
        rows.append(
            {
                "tier": tier,
                "games": n,
                "ties_on_points_pct": round(100 * tie.mean(), 2),
                "ties_on_points_and_empty_pct": round(100 * tie_on_empty.mean(), 2),
                "rule": rule,
                "seat1_pct": round(100 * (1 - s2 / n), 2),
                "seat2_pct": round(100 * s2 / n, 2),
                "seat2_lo": round(100 * lo, 2),
                "seat2_hi": round(100 * hi, 2),
            }
        )
pd.DataFrame(rows).to_csv(sys.stdout, index=False)
