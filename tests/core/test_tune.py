"""`tune scoring`'s pieces that need no game: CMA restarts, the false-prune rate, the early stop and the race, the
settings' defaults; and the helpers that build a study's settings (:func:`tune_settings`, :func:`tune_spec`).  The
command itself tunes Citywright's scoring in tests/citywright/test_tune_scoring.py (a known answer by its seat
compensation, resume, placeholders, seat games, tiers, --train), Cartographers' in its folder."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from boardlab.experiments import tuning as T


def tune_settings(base, params, objective, players, agents, games, blocks, seed, *, game, **kw) -> T.TuneSettings:
    """A study's settings; each keyword goes to the part that has it (Target, Play or Search), a list as a tuple."""
    parts = {
        T.Target: {"base": base, "params": tuple(params), "objective": objective},
        T.Play: {"game": game, "players": players, "agents": tuple(agents), "games": games},
        T.Search: {"blocks": blocks, "seed": seed},
    }
    owner = {f.name: part for part in parts for f in dataclasses.fields(part)}
    for key, value in kw.items():
        parts[owner[key]][key] = tuple(value) if isinstance(value, list) else value
    return T.TuneSettings(*(part(**fields) for part, fields in parts.items()))


def tune_spec(*args, **kw) -> T.TuneSpec:
    """make_tune_spec of :func:`tune_settings`."""
    return T.make_tune_spec(tune_settings(*args, **kw))


def test_cma_restarts_when_a_run_stops_improving():
    class Trial:
        def __init__(self, value, invalid=False):
            self.user_attrs = {"value": value, **({"invalid": "x"} if invalid else {})}

    values = [50, 40, 45, 41, 42, 40, 90, 30, 31, 32]  # run 0 stalls after 40: 4 trials without a better one
    runs = T.restarts([Trial(v) for v in values], patience=4)
    assert runs == [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]  # run 1 starts at the 7th trial; the last entry is the next
    assert T.restarts([Trial(1, invalid=True)] * 3, patience=3)[-1] == 1  # invalid rules never improve a run
    assert T.restarts([], patience=3) == [0]


def test_false_prune_rate_exceeds_the_per_look_threshold_only_by_the_repeated_looks():
    one_look = T.false_prune_rate(blocks=7, p=0.05, after=6)  # a single look at 6 blocks
    many = T.false_prune_rate(blocks=10, p=0.05, after=5)
    assert one_look <= 0.05 + 0.005
    assert one_look < many < 0.2
    assert T.false_prune_rate(blocks=10, p=0.0, after=5) == 0.0


def test_the_settings_defaults_are_the_commands():
    """A study built in Python plays as the command does with the same options left out."""
    import inspect

    from boardlab.experiments.cli.tune import tune_scoring

    defaults = {k: p.default for k, p in inspect.signature(tune_scoring).parameters.items()}
    renamed = {"allow_placeholders": "allow_placeholder"}
    checked = 0
    for part in (T.Target, T.Play, T.Search, T.Session):
        for f in dataclasses.fields(part):
            option = renamed.get(f.name, f.name)
            if f.default is dataclasses.MISSING or option not in defaults or f.name in ("out", "work"):
                continue
            assert defaults[option] == (None if f.default == () else f.default), (part, f.name)  # None: none given
            checked += 1
    assert checked >= 15
    assert T.Session().out == Path("runs/tune-scoring") and T.Session().runs == Path("runs/tune-scoring/runs")


def test_early_stop_compares_pooled_values_in_standard_errors_of_the_paired_difference():
    assert T.early_stop([10.0], [1.0], 10.0, 1.0, 3.0) == ""  # one block: never
    assert T.early_stop([10.0, 12.0], [1.0, 2.0], 11.0, 1.5, 3.0).startswith("stopped after 2 blocks")
    assert T.early_stop([10.0, 12.0], [1.0, 2.0], 11.0, 1.5, 0.0) == ""  # --stop-z 0: off
    assert T.early_stop([5.0, 1.0], [1.0, 5.0], 3.0, 3.0, 3.0) == ""  # as good: the gap is 0
    # differences 4 and -2: mean 1, se 3; a pooled gap of 8 is 2.7 se (go on), of 10 is 3.3 se (stop)
    assert T.early_stop([5.0, 1.0], [1.0, 3.0], 9.0, 1.0, 3.0) == ""
    assert "3.3 standard errors" in T.early_stop([5.0, 1.0], [1.0, 3.0], 11.0, 1.0, 3.0)
    rate = T.false_stop_rate(10, 3.0)
    assert T.false_stop_rate(10, 0.0) == 0.0 and 0 < T.false_stop_rate(10, 5.0) < rate < 0.5


def test_sequential_stop_races_a_clearly_better_trial_and_one_within_the_margin():
    worse = ([5.0, 1.0], [1.0, 3.0], 11.0, 1.0, 3.0)  # 3.3 standard errors above the best
    assert T.sequential_stop(*worse) == ("worse", T.early_stop(*worse))
    assert T.sequential_stop(*worse, margin=50.0)[0] == "worse"
    # differences -4 and 2: se 3; a pooled gap of -10 is 3.3 se below the best: better, only in a race
    better = ([1.0, 3.0], [5.0, 1.0], 1.0, 11.0, 3.0)
    assert T.sequential_stop(*better) == ("", "")
    kind, why = T.sequential_stop(*better, margin=50.0)
    assert kind == "better" and why.startswith("raced after 2 blocks") and "3.3 standard errors" in why
    # a gap of -1 ± 9 lies inside ±12, not inside ±9
    near = ([1.0, 3.0], [5.0, 1.0], 10.0, 11.0, 3.0)
    assert T.sequential_stop(*near, margin=12.0)[0] == "equivalent"
    assert T.sequential_stop(*near, margin=9.0) == ("", "")
    assert T.sequential_stop([2.0, 3.0], [2.0, 3.0], 2.5, 2.5, 3.0, margin=1.0)[0] == "equivalent"  # the same


def test_race_error_rates_are_the_early_stops_mirrored_and_small_at_the_margin():
    plain = T.stop_rates(10, 3.0)
    assert plain["worse"] == T.false_stop_rate(10, 3.0) and plain["better"] == plain["equivalent"] == 0.0
    raced = T.stop_rates(10, 3.0, 0.0, 1.0)
    assert abs(raced["better"] - raced["worse"]) < 0.01 and raced["worse"] <= plain["worse"]
    assert T.stop_rates(10, 3.0, 5.0, 5.0)["worse"] > 0.99  # far off the best: stopped as worse, not equivalent
    assert 0.03 < T.false_equivalence_rate(10, 3.0) < 0.08
    assert T.false_equivalence_rate(10, 4.0) < T.false_equivalence_rate(10, 3.0)
