"""Fitting Cartographers' ``strong`` value (boardlab.agents.cartographers.value): ``boardlab train --game cartographers``.

Rounds of self-play at four players under ``base-a``.  Round 0 is played by ``planner`` in every seat;
each later round by ``strong`` in every seat with the weights the round before produced.  Every decision
gives a sample for the map it draws on: the features of that map after the move, and the points its
owner still went on to score beyond the planner's value of it (:mod:`boardlab.agents.cartographers.selfplay`).
A round's samples are summed into least-squares moments per bucket (season and half of it) and the
weights are the ridge solution of the last round's moments::

    w[b] = (X'X + ridge * diag(X'X) + 1e-6 I)^-1 X'y        per bucket b

(ridge is relative to each feature's own scale; the small absolute term keeps a feature that never
occurs, such as a card's potentials in a bucket where it is never scored again, at weight 0).

**Deterministic given the seed, on any number of processes.**  Game g of round r has the seed
``game_seeds(round_seed(seed, r), g, g + 1)``; a round is cut into chunks of ``CHUNK`` games whatever the
number of jobs, and the chunks' moments are added in chunk order.  Every feature and target is a small
integer, so the moments are exact integer sums in float64 whatever their order; the solve is numpy's
(LAPACK) and the weights are rounded to 9 significant digits before they are written or used, so the
same command writes the same file.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from boardlab.agents.cartographers import selfplay
from boardlab.agents.cartographers.registry import parse_agent, rows
from boardlab.agents.cartographers.strong import STRONG_K, WEIGHTS_VERSION, workspace
from boardlab.agents.cartographers.value import BUCKETS, FEATURES, N_FEATURES, WEIGHTS_DIR
from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.rules import load_rules
from boardlab.sim.cartographers.tables import tables_for
from boardlab.sim.seeds import game_seeds

CHUNK = 200  # games per unit of work (fixes the order of the sums)
PLAYERS = 4
RULES = "base-a"
DEFAULT_GAMES = (10_000, 10_000, 10_000)  # round 0 (planner), rounds 1, 2 (strong with the previous weights)
DEFAULT_RIDGE = 1e-3
DEFAULT_OUT = WEIGHTS_DIR / f"{WEIGHTS_VERSION}.json"


class TrainError(ValueError):
    """Bad training parameters (one line)."""


def round_seed(seed: int, r: int) -> int:
    """The run seed of round r's games (a SplitMix64 output of the training seed)."""
    return int(game_seeds(seed, r, r + 1)[0])


def round_agent(r: int, k: int) -> str:
    return "planner" if r == 0 else f"strong:k={k}"


def _zeros() -> dict:
    b, f = BUCKETS, N_FEATURES
    return {"xtx": np.zeros((b, f, f)), "xty": np.zeros((b, f)), "yty": np.zeros(b), "count": np.zeros(b, np.int64)}


def play_chunk(seed: int, r: int, k: int, weights: np.ndarray, start: int, stop: int) -> tuple[dict, np.ndarray]:
    """Games start..stop-1 of round r: their moments and score sheets int32[G, 4, SC_LEN]."""
    tb = tables_for(load_rules(RULES), PLAYERS)
    seeds = game_seeds(round_seed(seed, r), start, stop)
    prms = np.tile(rows([parse_agent(round_agent(r, k))] * PLAYERS), (len(seeds), 1, 1))
    m = _zeros()
    scores = np.zeros((len(seeds), PLAYERS, E.SC_LEN), dtype=np.int32)
    vw = np.ascontiguousarray(weights, dtype=np.float64)
    selfplay.selfplay_moments(
        seeds, prms, *tb.kernel_args(), vw, workspace(), scores, m["xtx"], m["xty"], m["yty"], m["count"]
    )
    return m, scores


def fit(m: dict, ridge: float = DEFAULT_RIDGE) -> tuple[np.ndarray, dict]:
    """Ridge weights float64[BUCKETS, N_FEATURES] (rounded to 9 significant digits) and each bucket's R^2."""
    w = np.zeros((BUCKETS, N_FEATURES))
    r2 = []
    for b in range(BUCKETS):
        xtx, xty, yty, c = m["xtx"][b], m["xty"][b], m["yty"][b], int(m["count"][b])
        if c == 0:
            r2.append(None)
            continue
        a = xtx + ridge * np.diag(np.diag(xtx)) + 1e-6 * np.eye(N_FEATURES)
        w[b] = [float(f"{x:.9g}") for x in np.linalg.solve(a, xty)]
        mean = xty[0] / c  # feature 0 is the constant 1
        sst = yty - c * mean * mean
        sse = yty - 2 * w[b] @ xty + w[b] @ xtx @ w[b]
        r2.append(round(float(1 - sse / sst), 4) if sst > 0 else None)
    return w, {"samples": [int(c) for c in m["count"]], "r2": r2}


