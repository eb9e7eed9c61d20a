"""The game-contract conformance check a game's own tests call, a built-in game's or an installed plugin's.

::

    from boardlab.testing import check_game

    def test_pig_conforms():
        check_game("pig")

Everything is checked through the game's public API (``boardlab.sim.contract``); nothing here imports the
repository's ``tests`` package.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Sequence
from typing import Any

from boardlab.sim.contract import Game, Observation, missing_members
from boardlab.sim.ranking import score_key

__all__ = ["check_game"]

_NOT_A_MOVE = object()


def _moves(g) -> list:
    listing = getattr(g, "agent_moves", None)
    return listing() if listing is not None else g.legal_moves()


def _error_type(g) -> type[Exception]:
    err = getattr(sys.modules.get(type(g).__module__), "IllegalMove", None)
    return err if isinstance(err, type) and issubclass(err, ValueError) else ValueError


def _counts(gd, rules) -> list[int]:
    out = []
    for n in range(gd.players[0], gd.players[1] + 1):
        try:
            gd.new_game(n, rules, 0)
        except gd.rules_error:
            continue
        out.append(n)
    return out


def _play(gd, rules, players: int, seed: int, max_moves: int, where: str) -> tuple[list, list[dict], Any]:
    """One game of uniformly random moves (drawn with random.Random(seed)), every per-move check on the way."""
    g = gd.new_game(players, rules, seed)
    err = _error_type(g)
    rnd = random.Random(seed)
    played: list = []
    seen: list = []

    def fail(msg: str) -> None:
        raise AssertionError(f"{gd.id}, {players} players, seed {seed}, move {len(played)}: {msg}")

    lacks = missing_members(g, Game)  # the contract's members (boardlab.sim.contract)
    if lacks:
        fail(
            f"its game ({type(g).__name__}) lacks {', '.join(lacks)} of the game contract (boardlab.sim.contract.Game)"
        )
    lacks = missing_members(g.observation(0), Observation)
    if lacks:
        fail(f"its observation lacks {', '.join(lacks)} of the contract (boardlab.sim.contract.Observation)")

    bad = gd.invariants(g)
    if bad:
        fail(f"an invariant is broken at the start: {bad[0]}")
    while not g.done:
        if len(played) >= max_moves:
            fail(f"the game does not end within {max_moves} moves")
        moves = _moves(g)
        if not moves:
            fail("no legal move, but the game is not over")
        current = g.current
        if not 0 <= current < players:
            fail(f"the seat to move is {current!r}, not one of 0..{players - 1}")
        for p in range(players):
            try:
                obs = g.observation(p)
                json.dumps(obs.to_dict())
            except Exception as e:
                fail(f"observation({p}) raises {type(e).__name__}: {e}")
        illegal = next((m for m in seen if m not in moves and not g.is_legal(m)), _NOT_A_MOVE)
        before = g.snapshot()
        try:
            g.apply(illegal)
        except err:
            pass
        except Exception as e:
            fail(f"an illegal move {illegal!r} raises {type(e).__name__}, not the game's {err.__name__}: {e}")
        else:
            fail(f"an illegal move {illegal!r} is accepted")
        if g.snapshot() != before:
            fail(f"refusing the illegal move {illegal!r} changed the position")
        m = rnd.choice(moves)
        if not g.is_legal(m):
            fail(f"listed move {m!r} is not legal")
        if hasattr(g, "copy"):
            c = g.copy()
        g.apply(m)
        if hasattr(g, "copy") and c.snapshot() != before:
            fail("playing a move changed a copy taken before it")
        played.append(m)
        if len(seen) < 64 and m not in seen:
            seen.append(m)
        bad = gd.invariants(g)
        if bad:
            fail(f"after {m}, an invariant is broken: {bad[0]}")
    if g.legal_moves():
        fail("the game is over but legal_moves() is not empty")
    try:
        g.apply(played[-1] if played else _NOT_A_MOVE)
    except err:
        pass
    except Exception as e:
        fail(f"a move after the end raises {type(e).__name__}, not the game's {err.__name__}")
    else:
        fail("a move after the end is accepted")
    scores = g.scores()
    if len(scores) != players:
        fail(f"scores() has {len(scores)} entries for {players} players")
    for key in ("total", "rank", "win_share"):
        if any(key not in s for s in scores):
            fail(f"scores() lacks {key!r}")
    ranks = [s["rank"] for s in scores]
    want = [1 + sum(r < q for r in ranks) for q in ranks]  # 1 = best, ties share the better rank
    if ranks != want:
        fail(f"ranks {ranks} are not a ranking (1 = best, ties share; expected {want} from themselves)")
    direction = gd.score_direction
    declared = getattr(g, "score_direction", direction)
    if declared != direction:
        fail(f"the game object's score_direction {declared!r} is not its GameDef's {direction!r}")
    oriented = score_key([float(s["total"]) for s in scores], direction)
    if any(r == 1 and k < oriented.max() for r, k in zip(ranks, oriented, strict=True)):
        totals = [s["total"] for s in scores]
        fail(f"a winner's total is not the best: totals {totals}, ranks {ranks} ({direction} wins)")
    if abs(sum(s["win_share"] for s in scores) - 1.0) > 1e-9:
        fail(f"win shares {[s['win_share'] for s in scores]} do not sum to 1")
    return played, scores, g


def check_game(game_id: str, players: Sequence[int] | None = None, games: int = 20, seed: int = 0) -> None:
    """Check a registered game against the game contract, through its public API only.

    For each player count, `games` games are played with uniformly random moves (drawn from the game's
    ``agent_moves()`` where it has one, else ``legal_moves()``), game i from seed ``seed + i``.  Checked:
    the same seed plays the same moves to the same scores; there is a move until the game is over (and none
    after); the seat to move is a seat; every listed move is legal; an illegal move (one listed earlier and
    not legal now, or a value that is no move) and a move after the end are refused with the game's
    ``IllegalMove`` (a ``ValueError``) and change nothing; the game ends within 100,000 moves; ``scores()``
    has one entry per seat with ``total``, ``rank`` (a ranking: 1 = best, ties share) and ``win_share``
    (summing to 1), every winner's total the best in the game's score direction (``GameDef.score_direction``,
    which the game object's ``score_direction``, where it declares one, must match); every seat's observation
    exists and is plain data; the game's invariants hold after every move; a copy is unchanged by play of its
    original; a redeal's observation is the player's.

    Parameters
    ----------
    game_id : str
        A registered game's id (built-in or an installed plugin's).
    players : sequence of int, optional
        The player counts to check; every count the default rule set allows when None.
    games : int
        Games per player count.
    seed : int
        The first game's seed.

    Returns
    -------
    None

    Raises
    ------
    AssertionError
        A check fails; the message names the game, the player count, the seed and the move number.
    boardlab.sim.games.GameError
        `game_id` is not registered.
    """
    from boardlab.sim.games import get_game

    gd = get_game(game_id)
    rules = gd.load_rules(gd.default_preset)
    counts = list(players) if players is not None else _counts(gd, rules)
    if not counts:
        raise AssertionError(f"{gd.id}: the default rule set allows no player count in {gd.players}")
    for n in counts:
        for i in range(games):
            s = seed + i
            moves, scores, g = _play(gd, rules, n, s, 100_000, gd.id)
            again, scores2, _ = _play(gd, rules, n, s, 100_000, gd.id)
            if again != moves:
                k = next(
                    (j for j, (a, b) in enumerate(zip(moves, again, strict=False)) if a != b),
                    min(len(moves), len(again)),
                )
                raise AssertionError(f"{gd.id}, {n} players, seed {s}, move {k}: the same seed plays another move")
            if scores2 != scores:
                raise AssertionError(
                    f"{gd.id}, {n} players, seed {s}, move {len(moves)}: the same seed ends in other scores "
                    f"({scores} then {scores2})"
                )
            if hasattr(g, "redeal"):
                for p in range(n):
                    if g.redeal(p, s).observation(p) != g.observation(p):
                        raise AssertionError(
                            f"{gd.id}, {n} players, seed {s}, move {len(moves)}: a redeal for seat {p} changes "
                            "what it observes"
                        )
