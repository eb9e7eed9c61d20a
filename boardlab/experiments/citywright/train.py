"""Fitting the `strong` agent's learned value (boardlab.agents.citywright.value): `citywright train`.

Design notes: docs/games/citywright/search.md#training-module.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from boardlab.agents.citywright import selfplay
from boardlab.agents.citywright.registry import (
    cached_weights,
    official_hash,
    parse_agent,
    preset_hashes,
    rows,
    rules_hash,
)
from boardlab.agents.citywright.strong import STRONG_K, WEIGHTS_VERSION, readonly_weights
from boardlab.agents.citywright.value import FEATURES, N_FEATURES, TURN_BUCKETS, WEIGHTS_DIR
from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.rules import load_rules
from boardlab.sim.citywright.tables import tables_for
from boardlab.sim.seeds import game_seeds

CHUNK = 200  # games per unit of work (fixes the order of the floating-point sums)
PLAYERS = 4
RULES = "v1.1"
DEFAULT_GAMES = (10_000, 10_000)  # round 0 (greedy), round 1 (strong with round 0's weights)
DEFAULT_RIDGE = 1e-3
DEFAULT_OUT = WEIGHTS_DIR / f"{WEIGHTS_VERSION}.json"


class TrainError(ValueError):
    """Bad training parameters (one line)."""


@dataclass
class Moments:
    """Least-squares moments per turn bucket."""

    xtx: np.ndarray  # float64[B, F, F]
    xty: np.ndarray  # float64[B, F]
    yty: np.ndarray  # float64[B]
    count: np.ndarray  # int64[B]

    @classmethod
    def zeros(cls) -> Moments:
        b, f = TURN_BUCKETS, N_FEATURES
        return cls(np.zeros((b, f, f)), np.zeros((b, f)), np.zeros(b), np.zeros(b, dtype=np.int64))

    def add(self, other: Moments) -> None:
        self.xtx += other.xtx
        self.xty += other.xty
        self.yty += other.yty
        self.count += other.count


def round_seed(seed: int, r: int) -> int:
    """The run seed of round r's games (a SplitMix64 output of the training seed)."""
    return int(game_seeds(seed, r, r + 1)[0])


def round_agent(r: int, k: int) -> str:
    return "greedy" if r == 0 else f"strong:k={k}"


def play_chunk(
    seed: int, r: int, k: int, weights: np.ndarray, start: int, stop: int, rules=None
) -> tuple[Moments, np.ndarray]:
    """Games start..stop-1 of round r under `rules` (None: v1.1): their moments and score sheets
    int32[G, 4, SC_LEN]."""
    tb = tables_for(load_rules(RULES if rules is None else rules), PLAYERS)
    seeds = game_seeds(round_seed(seed, r), start, stop)
    prms = np.tile(rows([parse_agent(round_agent(r, k))] * PLAYERS), (len(seeds), 1, 1))
    m = Moments.zeros()
    scores = np.zeros((len(seeds), PLAYERS, E.SC_LEN), dtype=np.int32)
    vw = readonly_weights(weights)
    selfplay.selfplay_moments(seeds, prms, tb.kernel_args(), vw, scores, m.xtx, m.xty, m.yty, m.count)
    return m, scores


def fit(m: Moments, ridge: float = DEFAULT_RIDGE) -> tuple[np.ndarray, dict]:
    """Ridge weights float64[B, F] (rounded to 9 significant digits) and the fit's figures per bucket
    (boardlab.agents.citywright.selfplay.ridge_fit: no BLAS, the same bits on any machine)."""
    w = np.zeros((TURN_BUCKETS, N_FEATURES))
    r2 = np.zeros(TURN_BUCKETS)
    selfplay.ridge_fit(m.xtx, m.xty, m.yty, m.count, float(ridge), w, r2)
    w = np.array([[float(f"{x:.9g}") for x in row] for row in w])
    return w, {
        "samples": [int(c) for c in m.count],
        "r2": [None if np.isnan(x) else round(float(x), 4) for x in r2],
    }


def command(seed: int, games: tuple[int, ...], k: int, ridge: float, variant: bool = False) -> str:
    """The canonical training command (what decides the weights: not --jobs or --out; under a variant, FILE is
    any file of its rules: the weight file's rules_data)."""
    rules = "--rules FILE " if variant else ""
    return f"citywright train {rules}--seed {seed} --games {','.join(str(g) for g in games)} --k {k} --ridge {ridge:g}"


def out_for(rules) -> Path:
    """Where the weights fitted under `rules` go: the committed file for the official rules, else the cache."""
    key = rules_hash(rules)
    return DEFAULT_OUT if key == official_hash() else cached_weights(key)


TRAINING_SETTINGS = ("seed", "games", "k", "ridge")  # what decides a weight file besides the rules


def trained_with(rules) -> dict | None:
    """The training settings of the weights `weights=auto` plays under `rules` (the committed file under a
    preset, else the cache's file of the rules' hash), None when the cache has none."""
    key = rules_hash(rules)
    path = DEFAULT_OUT if key in preset_hashes() else cached_weights(key)
    try:
        head = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    return {name: head[name] for name in TRAINING_SETTINGS}


