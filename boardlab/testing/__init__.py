"""Test helpers that ship with boardlab: the game-contract conformance check and golden-game fingerprints.

A game's own tests -- a built-in game's or an installed plugin's -- call :func:`check_game` (as pgx ships
``api_test``)::

    from boardlab.testing import check_game

    def test_pig_conforms():
        check_game("pig")

and pin their agents' play with golden games: a :class:`Golden` declares the game's sets of seeded games
(:class:`GoldenSet`) and the data file of their fingerprints; its ``check`` replays a set and names what
changed, and ``python -m boardlab.testing.golden MODULE --update`` rewrites the file after an intended change
(``examples/pig/tests/golden.py`` is a small example; ``docs/guides/project.md``, "Golden games").
Nothing here imports the repository's ``tests`` package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from boardlab.testing.conformance import check_game

if TYPE_CHECKING:
    from boardlab.testing.golden import (
        Golden,
        GoldenSet,
        chunk_fingerprints,
        compare_fingerprints,
        digest,
        load_golden,
    )

_GOLDEN = ("Golden", "GoldenSet", "chunk_fingerprints", "compare_fingerprints", "digest", "load_golden")

__all__ = [
    "Golden",
    "GoldenSet",
    "check_game",
    "chunk_fingerprints",
    "compare_fingerprints",
    "digest",
    "load_golden",
]


def __getattr__(name: str) -> Any:
    # the golden helper on first use, so that ``python -m boardlab.testing.golden`` runs it as a fresh module
    if name in _GOLDEN:
        from boardlab.testing import golden

        return getattr(golden, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
