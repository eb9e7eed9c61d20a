"""The chunk executor (boardlab.experiments.executor) and the self-play training skeleton
(boardlab.experiments.train.SelfPlay) on a toy game of plain numpy: no kernel to compile."""

from __future__ import annotations

import functools
import json
import operator
from pathlib import Path

import numpy as np
import pytest

from boardlab.experiments.executor import map_chunks
from boardlab.experiments.train import Moments, SelfPlay, TrainError, chunks, round9, round_seed, write_weights
from boardlab.sim.seeds import game_seeds

# --- the executor ----------------------------------------------------------------------------------------------


def test_map_chunks_gives_chunk_order_in_process_and_on_two_processes():
    triple = functools.partial(operator.mul, 3)
    want = [3 * i for i in range(9)]
    assert list(map_chunks(triple, range(9))) == want
    assert list(map_chunks(triple, range(9), jobs=2)) == want


def test_map_chunks_unordered_gives_every_result_once_and_reports_each():
    seen = []
    got = list(
        map_chunks(operator.neg, iter(range(7)), jobs=2, ordered=False, progress=lambda c, r: seen.append((c, r)))
    )
    assert sorted(got) == sorted(-i for i in range(7))
    assert sorted(seen) == [(i, -i) for i in range(7)]


def test_map_chunks_refuses_an_unknown_backend_before_any_work():
    calls = []
    with pytest.raises(ValueError, match="--backend must be loky or dask, got 'spark'"):
        map_chunks(calls.append, range(3), backend="spark")
    assert not calls


def test_chunks_are_fixed_size_whatever_the_total():
    assert list(chunks(25, 10)) == [(0, 10), (10, 20), (20, 25)]
    assert list(chunks(10, 10)) == [(0, 10)]


# --- the skeleton on a toy game --------------------------------------------------------------------------------
# A "game" whose samples are a function of its seeds: x = (1, s mod 7, s mod 5), y = 2 + 3 x1 - x2 (exactly linear),
# so a ridge of 0 recovers (2, 3, -1).  Round 1's samples shift by the weights round 0 produced, so a round that
# got the wrong weights changes the file.


def _toy_play(rules, agent, weights, seeds, m: Moments) -> np.ndarray:
    s = seeds.astype(np.int64)
    x = np.stack([np.ones(len(s)), s % 7, s % 5], axis=1)
    y = 2 + 3 * x[:, 1] - x[:, 2] + (0 if agent == "base" else np.round(weights[0]))
    m.xtx += x.T @ x
    m.xty += x.T @ y
    m.yty += y @ y
    m.count += len(s)
    return np.tile(y[:, None], (1, 2)).astype(np.int64)


TOY = SelfPlay(
    name="Toys",
    command="toy train",
    what="a toy value",
    play=_toy_play,
    round_agent=lambda r, k: "base" if r == 0 else f"search:k={k}",
    load_rules=lambda rules: rules,
    rules="plain",
    players=2,
    chunk=10,
    features=("bias", "a", "b"),
    buckets=None,
    version="toy-v1",
    weights_dir=Path("/nonexistent"),
    default_games=(25, 25),
    default_k=2,
)


def test_the_skeleton_sums_every_chunk_and_fits_the_last_round():
    progress = []
    content = TOY.train(4, (25, 23), ridge=0.0, progress=lambda *a: progress.append(a))
    assert content["command"] == "toy train --seed 4 --games 25,23 --k 2 --ridge 0"
    assert [r["agent"] for r in content["rounds"]] == ["base", "search:k=2"]
    assert content["samples"] == content["rounds"][1]["samples"] == 23  # the last round's, one set (no buckets)
    w = np.array(content["weights"])
    assert np.allclose(w, [4, 3, -1], atol=1e-4)  # round 1 adds round 0's bias, 2
    assert all(float(f"{x:.9g}") == x for x in w)
    assert content["rounds"][1]["r2"][0] == pytest.approx(1.0)
    # progress after every chunk: 25 games in 3 chunks, then 23 in 3; the label names the round
    assert [(d, t) for d, t, _, _ in progress] == [(10, 48), (20, 48), (25, 48), (35, 48), (45, 48), (48, 48)]
    assert progress[-1][3] == "round 1 (search:k=2)"


def test_the_skeleton_fits_the_same_moments_as_one_pass_over_all_games():
    """Chunking changes nothing: the toy round's moments in chunks of 10 equal one chunk of every game."""
    whole = Moments.zeros(3)
    TOY.play(None, "base", None, game_seeds(round_seed(4, 0), 0, 25), whole)
    w, figures = TOY.fit(whole, 0.0)
    assert TOY.train(4, (25,), ridge=0.0)["weights"] == w.tolist()
    assert figures["samples"] == 25


def test_bad_options_are_one_line_errors_before_any_game():
    played = []
    toy = SelfPlay(**{**TOY.__dict__, "play": lambda *a: played.append(a)})
    for kwargs, message in [
        ({"games": (3, 0)}, "--games: one positive number of games per round"),
        ({"k": 300}, "--k must be in 1..256"),
        ({"ridge": -1.0}, "--ridge must be >= 0"),
        ({"backend": "dask"}, "--backend: Toys' training runs on local processes only (loky)"),
        ({"rules": "other"}, "--rules: Toys' training fits its weights under its default rules only"),
    ]:
        with pytest.raises(TrainError, match=message.replace("(", r"\(").replace(")", r"\)")):
            toy.train(1, **kwargs)
    assert not played


def test_round9_and_the_weight_file_written_whole(tmp_path):
    assert round9(np.array([[1 / 3, 2e-12]])).tolist() == [[0.333333333, 2e-12]]
    content = {"version": "toy-v1", "command": "toy train", "weights": [[0.5, 1.0], [2.0, -3.0]]}
    out = tmp_path / "new" / "w.json"  # a missing folder is created (a weight cache on first use)
    write_weights(content, out)
    assert json.loads(out.read_text()) == content
    assert out.read_text().endswith(' "weights": [\n  [0.5, 1.0],\n  [2.0, -3.0]\n ]\n}\n')
    assert [p.name for p in out.parent.iterdir()] == ["w.json"]  # no temporary file left
