"""`boardlab summary` of a Citywright run: its own columns are the numeric ones of its result schema."""

from __future__ import annotations

import pandas as pd
import pytest

from boardlab.experiments import summary as M
from boardlab.sim.games import get_game


def test_citywright_own_columns_are_its_schemas_numeric_ones(tmp_path, result_files):
    path = result_files.run_file(tmp_path)  # 40 games of greedy against greedy, seat order fixed
    gid, games, t = M.read_summary([path])
    assert (gid, games) == ("citywright", 40)
    schema = get_game("citywright").require("schema")
    df = pd.read_parquet(path)
    own = [f.name for f in schema if f.name not in M.CORE_COLUMNS and M._numeric(df[f.name])]
    assert list(dict.fromkeys(t["columns"]["column"])) == own and "residential" in own
    seat1 = t["seats"].set_index("seat").loc[1]
    assert seat1["win_share"] == pytest.approx(df[df.seat == 1].win_share.mean())
