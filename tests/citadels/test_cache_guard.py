"""The numba cache guard runs when a game's kernel module is imported, Citadels' engine here (the shared layers,
imported alone, load no game and run no guard: tests/core/test_cache.py)."""

from __future__ import annotations

import subprocess
import sys


def test_importing_a_kernel_module_runs_the_cache_guard():
    code = "import boardlab.sim.citadels.engine; from boardlab.sim import _cache; print(_cache._GUARDED)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "True\n"
