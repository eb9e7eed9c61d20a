"""Citadels' entry in the game registry (:mod:`boardlab.sim.games`).

Kept light on purpose: the numba cache guard imports it before any kernel loads, so it imports
only the rules module at load time (the API and the tables are imported inside the functions
that need them).
"""

from __future__ import annotations

from collections import Counter

from boardlab.sim.games import Bench, GameDef, Kernels, Ladder, Lazy, Reports, Scoring, Simulation, Training, register

from .rules import DECKS, MAX_PLAYERS, MIN_PLAYERS, N_RANKS, RulesError, from_mapping
from .rules import load_rules as _load_rules

# Every file numba compiles Citadels' kernels from (constants included: numba freezes module
# globals into the machine code).  The cache guard hashes these; tests/core/test_layers.py checks
# that every module holding an @njit kernel is listed by some game.
KERNEL_SOURCES = (
    "boardlab/sim/rng.py",
    "boardlab/sim/layout.py",
    "boardlab/sim/citadels/rules.py",
    "boardlab/sim/citadels/tables.py",
    "boardlab/sim/citadels/engine.py",
    "boardlab/sim/citadels/infoset.py",
    "boardlab/sim/citadels/summary.py",
    "boardlab/agents/citadels/strong.py",
    "boardlab/agents/citadels/basic.py",
    "boardlab/agents/citadels/kernels.py",
    "boardlab/agents/citadels/selfplay.py",  # strong's self-play (its weights travel in the agent's row, not the code)
    "boardlab/agents/citadels/search.py",
    "boardlab/agents/citadels/recorded.py",
)

# One row per (game, seat).
#   district_points .. seat_points, total: the score parts of §6 (purple_extras: the +2 of Dragon Gate
#     and University inside district_points; seat_points: the seat's compensation, rule seat_points;
#     printed_cost: the city's summed costs);
#   districts, gold, hand: the city's size, gold and cards in hand at the end;
#   rounds, capped: rounds played, and whether the round cap (max_rounds) ended the game;
#   completion: 1 for the first city completed, 2, 3, ... for the next ones, 0 for none;
#   characters: the ranks the seat held, round by round ("7-4-16": rank 7 in round 1, 4 in round 2,
#     1 and 6 in round 3 -- two ranks a round at 2-3 players; rounds past the kernel's history are left out);
#   murdered, robbed, gold_stolen: rounds in which the seat's character was murdered / robbed, gold it lost
#     to the Thief;
#   kills, robs: per game (the same on every seat's row), the rank named by the Assassin / Thief each round,
#     0 if none was named ("7-0-3"); who held it is in the rows' characters;
#   rank, win_share, win: 1 + players strictly ahead; 1/k for each of k winners; win_share > 0;
#   then the per-round columns of boardlab/experiments/citadels/columns.py (its DOC):
#   positions, offered, kills_named, kills_hit, robs_named, robs_hit, murdered_leading, robbed_richest, and
#   built_<purple> for each of the 11 purple districts (the round it was built, 0: not in the final city).
PURPLE_COLUMNS = tuple("built_" + d.name.lower().replace(" ", "_") for d in DECKS["classic66"] if d.colour == "purple")
RESULT_COLUMNS = (
    "game", "game_seed", "rules", "players", "seat", "agent",
    "district_points", "purple_extras", "colour_bonus", "completion_bonus", "seat_points", "total", "printed_cost",
    "districts", "gold", "hand",
    "rounds", "capped", "completion",
    "characters", "murdered", "robbed", "gold_stolen", "kills", "robs",
    "rank", "win_share", "win",
    "positions", "offered", "kills_named", "kills_hit", "robs_named", "robs_hit", "murdered_leading", "robbed_richest",
    *PURPLE_COLUMNS,
)  # fmt: skip


def load_rules(spec=None):
    """GameDef.load_rules: a Citadels rule set.

    Parameters
    ----------
    spec : str or pathlib.Path or Rules or None
        A preset name, a TOML variant path or a rule set (None: the default preset).

    Returns
    -------
    Rules
        The validated rule set.
    """
    return _load_rules(spec)


def rules_players(rules) -> tuple[int, ...]:
    """GameDef.rules_players: the rule set's ``players_allowed`` (official 2..7, seed-summary 2..8).

    Parameters
    ----------
    rules : Rules
        The rule set.

    Returns
    -------
    tuple of int
        The player counts, as the rule set lists them.
    """
    return tuple(rules.players_allowed)


def tables(rules, players: int):
    """GameDef.tables: the kernels' arrays of a Citadels rule set at a player count.

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Number of seats.

    Returns
    -------
    Tables
        The kernels' arrays for this rule set and player count (cached).
    """
    from .tables import tables_for

    return tables_for(rules, players)


def new_game(players: int, rules, seed: int):
    """GameDef.new_game: a Citadels game of the public API.

    Parameters
    ----------
    players : int
        Number of seats.
    rules : Rules or str or None
        A rule set, a preset name or a TOML variant path.
    seed : int
        The game seed.

    Returns
    -------
    Game
        A new game of the public API (citadels.api.Game).
    """
    from .api import Game

    return Game(players, rules, seed)


