"""The installed wheel, tried from outside the checkout: run by `make smoke-wheel` with a fresh venv's Python.

`warmup` of every game (a second one compiles nothing); for every registered game: `simulate` with every skill
tier at a few games, `rules`, and `score` where the game has a scorer (on a board it writes itself); then the
public API from Python.  The old top-level packages must not be importable.  Exits non-zero, naming the step, on
the first failure.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

BIN = Path(sys.executable).parent
work = Path(tempfile.mkdtemp(prefix="boardlab-smoke-"))
os.chdir(work)
checkout = Path(__file__).resolve().parents[1]
assert not str(Path(importlib.util.find_spec("boardlab").origin)).startswith(str(checkout)), (
    "boardlab comes from the checkout"
)
for old in ("sim", "agents", "experiments"):
    assert importlib.util.find_spec(old) is None, f"the wheel installs a top-level {old!r}"


def run(*args: str) -> str:
    cmd = [str(BIN / "boardlab"), *args]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    print("ok:", " ".join(args), flush=True)
    return r.stdout


import boardlab  # noqa: E402

# a playtest board for each game with a scorer (the formats of `boardlab score --help`)
BOARDS = {
    "citywright": "RRCC...\nRRCC...\n..PPI..\n..PPI..\n.......\n.......\n.......\n",
}

# every game's kernels compiled first, in the wheel's own cache, as the Makefile's install step does; then nothing
run("warmup", "--jobs", "2")
again = run("warmup")
if "nothing to compile" not in again:
    sys.exit(f"FAILED: a second warmup compiled again\n{again}")

for game in boardlab.games():
    if game.id == "pig":
        continue
    players = min(max(2, game.players[0]), game.players[1])
    tiers = sorted(game.tiers())
    for tier in ["random", *tiers]:
        run("simulate", "--game", game.id, "--players", str(players), "--agents", tier, "--games", "2",
            "--seed", "1", "--jobs", "1", "--quiet", "--out", f"{game.id}-{tier}.parquet")  # fmt: skip
    run("rules", "--game", game.id)
    run("agents", "--game", game.id)
    if game.id in BOARDS:
        Path(f"{game.id}.txt").write_text(BOARDS[game.id])
        run("score", "--game", game.id, f"{game.id}.txt")

g = boardlab.new_game("citywright", players=2, seed=7)
meta = boardlab.simulate("citywright", players=2, agents=["greedy", "random"], games=4, seed=1, out="api.parquet")
df = boardlab.load_results("api.parquet")
assert len(df) == 8 and meta["games"] == 4 if "games" in meta else len(df) == 8, (len(df), meta)
print("ok: the public API", json.dumps({"games": [x.id for x in boardlab.games()], "rows": len(df)}))