def train(
    seed: int,
    games: tuple[int, ...] = DEFAULT_GAMES,
    k: int = STRONG_K,
    ridge: float = DEFAULT_RIDGE,
    jobs: int = 1,
    progress: Callable[[int, int, float, str], None] | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
    rules=None,
) -> dict:
    """Every round of self-play and its fit under `rules` (None or rules equal to v1.1's: the official rules);
    returns the weight file's content (JSON types).

    The chunks play on `jobs` processes of this machine (backend loky) or on a Dask cluster (backend dask,
    at `scheduler`, or a local one); the weights are the same on every backend."""
    games = tuple(int(g) for g in games)
    if not games or any(g < 1 for g in games):
        raise TrainError(f"--games: one positive number of games per round, got {games}")
    if not 1 <= k <= 256:
        raise TrainError(f"--k must be in 1..256, got {k}")
    if not 0 <= ridge < float("inf"):
        raise TrainError(f"--ridge must be >= 0, got {ridge}")
    variant = rules is not None and rules_hash(rules) != official_hash()
    play_rules = rules if variant else None  # the official rules play as before (v1.1 by name)
    total = sum(games)
    done = 0
    t0 = time.perf_counter()
    weights = np.zeros((TURN_BUCKETS, N_FEATURES))
    rounds = []
    for r, n in enumerate(games):
        label = f"round {r} ({round_agent(r, k)})"
        chunks = [(a, min(a + CHUNK, n)) for a in range(0, n, CHUNK)]
        m = Moments.zeros()
        mean_total = 0.0
        for cm, scores in _execute(seed, r, k, weights, chunks, jobs, backend, scheduler, play_rules):
            m.add(cm)
            mean_total += float(scores[:, :, E.SC_TOTAL].sum())
            done += len(scores)
            if progress:
                progress(done, total, done / max(time.perf_counter() - t0, 1e-9), label)
        weights, figures = fit(m, ridge)
        rounds.append(
            {
                "agent": round_agent(r, k),
                "games": n,
                "mean_total": round(mean_total / (n * PLAYERS), 3),
                **figures,
            }
        )
    head = {"version": WEIGHTS_VERSION, "command": command(seed, games, k, ridge), "seed": seed, "rules": RULES}
    if variant:  # named by the rules' hash, as weights=auto looks them up
        key = rules_hash(rules)
        head = {"version": key, "command": command(seed, games, k, ridge, True), "seed": seed, "rules": rules.name}
        head["rules_hash"] = key
    return {
        **head,
        "players": PLAYERS,
        "games": list(games),
        "k": k,
        "ridge": ridge,
        "samples": int(sum(rounds[-1]["samples"])),
        "fit": "ridge per turn bucket on the last round's samples; target: points still to score",
        "turn_buckets": TURN_BUCKETS,
        "features": list(FEATURES),
        "rounds": rounds,
        **({"rules_data": {key: v for key, v in rules.data.items() if key != "name"}} if variant else {}),
        "weights": weights.tolist(),
    }


def _execute(seed, r, k, weights, chunks, jobs, backend="loky", scheduler=None, rules=None):
    """Chunks' results in chunk order (so the sums are the same for any jobs and backend)."""
    if backend == "dask":
        return _execute_dask(seed, r, k, weights, chunks, scheduler, rules)
    if jobs == 1:
        return (play_chunk(seed, r, k, weights, a, b, rules) for a, b in chunks)
    from joblib import Parallel, delayed

    return Parallel(n_jobs=jobs, return_as="generator", batch_size=1)(
        delayed(play_chunk)(seed, r, k, weights, a, b, rules) for a, b in chunks
    )


def _execute_dask(seed, r, k, weights, chunks, scheduler, rules=None):
    from dask.distributed import Client

    try:
        client = (
            Client(scheduler, timeout="20s") if scheduler else Client(processes=True, n_workers=2, threads_per_worker=1)
        )
    except (OSError, TimeoutError) as e:
        raise TrainError(f"--scheduler: cannot reach {scheduler}: {e}") from None
    try:
        n = len(chunks)
        futures = client.map(
            play_chunk, [seed] * n, [r] * n, [k] * n, [weights] * n, [a for a, _ in chunks], [b for _, b in chunks],
            [rules] * n, pure=False,
        )  # fmt: skip
        for f in futures:  # in chunk order
            yield f.result()
    finally:
        client.close()


def write(content: dict, out: Path) -> None:
    """The weight file: metadata first, one line per turn bucket's weights, written atomically."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)  # the weight cache's folder, on first use
    head = {key: v for key, v in content.items() if key != "weights"}
    text = json.dumps(head, indent=1)[:-2] + ',\n "weights": [\n'
    text += ",\n".join("  " + json.dumps(row) for row in content["weights"]) + "\n ]\n}\n"
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(out)


def _trainer():
    from boardlab.experiments.train import Trainer

    return Trainer(
        what="the strong agent's learned value (4 players, v1.1 or --rules)",
        train=train,
        write=write,
        default_out=DEFAULT_OUT,
        default_k=STRONG_K,
        error=TrainError,
        out_for=out_for,
        default_ridge=DEFAULT_RIDGE,
        trained_with=trained_with,
    )


TRAINER = _trainer()  # boardlab train (boardlab.sim.games.GameDef.trainer)
