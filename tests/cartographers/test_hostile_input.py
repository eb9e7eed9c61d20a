"""The hostile-input table's cases of Cartographers (tests/core/test_hostile_input.py: each case is of the game its
command line plays), run here, where its kernels are compiled anyway."""

from __future__ import annotations

import pytest

from tests.core.conftest import InterruptedRuns
from tests.core.test_hostile_input import Case, case_params, check_case


@pytest.fixture
def run_files():
    """Interrupted runs of Pig (tests/core/conftest.py); locks it holds are released at the end."""
    runs = InterruptedRuns()
    yield runs
    runs.release_all()


@pytest.mark.parametrize("case", case_params(["cartographers"]))
def test_a_hostile_input_gets_its_promised_answer(case: Case, tmp_path, capsys, monkeypatch, run_files):
    check_case(case, tmp_path, capsys, monkeypatch, run_files, None)
