"""Citadels' ``strong`` agent (boardlab/agents/citadels/strong.py): what it may see, its features against a plain-Python
reading of the observation, its training command, its strength against basic, and ``prefers``."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from boardlab.agents.citadels import kernels as K
from boardlab.agents.citadels import strong as S
from boardlab.agents.citadels.registry import AgentError, builtin_player, parse_agent, rows
from boardlab.experiments.citadels import train as T
from boardlab.experiments.cli import main
from boardlab.experiments.play import play_game
from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels.api import Game
from boardlab.sim.citadels.game import GAME
from boardlab.sim.citadels.rules import (
    ARCHITECT,
    ASSASSIN,
    BISHOP,
    BLUE,
    GREEN,
    KING,
    MAGICIAN,
    MERCHANT,
    RED,
    THIEF,
    WARLORD,
    YELLOW,
    load_rules,
)
from boardlab.sim.citadels.tables import DT_COLOUR, DT_COST, DT_POINTS, RP_SCHOOL, tables_for
from boardlab.sim.stats import wilson
from tests.citadels.test_agents import shuffle_hidden_ranks

PRESETS = ("official", "seed-summary")


def strong_move(g: Game, spec: str = "strong", seed: int | None = None) -> tuple:
    """`spec`'s move for the seat to decide; `seed`: the agent's stream's seed (default the game's)."""
    return K.Chooser().move(g, parse_agent(spec).row(), seed)


def positions(preset: str, players: int, seed: int, every: float, games: int = 3):
    """Positions of games played by a mix of strong, basic and random moves, each decision kept with
    probability `every` (every pick decision with probability 4 * every)."""
    rnd = random.Random(seed)
    chooser = K.Chooser()
    pool = [parse_agent("strong").row(), parse_agent("basic").row()]
    for k in range(games):
        g = Game(players, preset, seed * 100 + k)
        while not g.done:
            pick = g.st[E.ST_PHASE] == E.PH_PICK and g.st[E.ST_OFFER_N] >= 2
            if rnd.random() < (4 * every if pick else every):
                yield g
            x = rnd.random()
            g.apply(chooser.move(g, pool[0 if x < 0.5 else 1]) if x < 0.85 else g.random_move())


# --- information ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_strong_moves_on_what_its_seat_sees(preset):
    """From many positions (2..max players, every kind of decision, picks above all): strong plays the same
    move on the game, on two redeals for the seat to decide and on a copy whose hidden ranks changed places
    (the same agent seed: the original game's, given explicitly, since a redeal carries a seed of its own);
    the redeals did change what the seat cannot see."""
    rnd = random.Random(3)
    picks = changed = total = 0
    for n in load_rules(preset).players_allowed:
        for g in positions(preset, n, seed=n, every=0.05):
            p = g.current
            one, two = g.redeal(p, 1), g.redeal(p, 2)
            move = strong_move(g)
            assert strong_move(one, seed=g.seed) == move and strong_move(two, seed=g.seed) == move, (
                n,
                g.observation(p)["decision"],
            )
            assert strong_move(shuffle_hidden_ranks(g, p, rnd)) == move, n
            assert g.is_legal(move)
            changed += not np.array_equal(one.st, two.st)
            picks += g.st[E.ST_PHASE] == E.PH_PICK and g.st[E.ST_OFFER_N] >= 2
            total += 1
    assert picks > 100 and total > 300, (picks, total)
    assert changed > 0.9 * total


def test_strong_value_sees_the_pick():
    """At a pick decision the offered ranks get different values (the value tells them apart) on most
    positions; a tie would be broken by the stream, so the value, not chance, decides selection."""
    rules = load_rules("official")
    tb = tables_for(rules, 4)
    w = parse_agent("strong").row()[K.P_WEIGHTS : K.P_WEIGHTS + S.N_FEATURES]
    f = np.zeros(S.N_FEATURES)
    distinct = picks = 0
    for g in positions("official", 4, seed=11, every=0.15, games=6):
        if g.st[E.ST_PHASE] != E.PH_PICK or g.st[E.ST_OFFER_N] < 2:
            continue
        vals = set()
        for move in g.legal_moves():
            c = g.copy()
            c.apply(move)
            vals.add(
                round(S.value(c.st, tb.rp, tb.districts, np.int32(g.current), w, f), 9)
            )  # the seat as kernels pass it
        distinct += len(vals) == len(g.legal_moves())
        picks += 1
    assert picks > 50 and distinct > 0.9 * picks, (distinct, picks)


# --- the features against the observation ----------------------------------------------------------------------

_INCOME = {KING: YELLOW, BISHOP: BLUE, MERCHANT: GREEN, WARLORD: RED}


def oracle_features(obs: dict, rules, dt, rp) -> dict[str, float]:
    """strong's features of seat obs["seat"], in plain Python from its observation (boardlab.agents.citadels.strong's
    docstring); dt / rp only for the printed district data (points, cost, colour) and the School's id."""
    p, n = obs["seat"], obs["players"]
    complete = rules["complete_size"]
    city = [t for t, _ in obs["cities"][p]]

    def points(q):
        return sum(int(dt[t, DT_POINTS]) for t, _ in obs["cities"][q])

    def colour_count(c):
        return sum(1 for t in city if dt[t, DT_COLOUR] == c) + (1 if rp[RP_SCHOOL] in city else 0)

    gold = obs["gold"][p]
    useful_types = set(obs["hand"]) - set(city)
    mine = points(p)
    rivals = [q for q in range(n) if q != p]
    r_points = [points(q) for q in rivals]
    r_size = max(len(obs["cities"][q]) for q in rivals)
    r_gold = max(obs["gold"][q] for q in rivals)
    r_hand = max(obs["hand_sizes"][q] for q in rivals)
    colours = len({int(dt[t, DT_COLOUR]) for t in city})
    turn = obs["turn"]
    in_turn = turn is not None and turn["seat"] == p
    dec = obs["decision"]
    f = dict.fromkeys(S.FEATURES, 0.0)
    f.update(
        bias=1,
        points=mine,
        districts=len(city),
        colours=colours,
        five_colours=colours == 5,
        complete=len(city) >= complete,
        first_complete=obs["first_completer"] == p,
        gold=gold,
        hand=len(obs["hand"]),
        useful=len(useful_types),
        affordable=sum(1 for t in useful_types if dt[t, DT_COST] <= gold),
        pending_keep=dec["keep"] if in_turn and dec is not None and dec["kind"] == "keep" else 0,
        crown=obs["crown"] == p,
        rival_points_max=max(r_points),
        rival_points_sum=sum(r_points),
        rival_districts_max=r_size,
        rival_gold_max=r_gold,
        rival_hand_max=r_hand,
        rival_near=r_size >= complete - 1,
        final_round=obs["final_round"],
        round=obs["round"],
    )
    for r in obs["characters"]:
        if r <= obs["called"]:
            continue
        f[f"hold_{r}"] = 1
        if r in _INCOME:
            name = {KING: "king_yellow", BISHOP: "bishop_blue", MERCHANT: "merchant_green", WARLORD: "warlord_red"}[r]
            f[name] = colour_count(_INCOME[r])
        if r == BISHOP:
            f["bishop_lead"] = mine > 0 and mine >= max(r_points)
        if r == WARLORD:
            f["warlord_near"] = r_size >= complete - 2
        if r == ARCHITECT:
            f["architect_useful"] = len(useful_types)
            f["architect_gold"] = min(gold, S.ARCH_GOLD_CAP)
        if r == THIEF:
            f["thief_gold"] = r_gold
        if r == MAGICIAN:
            f["magician_gain"] = max(0, r_hand - len(useful_types))
        if r == ASSASSIN:
            f["assassin_near"] = r_size >= complete - 1
    if in_turn and obs["phase"] == "turn":
        if not turn["income_taken"] and turn["rank"] in _INCOME:
            f["income_left"] = colour_count(_INCOME[turn["rank"]])
        f["action_left"] = not turn["acted"]
    return {k: float(v) for k, v in f.items()}


