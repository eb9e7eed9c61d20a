"""Hearts-lite's public API: the methods every boardlab game has (docs/your-own-game.md lists them).

    >>> from boardlab_heartslite.api import Game
    >>> g = Game(players=4, rules="one-deal", seed=7)
    >>> g.legal_moves()                        # the holder of the two of clubs leads it
    [Move(card=0)]
    >>> g.apply(g.legal_moves()[0])

A card is an integer ``13 * suit + rank``: suits clubs, diamonds, spades, hearts (0..3), ranks two to ace
(0..12); ``str`` gives ``2C``, ``TD``, ``QS``, ``AH``.  Pure Python, no numba.  Randomness is explicit: two
SplitMix64 streams seeded from the game seed, ``chance`` for the shuffles and ``policy`` for
:meth:`Game.random_move`, so the same seed plays the same game.

The hands are hidden (``information = "imperfect"``).  A seat observes its own hand, every card played (the
tricks, public), each seat's hand size and points, and the suits each seat has shown it lacks (it did not follow
one).  :meth:`Game.redeal` deals the cards that seat has not seen anew among the others, consistently with all
of that: hand sizes, the voids shown, and the two of clubs with the seat that must lead it.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np

from boardlab.sim.observation import Observation, as_generator, copy_seed, fresh_streams
from boardlab.sim.ranking import ranking

from .rules import MAX_PLAYERS, MIN_PLAYERS, Rules, load_rules

MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_POLICY_XOR = 0x5851F42D4C957F2D  # the policy stream starts at seed ^ this
CHANCE, POLICY = 0, 1

SUITS = ("clubs", "diamonds", "spades", "hearts")
CLUBS, DIAMONDS, SPADES, HEARTS = range(4)
RANKS = "23456789TJQKA"
SUIT_LETTERS = "CDSH"
TWO_OF_CLUBS = 0
QUEEN_OF_SPADES = 13 * SPADES + RANKS.index("Q")
NO_CARD = -1


class IllegalMove(ValueError):
    """A move the rules do not allow now (the game is left unchanged)."""


def card_text(card: int) -> str:
    """``QS`` for the queen of spades: rank then suit letter."""
    return RANKS[card % 13] + SUIT_LETTERS[card // 13]


@dataclass(frozen=True)
class Move:
    """Play `card` (``13 * suit + rank``) from the hand of the seat to move."""

    card: int

    def __str__(self) -> str:
        return card_text(self.card)


MOVES = tuple(Move(c) for c in range(52))


def deck(players: int) -> list[int]:
    """The cards dealt to `players` seats, ascending: all 52, less the lowest diamonds that do not divide evenly."""
    left_out = 52 % players
    return [c for c in range(52) if not (c // 13 == DIAMONDS and c % 13 < left_out)]


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


class Game:
    """One game of Hearts-lite: `players` seats (3 or 4), a rule set (a preset name, a TOML path or a Rules), a
    seed.  The lowest score wins."""

    information = "imperfect"
    chance = True
    score_direction = "lower"

    def __init__(self, players: int, rules: Rules | str | Path | None = None, seed: int = 0):
        if (
            isinstance(players, bool)
            or not isinstance(players, (int, np.integer))
            or not MIN_PLAYERS <= players <= MAX_PLAYERS
        ):
            raise ValueError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {players!r}")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"seed must be an integer, got {seed!r}")
        self.players = n = int(players)
        self.rules = load_rules(rules)
        self.seed = int(seed) & MASK64
        self.streams = [self.seed, self.seed ^ _POLICY_XOR]
        self.points = [0] * n  # the score: points of the finished deals
        self.deal = 0
        self.done = False
        self.current = 0
        self.tricks = [0] * n  # tricks won, every deal
        self.hearts = [0] * n  # hearts taken, every deal
        self.queens = [0] * n  # queens of spades taken
        self.moons = [0] * n  # deals in which the seat shot the moon
        self._new_deal()

    # --- randomness ---------------------------------------------------------------------------------
    def _rand_below(self, stream: int, n: int) -> int:
        self.streams[stream] = (self.streams[stream] + _GOLDEN) & MASK64
        return ((_mix(self.streams[stream]) >> 32) * n) >> 32

    def _new_deal(self) -> None:
        """Shuffle (Fisher-Yates on the chance stream) and deal; the holder of the two of clubs leads."""
        cards = deck(self.players)
        for i in range(len(cards) - 1, 0, -1):
            j = self._rand_below(CHANCE, i + 1)
            cards[i], cards[j] = cards[j], cards[i]
        size = len(cards) // self.players
        self.hands = [sorted(cards[s * size : (s + 1) * size]) for s in range(self.players)]
        self.taken = [0] * self.players  # points taken this deal
        self.point_cards = [0] * self.players  # hearts and the queen of spades taken this deal
        self.trick: list[int] = []  # the cards of the trick in play, from its leader's
        self.leader = next(s for s in range(self.players) if TWO_OF_CLUBS in self.hands[s])
        self.current = self.leader
        self.played: list[int] = []  # every card played this deal, in order (public)
        self.voids = [[False] * 4 for _ in range(self.players)]  # the suits a seat has shown it lacks
        self.hearts_broken = False
        self.trick_number = 0

    # --- state --------------------------------------------------------------------------------------
    def copy(self) -> Game:
        g = object.__new__(Game)
        g.__dict__.update(self.__dict__)
        for k in (
            "streams",
            "points",
            "tricks",
            "hearts",
            "queens",
            "moons",
            "taken",
            "point_cards",
            "trick",
            "played",
        ):
            setattr(g, k, list(getattr(self, k)))
        g.hands = [list(h) for h in self.hands]
        g.voids = [list(v) for v in self.voids]
        return g

    def snapshot(self) -> dict:
        """The whole state but the random streams (every hand included: tests and debugging)."""
        return {
            "players": self.players,
            "deal": self.deal,
            "current": self.current,
            "done": self.done,
            "points": list(self.points),
            "taken": list(self.taken),
            "point_cards": list(self.point_cards),
            "hands": [list(h) for h in self.hands],
            "trick": list(self.trick),
            "leader": self.leader,
            "trick_number": self.trick_number,
            "played": list(self.played),
            "voids": [list(v) for v in self.voids],
            "hearts_broken": self.hearts_broken,
            "tricks": list(self.tricks),
            "hearts": list(self.hearts),
            "queens": list(self.queens),
            "moons": list(self.moons),
        }

    def observation(self, player: int) -> Observation:
        """What seat `player` sees: snapshot() with its own hand only (``hand``) and every seat's hand size
        (``hand_sizes``), and sample(rng), a copy to search on (:meth:`redeal`)."""
        player = self._check_seat(player)
        snap = self.snapshot()
        hands = snap.pop("hands")
        snap.update(hand=hands[player], hand_sizes=[len(h) for h in hands])
        return Observation(player, snap, self.redeal(player))

    def redeal(self, player: int, rng: np.random.Generator | int | None = None) -> Game:
        """A copy whose cards unseen by `player` (the other hands) are dealt anew from `rng` (a numpy Generator
        or a seed), and whose random streams (the later deals, the policy) are new.  Each other seat gets as many
        cards as it holds, none of a suit it has shown it lacks, and the two of clubs stays with the seat that
        must lead it.  Depends only on what `player` sees and on `rng`.  With `rng` None: the unseen cards dealt in
        ascending order, each to the first seat that may take it while a deal of the rest remains possible, the
        streams zero (and the seed 0)."""
        player = self._check_seat(player)
        gen = None if rng is None else as_generator(rng)
        g = self.copy()
        others = [s for s in range(self.players) if s != player]
        unseen = sorted(c for s in others for c in self.hands[s])
        capacity = {s: len(self.hands[s]) for s in others}
        allowed = {s: [not v for v in self.voids[s]] for s in others}
        if TWO_OF_CLUBS in unseen:  # the first lead of a deal: its holder is the seat to move
            unseen.remove(TWO_OF_CLUBS)
            capacity[self.current] -= 1
        hands = _deal(unseen, capacity, allowed, gen)
        if TWO_OF_CLUBS not in self.played and TWO_OF_CLUBS not in self.hands[player]:
            hands[self.current].append(TWO_OF_CLUBS)
        for s in others:
            g.hands[s] = sorted(hands[s])
        streams = fresh_streams(gen)
        g.streams = [int(x) for x in streams]
        g.seed = copy_seed(streams)  # drawn with the streams (0 canonically): never the true game's seed
        return g

    def _check_seat(self, player) -> int:
        if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or not 0 <= player < self.players:
            raise ValueError(f"player must be a seat 0..{self.players - 1}, got {player!r}")
        return int(player)

    def scores(self) -> list[dict]:
        """Per seat: total (points, the lower the better), rank (1 = best; ties share), win share, and its counts
        over every deal (tricks won, hearts and queens of spades taken, moons shot)."""
        ranks, shares = ranking(self.points, self.score_direction)
        return [
            {
                "total": self.points[s],
                "rank": ranks[s],
                "win_share": shares[s],
                "deals": self.deal + (0 if self.done else 1),
                "tricks": self.tricks[s],
                "hearts": self.hearts[s],
                "queens": self.queens[s],
                "moons": self.moons[s],
            }
            for s in range(self.players)
        ]

    def progress(self, player: int) -> int:
        """Points taken so far by seat `player`: its score and what it has taken in the deal in play."""
        s = self._check_seat(player)
        return self.points[s] + (0 if self.done else self.taken[s])

    def capped(self) -> bool:
        """Whether the game ended at the deal cap (``max_deals``) with no one at the target."""
        return self.done and max(self.points) < self.rules.target

    def move_families(self) -> tuple[str, ...]:
        """The move families restricted play names (``random-prefers:hearts``): the four suits."""
        return SUITS

    def move_family(self, m: Move) -> str:
        """The family of a move: the suit of the card played."""
        return SUITS[m.card // 13]

    def decision_kind(self) -> str:
        """``lead`` (the first card of a trick), ``follow`` (a card of the suit led) or ``discard`` (another)."""
        if not self.trick:
            return "lead"
        suit = self.trick[0] // 13
        return "follow" if any(c // 13 == suit for c in self.hands[self.current]) else "discard"

    # --- moves --------------------------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """[] when done; else the cards of the seat to move that the rules allow (rules.py)."""
        if self.done:
            return []
        return [MOVES[c] for c in self._legal_cards()]

    def _legal_cards(self) -> list[int]:
        hand = self.hands[self.current]
        rules = self.rules
        if not self.trick:
            if self.trick_number == 0 and TWO_OF_CLUBS in hand:
                return [TWO_OF_CLUBS]
            if rules.hearts_must_break and not self.hearts_broken:
                safe = [c for c in hand if c // 13 != HEARTS]
                if safe:
                    return safe
            return hand
        suit = self.trick[0] // 13
        follow = [c for c in hand if c // 13 == suit]
        if follow:
            return follow
        if self.trick_number == 0 and rules.first_trick_no_points:
            safe = [c for c in hand if c // 13 != HEARTS and c != QUEEN_OF_SPADES]
            if safe:
                return safe
        return hand

    def is_legal(self, m: Move) -> bool:
        return isinstance(m, Move) and not self.done and m.card in self._legal_cards()

    @staticmethod
    def parse_move(text: str) -> Move:
        """``QS`` (str(move)) -> the Move."""
        t = str(text).strip().upper()
        if len(t) == 2 and t[0] in RANKS and t[1] in SUIT_LETTERS:
            return MOVES[13 * SUIT_LETTERS.index(t[1]) + RANKS.index(t[0])]
        raise IllegalMove(f"not a card: {text!r} (rank 2-9, T, J, Q, K or A, then suit C, D, S or H: QS)")

    def random_move(self) -> Move:
        """A legal move drawn uniformly from the game's policy stream."""
        if self.done:
            raise IllegalMove("the game is over")
        cards = self._legal_cards()
        return MOVES[cards[self._rand_below(POLICY, len(cards))]]

    def apply(self, m: Move) -> None:
        """Play a card for the seat to move; IllegalMove (and nothing changes) if it is not legal."""
        if not self.is_legal(m):
            raise IllegalMove("the game is over" if self.done else f"{m!r} is not legal now ({self.legal_moves()})")
        p, card = self.current, m.card
        self.hands[p].remove(card)
        if self.trick and card // 13 != self.trick[0] // 13:
            self.voids[p][self.trick[0] // 13] = True
        if card // 13 == HEARTS:
            self.hearts_broken = True
        self.trick.append(card)
        self.played.append(card)
        if len(self.trick) < self.players:
            self.current = (p + 1) % self.players
            return
        self._end_trick()

    def _end_trick(self) -> None:
        suit = self.trick[0] // 13
        best = max(range(self.players), key=lambda i: self.trick[i] if self.trick[i] // 13 == suit else -1)
        winner = (self.leader + best) % self.players
        hearts = sum(c // 13 == HEARTS for c in self.trick)
        queen = QUEEN_OF_SPADES in self.trick
        self.taken[winner] += hearts * self.rules.heart_points + queen * self.rules.queen_points
        self.tricks[winner] += 1
        self.point_cards[winner] += hearts + queen
        self.hearts[winner] += hearts
        self.queens[winner] += queen
        self.trick = []
        self.trick_number += 1
        self.leader = self.current = winner
        if not self.hands[winner]:
            self._end_deal()

    def _end_deal(self) -> None:
        rules = self.rules
        total = 13 * rules.heart_points + rules.queen_points
        taken = self.taken
        moon = next((s for s in range(self.players) if self.point_cards[s] == 14), None)  # 13 hearts, the queen
        if rules.shoot_the_moon and moon is not None and total > 0:
            self.moons[moon] += 1
            taken = [0 if s == moon else total for s in range(self.players)]
        self.points = [a + b for a, b in zip(self.points, taken, strict=True)]
        if max(self.points) >= rules.target or self.deal + 1 >= rules.max_deals:
            self.done = True
            self.current = -1
            self.taken = [0] * self.players
            return
        self.deal += 1
        self._new_deal()


def _deal(
    cards: list[int], capacity: dict[int, int], allowed: dict[int, list[bool]], gen: np.random.Generator | None
) -> dict[int, list[int]]:
    """`cards` dealt to the seats of `capacity` (exactly that many each), a seat getting only suits it is
    `allowed`; shuffled and each card to a random seat (by `gen`) such that the rest can still be dealt; with
    `gen` None, in ascending order, each to the first such seat.  A deal exists (the true one)."""
    seats = sorted(capacity)
    left = dict(capacity)
    count = [0] * 4
    for c in cards:
        count[c // 13] += 1
    order = list(cards) if gen is None else [cards[i] for i in gen.permutation(len(cards))]
    hands: dict[int, list[int]] = {s: [] for s in seats}
    for c in order:
        suit = c // 13
        count[suit] -= 1
        options = [s for s in seats if left[s] > 0 and allowed[s][suit]]
        if gen is not None and len(options) > 1:
            options = [options[i] for i in gen.permutation(len(options))]
        for s in options:
            left[s] -= 1
            if _dealable(count, left, allowed):
                break
            left[s] += 1
        else:
            raise AssertionError("no deal of the unseen cards is consistent with the voids shown")
        hands[s].append(c)
    return hands


def _dealable(count: list[int], left: dict[int, int], allowed: dict[int, list[bool]]) -> bool:
    """Whether cards of `count` per suit can go to seats with `left` places, each only to a suit it is allowed:
    for every set of suits, its cards fit the places of the seats allowed one of them (Hall's condition)."""
    suits = [u for u in range(4) if count[u]]
    for k in range(1, len(suits) + 1):
        for subset in combinations(suits, k):
            room = sum(n for s, n in left.items() if any(allowed[s][u] for u in subset))
            if sum(count[u] for u in subset) > room:
                return False
    return True


def invariants(game: Game) -> list[str]:
    """What holds in every position; each broken one as a line."""
    out = []
    n = game.players
    cards = sorted([c for h in game.hands for c in h] + game.played)
    if not game.done and cards != deck(n):
        out.append(f"the hands and the cards played are not the deck ({len(cards)} cards)")
    if not game.done:
        sizes = [len(h) for h in game.hands]
        per_deal = len(deck(n)) // n
        expect = [per_deal - game.trick_number - ((s - game.leader) % n < len(game.trick)) for s in range(n)]
        if sizes != expect:
            out.append(f"hand sizes {sizes}, expected {expect}")
        for s in range(n):
            for u in range(4):
                if game.voids[s][u] and any(c // 13 == u for c in game.hands[s]):
                    out.append(f"seat {s} holds a {SUITS[u][:-1]} after showing it has none")
    if game.done != (game.current == -1):
        out.append(f"done {game.done}, current seat {game.current}")
    if any(p < 0 for p in game.points):
        out.append(f"negative points {game.points}")
    if sum(game.tricks) != game.deal * (len(deck(n)) // n) + game.trick_number:
        out.append(f"{sum(game.tricks)} tricks won in deal {game.deal}, trick {game.trick_number}")
    return out
