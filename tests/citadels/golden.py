"""Golden games of Citadels: fingerprints that pin down every built-in agent's moves, tier by tier.

The committed results (``results/citadels*/``) were played by the agents as they are now.  A kernel change
that alters any move silently changes every game after it, and the committed figures no longer come from
the code.  Each set is a few seeded games of fixed agents, played by the chunk player and fingerprinted by
the shared helper (``boardlab.testing.Golden``, ``docs/guides/project.md``, "Golden games"); per game the
data file stores:

* ``totals``: the seats' final totals;
* ``rows``: a digest (``boardlab.testing.digest``) of the chunk player's every result column for the game
  (what ``simulate`` writes: scores, ranks, gold, characters taken, rounds).

The sets cover every built-in tier -- random, basic, strong, expert -- and the specialists (``prefers``),
every player count of the official rules (2-7), and the other preset.

If a change of moves is intended (a new rule, a better search, new weights), regenerate the committed
results (``boardlab reproduce --game citadels``; see README) and then this file's data::

    python -m boardlab.testing.golden tests.citadels.golden --update
"""

from __future__ import annotations

from pathlib import Path

from boardlab.testing import Golden, GoldenSet

GOLDEN = Golden(
    game="citadels",
    path=Path(__file__).parent / "data" / "golden_games.csv",
    module="tests.citadels.golden",
    regenerate="Regenerate results/citadels*/ (`boardlab reproduce --game citadels`)",
    sets={
        # (rules, players, agents, seating, run seed, games)
        "random-2p": GoldenSet("official", 2, "random,random", "fixed", 301, 20),
        "random-7p": GoldenSet("official", 7, "random", "fixed", 302, 10),
        "basic-4p": GoldenSet("official", 4, "basic,basic,basic,basic", "fixed", 303, 16),
        "basic-prefers-3p": GoldenSet("official", 3, "basic:prefers=4,basic:prefers=6,random", "rotate", 304, 10),
        "seed-summary-5p": GoldenSet("seed-summary", 5, "basic,random,basic,random,basic", "rotate", 305, 8),
        "strong-4p": GoldenSet("official", 4, "strong,basic,strong:prefers=7,random", "rotate", 306, 8),
        "expert-3p": GoldenSet("official", 3, "expert:budget=16,k=3,basic,strong", "rotate", 307, 2),
        # every tier by its name and both specialists at 6 players (the one official count above not yet
        # covered), the expert tier at 2 players, and 8 players (seed-summary only)
        "tiers-6p": GoldenSet(
            "official", 6, "basic,strong,expert,random,basic-prefers:2,expert-prefers:6", "rotate", 308, 2
        ),
        "expert-2p": GoldenSet("official", 2, "expert,strong", "rotate", 309, 2),
        "seed-summary-8p": GoldenSet(
            "seed-summary", 8, "basic,strong,random,basic-prefers:4,basic,strong,random,basic", "rotate", 310, 4
        ),
    },
)

if __name__ == "__main__":
    raise SystemExit(GOLDEN.main())
