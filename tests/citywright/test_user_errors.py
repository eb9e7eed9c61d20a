"""The user-error table's cases that read a Citywright result file (tests/core/test_user_errors.py holds the table):
one line, exit code 2, nothing written; run here, where Citywright's kernels are compiled anyway."""

from __future__ import annotations

import pytest

from tests.core.test_user_errors import CASES, COMMANDS, check_case, make_stored, paths, reads_citywright_files

__all__ = ["paths"]  # the fixture, taking this module's `stored`

CITYWRIGHT = [(c, k) for c, k in CASES if reads_citywright_files(COMMANDS[c][k])]


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """Citywright's and Pig's result files, Citywright's damaged copies and a playtest board (made once)."""
    return make_stored(tmp_path_factory.mktemp("stored"), citywright=True)


@pytest.mark.parametrize(("command", "case"), CITYWRIGHT, ids=[f"{c}: {k}" for c, k in CITYWRIGHT])
def test_a_user_error_is_one_line_exit_2_and_writes_nothing(command, case, paths, capsys):
    check_case(command, case, paths, capsys)
