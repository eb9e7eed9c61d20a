"""Citadels' per-seat columns about the rounds: selection places, offers, hits of the Assassin and the Thief,
and the purple districts each city ends with.

Built from the kernels' result arrays (:func:`boardlab.sim.citadels.engine.record_results`): ``info`` [G, players,
IN_LEN] and the round counts of :func:`boardlab.sim.citadels.summary.run`; the per-round texts come from the numba
kernel :func:`boardlab.sim.citadels.summary.texts`.  This module also holds the readable whole-array oracles of
those two kernels (:func:`round_counts_numpy`, :func:`texts_numpy`, over ``hist`` [G, R, HS_LEN]: the game-major
history).  The columns are documented in :data:`COLUMNS` (and listed in ``boardlab.sim.citadels.game.RESULT_COLUMNS``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels import summary as S
from boardlab.sim.citadels.game import PURPLE_COLUMNS
from boardlab.sim.citadels.rules import ASSASSIN, DECKS, THIEF, Rules

# The purple districts of the classic deck, as column names (built_<name>: the round the city's copy was built).
PURPLES = tuple(d for d in DECKS["classic66"] if d.colour == "purple")

COLUMNS = (
    "positions", "offered", "kills_named", "kills_hit", "robs_named", "robs_hit",
    "murdered_leading", "robbed_richest", *PURPLE_COLUMNS,
)  # fmt: skip
TYPES = {
    "positions": pa.large_string(), "offered": pa.large_string(),
    "kills_named": pa.int16(), "kills_hit": pa.int16(), "robs_named": pa.int16(), "robs_hit": pa.int16(),
    "murdered_leading": pa.int16(), "robbed_richest": pa.int16(),
    **{c: pa.int8() for c in PURPLE_COLUMNS},
}  # fmt: skip
DOC = """\
  positions: the seat's place in the choosing order, round by round ("1-4-3": first chooser, i.e. the crown, in
    round 1); offered: the ranks offered to the seat when it chose, round by round, as two hex digits of the rank
    mask (bit r - 1 = rank r; "3e-c1"); only for the open selection with 4+ players, where the offer follows from
    the removals and the earlier choices -- empty otherwise;
  kills_named, kills_hit: rounds in which the seat, as the Assassin, named a rank / named a rank someone held;
  robs_named, robs_hit: the same for the Thief (a hit: the robbed rank was held by another seat);
  murdered_leading, robbed_richest: rounds in which the seat was murdered while its city was (jointly) the largest,
    robbed while it was (jointly) the richest, at the round's start;
  built_<purple>: the round the city's copy of that purple district was built (0: not in the final city)."""

_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
# Per rank mask (bit r - 1 = rank r), its lowest and highest rank as ASCII digits.
_LOW_DIGIT = np.array([ord(str(min((r for r in range(1, 9) if m >> (r - 1) & 1), default=0))) for m in range(256)])
_HIGH_DIGIT = np.array([ord(str(max((r for r in range(1, 9) if m >> (r - 1) & 1), default=0))) for m in range(256)])


def rounds_text(digits: np.ndarray, rounds: np.ndarray) -> pa.LargeStringArray:
    """Per row, its first rounds[i] entries joined by "-": digits uint8[M, R, w] (ASCII), rounds int[M].

    Built as one byte matrix (entries and separators), of which each row's first bytes are the Arrow string's
    data and the row lengths its offsets: a chunk of 100,000 rows costs milliseconds, not a Python loop.

    Parameters
    ----------
    digits : numpy.ndarray
        uint8, shape ``(M, R, w)``: ASCII digits of each round's entry.
    rounds : numpy.ndarray
        int, shape ``(M,)``: entries per row.

    Returns
    -------
    pyarrow.LargeStringArray
        M strings.
    """
    m, r, w = digits.shape
    cells = np.empty((m, r, w + 1), dtype=np.uint8)
    cells[:, :, :w] = digits
    cells[:, :, w] = ord("-")
    rounds = np.clip(np.asarray(rounds, dtype=np.int64), 0, r)
    lengths = np.where(rounds > 0, rounds * (w + 1) - 1, 0)  # no separator after the last entry
    data = cells.reshape(m, r * (w + 1))[np.arange(r * (w + 1))[None, :] < lengths[:, None]]
    offsets = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return pa.LargeStringArray.from_buffers(m, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(data)))


