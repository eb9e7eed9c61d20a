"""The tests tests/core runs for every registered game, run here for Citadels (tests/per_game.py): the conformance
checks, the parts of the plugin contract, the information spies and boardlab.testing.check_game; and of the command
line's tests, its analysis parts (demo at each player count is not adopted here); its results page and agents table."""

from __future__ import annotations

from tests.core import test_conformance, test_docs, test_game_parts, test_games, test_information
from tests.core.test_cli import test_every_games_analysis_parts_resolve_and_name_its_columns  # noqa: F401
from tests.per_game import adopt

for _module in (test_games, test_conformance, test_game_parts, test_information, test_docs):
    adopt(globals(), _module, "citadels")
