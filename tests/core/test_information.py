"""What a Python agent is given leads to nothing it may not see: neither the true game's seed nor its hidden part.

A spy agent plays every seat of a game of each registered game (``boardlab.sim.games``: the built-in ones and the
installed example plugins) through the generic chunk player
(:func:`boardlab.experiments.play.play_game`).  At every decision it walks every object reachable from its arguments --
the observation (its redealt copy included), the legal moves and its generator -- without the garbage collector:
attributes, ``__dict__`` and ``__slots__``, containers, numpy arrays (their contents and bases), closures, bound
methods' ``__self__``, the generator's bit generator, its state and its seed sequence.  It finds neither the true
game seed (as an integer, in an array, or in any bytes or text) nor the hidden state (Citadels: the other seats'
hands and the deck's order; Cartographers: the explore and ambush decks' order; Citywright: the chance stream,
which is its deck's order; Hearts-lite: the other seats' hands and the chance stream, its later deals; Pig: the
chance stream, the die's future).  And two positions that seat cannot tell apart give it the same arguments, and the
same redeals from the same stream.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import types
from collections.abc import Callable

import numpy as np

from boardlab.agents.generic.base import agent_moves, agent_rng
from boardlab.experiments import play as P
from boardlab.sim.games import available_games, get_game
from tests.per_game import PLUGIN_GAMES, game_ids

SEED = 0x9E3779B97F4A7C15 ^ 0x1234_5678_9ABC  # a 64-bit seed: no small number of a table equals it by chance
# Every registered game (the example plugins when installed: make installs them), with the players of its spied-on game.
GAMES = sorted(g.id for g in available_games())
BUILT_IN = sorted(g.id for g in available_games() if g.new_game.__module__.startswith("boardlab.sim."))
PLAYERS = {gid: max(get_game(gid).players[0], min(4, get_game(gid).players[1])) for gid in GAMES}
game_id = game_ids(PLUGIN_GAMES)  # the built-in games run the spies in their own folders (tests/per_game.py)
SPY_RULES: dict[str, str] = {}  # a game's rules for its spied-on game, where not its default
_SKIP = (types.ModuleType, type, types.BuiltinFunctionType, types.BuiltinMethodType, types.CodeType, types.FrameType)
_LEAF = (int, float, complex, str, bytes, bytearray, bool, type(None), np.generic)
_PLAIN = frozenset({int, float, complex, str, bytes, bool, type(None)})  # immutable values, exactly these types


def _values(items) -> bool:
    """Every item of `items` is an immutable value: a _PLAIN object or a tuple of values (fingerprint compares
    these by value).  A loop rather than all(): the walks check millions."""
    for x in items:
        kind = type(x)
        if kind not in _PLAIN and not (kind is tuple and _values(x)):
            return False
    return True


def reachable(*roots) -> list:
    """Every object reachable from `roots` (each once), by attributes, slots, containers, array bases, closures,
    bound methods and numpy generators; modules, classes, code and globals are not entered."""
    seen: dict[int, object] = {}
    stack = list(roots)
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        kind = type(obj)
        if kind in _PLAIN:  # most objects: a leaf, told by its exact type before the isinstance checks below
            seen[id(obj)] = obj
            continue
        if kind is tuple or kind is list:
            seen[id(obj)] = obj
            stack.extend(obj)
            continue
        if isinstance(obj, _SKIP):
            continue
        seen[id(obj)] = obj
        if isinstance(obj, _LEAF):
            continue
        if isinstance(obj, np.ndarray):
            if obj.base is not None:
                stack.append(obj.base)
            if obj.dtype == object:
                stack.extend(obj.ravel().tolist())
            continue
        if isinstance(obj, dict | types.MappingProxyType):
            stack.extend(obj.keys())
            stack.extend(obj.values())
            continue
        if isinstance(obj, list | tuple | set | frozenset):
            stack.extend(obj)  # (a tuple subclass may have attributes too: below)
        if isinstance(obj, np.random.Generator):
            stack.append(obj.bit_generator)
            continue
        if isinstance(obj, np.random.BitGenerator):
            stack.extend([obj.state, obj.seed_seq])
            continue
        if isinstance(obj, np.random.SeedSequence):
            stack.extend([obj.entropy, obj.spawn_key, obj.pool, obj.n_children_spawned, obj.pool_size])
            continue
        if isinstance(obj, types.MethodType):
            stack.extend([obj.__self__, obj.__func__])
            continue
        if isinstance(obj, types.FunctionType):
            stack.extend(c.cell_contents for c in obj.__closure__ or () if _filled(c))
            stack.extend([obj.__defaults__, obj.__kwdefaults__])
            continue
        if hasattr(obj, "__dict__") and isinstance(vars(obj), dict):
            stack.append(vars(obj))
        for cls in type(obj).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if hasattr(obj, name):
                    stack.append(getattr(obj, name))
    return list(seen.values())


def _filled(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


def seed_found(objects: list, seed: int) -> list[str]:
    """Where `seed` is among `objects`: an integer equal to it, an array holding it (or its 8 bytes), bytes or
    text holding its bytes or its digits."""
    raw = seed.to_bytes(8, "little")
    digits, hexdigits = str(seed), f"{seed:x}"
    found = []
    for obj in objects:
        kind = type(obj)  # the common exact types first: the walks hand over a hundred thousand objects
        if kind is int:
            if obj in (seed, seed - (1 << 64)):
                found.append(f"the integer {obj} (int)")
            continue
        if kind is str:
            if digits in obj or hexdigits in obj.lower():
                found.append(f"the text {obj[:60]!r}")
            continue
        if kind is tuple or kind is list or kind is dict or kind is bool or obj is None or kind is float:
            continue
        if isinstance(obj, int | np.integer) and int(obj) in (seed, seed - (1 << 64)):
            found.append(f"the integer {int(obj)} ({type(obj).__name__})")
        elif isinstance(obj, np.ndarray) and obj.dtype != object and raw in np.ascontiguousarray(obj).tobytes():
            found.append(f"an array {obj.dtype}{list(obj.shape)}")
        elif isinstance(obj, bytes | bytearray) and raw in obj:
            found.append("bytes")
        elif isinstance(obj, str) and (digits in obj or hexdigits in obj.lower()):
            found.append(f"the text {obj[:60]!r}")
    return found


def int_sequences(objects: list, public: set[int]) -> list[np.ndarray]:
    """Every integer array and every list or tuple of plain integers among `objects` (not the public ones), as
    int64 arrays."""
    out = []
    for obj in objects:
        kind = type(obj)
        if kind in _PLAIN or id(obj) in public:
            continue
        if kind is tuple or kind is list:
            if obj and all(type(x) is int for x in obj):
                out.append(np.asarray(obj, dtype=np.int64))
            continue
        if isinstance(obj, np.ndarray) and obj.dtype.kind in "iu":
            out.append(obj.astype(np.int64, copy=False).ravel())
        elif isinstance(obj, list | tuple) and obj and all(type(x) is int for x in obj):
            out.append(np.asarray(obj, dtype=np.int64))
    return out


def holds_run(seqs: list[np.ndarray], run: list[int]) -> bool:
    """Whether a sequence holds `run` as consecutive items."""
    k = len(run)
    want = np.asarray(run, dtype=np.int64)
    for a in seqs:
        if len(a) >= k and (np.lib.stride_tricks.sliding_window_view(a, k) == want).all(axis=1).any():
            return True
    return False


# --- each game's hidden part, as its Game object holds it --------------------------------------------------------


def _citadels_hidden(g, p: int) -> dict:
    return {"deck": g.deck(), "hands": [g.hand(q) for q in range(g.players) if q != p]}


def _citadels_leaks(truth, p: int, objects: list, seqs: list) -> list[str]:
    hid = _citadels_hidden(truth, p)
    out = []
    if sum(map(len, hid["hands"])) >= 4:  # enough cards that a canonical deal matching them would be a wonder
        if any(isinstance(o, type(truth)) and _citadels_hidden(o, p)["hands"] == hid["hands"] for o in objects):
            out.append(f"the other seats' hands {hid['hands']}")
        from boardlab.sim.citadels.engine import ST_HAND
        from boardlab.sim.citadels.rules import MAX_TYPES

        counts = [truth.st[ST_HAND + q * MAX_TYPES : ST_HAND + (q + 1) * MAX_TYPES] for q in range(truth.players)]
        rows = np.concatenate([c for q, c in enumerate(counts) if q != p]).tolist()
        if holds_run(seqs, rows):
            out.append("the other seats' hand counts")
    deck = hid["deck"]
    if len(deck) >= 6 and deck != sorted(deck):
        if any(isinstance(o, type(truth)) and o.deck() == deck for o in objects):
            out.append("the deck's order")
        if holds_run(seqs, deck[:6]):
            out.append(f"the deck's top six {deck[:6]}")
    return out


def _cartographers_hidden(g) -> dict:
    from boardlab.sim.cartographers import engine as E

    st = g.st
    return {
        "deck": st[E.ST_DECK + st[E.ST_DECK_POS] : E.ST_DECK + st[E.ST_DECK_END]].tolist(),
        "ambush": st[E.ST_AMBUSH + st[E.ST_AMBUSH_POS] : E.ST_AMBUSH + st[E.ST_AMBUSH_END]].tolist(),
    }


def _cartographers_leaks(truth, p: int, objects: list, seqs: list) -> list[str]:
    out = []
    for part, order in _cartographers_hidden(truth).items():
        if len(order) < 3 or order == sorted(order):
            continue  # an order that a canonical copy may hold too
        if any(isinstance(o, type(truth)) and _cartographers_hidden(o)[part] == order for o in objects):
            out.append(f"the {part} order {order}")
        if holds_run(seqs, order):
            out.append(f"the {part} order {order} in a sequence")
    return out


def _citywright_leaks(truth, p: int, objects: list, seqs: list) -> list[str]:
    # the rulers' deck and the markets are drawn from the chance stream: its state is their order
    out = []
    for name, state in zip(("chance", "policy"), truth.rng.tolist(), strict=True):
        if seed_found(objects, int(state)):
            out.append(f"the {name} stream's state (the deck's order)")
    return out


def _stream_leaks(truth, p: int, objects: list, seqs: list) -> list[str]:
    # a pure-Python game's two SplitMix64 streams: the chance stream's state is its future (Pig's die, later deals)
    return [
        f"the {name} stream's state"
        for name, state in zip(("chance", "policy"), truth.streams, strict=True)
        if seed_found(objects, int(state))
    ]


def _heartslite_leaks(truth, p: int, objects: list, seqs: list) -> list[str]:
    out = _stream_leaks(truth, p, objects, seqs)
    others = [q for q in range(truth.players) if q != p]
    # only hands the observation leaves open: 30 redeals give 30 different deals (a forced hand is no secret)
    deals = [truth.redeal(p, k).hands for k in range(30)]
    if len({repr([d[q] for q in others]) for d in deals}) == 30:
        hidden = [truth.hands[q] for q in others]
        if any(isinstance(o, type(truth)) and [o.hands[q] for q in others] == hidden for o in objects):
            out.append(f"the other seats' hands {hidden}")
    for q in others:
        if len({repr(d[q]) for d in deals}) >= 25 and holds_run(seqs, truth.hands[q]):
            out.append(f"seat {q}'s hand {truth.hands[q]} in a sequence")
    return out


LEAKS: dict[str, Callable] = {
    "citywright": _citywright_leaks,
    "cartographers": _cartographers_leaks,
    "citadels": _citadels_leaks,
    "heartslite": _heartslite_leaks,
    "pig": _stream_leaks,
}


def public_ids(truth) -> set[int]:
    """The objects the true game shares with every copy: its rules and tables (public, the same for any seed)."""
    return {id(o) for o in reachable(truth.rules, getattr(truth, "tables", None))}


def leaks(game_id: str, truth, p: int, args: tuple, public: set[int]) -> list[str]:
    """What of the true game's seed and hidden part seat p's arguments lead to."""
    objects = reachable(*args)
    assert not any(o is truth for o in objects), "the true game itself is reachable"
    seqs = int_sequences(objects, public)
    found = [f"the game seed, as {w}" for w in seed_found(objects, truth.seed)]
    return found + LEAKS[game_id](truth, p, objects, seqs)


def fingerprint(*roots) -> list:
    """Everything reachable from `roots`, as comparable values in a fixed order (shared objects by first visit;
    immutable values, and lists and dicts holding only such, by value)."""
    order: dict[int, int] = {}
    out: list = []

    def visit(obj, depth=0):
        kind = type(obj)
        if kind in _PLAIN:  # a value: compared by value, wherever it is shared
            out.append((kind.__name__, obj))
            return
        if isinstance(obj, _SKIP):
            out.append(("skip", getattr(obj, "__qualname__", getattr(obj, "__name__", type(obj).__name__))))
            return
        if id(obj) in order:
            out.append(("ref", order[id(obj)]))
            return
        order[id(obj)] = len(order)
        if isinstance(obj, _LEAF):
            out.append((type(obj).__name__, obj.item() if isinstance(obj, np.generic) else obj))
            return
        if isinstance(obj, np.ndarray):
            out.append(("array", str(obj.dtype), obj.shape, np.ascontiguousarray(obj).tobytes()))
            return
        if (kind is tuple or kind is list) and _values(obj):  # a sequence of values at once
            out.append((kind.__name__, tuple(obj)))
            return
        if kind is dict and _values(obj) and _values(obj.values()):  # (its keys, then its values)
            out.append(("dict", tuple(obj.items())))
            return
        if _record_type(kind):  # reachable_children would give [vars(obj)]: its visit, at once
            d = obj.__dict__
            if type(d) is dict and id(d) not in order and _values(d) and _values(d.values()):
                out.append(("obj", kind.__qualname__))
                order[id(d)] = len(order)
                out.append(("dict", tuple(d.items())))
                return
        out.append(("obj", type(obj).__qualname__))
        kids = [r for r in reachable_children(obj)]
        for k in kids:
            visit(k, depth + 1)

    for r in roots:
        visit(r)
    return out


_ENTERED_OTHERWISE = (
    dict, types.MappingProxyType, set, frozenset, list, tuple, np.ndarray, np.random.Generator,
    np.random.BitGenerator, np.random.SeedSequence, types.MethodType, types.FunctionType,
)  # fmt: skip


@functools.cache
def _record_type(kind: type) -> bool:
    """reachable_children enters an instance of `kind` through its ``__dict__`` alone: no slots, and none of the
    kinds it enters otherwise."""
    return not issubclass(kind, _ENTERED_OTHERWISE) and not any(getattr(c, "__slots__", ()) for c in kind.__mro__)


def reachable_children(obj) -> list:
    """The objects `reachable` would enter from `obj` (in a fixed order)."""
    if isinstance(obj, dict | types.MappingProxyType):
        return [x for kv in obj.items() for x in kv]
    if isinstance(obj, set | frozenset):
        return sorted(obj, key=repr)
    kids = list(obj) if isinstance(obj, list | tuple) else []
    if isinstance(obj, np.random.Generator):
        return [obj.bit_generator]
    if isinstance(obj, np.random.BitGenerator):
        return [obj.state, obj.seed_seq]
    if isinstance(obj, np.random.SeedSequence):
        return [obj.entropy, obj.spawn_key, obj.pool]
    if isinstance(obj, types.MethodType):
        return [obj.__self__, obj.__func__]
    if isinstance(obj, types.FunctionType):
        return [c.cell_contents for c in obj.__closure__ or () if _filled(c)]
    if hasattr(obj, "__dict__") and isinstance(vars(obj), dict):
        kids.append(vars(obj))
    for cls in type(obj).__mro__:
        kids.extend(getattr(obj, n) for n in getattr(cls, "__slots__", ()) if hasattr(obj, n))
    return kids


def _state(g) -> tuple:
    """A game's whole state (its arrays and its seed), to compare two redeals."""
    arrays = {k: v.tobytes() for k, v in sorted(vars(g).items()) if isinstance(v, np.ndarray)}
    return g.seed, g.snapshot(), arrays


