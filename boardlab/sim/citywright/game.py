"""Citywright's entry in the game registry (:mod:`boardlab.sim.games`).

Kept light on purpose: the numba cache guard imports it before any kernel
loads, so it imports only the rules and tables modules at load time.
"""

from __future__ import annotations

from collections import Counter

from boardlab.sim.games import Bench, GameDef, Kernels, Ladder, Lazy, Reports, Scoring, Simulation, Training, register

from .rules import DISTRICTS, MAX_PLAYERS, N_EDGE_SLOTS, RulesError, from_mapping, load_rules
from .tables import tables_for

# Every file numba compiles Citywright's kernels from (constants included: numba
# freezes module globals into the machine code).  The cache guard hashes these;
# tests/core/test_layers.py checks that every module holding an @njit kernel is listed.
KERNEL_SOURCES = (
    "boardlab/sim/rng.py",
    "boardlab/sim/layout.py",
    "boardlab/sim/bits.py",
    "boardlab/sim/citywright/rules.py",
    "boardlab/sim/citywright/tables.py",
    "boardlab/sim/citywright/engine.py",
    "boardlab/agents/citywright/kernels.py",
    "boardlab/agents/citywright/mcts.py",
    "boardlab/agents/citywright/flatmc.py",
    "boardlab/agents/citywright/play.py",
    "boardlab/agents/citywright/value.py",
    "boardlab/agents/citywright/strong.py",
    "boardlab/agents/citywright/selfplay.py",
    "boardlab/agents/citywright/recorded.py",
    "boardlab/agents/citywright/weights/strong-v1.json",  # frozen into the game loop as a constant
)

# One row per (game, seat); the schema is in README.md.
RESULT_COLUMNS = (
    "game", "game_seed", "rules", "players", "seat", "agent",
    "residential", "commercial", "park", "industrial", "achievements", "compensation", "total",
    "empty", "tiles_taken", "waste", "forced_discards", "shapes_distinct", "rank", "win_share", "win",
    "board", "shapes_placed",
)  # fmt: skip


def new_game(players: int, rules, seed: int):
    """GameDef.new_game: a Citywright game of the public API.

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
        A new game of the public API (citywright.api.Game).
    """
    from .api import Game

    return Game(players, rules, seed)


def reference_game(players: int, rules, seed: int):
    """GameDef.reference_game: a Citywright game of the plain-Python reference (the test oracle).

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
        A new game of the plain-Python reference (citywright.reference.RefGame).
    """
    from .reference import RefGame

    return RefGame(players, load_rules(rules), seed)


