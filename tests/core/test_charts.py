"""The charts' whiskers: lengths from an interval's bounds to its estimate, never negative."""

from __future__ import annotations

import numpy as np
import pandas as pd

from boardlab.experiments.charts import whiskers


def test_whiskers_are_the_distances_to_the_bounds():
    t = pd.DataFrame({"v": [0.5, 0.2], "lo": [0.25, 0.0], "hi": [0.75, 0.7]})
    assert np.allclose(whiskers(t, "v"), [[0.25, 0.2], [0.25, 0.5]])


def test_a_bound_on_the_wrong_side_gives_no_whisker():
    t = pd.DataFrame({"v": [0.0, 0.5, 0.5], "a": [2.776e-17, 0.4, 0.6], "b": [0.35, 0.45, 0.9]})
    w = whiskers(t, "v", "a", "b")
    assert (w >= 0).all()
    assert np.allclose(w, [[0.0, 0.1, 0.0], [0.35, 0.0, 0.4]])


def test_a_missing_value_stays_missing():
    t = pd.DataFrame({"v": [np.nan, 0.5], "lo": [0.1, 0.4], "hi": [0.2, 0.6]})
    w = whiskers(t, "v")
    assert np.isnan(w[:, 0]).all() and np.allclose(w[:, 1], [0.1, 0.1])
