"""Pig's public API: the methods every boardlab game has (docs/your-own-game.md lists them).

    >>> from boardlab_pig.api import Game
    >>> g = Game(players=2, rules="standard", seed=7)
    >>> g.legal_moves()                        # at the start of a turn you must roll
    [Move(kind='roll')]
    >>> g.apply(g.legal_moves()[0])
    >>> g.observation(g.current)["turn_total"]

Pure Python, no numba.  Randomness is explicit: two SplitMix64 streams seeded from the game seed,
``chance`` for the die and ``policy`` for :meth:`Game.random_move`, so the same seed plays the same game.
Everything on the table is public (``information = "perfect"``); what no one knows is the future of the
die (``chance = True``), so :meth:`Game.redeal` draws the streams afresh and keeps the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from boardlab.sim.observation import Observation, copy_seed, fresh_streams

from .rules import MAX_PLAYERS, Rules, load_rules

MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_POLICY_XOR = 0x5851F42D4C957F2D  # the policy stream starts at seed ^ this
CHANCE, POLICY = 0, 1


class IllegalMove(ValueError):
    """A move the rules do not allow now (the game is left unchanged)."""


@dataclass(frozen=True)
class Move:
    """``roll`` (the die, once more) or ``hold`` (bank the turn total; your turn ends)."""

    kind: str

    def __str__(self) -> str:
        return self.kind


ROLL, HOLD = Move("roll"), Move("hold")


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


class Game:
    """One game of Pig: `players` seats (1..6), a rule set (a preset name, a TOML path or a Rules), a seed."""

    information = "perfect"
    chance = True

    def __init__(self, players: int, rules: Rules | str | Path | None = None, seed: int = 0):
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not 1 <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be 1..{MAX_PLAYERS}, got {players!r}")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"seed must be an integer, got {seed!r}")
        self.players = int(players)
        self.rules = load_rules(rules)
        self.seed = int(seed) & MASK64
        self.streams = [self.seed, self.seed ^ _POLICY_XOR]
        self.points = list(self.rules.start_points(self.players))
        self.current = 0
        self.round = 0
        self.turn_total = 0
        self.rolls_this_turn = 0
        self.last_roll = 0
        self.finishing = False  # end = "round": someone reached the target; the round is played out
        self.done = False
        self.turns = [0] * self.players
        self.rolls = [0] * self.players
        self.busts = [0] * self.players
        self.holds = [0] * self.players

    # --- randomness ---------------------------------------------------------------------------------
    def _rand_below(self, stream: int, n: int) -> int:
        self.streams[stream] = (self.streams[stream] + _GOLDEN) & MASK64
        return ((_mix(self.streams[stream]) >> 32) * n) >> 32

    # --- state --------------------------------------------------------------------------------------
    def copy(self) -> Game:
        g = object.__new__(Game)
        g.__dict__.update(self.__dict__)
        for k in ("streams", "points", "turns", "rolls", "busts", "holds"):
            setattr(g, k, list(getattr(self, k)))
        return g

    def snapshot(self) -> dict:
        """The whole state but the random streams."""
        return {
            "players": self.players,
            "round": self.round,
            "current": self.current,
            "done": self.done,
            "points": list(self.points),
            "turn_total": self.turn_total,
            "rolls_this_turn": self.rolls_this_turn,
            "last_roll": self.last_roll,
            "finishing": self.finishing,
            "turns": list(self.turns),
            "rolls": list(self.rolls),
            "busts": list(self.busts),
            "holds": list(self.holds),
        }

    def observation(self, player: int) -> Observation:
        """What seat `player` sees: the whole table (snapshot()), and sample(rng), a copy to search on."""
        player = self._check_seat(player)
        return Observation(player, self.snapshot(), self.redeal(player))

    def redeal(self, player: int, rng: np.random.Generator | int | None = None) -> Game:
        """A copy with the die's future (both random streams) drawn afresh from `rng` (a numpy Generator or a
        seed; None: both zero); nothing else is hidden."""
        self._check_seat(player)
        g = self.copy()
        streams = fresh_streams(rng)
        g.streams = [int(x) for x in streams]
        g.seed = copy_seed(streams)  # drawn with the streams (0 canonically): never the true game's seed
        return g

    def _check_seat(self, player) -> int:
        if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or not 0 <= player < self.players:
            raise ValueError(f"player must be a seat 0..{self.players - 1}, got {player!r}")
        return int(player)

    def scores(self) -> list[dict]:
        """Per seat: total (points banked, start points included), rank (1 = best; ties share), win share."""
        ranks = [1 + sum(q > p for q in self.points) for p in self.points]
        winners = ranks.count(1)
        return [
            {
                "total": self.points[s],
                "rank": ranks[s],
                "win_share": 1.0 / winners if ranks[s] == 1 else 0.0,
                "start_points": self.rules.start_points(self.players)[s],
                "turns": self.turns[s],
                "rolls": self.rolls[s],
                "busts": self.busts[s],
                "holds": self.holds[s],
            }
            for s in range(self.players)
        ]

    def progress(self, player: int) -> int:
        """Points banked so far by seat `player` (start points included): the running score."""
        return self.points[self._check_seat(player)]

    def capped(self) -> bool:
        """Whether the game ended at the round cap (``max_rounds``) with no one at the target."""
        return self.done and max(self.points) < self.rules.target

    def move_families(self) -> tuple[str, ...]:
        """The move families restricted play names (``random-prefers:hold``): ``roll`` and ``hold``."""
        return ("roll", "hold")

    def move_family(self, m: Move) -> str:
        """The family of a move: its kind."""
        return m.kind

    # --- moves --------------------------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """[] when done; [roll] at the start of a turn (a turn rolls at least once); else [roll, hold]."""
        if self.done:
            return []
        return [ROLL] if self.rolls_this_turn == 0 else [ROLL, HOLD]

    def is_legal(self, m: Move) -> bool:
        return isinstance(m, Move) and m in self.legal_moves()

    @staticmethod
    def parse_move(text: str) -> Move:
        """``roll`` or ``hold`` (str(move)) -> the Move."""
        for m in (ROLL, HOLD):
            if str(text).strip() == str(m):
                return m
        raise IllegalMove(f"not a move: {text!r} (roll or hold)")

    def random_move(self) -> Move:
        """A legal move drawn uniformly from the game's policy stream."""
        moves = self.legal_moves()
        if not moves:
            raise IllegalMove("the game is over")
        return moves[self._rand_below(POLICY, len(moves))]

    def apply(self, m: Move) -> None:
        """Play a move for the seat to move; IllegalMove (and nothing changes) if it is not legal."""
        if not self.is_legal(m):
            raise IllegalMove("the game is over" if self.done else f"{m!r} is not legal now ({self.legal_moves()})")
        p = self.current
        rules = self.rules
        if m.kind == "roll":
            face = 1 + self._rand_below(CHANCE, rules.die_faces)
            self.last_roll = face
            self.rolls[p] += 1
            self.rolls_this_turn += 1
            if face in rules.bust_faces:
                self.busts[p] += 1
                self._end_turn()
            else:
                self.turn_total += face
            return
        self.points[p] += self.turn_total
        self.holds[p] += 1
        if self.points[p] >= rules.target:
            if rules.end == "immediate":
                self.turns[p] += 1
                self._finish()
                return
            self.finishing = True
        self._end_turn()

    def _end_turn(self) -> None:
        self.turns[self.current] += 1
        self.turn_total = 0
        self.rolls_this_turn = 0
        nxt = (self.current + 1) % self.players
        if nxt == 0:
            self.round += 1
            if self.finishing or self.round >= self.rules.max_rounds:
                self._finish()
                return
        self.current = nxt

    def _finish(self) -> None:
        self.done = True
        self.current = -1
        self.turn_total = 0
        self.rolls_this_turn = 0


def invariants(game: Game) -> list[str]:
    """What holds in every position; each broken one as a line."""
    out = []
    start = game.rules.start_points(game.players)
    for s in range(game.players):
        if game.points[s] < start[s]:
            out.append(f"seat {s}: {game.points[s]} points, below its start {start[s]}")
        if game.busts[s] + game.holds[s] != game.turns[s]:
            out.append(f"seat {s}: {game.busts[s]} busts and {game.holds[s]} holds in {game.turns[s]} turns")
    if game.done != (game.current == -1):
        out.append(f"done {game.done}, current seat {game.current}")
    if (game.rolls_this_turn == 0 and game.turn_total != 0) or game.turn_total < 0:
        out.append(f"turn total {game.turn_total} after {game.rolls_this_turn} rolls")
    if not game.done and game.rules.end == "immediate" and max(game.points) >= game.rules.target:
        out.append("the target is reached but the game goes on")
    if game.round > game.rules.max_rounds:
        out.append(f"round {game.round} past the cap {game.rules.max_rounds}")
    return out
