"""The tests tests/core runs for every registered game, run here for Citadels (tests/per_game.py): the conformance
checks, the parts of the plugin contract, the information spies and boardlab.testing.check_game."""

from __future__ import annotations

from tests.core import test_conformance, test_game_parts, test_games, test_information
from tests.per_game import adopt

for _module in (test_games, test_conformance, test_game_parts, test_information):
    adopt(globals(), _module, "citadels")