def offers_open(rules: Rules, players: int) -> bool:
    """Whether the offers follow from the history: the open selection with 4+ players.

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.

    Returns
    -------
    bool
        True with the open selection at 4+ players.
    """
    return players >= 4 and rules["selection_mode"] == "open"


def round_counts_numpy(rules: Rules, players: int, hist: np.ndarray, kept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The readable oracle of :func:`boardlab.sim.citadels.summary.round_counts`, over whole arrays: from hist
    [G, R, HS_LEN] (game-major) and kept [G], (counts int16[G, players, RC_LEN], offered int64[G, players, R]).

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.
    hist : numpy.ndarray
        int32, shape ``(G, R, HS_LEN)``: the round history, game-major.
    kept : numpy.ndarray
        int, shape ``(G,)``: rounds recorded per game.

    Returns
    -------
    tuple of numpy.ndarray
        counts int16 ``(G, players, RC_LEN)`` and offered int64 ``(G, players, R)``.
    """
    g, n_rounds, _ = hist.shape
    n = players
    seats = np.arange(n)
    live = (np.arange(n_rounds)[None, :] < kept[:, None])[:, :, None]  # [G, R, 1]: rounds played
    crown = hist[:, :, E.HS_CROWN]  # [G, R]
    place = (seats[None, None, :] - crown[:, :, None]) % n  # [G, R, n]: 0 = first chooser
    held = hist[:, :, E.HS_HELD : E.HS_HELD + n]  # [G, R, n] rank masks
    offer = np.zeros((g, n_rounds, n), dtype=np.int64)
    if offers_open(rules, n):
        removed = hist[:, :, E.HS_FACEUP] | hist[:, :, E.HS_FACEDOWN]  # [G, R]
        before = np.zeros((g, n_rounds, n), dtype=np.int64)  # ranks taken by the earlier choosers
        for k in range(1, n):
            # the seat at place k: what the seats at places < k hold
            earlier = np.where(place < k, held, 0).sum(axis=2)  # one rank each at 4+ players: sums are ORs
            before = np.where(place == k, earlier[:, :, None], before)
        offer = (0xFF & ~removed)[:, :, None] & ~before
        if n == 7:  # the seventh chooser is also offered the face-down card
            offer = np.where(place == 6, offer | hist[:, :, E.HS_FACEDOWN][:, :, None], offer)
    has = lambda rank: (held & (1 << (rank - 1))) != 0  # noqa: E731 - [G, R, n]
    killed, killed_seat = hist[:, :, E.HS_KILLED], hist[:, :, E.HS_KILLED_SEAT]
    robbed, robbed_seat = hist[:, :, E.HS_ROBBED], hist[:, :, E.HS_ROBBED_SEAT]
    assassin, thief = has(ASSASSIN) & live, has(THIEF) & live
    thief_seat = np.where(thief, seats, -1).max(axis=2)  # [G, R]
    rob_hit = (robbed_seat >= 0) & (robbed_seat != thief_seat)
    city = hist[:, :, E.HS_CITY : E.HS_CITY + n]
    gold = hist[:, :, E.HS_GOLD : E.HS_GOLD + n]
    leading = city == city.max(axis=2, keepdims=True)
    richest = gold == gold.max(axis=2, keepdims=True)
    victim = (killed_seat[:, :, None] == seats) & live
    stolen_from = (robbed_seat[:, :, None] == seats) & rob_hit[:, :, None] & live
    counts = np.zeros((g, n, S.RC_LEN), dtype=np.int16)
    counts[:, :, S.RC_MURDERED] = victim.sum(axis=1)
    counts[:, :, S.RC_ROBBED] = stolen_from.sum(axis=1)
    counts[:, :, S.RC_STOLEN] = np.where(stolen_from, hist[:, :, E.HS_STOLEN][:, :, None], 0).sum(axis=1)
    counts[:, :, S.RC_KILLS_NAMED] = (assassin & (killed > 0)[:, :, None]).sum(axis=1)
    counts[:, :, S.RC_KILLS_HIT] = (assassin & (killed_seat >= 0)[:, :, None]).sum(axis=1)
    counts[:, :, S.RC_ROBS_NAMED] = (thief & (robbed > 0)[:, :, None]).sum(axis=1)
    counts[:, :, S.RC_ROBS_HIT] = (thief & rob_hit[:, :, None]).sum(axis=1)
    counts[:, :, S.RC_MURDERED_LEADING] = (victim & leading).sum(axis=1)
    counts[:, :, S.RC_ROBBED_RICHEST] = (stolen_from & richest).sum(axis=1)
    return counts, offer.transpose(0, 2, 1)


def texts_numpy(rules: Rules, players: int, hist: np.ndarray, kept: np.ndarray, offered: np.ndarray) -> dict:
    """The readable oracle of :func:`boardlab.sim.citadels.summary.texts`, over whole arrays: the per-round text
    columns (summary.TEXTS) as Arrow large strings, from hist [G, R, HS_LEN] (game-major), kept [G] and the offers
    (:func:`boardlab.sim.citadels.summary.run`).

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.
    hist : numpy.ndarray
        int32, shape ``(G, R, HS_LEN)``: the round history, game-major.
    kept : numpy.ndarray
        int, shape ``(G,)``: rounds recorded per game.
    offered : numpy.ndarray
        int64, shape ``(G, players, R)``: the offers.

    Returns
    -------
    dict
        Text column name -> pyarrow large string array (one per game and seat).
    """
    g, n_rounds, _ = hist.shape
    n = players
    rows = np.repeat(kept, n)
    held = hist[:, :, E.HS_HELD : E.HS_HELD + n].transpose(0, 2, 1).reshape(g * n, n_rounds)  # rank masks
    per_round = [_LOW_DIGIT[held]] if n >= 4 else [_LOW_DIGIT[held], _HIGH_DIGIT[held]]
    place = (np.arange(n)[None, None, :] - hist[:, :, E.HS_CROWN][:, :, None]) % n  # [G, R, n]: 0 = first chooser
    out = {
        "characters": rounds_text(np.stack(per_round, axis=2).astype(np.uint8), rows),
        "positions": rounds_text(
            (ord("1") + place).transpose(0, 2, 1).reshape(g * n, n_rounds, 1).astype(np.uint8), rows
        ),
    }
    if offers_open(rules, n):
        offer = offered.reshape(g * n, n_rounds)
        cells = np.stack([_HEX[(offer >> 4) & 0xF], _HEX[offer & 0xF]], axis=2).astype(np.uint8)
        out["offered"] = rounds_text(cells, rows)
    else:
        out["offered"] = pa.repeat(pa.scalar("", pa.large_string()), g * n)
    for name, col in (("kills", E.HS_KILLED), ("robs", E.HS_ROBBED)):
        per_game = rounds_text((ord("0") + hist[:, :, col, None]).astype(np.uint8), kept)
        out[name] = per_game.take(pa.array(np.repeat(np.arange(g, dtype=np.int64), n)))
    return out


def columns(
    rules: Rules,
    players: int,
    info: np.ndarray,
    counts: np.ndarray,
) -> dict[str, object]:
    """The :data:`COLUMNS` of a chunk but its texts (``positions``, ``offered``: :func:`texts_numpy` and its kernel),
    one entry per (game, seat) in game-major, seat-minor order, from info [G, players, IN_LEN] and the round counts
    (:func:`boardlab.sim.citadels.summary.run`, or its oracle :func:`round_counts_numpy`).

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.
    info : numpy.ndarray
        int32, shape ``(G, players, IN_LEN)``.
    counts : numpy.ndarray
        int16, shape ``(G, players, RC_LEN)``: the round counts.

    Returns
    -------
    dict of str to object
        Column name -> one value per (game, seat).
    """
    g, n = counts.shape[0], players
    out: dict[str, object] = {}
    for name, c in (
        ("kills_named", S.RC_KILLS_NAMED),
        ("kills_hit", S.RC_KILLS_HIT),
        ("robs_named", S.RC_ROBS_NAMED),
        ("robs_hit", S.RC_ROBS_HIT),
        ("murdered_leading", S.RC_MURDERED_LEADING),
        ("robbed_richest", S.RC_ROBBED_RICHEST),
    ):
        out[name] = counts[:, :, c].ravel().astype(np.int16)
    for d, name in zip(PURPLES, PURPLE_COLUMNS, strict=True):
        t = rules.district_id(d.name)
        out[name] = (info[:, :n, E.IN_BUILT + t] if t >= 0 else np.zeros((g, n))).ravel().astype(np.int8)
    return out