@pytest.mark.parametrize("preset", PRESETS)
def test_features_equal_a_plain_reading_of_the_observation(preset):
    """On many positions of mixed games (2..max players), for every seat: the kernel's features of the true
    position, and of the seat's canonical redeal, equal the plain-Python features of its observation."""
    rules = load_rules(preset)
    seen = 0
    nonzero = dict.fromkeys(S.FEATURES, 0)
    for n in rules.players_allowed:
        tb = tables_for(rules, n)
        f = np.zeros(S.N_FEATURES)
        for g in positions(preset, n, seed=20 + n, every=0.02, games=2):
            for p in range(n):
                want = oracle_features(g.observation(p), rules, tb.districts, tb.rp)
                S.features(g.st, tb.rp, tb.districts, np.int32(p), f)  # the loops' seat type
                got = dict(zip(S.FEATURES, f.tolist(), strict=True))
                assert got == want, (n, p, {k: (got[k], want[k]) for k in got if got[k] != want[k]})
                S.features(g.redeal(p).st, tb.rp, tb.districts, np.int32(p), f)
                assert dict(zip(S.FEATURES, f.tolist(), strict=True)) == want
                for k, v in want.items():
                    nonzero[k] += v != 0
                seen += 1
    assert seen > 200
    never = [k for k, v in nonzero.items() if v == 0]
    assert not never, never  # every feature was exercised


