"""Citadels' rule set -> the plain arrays the kernels read.

Two arrays, cached per (rule set, player count); ``Tables.kernel_args()`` is the pair the
kernels take, in this order:

``rp`` int32[RP_LEN]
    every parameter as a number, at the ``RP_*`` offsets below: the player count and the
    counts of this count's removals, every string parameter as a flag, and the type id of each
    purple district with an effect (``RP_HAUNTED`` .. ``RP_SCHOOL``; -1 when the deck lacks it).
``districts`` int32[n_types, DT_LEN]
    per district type id: colour code (``boardlab.sim.citadels.rules.COLOURS``), cost, points, copies.

Nothing else of the rules reaches the kernels: no magic numbers there.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from boardlab.sim.layout import Layout

from .rules import COLOURS, MAX_TYPES, PURPLE_EFFECTS, Rules

_rp = Layout("rp")
RP_PLAYERS = _rp.add("players")
RP_N_TYPES = _rp.add("district types in the deck")
RP_N_CARDS = _rp.add("cards in the deck")
RP_BANK = _rp.add("bank_gold")
RP_BANK_UNLIMITED = _rp.add("bank_shortfall == unlimited")
RP_START_GOLD = _rp.add("starting_gold")
RP_START_HAND = _rp.add("starting_hand")
RP_FIRST_CROWN = _rp.add("first_crown_seat")
RP_REMOVE_ROUND1 = _rp.add("remove_in_round_1 (or n <= 3, where it does not apply)")
RP_FACEUP_FIRST = _rp.add("removal_order == faceup_first")
RP_FACEUP = _rp.add("faceup_count[players]")
RP_FACEDOWN = _rp.add("facedown_count[players]")
RP_BLIND = _rp.add("selection_mode == blind_draw2 and players >= 4")
RP_ROTATE_CROWN = _rp.add("crown_rule == rotate_unless_king")
RP_ARCH_DISCOUNT = _rp.add("architect_discount")
RP_WARLORD_ANYTIME = _rp.add("warlord_timing == any_time")
RP_WARLORD_OWN = _rp.add("warlord_may_target_own")
RP_COMPLETE = _rp.add("complete_size")
RP_TIEBREAK = _rp.add("tiebreak (TIE_*)")
RP_REMOVE_DESTROYED = _rp.add("destroyed_to == removed")
RP_REMOVE_LAB = _rp.add("lab_discard_to == removed")
RP_EMPTY_DRAW = _rp.add("empty_deck == zero_draw_allowed")
RP_GRAVE_SELF = _rp.add("graveyard_rule == may_rescue_itself")
RP_BISHOP_VS_OWN = _rp.add("bishop_shields_vs_own_warlord")
RP_WALL_VS_OWN = _rp.add("great_wall_vs_own_warlord")
RP_REVEAL_ALL = _rp.add("reveal_murdered == all_at_round_end")
RP_TARGET_ANY = _rp.add("target_any_rank")
RP_MAX_ROUNDS = _rp.add("max_rounds")
RP_ABCCBA = _rp.add("three_player_order == ABCCBA")
RP_LIB_OBS_KEEP = _rp.add("cards kept with Library and Observatory (library_observatory)")
# The purple districts with an effect (§2.3), type id or -1, in PURPLE_EFFECTS order.
RP_HAUNTED = _rp.add("Haunted City")
RP_KEEP = _rp.add("Keep")
RP_LAB = _rp.add("Laboratory")
RP_SMITHY = _rp.add("Smithy")
RP_OBSERVATORY = _rp.add("Observatory")
RP_GRAVEYARD = _rp.add("Graveyard")
RP_LIBRARY = _rp.add("Library")
RP_WALL = _rp.add("Great Wall")
RP_SCHOOL = _rp.add("School of Magic")
RP_SEAT_POINTS = _rp.add("seat_points of this player count, seat by seat", 8)
RP_LEN = _rp.size

# tiebreak values, in the kernels' codes
TIEBREAKS = ("shared", "districts_gold_shared", "cost_gold_shared", "districts_gold_draw")
TIE_SHARED, TIE_DISTRICTS_GOLD, TIE_COST_GOLD, TIE_DISTRICTS_GOLD_DRAW = range(4)

_dt = Layout("districts")
DT_COLOUR = _dt.add("colour code")
DT_COST = _dt.add("cost")
DT_POINTS = _dt.add("points")
DT_COPIES = _dt.add("copies")
DT_LEN = _dt.size


@dataclass(frozen=True, eq=False)
class Tables:
    """A rule set's arrays at a player count: rp int32[RP_LEN] and districts int32[n_types, DT_LEN]."""

    rules: Rules
    players: int
    rp: np.ndarray
    districts: np.ndarray

    def kernel_args(self) -> tuple[np.ndarray, np.ndarray]:
        """The arrays the kernels take, in their order.

        Returns
        -------
        tuple of numpy.ndarray
            ``(rp, districts)``.
        """
        return self.rp, self.districts