class Spy:
    """Plays uniformly with its generator; at every decision, checks what it was given against the true game:
    what it leads to (twins False), or that a position it cannot tell apart gives it the same (twins True)."""

    def __init__(self, game_id: str, truths: list, log: list, twins: bool):
        self.game_id, self.truths, self.log, self.twins = game_id, truths, log, twins

    def act(self, observation, legal_moves, rng):
        truth = self.truths[-1]
        p = observation.player
        if self.twins:
            self.log.append(("twin", twin_differences(truth, p, rng)))
        else:
            if not hasattr(self, "public"):
                self.public = public_ids(truth)
            self.log.append(("decision", leaks(self.game_id, truth, p, (observation, legal_moves, rng), self.public)))
        return legal_moves[int(rng.integers(len(legal_moves)))]


def twin_differences(truth, p: int, rng: np.random.Generator) -> list[str]:
    """A position seat p cannot tell from `truth` (its hidden part redealt) must give p the same arguments, and
    the same redeals from the same stream."""
    twin = truth.redeal(p, 4242)
    twin.seed = truth.seed ^ 1  # a seed is hidden too: a position of another seed may look the same
    out = []
    if twin.observation(p) != truth.observation(p):
        return ["the twin is not indistinguishable (a test error)"]
    a = (truth.observation(p), agent_moves(truth))  # (the generator is the seat's, whichever position it is in)
    b = (twin.observation(p), agent_moves(twin))
    if fingerprint(*a) != fingerprint(*b):
        out.append("the arguments differ")
    if _state(a[0].sample(_copy(rng))) != _state(b[0].sample(_copy(rng))):
        out.append("Observation.sample differs")
    if _state(truth.redeal(p, _copy(rng))) != _state(twin.redeal(p, _copy(rng))):
        out.append("redeal differs")
    return out