# --- training ------------------------------------------------------------------------------------------------


@pytest.mark.slow  # a training run (compiles self-play)
def test_training_is_deterministic_and_its_file_is_what_strong_reads(tmp_path):
    """A small run twice gives the same content and the same file bytes; another seed other weights; the file
    loads as strong's weights (its feature list is strong's)."""
    a = T.TRAINING.train(7, (300, 300))
    b = T.TRAINING.train(7, (300, 300))
    assert a == b
    T.TRAINER.write(a, tmp_path / "a.json")
    T.TRAINER.write(b, tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert T.TRAINING.train(8, (300, 300))["weights"] != a["weights"]
    data = json.loads((tmp_path / "a.json").read_text())
    assert data["features"] == list(S.FEATURES) and len(data["weights"]) == S.N_FEATURES
    assert data["command"] == "boardlab train --game citadels --seed 7 --games 300,300 --ridge 0.001"
    assert [r["agent"] for r in data["rounds"]] == ["basic", "strong"]
    assert data["samples"] == data["rounds"][1]["samples"] > 300 * 4 * 3


@pytest.mark.slow  # two worker processes start and load the kernels: several seconds
def test_training_in_chunks_on_two_processes_gives_the_same_weights():
    """The chunks' moments are added in chunk order: two jobs give the same weights as one."""
    games = (2 * T.TRAINING.chunk + 10,)
    assert T.TRAINING.train(3, games, jobs=2) == T.TRAINING.train(3, games, jobs=1)


@pytest.mark.slow
def test_the_committed_weights_are_what_the_default_command_writes(tmp_path):
    """`boardlab train --game citadels` (the command the file names) rewrites the committed file byte for byte."""
    out = tmp_path / "w.json"
    main(["train", "--game", "citadels", "--quiet", "--out", str(out)])
    assert out.read_bytes() == T.TRAINING.default_out.read_bytes()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--k", "3"], "--k: Citadels' strong searches no k best moves"),
        (["--games", "0"], "--games: one positive number"),
        (["--games", "1,x"], "--games: comma-separated numbers"),
    ],
)
def test_train_user_errors(args, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as e:
        main(["train", "--game", "citadels", "--quiet", "--out", str(tmp_path / "w.json"), *args])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "w.json").exists()


# --- strength ----------------------------------------------------------------------------------------------