def command(seed: int, games: tuple[int, ...], k: int, ridge: float) -> str:
    """The canonical training command (what decides the weights: not --jobs or --out)."""
    g = ",".join(str(x) for x in games)
    return f"boardlab train --game cartographers --seed {seed} --games {g} --k {k} --ridge {ridge:g}"


def train(
    seed: int,
    games: tuple[int, ...] = DEFAULT_GAMES,
    k: int = STRONG_K,
    ridge: float = DEFAULT_RIDGE,
    jobs: int = 1,
    progress: Callable[[int, int, float, str], None] | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
) -> dict:
    """Every round of self-play and its fit; returns the weight file's content (JSON types)."""
    games = tuple(int(g) for g in games)
    if not games or any(g < 1 for g in games):
        raise TrainError(f"--games: one positive number of games per round, got {games}")
    if not 1 <= k <= 256:
        raise TrainError(f"--k must be in 1..256, got {k}")
    if not 0 <= ridge < float("inf"):
        raise TrainError(f"--ridge must be >= 0, got {ridge}")
    if backend != "loky":
        raise TrainError(f"--backend: Cartographers' training runs on local processes only (loky), got {backend}")
    total = sum(games)
    done = 0
    t0 = time.perf_counter()
    weights = np.zeros((BUCKETS, N_FEATURES))
    rounds = []
    for r, n in enumerate(games):
        label = f"round {r} ({round_agent(r, k)})"
        chunks = [(a, min(a + CHUNK, n)) for a in range(0, n, CHUNK)]
        m = _zeros()
        mean_total = 0.0
        for cm, scores in _execute(seed, r, k, weights, chunks, jobs):
            for key in m:
                m[key] += cm[key]
            mean_total += float(scores[:, :, E.SC_TOTAL].sum())
            done += len(scores)
            if progress:
                progress(done, total, done / max(time.perf_counter() - t0, 1e-9), label)
        weights, figures = fit(m, ridge)
        rounds.append(
            {"agent": round_agent(r, k), "games": n, "mean_total": round(mean_total / (n * PLAYERS), 3), **figures}
        )
    return {
        "version": WEIGHTS_VERSION,
        "command": command(seed, games, k, ridge),
        "seed": seed,
        "rules": RULES,
        "players": PLAYERS,
        "games": list(games),
        "k": k,
        "ridge": ridge,
        "samples": int(sum(rounds[-1]["samples"])),
        "fit": "ridge per bucket (2 x season + second half) on the last round's samples; target: points still"
        " to score beyond the planner's value of the map after the move",
        "buckets": BUCKETS,
        "features": list(FEATURES),
        "rounds": rounds,
        "weights": weights.tolist(),
    }


def _execute(seed, r, k, weights, chunks, jobs):
    """Chunks' results in chunk order (so the sums are the same for any jobs)."""
    if jobs == 1:
        return (play_chunk(seed, r, k, weights, a, b) for a, b in chunks)
    from joblib import Parallel, delayed

    return Parallel(n_jobs=jobs, return_as="generator", batch_size=1)(
        delayed(play_chunk)(seed, r, k, weights, a, b) for a, b in chunks
    )


def write(content: dict, out: Path) -> None:
    """The weight file: metadata first, one line per bucket's weights, written atomically."""
    out = Path(out)
    head = {key: v for key, v in content.items() if key != "weights"}
    text = json.dumps(head, indent=1)[:-2] + ',\n "weights": [\n'
    text += ",\n".join("  " + json.dumps(row) for row in content["weights"]) + "\n ]\n}\n"
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(out)


def _trainer():
    from boardlab.experiments.train import Trainer

    return Trainer(
        what="the strong agent's learned value (4 players, base-a)",
        train=train,
        write=write,
        default_out=DEFAULT_OUT,
        default_k=STRONG_K,
        error=TrainError,
    )


TRAINER = _trainer()  # boardlab train (boardlab.sim.games.GameDef.trainer)
