"""Cartographers' entry in the game registry (:mod:`boardlab.sim.games`).

Kept light on purpose: the numba cache guard imports it before any kernel
loads, so it imports only the rules module at load time (the API, the tables
and the reference are imported inside the functions that need them).
"""

from __future__ import annotations

from boardlab.sim.games import Bench, GameDef, Kernels, Ladder, Lazy, Reports, Scoring, Simulation, Training, register

from .rules import MAX_PLAYERS, MIN_PLAYERS, MOUNTAIN, N_CELLS, SIZE, STATE_LETTERS, WASTELAND, RulesError, from_mapping
from .rules import load_rules as _load_rules

# Every file numba compiles Cartographers' kernels from (constants included: numba freezes
# module globals into the machine code).  The cache guard hashes these; tests/core/test_layers.py
# checks that every module holding an @njit kernel is listed by some game.
KERNEL_SOURCES = (
    "boardlab/sim/rng.py",
    "boardlab/sim/layout.py",
    "boardlab/sim/bits.py",
    "boardlab/sim/cartographers/rules.py",
    "boardlab/sim/cartographers/tables.py",
    "boardlab/sim/cartographers/engine.py",
    "boardlab/agents/cartographers/kernels.py",
    "boardlab/agents/cartographers/value.py",
    "boardlab/agents/cartographers/strong.py",
    "boardlab/agents/cartographers/expert.py",
    "boardlab/agents/cartographers/selfplay.py",
    "boardlab/agents/cartographers/play.py",
    "boardlab/agents/cartographers/recorded.py",
)

SEASON_KEYS = ("spring", "summer", "fall", "winter")
EDICT_KEYS = ("a", "b", "c", "d")

# One row per (game, seat); README.md ("Cartographers") documents each column.
RESULT_COLUMNS = (
    "game", "game_seed", "rules", "players", "seat", "agent",
    "side",
    *(f"card_{e}" for e in EDICT_KEYS),
    *(f"{s}_e{i}" for s in SEASON_KEYS for i in (1, 2)),
    *(f"points_{e}" for e in EDICT_KEYS),
    "edict_points", "coins", "coin_points", "monster_penalty",
    "total", "rank", "win_share", "win",
    "rating", "title",
    "grid",
)  # fmt: skip


def load_rules(spec=None):
    """GameDef.load_rules: a Cartographers rule set.

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


def tables(rules, players: int):
    """GameDef.tables: the kernels' arrays of a Cartographers rule set at a player count.

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
    """GameDef.new_game: a Cartographers game of the public API.

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
        A new game of the public API (cartographers.api.Game).
    """
    from .api import Game

    return Game(players, rules, seed)


def reference_game(players: int, rules, seed: int):
    """GameDef.reference_game: a Cartographers game of the plain-Python reference (the test oracle).

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
        A new game of the plain-Python reference (cartographers.reference.RefGame).
    """
    from .reference import RefGame

    return RefGame(players, load_rules(rules), seed)


