"""Golden games of Pig: fingerprints that pin down its agents' play, through boardlab's shared helper.

Each set is a few seeded games of fixed agents, played by Pig's chunk player; per game the data file
(``data/golden_games.csv``) stores the seats' totals and a digest of the game's result rows
(``boardlab.testing.chunk_fingerprints``).  ``test_golden.py`` replays every set.  After an intended change
of play (new rules, another agent), rewrite the file from the code as it is now::

    python -m boardlab.testing.golden examples/pig/tests/golden.py --update
"""

from __future__ import annotations

from pathlib import Path

from boardlab.testing import Golden, GoldenSet

HERE = Path(__file__).parent
VARIANTS = HERE.parent / "variants"


def rules_named(name: str):
    """A preset's name as is; a ``.toml`` name is a file of ``examples/pig/variants/``."""
    return VARIANTS / name if name.endswith(".toml") else name


GOLDEN = Golden(
    game="pig",
    path=HERE / "data" / "golden_games.csv",
    module="examples/pig/tests/golden.py",
    rules=rules_named,
    sets={
        # (rules, players, agents, seating, run seed, games): every player count, both presets, the variant
        # file, every agent of the generic registry
        "random-solo": GoldenSet("standard", 1, "random", "fixed", 401, 10),
        "random-2p": GoldenSet("standard", 2, "random", "fixed", 402, 20),
        "random-3p-quick": GoldenSet("quick", 3, "random", "rotate", 403, 10),
        "prefers-4p": GoldenSet(
            "standard", 4, "random-prefers:hold,random-prefers:roll,random,random", "rotate", 404, 8
        ),
        "round-5p": GoldenSet("play-out-the-round.toml", 5, "random", "fixed", 405, 6),
        "random-6p": GoldenSet("quick", 6, "random", "rotate", 406, 6),
        "ismcts-2p": GoldenSet("quick", 2, "ismcts:iters=20,random", "rotate", 407, 2),
        "ismcts-prefers-3p": GoldenSet("quick", 3, "ismcts-prefers:hold,iters=10,random,random", "rotate", 408, 2),
    },
)

if __name__ == "__main__":
    raise SystemExit(GOLDEN.main())
