"""Fitting Citadels' ``strong`` value (boardlab.agents.citadels.strong): ``boardlab train --game citadels``.

Rounds of self-play at four players under the official rules.  Round 0 is played by ``basic`` in every
seat; each later round by ``strong`` in every seat with the weights the round before produced.  Every
decision gives a sample: the features of the position after the move, for the seat that moved
(:func:`boardlab.agents.citadels.strong.features`, read on the true position -- they read only what the seat sees;
the self-play kernel is :func:`boardlab.agents.citadels.selfplay.selfplay_moments`);
its target is that seat's final score margin over its best rival (its total minus the best other total).
A round's samples are summed into least-squares moments and the weights are the ridge solution of the last
round's moments::

    w = (X'X + ridge * diag(X'X) + 1e-6 I)^-1 X'y

(ridge is relative to each feature's own scale; the small absolute term keeps a feature that never occurs
at weight 0).

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

from boardlab.agents.citadels import strong as S
from boardlab.agents.citadels.registry import parse_agent, strong_row
from boardlab.agents.citadels.selfplay import selfplay_moments
from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels.rules import load_rules
from boardlab.sim.citadels.tables import tables_for
from boardlab.sim.seeds import game_seeds

CHUNK = 250  # games per unit of work (fixes the order of the sums)
PLAYERS = 4
RULES = "official"
DEFAULT_GAMES = (10_000, 10_000)  # round 0 (basic), round 1 (strong with round 0's weights)
DEFAULT_RIDGE = 1e-3
EXPLORE = 0.25  # the share of picks made at random in self-play (boardlab.agents.citadels.selfplay)
DEFAULT_OUT = S.WEIGHTS_DIR / f"{S.WEIGHTS_VERSION}.json"


class TrainError(ValueError):
    """Bad training parameters (one line)."""


# --- the rounds and the fit ----------------------------------------------------------------------------------
def round_seed(seed: int, r: int) -> int:
    """The run seed of round r's games (a SplitMix64 output of the training seed)."""
    return int(game_seeds(seed, r, r + 1)[0])


def round_agent(r: int) -> str:
    return "basic" if r == 0 else "strong"


def _round_row(r: int, weights: np.ndarray) -> np.ndarray:
    return parse_agent("basic").row() if r == 0 else strong_row(weights)


def play_chunk(seed: int, r: int, weights: np.ndarray, start: int, stop: int) -> tuple[dict, np.ndarray]:
    """Games start..stop-1 of round r: their moments and score sheets int32[G, 4, SC_LEN]."""
    tb = tables_for(load_rules(RULES), PLAYERS)
    seeds = game_seeds(round_seed(seed, r), start, stop)
    rows = _round_row(r, weights)[None, :]
    seats = np.zeros((len(seeds), PLAYERS), dtype=np.int64)
    f = S.N_FEATURES
    m = {"xtx": np.zeros((f, f)), "xty": np.zeros(f), "yty": np.zeros(1), "count": np.zeros(1, dtype=np.int64)}
    scores = np.zeros((len(seeds), PLAYERS, E.SC_LEN), dtype=np.int32)
    selfplay_moments(seeds, *tb.kernel_args(), rows, seats, EXPLORE, scores, m["xtx"], m["xty"], m["yty"], m["count"])
    return m, scores


def fit(m: dict, ridge: float = DEFAULT_RIDGE) -> tuple[np.ndarray, dict]:
    """Ridge weights float64[N_FEATURES] (rounded to 9 significant digits) and the fit's R^2."""
    xtx, xty = m["xtx"], m["xty"]
    a = xtx + ridge * np.diag(np.diag(xtx)) + 1e-6 * np.eye(len(xty))
    w = np.linalg.solve(a, xty)
    w = np.array([float(f"{x:.9g}") for x in w])
    c = int(m["count"][0])
    mean = xty[S.F_BIAS] / c if c else 0.0
    sst = m["yty"][0] - c * mean * mean
    sse = m["yty"][0] - 2 * w @ xty + w @ xtx @ w
    r2 = 1 - sse / sst if sst > 0 else float("nan")
    return w, {"samples": c, "r2": [None if np.isnan(r2) else round(float(r2), 4)]}


