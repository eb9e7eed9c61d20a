"""The flat arrays' layouts (boardlab.sim.layout): every field has its own entries, one after another."""

from __future__ import annotations

import pytest

from boardlab.agents.citywright import kernels as K
from boardlab.agents.citywright import play as P
from boardlab.agents.citywright import value as V
from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright import tables as T
from boardlab.sim.layout import Layout

LAYOUTS = (*T.LAYOUTS, *E.LAYOUTS, *K.LAYOUTS, *P.LAYOUTS, *V.LAYOUTS)


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda lay: lay.name)
def test_layout_is_contiguous_and_non_overlapping(layout):
    at = 0
    for name, offset, size in layout.fields:
        assert offset == at, f"{layout.name}.{name} starts at {offset}, the previous field ends at {at}"
        assert size >= 1
        at += size
    assert at == layout.size


def test_lengths_match_the_layouts():
    assert (T.RP_LEN, T.SHP_LEN, T.PL_LEN, T.ACH_LEN) == tuple(lay.size for lay in T.LAYOUTS)
    assert (E.ST_LEN, E.MV_LEN, E.SC_LEN, E.N_STATS) == tuple(lay.size for lay in E.LAYOUTS)
    assert (K.P_LEN, K.WU_LEN, K.WI_LEN, K.WF_LEN) == tuple(lay.size for lay in K.LAYOUTS)
    assert P.LOG_LEN == P.LAYOUTS[0].size
    assert V.N_FEATURES == V.LAYOUTS[0].size == len(V.FEATURES)


def test_score_sheet_districts_are_the_district_indices():
    # final_scores reads a district's points as out[p, d]
    assert (E.SC_R, E.SC_C, E.SC_P, E.SC_I) == (0, 1, 2, 3)


def test_layout_rejects_empty_fields():
    with pytest.raises(ValueError):
        Layout("x").add("nothing", 0)