def invariants(game) -> list[str]:
    """What must hold in every position of a game (docs/games/citywright.md); each broken one as a line.

    * no ruler is duplicated or lost: per shape, deck + discard + slots + used + removed = copies;
      edge slots hold tetrominoes, corner slots pentominoes;
    * tiles on a board = tiles taken - waste (a two-player swap puts down one tile it did not take);
    * no seat has more turns than rounds x turns per round; at the end every seat has exactly that many;
    * the market holds only district tiles (holes only where the market depletes).

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
    n = len(snap["boards"])
    out: list[str] = []
    in_slots = Counter(name for name in snap["slots"] if name is not None)
    for shape in rules.shapes:
        held = sum(snap[k][shape.name] for k in ("deck", "discard", "used", "removed")) + in_slots[shape.name]
        if held != shape.copies or min(snap[k][shape.name] for k in ("deck", "discard", "used", "removed")) < 0:
            out.append(f"ruler {shape.name}: {held} held, {shape.copies} copies")
    for slot, name in enumerate(snap["slots"]):
        if name is not None and rules.shapes[rules.shape_index(name)].has_star != (slot >= N_EDGE_SLOTS):
            out.append(f"slot {slot} holds {name}")
    rounds, turns = rules.rounds(n)
    for p in range(n):
        on_board = sum(ch != "." for ch in snap["boards"][p])
        extra = on_board - (snap["taken"][p] - snap["waste"][p])
        if not (extra == 0 or (n == 2 and 0 < extra <= snap["turns"][p])):
            out.append(f"seat {p}: {on_board} tiles on the board, {snap['taken'][p]} taken, {snap['waste'][p]} wasted")
        if snap["turns"][p] > rounds * turns or (snap["done"] and snap["turns"][p] != rounds * turns):
            out.append(f"seat {p}: {snap['turns'][p]} turns of {rounds * turns}")
    holes_allowed = bool(rules.game["market_depletes"])
    if any(ch not in DISTRICTS and not (ch == "." and holes_allowed) for ch in snap["market"]):
        out.append(f"market {snap['market']!r}")
    return out


PLACEHOLDER_REASON = "the project's number: the rulebook's achievement text is missing (docs/games/citywright.md §7)"


def placeholders(rules) -> dict[str, str]:
    """GameDef.placeholders: every number of every achievement card (``achievements.cards.<name>.points``,
    ``.threshold``, ``.solo_threshold``, ...), the project's stand-ins for the rulebook's missing text.

    Parameters
    ----------
    rules : Rules
        The rule set.

    Returns
    -------
    dict of str to str
        Dotted key -> why its number is a placeholder.
    """
    cards = rules.data["achievements"]["cards"]
    return {
        f"achievements.cards.{name}.{key}": PLACEHOLDER_REASON
        for name, card in cards.items()
        for key, value in card.items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }


def unused(rules) -> dict[str, str]:
    """GameDef.unused: the keys another key switches off (docs/games/citywright.md §6 and §7).  Residential's
    largest cluster scores by full pairs or by tiles (``scoring.residential.largest``), reading only that mode's
    points; a disabled card, or every card when achievements are off, scores nothing.

    Parameters
    ----------
    rules : Rules
        The rule set.

    Returns
    -------
    dict of str to str
        Dotted key -> why it plays no part under `rules`.
    """
    out = {}
    largest = rules.data["scoring"]["residential"]["largest"]
    other = {"pairs": "largest_tile_points", "tiles": "pair_points"}.get(largest)
    if other is not None:
        out[f"scoring.residential.{other}"] = f'read only when scoring.residential.largest is not "{largest}"'
    achievements = rules.data["achievements"]
    for name, card in achievements["cards"].items():
        if not achievements["enabled"]:
            out[f"achievements.cards.{name}"] = "achievements.enabled is false"
        elif not card.get("enabled", True):
            out[f"achievements.cards.{name}"] = f"achievements.cards.{name}.enabled is false"
    return out


def rules_players(rules) -> tuple[int, ...]:
    """GameDef.rules_players: every count 1..4, but 2 when ``two_player_remove`` takes every copy of every shape
    (a two-player game's ruler decks would be empty: no turn could take a ruler).

    Parameters
    ----------
    rules : Rules
        The rule set.

    Returns
    -------
    tuple of int
        The player counts, ascending.
    """
    two = sum(s.copies - s.two_player_remove for s in rules.shapes) > 0
    return tuple(n for n in range(1, MAX_PLAYERS + 1) if n != 2 or two)


def score_boards(sources: list[tuple[str, str]], rules=None) -> list[tuple[dict, str]]:
    """`score` (GameDef.scoring.scorer): every board in the (text, name) sources, scored under `rules` (default: the
    default preset) -- as a JSON-able dict and as printed text.  BoardError (one line) on a malformed board.

    Parameters
    ----------
    sources : list of tuple of (str, str)
        (text, name) of each source (a file's text and its name).
    rules : Rules or None
        The rule set (None: the default preset).

    Returns
    -------
    list of tuple of (dict, str)
        Per board: its scores as a JSON-able dict, and as printed text.
    """
    from .boards import format_scored, parse_boards, score_cells

    rules = rules if rules is not None else load_rules()
    boards = [b for text, name in sources for b in parse_boards(text, name)]
    results = score_cells([b.cells for b in boards], rules)
    return [(r, format_scored(b, r, rules.name)) for b, r in zip(boards, results, strict=True)]


GAME = register(
    GameDef(
        id="citywright",
        title="Citywright",
        description="1-4 players draft polyomino rulers around a 4x4 market and draw districts on a 7x7 board",
        presets=("v1.1", "v1.0"),
        load_rules=load_rules,
        rules_error=RulesError,
        rules_from_mapping=lambda data: from_mapping(data, base=data),
        new_game=new_game,
        reference_game=reference_game,
        information="imperfect",  # the order of the deck is hidden from every player
        chance=True,
        simultaneous=False,
        invariants=invariants,
        placeholders=placeholders,
        unused=unused,
        result_columns=RESULT_COLUMNS,
        players=(1, MAX_PLAYERS),
        rules_players=rules_players,
        agents_module="boardlab.agents.citywright.registry",
        # the capabilities (boardlab.sim.games); the upper layers' parts by import path, imported on first use
        kernels=Kernels(tables=tables_for, sources=KERNEL_SOURCES),
        simulation=Simulation(
            chunk_player=Lazy("boardlab.experiments.citywright.runner:chunk_table"),
            schema=Lazy("boardlab.experiments.citywright.runner:SCHEMA"),
            chunk_size=Lazy("boardlab.experiments.citywright.runner:chunk_size"),
            move_log=Lazy("boardlab.experiments.citywright.moves:chunk_tables_with_moves"),
            api_rows=Lazy("boardlab.experiments.citywright.api_rows:rows"),
            trajectory_player=Lazy("boardlab.experiments.citywright.recorded:trajectory_tables"),
        ),
        reports=Reports(
            report=Lazy("boardlab.experiments.citywright.report:REPORT"),
            skill_report=Lazy("boardlab.experiments.citywright.skill:REPORT"),
            summary=(
                (
                    "score",
                    "mean points",
                    ("residential", "commercial", "park", "industrial", "achievements", "compensation", "total"),
                ),
                ("waste", "per player", ("waste", "empty", "forced_discards")),
            ),
        ),
        bench=Bench(Lazy("boardlab.experiments.citywright.bench:BENCH")),
        training=Training(Lazy("boardlab.experiments.citywright.train:TRAINER")),
        scoring=Scoring(
            scorer=Lazy("boardlab.sim.citywright.game:score_boards"),
            rescorer=Lazy("boardlab.experiments.citywright.rescore:rescore"),
            seat_compensation=Lazy("boardlab.experiments.citywright.seats:SEAT_COMPENSATION"),
            seat_agent=Lazy("boardlab.experiments.citywright.seats:seat_agent"),
        ),
        ladder=Ladder(
            pairings=Lazy("boardlab.experiments.citywright.runner:PAIRINGS"),
            skill_tiers=Lazy("boardlab.agents.citywright.registry:available_tiers"),
            default_agents="specialist:R,specialist:C,specialist:P,specialist:I",
        ),
    )
)