def invariants(game) -> list[str]:
    """What must hold in every position; each broken one as a line.

    * card conservation: per district type, deck + hands + cities + cards drawn and awaiting KEEP +
      the card in a Graveyard window + cards out of the game = the deck's copies (66 cards);
    * gold conservation: bank + every player's gold = bank_gold; nobody's gold is negative (nor the
      bank's unless the bank is unlimited);
    * one crown, on a seat; no city holds a district twice; a complete city exists iff final_round;
    * each rank has at most one holder; a seat holds at most 1 rank (2 with 2-3 players) and, once the
      calls began, exactly that many;
    * the game is over exactly when nobody is to decide.

    Parameters
    ----------
    game : Game
        A position of the public API.

    Returns
    -------
    list of str
        One line per broken invariant; empty when all hold.
    """
    snap = game.snapshot()
    rules = game.rules
    n = snap["players"]
    out: list[str] = []
    deck = rules.districts
    held = Counter(snap["deck"]) + Counter(snap["out_of_game"])
    for hand in snap["hands"]:
        held.update(hand)
    for city in snap["cities"]:
        held.update(t for t, _ in city)
    if snap["turn"] is not None:
        held.update(snap["turn"]["pending"])
    if snap["grave"] is not None:
        held[snap["grave"]["card"]] += 1
    for d in deck:
        if held[d.id] != d.copies:
            out.append(f"{d.name}: {held[d.id]} cards in play, {d.copies} copies")
    total = snap["bank"] + sum(snap["gold"])
    if total != rules["bank_gold"]:
        out.append(f"gold: bank {snap['bank']} + players {sum(snap['gold'])} = {total}, not {rules['bank_gold']}")
    if min(snap["gold"]) < 0 or (snap["bank"] < 0 and rules["bank_shortfall"] == "partial"):
        out.append(f"negative gold: bank {snap['bank']}, players {snap['gold']}")
    if not 0 <= snap["crown"] < n:
        out.append(f"crown on seat {snap['crown']}")
    for p, city in enumerate(snap["cities"]):
        types = [t for t, _ in city]
        if len(set(types)) != len(types):
            out.append(f"seat {p}: a district twice in its city {types}")
    complete = any(len(c) >= rules["complete_size"] for c in snap["cities"])
    if complete != snap["final_round"] or complete != (snap["first_completer"] >= 0):
        out.append(f"complete city {complete}, final_round {snap['final_round']}, first {snap['first_completer']}")
    per_seat = 2 if n <= 3 else 1
    counts = Counter(h for h in snap["holder"] if h >= 0)
    calling = snap["called"] > 0
    for p in range(n):
        if counts[p] > per_seat or (calling and counts[p] != per_seat):
            out.append(f"seat {p} holds {counts[p]} ranks in the {'calls' if calling else 'selection'}")
    if len(snap["holder"]) != N_RANKS:
        out.append(f"{len(snap['holder'])} ranks")
    if snap["done"] != (snap["current"] == -1):
        out.append(f"done {snap['done']}, current {snap['current']}")
    return out


GAME = register(
    GameDef(
        id="citadels",
        title="Citadels",
        description="2-8 players draft secret characters (Assassin, Thief, ... Warlord) and build cities of districts",
        presets=("official", "seed-summary"),
        load_rules=load_rules,
        rules_error=RulesError,
        rules_from_mapping=lambda data: from_mapping(data, base=data),
        new_game=new_game,
        # The plain-Python reference (boardlab/sim/citadels/reference.py) is compared move by move, observation by
        # observation, in tests/citadels/test_differential.py; its snapshot() is its own full state, so the
        # generic snapshot comparison does not apply.
        reference_game=None,
        information="imperfect",  # hands, characters and the deck are hidden (docs/games/citadels.md §7)
        chance=True,
        simultaneous=False,
        invariants=invariants,
        result_columns=RESULT_COLUMNS,
        players=(MIN_PLAYERS, MAX_PLAYERS),  # seed-summary allows 8, official 2-7 (rules_players)
        rules_players=rules_players,
        agents_module="boardlab.agents.citadels.registry",
        # the capabilities (boardlab.sim.games); the upper layers' parts by import path, imported on first use
        kernels=Kernels(tables=tables, sources=KERNEL_SOURCES),
        simulation=Simulation(
            chunk_player=Lazy("boardlab.experiments.citadels.runner:chunk_player"),
            schema=Lazy("boardlab.experiments.citadels.runner:SCHEMA"),
            chunk_size=Lazy("boardlab.experiments.citadels.runner:chunk_size"),
            api_rows=Lazy("boardlab.experiments.citadels.api_rows:rows"),
            trajectory_player=Lazy("boardlab.experiments.citadels.recorded:trajectory_tables"),
        ),
        reports=Reports(
            report=Lazy("boardlab.experiments.citadels.report:REPORT"),
            summary=(
                (
                    "score",
                    "mean points",
                    ("district_points", "purple_extras", "colour_bonus", "completion_bonus", "seat_points", "total"),
                ),
            ),
        ),
        bench=Bench(Lazy("boardlab.experiments.citadels.bench:BENCH")),
        training=Training(Lazy("boardlab.experiments.citadels.train:TRAINER")),
        scoring=Scoring(seat_compensation=Lazy("boardlab.experiments.citadels.seats:SEAT_COMPENSATION")),
        ladder=Ladder(skill_tiers=Lazy("boardlab.agents.citadels.registry:available_tiers"), default_agents="random"),
    )
)