def _copy(rng: np.random.Generator) -> np.random.Generator:
    """A generator in `rng`'s state (drawing from it leaves `rng` as it was)."""
    return copy.deepcopy(rng)


def spy_game(game_id: str, twins: bool) -> list:
    game = get_game(game_id)
    truths: list = []

    def new_game(players, rules, seed):
        truths.append(game.new_game(players, rules, seed))
        return truths[-1]

    recording = dataclasses.replace(game, new_game=new_game)
    log: list = []
    n = PLAYERS[game_id]
    rules = game.load_rules(SPY_RULES.get(game_id, game.default_preset))
    P.play_game(recording, rules, [Spy(game_id, truths, log, twins) for _ in range(n)], SEED)
    assert truths[-1].done
    return log


def test_every_game_is_spied_on():
    assert set(GAMES) <= set(LEAKS)
    assert set(BUILT_IN) >= {"citywright", "cartographers", "citadels"}
    assert {"pig", "heartslite"} <= set(GAMES), "the example games are not installed (make installs them)"


def test_nothing_an_agent_is_given_leads_to_the_seed_or_the_hidden_state(game_id):
    log = spy_game(game_id, twins=False)
    found = [f for kind, fs in log for f in fs]
    assert len(log) > 10
    assert not found, sorted(set(found))[:10]


def test_positions_a_seat_cannot_tell_apart_give_it_the_same_arguments_and_redeals(game_id):
    log = spy_game(game_id, twins=True)
    found = [f for _, fs in log for f in fs]
    assert len(log) > 10
    assert not found, sorted(set(found))


def test_the_spy_finds_the_seed_and_the_hidden_state_in_the_true_game(game_id):
    """The detectors work: rooted at the true game (or its seed's generator), the walk finds what it hides."""
    game = get_game(game_id)
    truth = game.new_game(PLAYERS[game_id], game.load_rules(game.default_preset), SEED)
    for _ in range(3 * PLAYERS[game_id]):  # into the game: hands dealt, cards drawn
        truth.apply(truth.random_move())
    objects = reachable(truth.snapshot(), vars(truth), {"seed": truth.seed})
    p = truth.current
    seqs = int_sequences(objects, public_ids(truth))
    assert seed_found(objects, truth.seed)
    assert LEAKS[game_id](truth, p, objects, seqs)
    # the generator every runner seeded from the seed itself (as it once was) would be found too
    assert seed_found(reachable(np.random.default_rng([truth.seed, 0])), truth.seed)
    assert not seed_found(reachable(agent_rng(truth.seed, 0)), truth.seed)
