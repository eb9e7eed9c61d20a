"""The ranking is defined once (rules.RANKING): the pandas re-rankers' key and the engine's order agree with it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.api import board_from_string
from boardlab.sim.citywright.ranking import rank_key
from boardlab.sim.citywright.reference import RefGame
from boardlab.sim.citywright.rules import ACHIEVEMENT_CODES, ACHIEVEMENT_KINDS, RANKING, load_rules
from boardlab.sim.citywright.tables import tables_for


def test_rank_key_orders_players_as_ranking_says():
    rng = np.random.default_rng(0)
    n = 2000
    cols = {
        "total": rng.integers(-30, 30, n),  # small ranges, so ties reach every tie-break
        "empty": rng.integers(0, 50, n) // 10,
        "shapes_distinct": rng.integers(0, 17, n) // 4,
    }
    key = rank_key(cols)

    def lexicographic(i):
        return tuple(cols[name][i] if more else -cols[name][i] for name, more in RANKING)

    for i, j in rng.integers(0, n, (5000, 2)):
        a, b = lexicographic(i), lexicographic(j)
        assert (key[i] > key[j]) == (a > b) and (key[i] == key[j]) == (a == b)


def test_engine_ranks_with_the_same_columns():
    sheet = dict(zip(("total", "empty", "shapes_distinct"), (E.SC_TOTAL, E.SC_EMPTY, E.SC_DISTINCT), strict=True))
    assert E.RANK_COLUMNS == tuple(sheet[name] for name, _ in RANKING)
    assert E.RANK_SIGNS == tuple(1 if more else -1 for _, more in RANKING)


def test_every_achievement_kind_has_a_code():
    assert sorted(ACHIEVEMENT_CODES.values()) == list(range(len(ACHIEVEMENT_KINDS)))


# --- the tie-breaks on constructed score sheets: the expected ranks are written out, not derived from RANKING ---
# No seat compensation, so equal boards give equal totals; the achievements (6 distinct shapes, 4 of one
# shape, the highest park score: every seat has the same parks) are earned alike by every seat below.
ROOT = Path(__file__).resolve().parents[2]
TIE_RULES = load_rules("v1.1").with_overrides({"game.compensation.4": [0, 0, 0, 0]})
BOARD = "RRCCPPII" + "." * 41
BOARD_ONE_MORE = "RRCCPPIII" + "." * 40  # a third industrial tile scores nothing more: one empty cell fewer

CASES = {
    # total and empty cells tie at every seat: more distinct shapes ranks higher
    "distinct shapes decide": (
        [BOARD] * 4,
        [{"I": 3}, {"I": 1, "L": 1, "T": 1}, {"I": 1, "L": 1}, {"O": 2}],
        [1, 3, 2, 1],
        [3, 1, 2, 3],
    ),
    # the distinct shapes tie too at the top: a shared win
    "a shared win": (
        [BOARD] * 4,
        [{"I": 1, "L": 1}, {"I": 1, "L": 1, "T": 1}, {"Z": 1, "O": 1, "W": 1}, {"P": 2}],
        [2, 3, 3, 1],
        [3, 1, 1, 4],
    ),
    # fewer empty cells comes before more distinct shapes
    "empty cells before shapes": (
        [BOARD_ONE_MORE, BOARD, BOARD, BOARD_ONE_MORE],
        [{"I": 2}, {"I": 1, "L": 1, "T": 1, "Z": 1}, {"I": 1, "L": 1}, {"V": 1, "P": 1}],
        [1, 4, 2, 2],
        [2, 3, 4, 1],
    ),
}


def engine_sheet(boards: list[str], placed: list[dict], rules=TIE_RULES) -> np.ndarray:
    """E.final_scores on constructed boards and placed counts, one seat per board: the score sheet
    int32[seats, SC_LEN]."""
    n = len(boards)
    tb = tables_for(rules, n)
    names = [sh.name for sh in rules.shapes]
    bb = np.stack([board_from_string(b) for b in boards])
    st = np.zeros(E.ST_LEN, dtype=np.int32)
    for p, counts in enumerate(placed):
        for name, k in counts.items():
            st[E.ST_PLACED + p * E.MAX_SHAPES + names.index(name)] = k
    out = np.zeros((n, E.SC_LEN), dtype=np.int32)
    E.final_scores(bb, st, tb.rp, tb.ach, out)
    return out


def reference_rows(boards: list[str], placed: list[dict], rules=TIE_RULES) -> list[dict]:
    g = RefGame(len(boards), rules, 0)
    for p, (board, counts) in enumerate(zip(boards, placed, strict=True)):
        g.set_board(p, board)
        g.placed[p] = {name: counts.get(name, 0) for name in g.shape_names}
    return g.scores()


@pytest.mark.parametrize("case", list(CASES))
def test_tie_breaks_rank_as_the_rules_say(case):
    """Totals tie at every seat; the engine's kernel, the reference and the re-rankers' key rank the seats
    by fewer empty cells, then more distinct shapes, and the seats of rank 1 share the win."""
    boards, placed, distinct, ranks = CASES[case]
    winners = ranks.count(1)
    shares = [1.0 / winners if r == 1 else 0.0 for r in ranks]

    out = engine_sheet(boards, placed)
    assert len(set(out[:, E.SC_TOTAL])) == 1  # the premise: only the tie-breaks decide
    assert list(out[:, E.SC_DISTINCT]) == distinct
    assert list(out[:, E.SC_RANK]) == ranks

    ref = reference_rows(boards, placed)
    assert [r["total"] for r in ref] == list(out[:, E.SC_TOTAL])
    assert [r["empty"] for r in ref] == list(out[:, E.SC_EMPTY])
    assert [r["shapes_distinct"] for r in ref] == distinct
    assert [r["rank"] for r in ref] == ranks
    assert [r["win_share"] for r in ref] == shares

    key = rank_key({name: out[:, E.RANK_COLUMNS[j]] for j, (name, _) in enumerate(RANKING)})
    assert [1 + int((key > k).sum()) for k in key] == ranks


# --- the variant rule game.two_player_tie: at 2 players the seat replaces the distinct shapes as the last tie-break ---
TWO_PLAYER_CASES = {
    # total and empty cells tie; the first player placed more distinct shapes
    "shapes favour the first player": ([BOARD, BOARD], [{"I": 1, "L": 1, "T": 1}, {"O": 2}], [1, 2], [2, 1]),
    # the second player placed more distinct shapes: it wins under either rule
    "shapes favour the second player": ([BOARD, BOARD], [{"O": 2}, {"I": 1, "L": 1}], [2, 1], [2, 1]),
    # even distinct shapes: a shared win, or the second player's
    "shapes tie": ([BOARD, BOARD], [{"O": 2}, {"I": 2}], [1, 1], [2, 1]),
    # fewer empty cells still comes first: the seat never overrides it
    "empty cells decide": ([BOARD_ONE_MORE, BOARD], [{"O": 2}, {"I": 1, "L": 1, "T": 1}], [1, 2], [1, 2]),
}


@pytest.mark.parametrize("case", list(TWO_PLAYER_CASES))
def test_two_player_tie(case):
    """game.two_player_tie: "distinct_shapes" (the rulebook) ranks a 2-player game tied on total and empty
    cells by distinct shapes; "second_seat" gives it to the second player.  The engine's kernel, the
    reference and the re-rankers' key agree on both; the expected ranks are written out."""
    boards, placed, by_shapes, by_seat = TWO_PLAYER_CASES[case]
    base = load_rules("v1.1").with_overrides({"game.compensation.2": [0, 0]})
    for tie, ranks in (("distinct_shapes", by_shapes), ("second_seat", by_seat)):
        rules = base.with_overrides({"game.two_player_tie": tie})
        out = engine_sheet(boards, placed, rules)
        assert out[0, E.SC_TOTAL] == out[1, E.SC_TOTAL]  # the premise: only the tie-breaks decide
        assert list(out[:, E.SC_RANK]) == ranks, tie

        ref = reference_rows(boards, placed, rules)
        assert [r["rank"] for r in ref] == ranks, tie
        assert [r["win_share"] for r in ref] == [1.0 / ranks.count(1) if r == 1 else 0.0 for r in ranks]

        cols = {name: out[:, E.RANK_COLUMNS[j]] for j, (name, _) in enumerate(RANKING)}
        key = rank_key({**cols, "seat": [1, 2], "players": [2, 2]}, tie)
        assert [1 + int((key > k).sum()) for k in key] == ranks, tie


