"""results/tune-samplers/tune_samplers.py, the sampler measurement behind `tune scoring`, runs on a small table."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pandas as pd

from tests.cli import cli

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "results" / "tune-samplers" / "tune_samplers.py"


def _load():
    spec = importlib.util.spec_from_file_location("tune_samplers", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_sampler_measurement_runs_and_each_best_only_improves(tmp_path, capsys):
    runs = tmp_path / "spec.parquet"
    agents = "specialist:R,specialist:C,specialist:P,specialist:I"
    code, _, err = cli(capsys, "simulate", "--players", 4, "--agents", agents, "--games", 40, "--out", runs, "--quiet")
    assert code == 0, err
    ts = _load()
    table = ts.main(str(runs), trials=60, seeds=1)
    out = capsys.readouterr().out
    assert "median best loss" in out
    assert sorted(table["sampler"]) == ["cmaes", "random", "tpe"]
    rules = ts.load_rules("v1.1")
    surrogate = ts.Surrogate(pd.read_parquet(runs), rules, ts.T.parse_params(ts.PARAMS, rules))
    base_loss = surrogate({p.name: p.base for p in surrogate.params})
    for _, row in table.iterrows():
        b30, b60 = row["best@30"], row["best@60"]
        assert math.isfinite(b30) and b60 <= b30 <= base_loss  # trial 0 is the base; a best never worsens
