"""Citadels' balance report at a tiny size: every table, chart and section, the per-round columns it reads."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from boardlab.agents.citadels.registry import parse_agent
from boardlab.experiments.citadels import report as R
from boardlab.experiments.citadels.runner import chunk_table
from boardlab.sim.citadels.rules import load_rules


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    d = tmp_path_factory.mktemp("citadels-report")
    tables = R.reproduce(12, d / "out", d / "work", seed=3, n_jobs=1, log=lambda s: None, command="test",
                         tier_specs={"basic": "basic"})  # fmt: skip
    return d, tables


@pytest.mark.slow  # a report end to end
def test_every_table_chart_and_section_is_written(tiny):
    d, tables = tiny
    out = d / "out"
    for name in R.TABLES:
        assert (out / f"{name}.csv").stat().st_size > 0, name
        assert len(tables[name]) > 0, name
    for name in ("characters", "seats"):
        assert (out / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
    text = (out / "REPORT.md").read_text()
    for section in ("## Summary", "Restricted-play specialists", "The Assassin and the Thief", "## Seats",
                    "## Purple districts", "Paired removal", "round by round", "house rules", "short game",
                    "## Runs"):  # fmt: skip
        assert section in text, section


@pytest.mark.slow  # a report end to end (its module fixture plays the report)
def test_specialists_are_found_by_their_own_spec(tiny):
    _, tables = tiny
    sp = tables["specialists"]
    assert sorted(sp["rank"]) == list(range(1, 9))
    assert (sp["n"] == R.sizes(12, "basic")["half"]).all()  # one specialist seat per game
    assert (sp["held_share"] > 0).all()


def test_a_specialist_holds_its_rank_more_than_the_base_agent():
    rules = load_rules("official")
    for r in (1, 7):
        spec = R.prefers("basic", r)
        df = chunk_table(rules, 4, [parse_agent(spec)] + [parse_agent("basic")] * 3, "fixed", 5, 0, 60).to_pandas()
        over, _ = R.held_ranks(df)
        mine, theirs = over[df["seat"] == 1, r].sum(), over[df["seat"] != 1, r].sum() / 3
        assert mine > 1.5 * theirs, (r, mine, theirs)


def test_offers_follow_from_the_removals_and_the_earlier_choices():
    """4+ players, open selection: the chooser took a rank from its offer, the first chooser is offered every rank
    not removed, and each later chooser the previous offer less the previous pick."""
    rules = load_rules("official")
    for n in (4, 5, 7):
        df = chunk_table(rules, n, [parse_agent("basic")] * n, "fixed", 9, 0, 30).to_pandas()
        for _, game in df.groupby("game"):
            offers = [o.split("-") for o in game["offered"]]
            chars = [c.split("-") for c in game["characters"]]
            places = [p.split("-") for p in game["positions"]]
            for rnd in range(len(offers[0])):
                by_place = sorted(range(n), key=lambda s: int(places[s][rnd]))
                prev = None
                for k, s in enumerate(by_place):
                    mask, took = int(offers[s][rnd], 16), int(chars[s][rnd])
                    assert mask >> (took - 1) & 1, "took a rank it was not offered"
                    if prev is not None and not (n == 7 and k == 6):
                        assert mask == prev[0] & ~(1 << (prev[1] - 1))
                    prev = (mask, took)
        assert (df["offered"] != "").all()
    df = chunk_table(rules, 3, [parse_agent("basic")] * 3, "fixed", 9, 0, 5).to_pandas()
    assert (df["offered"] == "").all()  # 2-3 players: not reconstructed


def test_purple_build_rounds_are_within_the_game():
    df = chunk_table(load_rules("official"), 4, [parse_agent("basic")] * 4, "fixed", 2, 0, 80).to_pandas()
    cols = [c for c in df.columns if c.startswith("built_")]
    assert len(cols) == 11
    b = df[cols].to_numpy()
    assert (b >= 0).all() and (b <= df["rounds"].to_numpy()[:, None]).all()
    assert (b > 0).sum() > 0
    assert ((b > 0).sum(axis=1) <= df["districts"]).all()
    # a district is in one city at most
    per_game = df.assign(**{c: df[c] > 0 for c in cols}).groupby("game")[cols].sum()
    assert (per_game.to_numpy() <= np.array([2 if c == "built_keep" else 1 for c in cols])).all()


@pytest.mark.slow  # a report end to end (its module fixture plays the report)
def test_paired_removal_plays_the_official_tables_seeds_with_one_card_plain(tiny):
    _, tables = tiny
    pp = tables["plain_purples"]
    assert sorted(pp["district"]) == sorted(x.name for x in R.PURPLES)  # every purple at the basic tier
    jobs = {j.key: j for j in R.plan(12, {"basic": "basic"})}
    plain = jobs["plain_dragon_gate_4p_basic"]
    assert plain.rule_set()["plain_purples"] == ["Dragon Gate"]
    assert plain.games == jobs["seats_4p_basic"].games and plain.seating == "fixed" and plain.rules == "official"
    expert = [j for j in R.plan(400, {"expert": "expert"}) if j.figure == "plain"]
    assert sorted(dict(j.overrides)["plain_purples"][0] for j in expert) == sorted(R.EXPERT_PLAIN)


def _frame(game_rows):
    """A results frame from per-game lists of (win_share, built Keep round, total, rounds, positions)."""
    import pandas as pd

    rows = []
    for g, seats in enumerate(game_rows):
        for s, (w, keep, total, rounds, pos) in enumerate(seats, start=1):
            row = {c: 0 for c in R.PURPLE_COLUMNS}
            row.update(game=g, seat=s, win_share=w, total=total, rounds=rounds, positions=pos)
            row["built_keep"] = keep
            rows.append(row)
    return pd.DataFrame(rows)


def test_paired_removal_differences_are_game_by_game():
    """Game k against game k: the Keep's builder wins with its text and loses without it in every game -- one win
    per game from the text; its score 3 points higher; the rounds the same."""
    job = {key: j for j, key in ((j, j.key) for j in R.plan(12, {"basic": "basic"}))}
    seats, plain = job["seats_4p_basic"], job["plain_keep_4p_basic"]
    text = _frame([[(1.0, 5, 20, 9, "1"), (0.0, 0, 15, 9, "2"), (0.0, 0, 14, 9, "3"), (0.0, 0, 10, 9, "4")]] * 12)
    off = _frame([[(0.0, 5, 17, 9, "1"), (1.0, 0, 18, 9, "2"), (0.0, 0, 14, 9, "3"), (0.0, 0, 10, 9, "4")]] * 12)
    t = R.plain_purple_table({seats: text, plain: off})
    (r,) = t.itertuples()
    assert r.district == "Keep" and r.games == 12
    assert r.wins_diff == pytest.approx(1.0) and r.builders_win_text == 1.0 and r.builders_win_plain == 0.0
    assert r.score_diff == pytest.approx(3.0) and r.rounds_diff == 0.0
    assert r.verdict == "its text wins games"
    # the plain run's game k is paired with the official game k, not another: shuffle one run's rows
    t2 = R.plain_purple_table({seats: text.sample(frac=1.0, random_state=1), plain: off})
    assert t2["wins_diff"].iloc[0] == pytest.approx(1.0)


def test_pick_positions_are_read_round_by_round():
    """Round 1: place 1 wins every game; round 2: place 2 (the places swapped between the two seats)."""
    job = {j.key: j for j in R.plan(12, {"basic": "basic"})}["seats_2p_basic"]
    df = _frame([[(1.0, 0, 20, 2, "1-2"), (0.0, 0, 10, 2, "2-1")]] * 30)
    t = R.pick_position_table({job: df}).set_index(["round", "place"])
    assert t.loc[(1, 1), "win_share"] == 1.0 and t.loc[(1, 2), "win_share"] == 0.0
    assert t.loc[(2, 2), "win_share"] == 1.0 and t.loc[(2, 1), "win_share"] == 0.0
    assert t.loc[(1, 1), "n"] == 30 and (2, 3) not in t.index and 3 not in t.index.get_level_values("round")
    assert t.loc[(1, 1), "separated"] == "above"


def test_rounds_text_is_the_plain_join():
    """The per-round text columns (characters, positions, offered, kills, robs) against a plain Python join, rows
    of 0 rounds, of every round and of more rounds than the matrix holds included."""
    import pyarrow as pa

    from boardlab.experiments.citadels.columns import rounds_text

    rng = np.random.default_rng(5)
    for w in (1, 2):
        digits = rng.integers(ord("0"), ord("9") + 1, size=(50, 7, w)).astype(np.uint8)
        rounds = rng.integers(0, 9, size=50)
        rounds[:3] = (0, 7, 8)
        got = rounds_text(digits, rounds)
        assert isinstance(got, pa.LargeStringArray)
        want = ["-".join(bytes(digits[i, k]).decode() for k in range(min(rounds[i], 7))) for i in range(50)]
        assert got.to_pylist() == want


@pytest.mark.parametrize("preset", ["official", "seed-summary"])
def test_the_round_counts_kernel_equals_its_numpy_oracle(preset):
    """boardlab.sim.citadels.summary.round_counts (one pass per game, numba) against the whole-array oracle, on the raw
    history of basic and random games at every player count: every count and every offer."""
    from boardlab.experiments.citadels.columns import offers_open, round_counts_numpy
    from boardlab.experiments.citadels.runner import run_random_games
    from boardlab.sim.citadels import engine as E
    from boardlab.sim.citadels import summary
    from boardlab.sim.seeds import game_seeds

    rules = load_rules(preset)
    hits = np.zeros(summary.RC_LEN, dtype=np.int64)
    for n in rules.players_allowed:
        seeds = game_seeds(17, 0, 120)
        res = run_random_games(seeds, rules, n)
        kept = np.minimum(res["info"][:, 0, E.IN_ROUNDS], E.HIST_ROUNDS)
        r = max(1, int(kept.max()))
        counts, offered = summary.run(res["hist"], kept, n, r, offers_open(rules, n), n == 7)
        want_counts, want_offered = round_counts_numpy(rules, n, res["hist"][:r].transpose(1, 0, 2), kept)
        assert np.array_equal(counts, want_counts), (preset, n)
        assert np.array_equal(offered, want_offered), (preset, n)
        hits += counts.sum(axis=(0, 1))
    assert (hits > 0).all(), hits  # every count occurs: the comparison is not of zeros


@pytest.mark.parametrize("preset", ["official", "seed-summary"])
def test_the_round_texts_kernel_equals_its_numpy_oracle(preset):
    """boardlab.sim.citadels.summary.texts (numba, straight into Arrow buffers) against the whole-array oracle
    texts_numpy at every player count, on games of random players and of basic ones, with a history cut short
    (a game whose rounds the history does not all hold) and a game of no kept round."""
    from boardlab.agents.citadels.kernels import run_games
    from boardlab.agents.citadels.registry import parse_agent, rows
    from boardlab.experiments.citadels.columns import offers_open, texts_numpy
    from boardlab.experiments.citadels.runner import run_random_games
    from boardlab.sim.citadels import engine as E
    from boardlab.sim.citadels import summary
    from boardlab.sim.citadels.tables import tables_for
    from boardlab.sim.seeds import game_seeds

    rules = load_rules(preset)
    longest = dict.fromkeys(summary.TEXTS, 0)
    for n in rules.players_allowed:
        seeds = game_seeds(23, 0, 60)
        order = np.zeros((60, n), dtype=np.int64)
        for res in (
            run_random_games(seeds, rules, n),
            run_games(seeds, tables_for(rules, n), rows([parse_agent("basic")]), order),
        ):
            kept = np.minimum(res["info"][:, 0, E.IN_ROUNDS], E.HIST_ROUNDS)
            kept[0], kept[1] = 0, max(1, kept[1] - 2)
            r = max(1, int(kept.max()))
            _, offered = summary.run(res["hist"], kept, n, r, offers_open(rules, n), n == 7)
            got = summary.texts(res["hist"], kept, n, offered, offers_open(rules, n))
            want = texts_numpy(rules, n, res["hist"][:r].transpose(1, 0, 2), kept, offered)
            assert list(got) == list(want) == list(summary.TEXTS)
            for name, (offsets, data) in got.items():
                arrow = pa.LargeStringArray.from_buffers(60 * n, pa.py_buffer(offsets), pa.py_buffer(data))
                assert arrow.to_pylist() == want[name].to_pylist(), (preset, n, name)
                longest[name] = max(longest[name], *(len(text) for text in arrow.to_pylist()))
    offers = any(offers_open(rules, n) for n in rules.players_allowed)
    assert all(length > 3 for name, length in longest.items() if offers or name != "offered"), longest


@pytest.mark.slow  # a report end to end (its module fixture plays the report)
def test_the_charts_draw_intervals_that_miss_their_estimate(tiny, tmp_path):
    """At a few games an interval may lie beside its estimate (a Wilson bound of 0 wins rounds to 3e-17 above
    0): the charts clip that whisker instead of failing (matplotlib refuses a negative one)."""
    _, tables = tiny
    tables = {k: v.copy() for k, v in tables.items()}
    ch, sp, seats = tables["characters"], tables["specialists"], tables["seats"]
    ch["final_lo"] = ch["final_win"] + 1e-17  # every interval above its estimate
    sp["hi"] = sp["win_share"] - 1e-17  # every interval below
    seats["lo"] = seats["win_share"] + 1e-17
    R.characters_chart(tables, tmp_path / "characters.png")
    R.seats_chart(seats, tmp_path / "seats.png")
    for name in ("characters", "seats"):
        assert (tmp_path / f"{name}.png").read_bytes()[:4] == b"\x89PNG"


def test_the_generic_report_plays_the_two_smallest_counts_with_rivals():
    from boardlab.experiments import anatomy_report as AR
    from boardlab.sim.games import get_game

    g = get_game("citadels")
    assert AR.player_counts(g) == [2, 3]
    assert sorted({r.players for r in AR.plan(g, 100) if r.kind == "self"}) == [2, 3]