@pytest.mark.parametrize("case", list(CASES))
def test_two_player_tie_leaves_larger_games_alone(case):
    """Under "second_seat" a 4-player game still ranks by distinct shapes (the rule is for 2 players)."""
    boards, placed, _, ranks = CASES[case]
    rules = TIE_RULES.with_overrides({"game.two_player_tie": "second_seat"})
    out = engine_sheet(boards, placed, rules)
    assert list(out[:, E.SC_RANK]) == ranks
    assert [r["rank"] for r in reference_rows(boards, placed, rules)] == ranks
    key = rank_key({**{name: out[:, E.RANK_COLUMNS[j]] for j, (name, _) in enumerate(RANKING)},
                    "seat": [1, 2, 3, 4], "players": [4] * 4}, "second_seat")  # fmt: skip
    assert [1 + int((key > k).sum()) for k in key] == ranks


def test_two_player_tie_is_checked_and_left_out_of_the_weights_hash():
    from boardlab.agents.citywright.registry import rules_hash
    from boardlab.sim.rulesets import RulesError

    with pytest.raises(RulesError, match=r"^game.two_player_tie: expected one of distinct_shapes, second_seat"):
        load_rules("v1.1").with_overrides({"game.two_player_tie": "first_seat"})
    with pytest.raises(ValueError, match="two_player_tie"):
        rank_key({"total": [1], "empty": [0], "shapes_distinct": [0]}, "first_seat")
    v11 = load_rules("v1.1")
    # the learned value reads board points only: weights fitted under either tie rule are the same weights
    assert rules_hash(v11.with_overrides({"game.two_player_tie": "second_seat"})) == rules_hash(v11)
    # and the rule sets weights were trained under keep their hash (the file v1.2's weights are named by)
    assert rules_hash(load_rules(ROOT / "results/v1.2/v1.2.toml")) == "2d169e51f5ad"
    assert (ROOT / "results/v1.2/weights/citywright/2d169e51f5ad.json").exists()


def test_two_player_tie_at_its_default_keeps_a_rule_sets_identity():
    """A rule set stored before game.two_player_tie existed (its JSON without the key) is the same rule set,
    with the same canonical JSON, as one with the default; "second_seat" is another rule set."""
    import json

    from boardlab.sim.citywright.rules import from_mapping

    v11 = load_rules("v1.1")
    assert v11.data["game"]["two_player_tie"] == "distinct_shapes"
    stored = json.loads(v11.to_json())
    assert "two_player_tie" not in stored["game"]
    assert from_mapping(stored, base=None) == v11
    seat = v11.with_overrides({"game.two_player_tie": "second_seat"})
    assert seat != v11 and json.loads(seat.to_json())["game"]["two_player_tie"] == "second_seat"
    assert from_mapping(json.loads(seat.to_json()), base=None) == seat