def test_one_strong_beats_three_basic_players():
    """4 players, strong in one seat (rotating) against three basic: the 95% Wilson interval of its win share
    lies above the fair 1/4 (it is about 0.45: 3,000 games make the test robust)."""
    rules = load_rules("official")
    g = 3000
    seeds = np.arange(50_000, 50_000 + g, dtype=np.uint64)
    seats = np.zeros((g, 4), dtype=np.int64)
    seats[np.arange(g), np.arange(g) % 4] = 1
    res = K.run_games(seeds, tables_for(rules, 4), rows([parse_agent("basic"), parse_agent("strong")]), seats)
    win = res["scores"][:, :, E.SC_WINNER].astype(float)
    share = (win / win.sum(1, keepdims=True))[np.arange(g), np.arange(g) % 4]
    lo, hi = wilson(float(share.sum()), g)
    assert lo > 0.25, (lo, hi)


# --- prefers, the loop and the registry -------------------------------------------------------------------


@pytest.mark.parametrize("rank", [1, 4, 6, 8])
def test_prefers_takes_its_rank_whenever_offered(rank):
    """strong:prefers=R picks R at every pick decision whose offer holds R (2..7 players), and plays as strong
    otherwise (the same move as strong where R is not offered)."""
    spec = parse_agent(f"strong:prefers={rank}")
    row, plain = spec.row(), parse_agent("strong").row()
    chooser = K.Chooser()
    offered = other = 0
    for n in (2, 4, 7):
        for k in range(3):
            g = Game(n, "official", 900 + 10 * n + k)
            while not g.done:
                move = chooser.move(g, row)
                if g.phase == "select" and g.st[E.ST_PHASE] == E.PH_PICK:
                    offer = g.observation(g.current)["decision"]["offer"]
                    if rank in offer:
                        assert move == (E.K_PICK, rank), (n, offer, move)
                        offered += 1
                    else:
                        assert move == chooser.move(g, plain)
                        other += 1
                g.apply(move)
    assert offered > 20 and other > 20, (offered, other)


def test_strong_through_the_api_plays_the_loops_game():
    """A game of strong, basic and random seats played move by move through the public API (builtin_player)
    is the loop's game: same scores and decisions."""
    rules = load_rules("official")
    specs = [parse_agent(s) for s in ("strong", "basic", "strong:prefers=7", "random")]
    players = [builtin_player(s) for s in specs]
    for n in (3, 4, 6):
        seeds = np.arange(40 + n, 43 + n, dtype=np.uint64)
        plan = np.arange(len(seeds) * n, dtype=np.int64).reshape(len(seeds), n) % len(specs)
        res = K.run_games(seeds, tables_for(rules, n), rows(specs), plan)
        for i, seed in enumerate(seeds):
            g = play_game(GAME, rules, [players[k] for k in plan[i]], int(seed))
            sc = np.zeros((n, E.SC_LEN), dtype=np.int32)
            E.final_scores(g.st, *g.tables.kernel_args(), sc)
            assert np.array_equal(sc, res["scores"][i]), (n, i)
            assert int(g.st[E.ST_DECISIONS]) == res["info"][i, 0, E.IN_DECISIONS]


def test_strong_spec_and_row():
    s = parse_agent("strong")
    assert str(s) == "strong:weights=strong-v1,prefers=0"
    row = s.row()
    assert row[K.P_CODE] == K.A_STRONG and row[K.P_PREFERS] == 0
    assert np.array_equal(row[K.P_WEIGHTS : K.P_WEIGHTS + S.N_FEATURES], S.load_weights("strong-v1"))
    assert row[K.P_THREAT] == parse_agent("basic").row()[K.P_THREAT]  # basic's defaults where basic decides
    assert parse_agent("strong:prefers=6").row()[K.P_PREFERS] == 6
    with pytest.raises(AgentError):
        parse_agent("strong:prefers=9")
    with pytest.raises(AgentError):
        parse_agent("strong:weights=nope")
