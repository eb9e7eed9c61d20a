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
from boardlab.agents.citadels import kernels as K
from boardlab.agents.citadels.registry import parse_agent
from boardlab.sim.citadels.api import Game

g = Game(3, seed=1)
rows = np.stack([parse_agent(s).row() for s in ("basic", "strong", "expert:budget=8")])
out = K.run_games(np.arange(2, dtype=np.uint64), g.tables, rows, np.array([[0, 1, 2], [2, 0, 1]]))
sigs = K._play_games.signatures
from boardlab.agents.citadels import recorded as R
R.run_recorded_games(np.arange(2, dtype=np.uint64), g.tables, rows, np.array([[0, 1, 2], [2, 0, 1]]))
rsigs = R.play_recorded_games.signatures
print(json.dumps({
    "recorded_signatures": len(rsigs),
    "recorded_by_address": all(isinstance(s[0], types.FunctionType) for s in rsigs),
    "recorded_misses": sum(R.play_recorded_games.stats.cache_misses.values()),
    "loop_misses": sum(K._play_games.stats.cache_misses.values()),
    "agents_misses": sum(K.choose_move.stats.cache_misses.values()),
    "loop_signatures": len(sigs),
    "by_address": all(isinstance(s[0], types.FunctionType) for s in sigs),
    "agents_signatures": len(K.choose_move.signatures),
    "totals": out["scores"][:, :, K.E.SC_TOTAL].tolist(),
}))
"""


def _child() -> dict:
    res = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_the_loop_calls_choose_move_by_address_and_loads_from_the_cache():
    first = _child()  # compiles what the cache lacks
    second = _child()
    assert first["by_address"] and first["loop_signatures"] == 1 and first["agents_signatures"] == 1, first
    assert first["recorded_by_address"] and first["recorded_signatures"] == 1, first  # the recorded loop too
    assert second["loop_misses"] == 0 and second["agents_misses"] == 0, second  # nothing compiled again
    assert second["recorded_misses"] == 0, second
    assert second["totals"] == first["totals"]


_API_CHILD = r"""
import json
import numpy as np
from boardlab.agents.citadels import kernels as K
from boardlab.agents.citadels.registry import parse_agent
from boardlab.sim.citadels.api import Game

g = Game(3, seed=4)
moves = [K.Chooser().move(g, parse_agent(s).row()) for s in ("basic", "strong", "expert:budget=8")]
# numba's cache index of choose_move: one entry per argument types (numba keys it by the signature as compiled)
index = K.choose_move._cache._cache_file._load_index()
args = [tuple(k[0].args) if hasattr(k[0], "args") else tuple(k[0]) for k in index]
print(json.dumps({"misses": sum(K.choose_move.stats.cache_misses.values()), "entries": len(args),
                  "distinct": len(set(args)), "moves": [list(map(str, m)) for m in moves]}))
"""


def test_the_api_player_calls_the_machine_code_the_loop_compiled():
    """A process that only moves through the public API's player compiles no agent after a loop did: it asks
    for choose_move's machine code by the signature the loops give it, not by its arguments (numba keys the
    cache by the signature as asked, so a call by arguments would compile every agent a second time)."""
    _child()  # the loop's choose_move, compiled or loaded
    res = subprocess.run([sys.executable, "-c", _API_CHILD], capture_output=True, text=True, check=True)
    api = json.loads(res.stdout.strip().splitlines()[-1])
    assert api["misses"] == 0 and api["entries"] == api["distinct"], api