def _flag(v: bool) -> int:
    return 1 if v else 0


@lru_cache(maxsize=64)
def tables_for(rules: Rules, players: int) -> Tables:
    """The kernels' arrays for `rules` at `players` (validated: RulesError if the count is not allowed).

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        The player count.

    Returns
    -------
    Tables
        The arrays (cached).
    """
    rules.check_players(players)
    d = rules.data
    deck = rules.districts
    if len(deck) > MAX_TYPES:  # pragma: no cover - the decks are fixed data
        raise ValueError(f"a deck has at most {MAX_TYPES} district types")
    rp = np.zeros(RP_LEN, dtype=np.int32)
    rp[RP_PLAYERS] = players
    rp[RP_N_TYPES] = len(deck)
    rp[RP_N_CARDS] = sum(x.copies for x in deck)
    rp[RP_BANK] = d["bank_gold"]
    rp[RP_BANK_UNLIMITED] = _flag(d["bank_shortfall"] == "unlimited")
    rp[RP_START_GOLD] = d["starting_gold"]
    rp[RP_START_HAND] = d["starting_hand"]
    rp[RP_FIRST_CROWN] = d["first_crown_seat"]
    # §4.1 / I18: the round-1 no-removal rule of the seed applies only from 4 players.
    rp[RP_REMOVE_ROUND1] = _flag(d["remove_in_round_1"] or players <= 3)
    rp[RP_FACEUP_FIRST] = _flag(d["removal_order"] == "faceup_first")
    rp[RP_FACEUP] = rules.faceup(players)
    rp[RP_FACEDOWN] = rules.facedown(players)
    rp[RP_BLIND] = _flag(d["selection_mode"] == "blind_draw2" and players >= 4)
    rp[RP_ROTATE_CROWN] = _flag(d["crown_rule"] == "rotate_unless_king")
    rp[RP_ARCH_DISCOUNT] = d["architect_discount"]
    rp[RP_WARLORD_ANYTIME] = _flag(d["warlord_timing"] == "any_time")
    rp[RP_WARLORD_OWN] = _flag(d["warlord_may_target_own"])
    rp[RP_COMPLETE] = d["complete_size"]
    rp[RP_TIEBREAK] = TIEBREAKS.index(d["tiebreak"])
    rp[RP_REMOVE_DESTROYED] = _flag(d["destroyed_to"] == "removed")
    rp[RP_REMOVE_LAB] = _flag(d["lab_discard_to"] == "removed")
    rp[RP_EMPTY_DRAW] = _flag(d["empty_deck"] == "zero_draw_allowed")
    rp[RP_GRAVE_SELF] = _flag(d["graveyard_rule"] == "may_rescue_itself")
    rp[RP_BISHOP_VS_OWN] = _flag(d["bishop_shields_vs_own_warlord"])
    rp[RP_WALL_VS_OWN] = _flag(d["great_wall_vs_own_warlord"])
    rp[RP_REVEAL_ALL] = _flag(d["reveal_murdered"] == "all_at_round_end")
    rp[RP_TARGET_ANY] = _flag(d["target_any_rank"])
    rp[RP_MAX_ROUNDS] = d["max_rounds"]
    rp[RP_ABCCBA] = _flag(d["three_player_order"] == "ABCCBA")
    rp[RP_LIB_OBS_KEEP] = 3 if d["library_observatory"] == "draw3_keep3" else 2
    for p, x in enumerate(d["seat_points"][str(players)]):
        rp[RP_SEAT_POINTS + p] = x
    plain = set(d["plain_purples"])  # §2.3: no effect, worth its cost
    for off, name in zip(range(RP_HAUNTED, RP_SCHOOL + 1), PURPLE_EFFECTS, strict=True):
        rp[off] = -1 if name in plain else rules.district_id(name)
    districts = np.zeros((len(deck), DT_LEN), dtype=np.int32)
    for x in deck:
        points = x.cost if x.name in plain else x.points
        districts[x.id] = (COLOURS.index(x.colour), x.cost, points, x.copies)
    return Tables(rules, players, rp, districts)
