"""The suite's one hook: which worker runs which game's tests under ``make test`` (``-n 2 --dist loadgroup``).

Most of a first run's time is numba compiling the kernels, and each worker process compiles what it needs itself
(the disk cache helps only once a kernel is written there). Spread test by test, both workers compiled most of
every game's kernels. Here each built-in game's tests (``tests/<game>/``, the games as the registry finds them) are
one unit, given whole to one worker, so each game's kernels are compiled once; every other test (``tests/core`` and
the rest) is its own unit, shared out as the workers free up (docs/guides/project.md, "Tests").

The groups are given to pytest-xdist as a scheduler (its ``pytest_xdist_make_scheduler`` hook) rather than as
``xdist_group`` marks: with pytest 9.2 the marks are silently ignored (a known pytest-xdist bug). Without
``--dist loadgroup`` (plain ``pytest``, or ``-n`` alone) nothing changes.
"""

from __future__ import annotations

import pytest

from boardlab.sim.games import builtin_games


def game_group(nodeid: str) -> str:
    """The unit of work a test belongs to: its game for tests/<game>/, else the test alone."""
    parts = nodeid.split("/")
    if len(parts) > 2 and parts[0] == "tests" and parts[1] in builtin_games():
        return f"game:{parts[1]}"
    return nodeid


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # (optional: the suite also runs without pytest-xdist)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByGame(LoadScopeScheduling):
        """LoadScope's scheduling (largest units first, a unit to one worker) with game_group as the unit."""

        def _split_scope(self, nodeid: str) -> str:
            return game_group(nodeid)

    return ByGame(config, log)
