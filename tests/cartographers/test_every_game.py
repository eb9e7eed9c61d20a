"""The tests tests/core runs for every registered game, run here for Cartographers (tests/per_game.py): the conformance
checks, the parts of the plugin contract, the information spies and boardlab.testing.check_game; and those it runs
for the games that have the part they test: demo at each player count, the bench's simulate figures, a user's agent
beside built-in ones, ismcts in the game, the move families of restricted play, the agent specs of its registry,
and its results page."""

from __future__ import annotations

from tests.core import (
    test_cli,
    test_conformance,
    test_docs,
    test_game_parts,
    test_games,
    test_generic_agents,
    test_information,
    test_play,
    test_restricted,
    test_run_identity,
    test_specs,
)
from tests.per_game import adopt

for _module in (test_games, test_conformance, test_game_parts, test_information, test_cli, test_run_identity,
                test_play, test_generic_agents, test_restricted, test_specs, test_docs):  # fmt: skip
    adopt(globals(), _module, "cartographers")
