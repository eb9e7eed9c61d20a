"""The game loop and the recorded loop (the game-anatomy panel's) call the agents' per-move kernel by its address
(docs/architecture/compile-time.md#first-class): a loop's machine code links no agent, and a second process loads
them all from numba's cache."""

from __future__ import annotations

import json
import subprocess
import sys

_CHILD = r"""
import json
import numpy as np
from numba import types
from boardlab.agents.cartographers import play as P
from boardlab.agents.cartographers.registry import parse_agent, rows
from boardlab.sim.cartographers.rules import load_rules
from boardlab.sim.cartographers.tables import tables_for

tb = tables_for(load_rules(), 2)
prms = rows([parse_agent("greedy"), parse_agent("strong")])[np.array([[0, 1], [1, 0]])]
out = P.run_games(np.arange(2, dtype=np.uint64), prms, tb)
sigs = P.play_games.signatures
from boardlab.agents.cartographers import recorded as R
from boardlab.agents.cartographers.registry import parse_agent as _pa
from boardlab.experiments.cartographers.recorded import trajectory_tables
trajectory_tables(load_rules(), 2, [_pa("greedy"), _pa("strong")], "fixed", 0, 0, 1)
rsigs = R.play_recorded_games.signatures
print(json.dumps({
    "recorded_signatures": len(rsigs),
    "recorded_by_address": all(isinstance(s[0], types.FunctionType) for s in rsigs),
    "recorded_misses": sum(R.play_recorded_games.stats.cache_misses.values()),
    "loop_misses": sum(P.play_games.stats.cache_misses.values()),
    "agents_misses": sum(P.policy_move.stats.cache_misses.values()),
    "loop_signatures": len(sigs),
    "by_address": all(isinstance(s[0], types.FunctionType) for s in sigs),
    "agents_signatures": len(P.policy_move.signatures),
    "totals": out["scores"][:, :, P.E.SC_TOTAL].tolist(),
}))
"""


def _child() -> dict:
    res = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_the_loop_calls_policy_move_by_address_and_loads_from_the_cache():
    first = _child()  # compiles what the cache lacks
    second = _child()
    assert first["by_address"] and first["loop_signatures"] == 1 and first["agents_signatures"] == 1, first
    assert first["recorded_by_address"] and first["recorded_signatures"] == 1, first  # the recorded loop too
    assert second["loop_misses"] == 0 and second["agents_misses"] == 0, second  # nothing compiled again
    assert second["recorded_misses"] == 0, second
    assert second["totals"] == first["totals"]
