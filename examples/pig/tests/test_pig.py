"""Pig meets boardlab's game contract: the shipped conformance check, as a plugin's own tests call it."""

from boardlab.testing import check_game


def test_pig_conforms():
    check_game("pig", games=5)