def command(seed: int, games: tuple[int, ...], ridge: float) -> str:
    """The canonical training command (what decides the weights: not --jobs or --out)."""
    return f"boardlab train --game citadels --seed {seed} --games {','.join(str(g) for g in games)} --ridge {ridge:g}"


def train(
    seed: int,
    games: tuple[int, ...] = DEFAULT_GAMES,
    k: int = 1,
    ridge: float = DEFAULT_RIDGE,
    jobs: int = 1,
    progress: Callable[[int, int, float, str], None] | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
) -> dict:
    """Every round of self-play and its fit; returns the weight file's content (JSON types).  strong has no k:
    only k = 1 is accepted."""
    games = tuple(int(g) for g in games)
    if not games or any(g < 1 for g in games):
        raise TrainError(f"--games: one positive number of games per round, got {games}")
    if k != 1:
        raise TrainError(f"--k: Citadels' strong searches no k best moves (only 1 is accepted), got {k}")
    if not 0 <= ridge < float("inf"):
        raise TrainError(f"--ridge must be >= 0, got {ridge}")
    if backend != "loky":
        raise TrainError(f"--backend: Citadels' training runs on local processes only (loky), got {backend}")
    total = sum(games)
    done = 0
    t0 = time.perf_counter()
    weights = np.zeros(S.N_FEATURES)
    rounds = []
    for r, n in enumerate(games):
        label = f"round {r} ({round_agent(r)})"
        chunks = [(a, min(a + CHUNK, n)) for a in range(0, n, CHUNK)]
        f = S.N_FEATURES
        m = {"xtx": np.zeros((f, f)), "xty": np.zeros(f), "yty": np.zeros(1), "count": np.zeros(1, dtype=np.int64)}
        mean_total = 0.0
        for cm, scores in _execute(seed, r, weights, chunks, jobs):
            for key in m:
                m[key] += cm[key]
            mean_total += float(scores[:, :, E.SC_TOTAL].sum())
            done += len(scores)
            if progress:
                progress(done, total, done / max(time.perf_counter() - t0, 1e-9), label)
        weights, figures = fit(m, ridge)
        rounds.append({"agent": round_agent(r), "games": n, "mean_total": round(mean_total / (n * PLAYERS), 3),
                       **figures})  # fmt: skip
    return {
        "version": S.WEIGHTS_VERSION,
        "command": command(seed, games, ridge),
        "seed": seed,
        "rules": RULES,
        "players": PLAYERS,
        "games": list(games),
        "ridge": ridge,
        "explore": EXPLORE,
        "samples": rounds[-1]["samples"],
        "fit": "ridge on the last round's pick samples (features after the pick); target: final score margin over"
        " the best rival",
        "features": list(S.FEATURES),
        "rounds": rounds,
        "weights": weights.tolist(),
    }


def _execute(seed, r, weights, chunks, jobs):
    """Chunks' results in chunk order (so the sums are the same for any jobs)."""
    if jobs == 1:
        return (play_chunk(seed, r, weights, a, b) for a, b in chunks)
    from joblib import Parallel, delayed

    return Parallel(n_jobs=jobs, return_as="generator", batch_size=1)(
        delayed(play_chunk)(seed, r, weights, a, b) for a, b in chunks
    )


def write(content: dict, out: Path) -> None:
    """The weight file: metadata first, the weights one per line, written atomically."""
    out = Path(out)
    head = {key: v for key, v in content.items() if key != "weights"}
    text = json.dumps(head, indent=1)[:-2] + ',\n "weights": [\n'
    text += ",\n".join(f"  {json.dumps(w)}" for w in content["weights"]) + "\n ]\n}\n"
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(out)


def _trainer():
    from boardlab.experiments.train import Trainer

    return Trainer(
        what="the strong agent's learned value (4 players, official)",
        train=train,
        write=write,
        default_out=DEFAULT_OUT,
        default_k=1,
        error=TrainError,
    )


TRAINER = _trainer()  # boardlab train (boardlab.sim.games.GameDef.trainer)