def invariants(game) -> list[str]:
    """What must hold in every position (docs/games/cartographers/engine.md §11); each broken one as a line.

    * the ruins and shape cards in deck and revealed are each card once; the ambushes in deck,
      ambush deck and ambushes out are each ambush once;
    * coins in 0..cap; mountains and wasteland exactly where the map side has them; a mountain is
      paid exactly when its 4 neighbours are filled (the check runs after every draw);
    * this season's time is the sum of its revealed cards' times; a pending ruins card is revealed;
    * every season record's total is e1 + e2 + coins - monster, and scores() sums the records;
    * seasons scored = the season index (4 when done); the game is done exactly with 4 records per
      seat; the decision-maker and the map match the phase (solo: never a monster phase).

    ("Coins never decrease" and "a filled cell never changes" compare positions; the conformance
    and differential tests hold moves to them by comparing snapshots.)

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
    ruins = set(rules.ruins_cards)
    shape_ids = {c.id for c in rules.explore_cards}
    ambush_ids = {a.id for a in rules.ambush_cards}
    explore = [c for c in snap["deck"] if c not in ambush_ids] + snap["revealed"]
    if sorted(explore) != sorted(ruins | shape_ids):
        out.append(f"explore cards in deck and revealed: {sorted(explore)}")
    ambushes = [c for c in snap["deck"] if c in ambush_ids] + snap["ambush_deck"] + snap["ambushes_out"]
    if sorted(ambushes) != sorted(ambush_ids):
        out.append(f"ambushes in deck, ambush deck and out: {sorted(ambushes)}")
    cap = rules.coins["cap"]
    m = rules.map
    mountains = set(m.mountains)
    wasteland = set(m.wasteland)
    for p in range(n):
        grid = snap["grids"][p]
        if not 0 <= snap["coins"][p] <= cap:
            out.append(f"seat {p}: {snap['coins'][p]} coins (cap {cap})")
        if {i for i in range(N_CELLS) if grid[i] == STATE_LETTERS[MOUNTAIN]} != mountains:
            out.append(f"seat {p}: mountains moved")
        if {i for i in range(N_CELLS) if grid[i] == STATE_LETTERS[WASTELAND]} != wasteland:
            out.append(f"seat {p}: wasteland moved")
        surrounded = sorted(i for i in mountains if all(grid[j] != "." for j in _neighbours(i)))
        if snap["mountains_paid"][p] != surrounded:
            out.append(f"seat {p}: paid mountains {snap['mountains_paid'][p]}, surrounded {surrounded}")
        records = snap["seasons"][p]
        for s, rec in enumerate(records):
            if rec["total"] != rec["e1"] + rec["e2"] + rec["coins"] - rec["monster"]:
                out.append(f"seat {p} season {s}: record {rec}")
        want = 4 if snap["done"] else snap["season"]
        if len(records) != want:
            out.append(f"seat {p}: {len(records)} season records in season {snap['season']}")
    times = {c.id: c.time for c in rules.explore_cards}
    if snap["time"] != sum(times.get(c, 0) for c in snap["revealed"]):
        out.append(f"time {snap['time']} for revealed {snap['revealed']}")
    if snap["ruins_pending"] and not ruins & set(snap["revealed"]):
        out.append("ruins pending with no ruins card revealed")
    scores = game.scores()
    for p in range(n):
        if scores[p]["total"] != sum(r["total"] for r in snap["seasons"][p]):
            out.append(f"seat {p}: total {scores[p]['total']} is not the sum of its season records")
    phase = snap["phase"]
    if snap["done"] != (phase == "done"):
        out.append(f"done {snap['done']} in phase {phase}")
    if phase == "done":
        if (snap["current"], snap["target"], snap["card"]) != (-1, -1, -1):
            out.append("done, but a seat or card is still set")
    elif not 0 <= snap["current"] < n:
        out.append(f"current seat {snap['current']}")
    elif phase == "draw" and (snap["target"] != snap["current"] or snap["card"] not in shape_ids):
        out.append(f"draw phase: seat {snap['current']} on map {snap['target']}, card {snap['card']}")
    elif phase == "monster" and (n == 1 or snap["card"] not in ambush_ids or snap["card"] != snap["ambushes_out"][-1]):
        out.append(f"monster phase with {n} players, card {snap['card']}")
    return out


def _neighbours(i: int) -> list[int]:
    r, c = divmod(i, SIZE)
    return [SIZE * rr + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))]


def score_maps(sources: list[tuple[str, str]], rules=None) -> list[tuple[dict, str]]:
    """`score` (GameDef.scoring.scorer): every map in the (text, name) sources, scored under `rules` (default: the
    preset of the map's side) -- as a JSON-able dict and as printed text.  MapError (one line) on a malformed map.

    Parameters
    ----------
    sources : list of tuple of (str, str)
        (text, name) of each source (a file's text and its name).
    rules : Rules or None
        The rule set (None: the preset of each map's side).

    Returns
    -------
    list of tuple of (dict, str)
        Per map: its scores as a JSON-able dict, and as printed text.
    """
    from .maps import format_scored, parse_maps, rules_for, score_map

    out = []
    for text, name in sources:
        for m in parse_maps(text, name):
            res = score_map(m, rules_for(m, rules))
            out.append((res, format_scored(m, res)))
    return out


GAME = register(
    GameDef(
        id="cartographers",
        title="Cartographers",
        description="1-5 players draw the same explore card's shapes on private 11x11 maps; edicts score each season",
        presets=("base-a", "base-b"),
        load_rules=load_rules,
        rules_error=RulesError,
        rules_from_mapping=lambda data: from_mapping(data, base=data),
        new_game=new_game,
        reference_game=reference_game,
        information="imperfect",  # the order of the deck is hidden from every player
        chance=True,
        simultaneous=True,  # every seat draws the same explore card at once (the API asks them in seat order)
        invariants=invariants,
        result_columns=RESULT_COLUMNS,
        players=(MIN_PLAYERS, MAX_PLAYERS),
        agents_module="boardlab.agents.cartographers.registry",
        # the capabilities (boardlab.sim.games); the upper layers' parts by import path, imported on first use
        kernels=Kernels(tables=tables, sources=KERNEL_SOURCES),
        simulation=Simulation(  # no move log
            chunk_player=Lazy("boardlab.experiments.cartographers.runner:chunk_player"),
            schema=Lazy("boardlab.experiments.cartographers.runner:SCHEMA"),
            chunk_size=Lazy("boardlab.experiments.cartographers.runner:chunk_size"),
            api_rows=Lazy("boardlab.experiments.cartographers.api_rows:rows"),
            trajectory_player=Lazy("boardlab.experiments.cartographers.recorded:trajectory_tables"),
        ),
        reports=Reports(
            report=Lazy("boardlab.experiments.cartographers.report:REPORT"),
            skill_report=Lazy("boardlab.experiments.cartographers.skill:REPORT"),  # every verdict per tier
            summary=(
                (
                    "score",
                    "mean points",
                    (*(f"points_{e}" for e in EDICT_KEYS), "edict_points", "coin_points", "monster_penalty", "total"),
                ),
            ),
            # compare's own sections: points per scoring card in play, solo titles and thresholds
            compare_sections=Lazy("boardlab.experiments.cartographers.compare:SECTIONS"),
        ),
        bench=Bench(Lazy("boardlab.experiments.cartographers.bench:BENCH")),
        training=Training(Lazy("boardlab.experiments.cartographers.train:TRAINER")),  # the strong agent's value
        scoring=Scoring(scorer=Lazy("boardlab.sim.cartographers.game:score_maps")),  # no compensation or rescorer
        ladder=Ladder(  # no fixed pairings
            skill_tiers=Lazy("boardlab.agents.cartographers.registry:available_tiers"),
            default_agents="planner",
        ),
    )
)
