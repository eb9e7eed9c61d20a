"""Fixtures of Citywright's tests: `result_files`, small Citywright result files (tests/result_files.py) for the
tests of its seat compensation (``tune seats``) and rescorer (``rescore``) over several files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.result_files import ResultFiles


@pytest.fixture(scope="session")
def _result_sources(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("citywright-result-sources")


@pytest.fixture
def result_files(_result_sources) -> ResultFiles:
    """Small Citywright result files (rules v1.1; greedy against greedy, or against random), each source run
    played once per session."""
    return ResultFiles(_result_sources, "citywright", "v1.1", "greedy", "random")
