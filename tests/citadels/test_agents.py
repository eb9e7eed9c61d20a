"""Citadels' built-in agents (boardlab/agents/citadels): the game loop against the engine's, the per-move player
against the loop, what ``basic`` may see, its rules on set positions, its strength, and the registry."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import numpy as np
import pytest

from boardlab.agents.citadels import kernels as K
from boardlab.agents.citadels.registry import AgentError, builtin_player, parse_agent, rows, split_specs
from boardlab.experiments.citadels.runner import SCHEMA, chunk_table, run_random_games
from boardlab.experiments.cli import main
from boardlab.experiments.play import play_game, play_table
from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels.api import Game, parse_move
from boardlab.sim.citadels.game import GAME, RESULT_COLUMNS
from boardlab.sim.citadels.rules import DECKS, WARLORD, load_rules
from boardlab.sim.citadels.tables import tables_for
from boardlab.sim.stats import wilson

T = {d.name: d.id for d in DECKS["classic66"]}
PRESETS = ("official", "seed-summary")


def counts(preset: str) -> tuple[int, ...]:
    return load_rules(preset).players_allowed


def loop(rules, players, specs, seats, seeds):
    """The built-in agents' loop: specs (the agent pool), seats int[G, players] (pool index per seat)."""
    return K.run_games(np.asarray(seeds, dtype=np.uint64), tables_for(rules, players), rows(specs), seats)


# --- the loop ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_random_seats_in_the_agents_loop_play_the_engines_random_games(preset):
    """Every seat random: play_games gives play_random_games' arrays exactly (the reference random player
    draws from the game's policy stream in both loops), whatever pool the random seats come from."""
    rules = load_rules(preset)
    seeds = np.arange(1000, 1060, dtype=np.uint64)
    for n in counts(preset):
        want = run_random_games(seeds, rules, n)
        seats = np.arange(len(seeds) * n, dtype=np.int64).reshape(len(seeds), n) % 2  # two random agents
        got = loop(rules, n, [parse_agent("random")] * 2, seats, seeds)
        for key in ("scores", "info", "hist"):
            assert np.array_equal(got[key], want[key]), (n, key)


def test_a_basic_seat_changes_the_game_and_only_through_its_own_stream():
    """A basic seat plays other moves than random (the games differ), and its play is a function of the seed
    and its seat: the same seeds give the same arrays, another seat plan other ones."""
    rules = load_rules("official")
    seeds = np.arange(200, 240, dtype=np.uint64)
    specs = [parse_agent("random"), parse_agent("basic")]
    plan = np.zeros((len(seeds), 4), dtype=np.int64)
    plan[:, 2] = 1
    one = loop(rules, 4, specs, plan, seeds)
    assert np.array_equal(one["scores"], loop(rules, 4, specs, plan, seeds)["scores"])
    assert not np.array_equal(one["scores"], run_random_games(seeds, rules, 4)["scores"])
    other = np.roll(plan, 1, axis=1)
    assert not np.array_equal(one["scores"], loop(rules, 4, specs, other, seeds)["scores"])


def test_the_agent_stream_formula():
    """position_stream: the (p+1)-th SplitMix64 output from seed ^ AGENT_XOR, plus d * 2**16 steps."""
    from boardlab.sim.rng import GOLDEN_GAMMA, mix

    arng = np.zeros(2, dtype=np.uint64)
    seed, p, d = np.uint64(0x1234_5678_9ABC_DEF0), 3, 17
    K.position_stream(arng, seed, p, d)
    with np.errstate(over="ignore"):
        base = mix((seed ^ K.AGENT_XOR) + np.uint64(p + 1) * GOLDEN_GAMMA)
        assert arng[0] == base + np.uint64(d << 16) * GOLDEN_GAMMA


# --- the per-move player ------------------------------------------------------------------------------------


SEAT_MIXES = [
    ("basic",),
    ("basic", "random"),
    ("random", "basic:draw_below=1,crown=3,threat=2", "basic"),
]


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("mix", SEAT_MIXES, ids=lambda m: "+".join(m))
def test_builtin_player_through_the_api_plays_the_loops_game(preset, mix):
    """A game played move by move through the public API with builtin_player (memory from the event log,
    the seat's stream positioned by the decision count) is the loop's game: same scores, decisions and
    per-round history."""
    rules = load_rules(preset)
    specs = [parse_agent(s) for s in mix]
    players = [builtin_player(s) for s in specs]
    for n in counts(preset):
        seeds = np.arange(7 * n, 7 * n + 3, dtype=np.uint64)
        plan = np.arange(len(seeds) * n, dtype=np.int64).reshape(len(seeds), n) % len(specs)
        res = loop(rules, n, specs, plan, seeds)
        for i, seed in enumerate(seeds):
            g = play_game(GAME, rules, [players[k] for k in plan[i]], int(seed))
            sc = np.zeros((n, E.SC_LEN), dtype=np.int32)
            E.final_scores(g.st, *g.tables.kernel_args(), sc)
            assert np.array_equal(sc, res["scores"][i]), (n, i)
            assert int(g.st[E.ST_DECISIONS]) == res["info"][i, 0, E.IN_DECISIONS]
            rounds = min(g.round, E.HIST_ROUNDS)
            hist = g.st[E.ST_HIST : E.ST_HIST + rounds * E.HS_LEN].reshape(rounds, E.HS_LEN)
            assert np.array_equal(hist, res["hist"][:rounds, i])


def test_the_games_chunk_player_plays_now_and_builds_its_table_when_called():
    rules = load_rules("official")
    agents = [parse_agent(s) for s in ("basic", "random", "random")]
    build = GAME.require("chunk_player")(rules, 3, agents, "rotate", 3, 0, 12)
    assert callable(build) and build().equals(chunk_table(rules, 3, agents, "rotate", 3, 0, 12))


def test_the_chunk_player_agrees_with_the_generic_one_for_basic():
    """chunk_table (the kernels' loop) and boardlab.experiments.play (the public API, builtin_player) give the same
    table for a mix of basic and random."""
    rules = load_rules("official")
    agents = [parse_agent(s) for s in ("basic", "random", "basic:purple=3", "random")]
    mine = chunk_table(rules, 4, agents, "rotate", 11, 5, 17)
    theirs = play_table(GAME, rules, 4, agents, "rotate", 11, 5, 17)
    assert mine.schema == SCHEMA and tuple(mine.column_names) == RESULT_COLUMNS
    assert mine.equals(theirs)


# --- information ------------------------------------------------------------------------------------------------


def basic_move(g: Game, spec: str = "basic", seed: int | None = None) -> tuple:
    """`spec`'s move for the seat to decide; `seed`: the agent's stream's seed (default the game's)."""
    return K.Chooser().move(g, parse_agent(spec).row(), seed)


def mixed_positions(preset: str, players: int, seed: int, every: float):
    """Positions of games played by a mix of basic and random moves, each decision kept with probability
    `every`, and every rare one (a redraw in progress, the Graveyard window)."""
    rnd = random.Random(seed)
    chooser = K.Chooser()
    row = parse_agent("basic").row()
    for k in range(4):
        g = Game(players, preset, seed * 100 + k)
        while not g.done:
            rare = g.st[E.ST_REDRAW_N] > 0 or g.phase == "graveyard"
            if rare or rnd.random() < every:
                yield g
            g.apply(chooser.move(g, row) if rnd.random() < 0.6 else g.random_move())


def shuffle_hidden_ranks(g: Game, p: int, rnd: random.Random) -> Game:
    """A copy in which the ranks p cannot place (not its own, not face up, not on offer to it, not revealed)
    change places among their holders and the removed piles: what the public API's redeal leaves alone
    during the selection and for ranks already called without a reveal."""
    c = g.copy()
    st = c.st
    offer = set(st[E.ST_OFFER : E.ST_OFFER + st[E.ST_OFFER_N]].tolist()) if c.current == p else set()
    faceup = set(st[E.ST_FU : E.ST_FU + st[E.ST_FU_N]].tolist())
    hidden = [
        r
        for r in range(1, 9)
        if r not in faceup and r not in offer and st[E.ST_HOLDER + r] != p and not st[E.ST_REVEALED + r]
    ]
    slots = [(int(st[E.ST_HOLDER + r]), int(st[E.ST_WHERE + r])) for r in hidden]
    rnd.shuffle(slots)
    for r, (h, w) in zip(hidden, slots, strict=True):
        st[E.ST_HOLDER + r] = h
        st[E.ST_WHERE + r] = w
    return c


@pytest.mark.parametrize("preset", PRESETS)
def test_basic_moves_on_what_its_seat_sees(preset):
    """From many positions (2..max players, every kind of decision): two redeals for the seat to decide are
    the same to it (equal observations) and basic plays the same move on both and on the original (the same
    agent seed: the original game's, given explicitly, since a redeal carries a seed of its own); so does a
    copy whose hidden ranks changed places."""
    kinds: dict[str, int] = {}
    changed = 0
    rnd = random.Random(5)
    for n in counts(preset):
        for g in mixed_positions(preset, n, seed=n, every=0.04):
            p = g.current
            one, two = g.redeal(p, 1), g.redeal(p, 2)
            obs = one.observation(p)
            assert two.observation(p) == obs
            changed += not np.array_equal(one.st, two.st)
            kind = obs["decision"]["kind"]
            kinds[kind] = kinds.get(kind, 0) + 1
            move = basic_move(g)
            assert basic_move(one, seed=g.seed) == move and basic_move(two, seed=g.seed) == move, (
                n,
                kind,
                obs["decision"],
            )
            assert basic_move(shuffle_hidden_ranks(g, p, rnd)) == move, (n, kind)
            assert g.is_legal(move)
    assert changed > 0.9 * sum(kinds.values())  # the redeals did change what the seat cannot see
    assert {"pick", "turn", "keep", "redraw", "graveyard"} <= set(kinds), kinds
    if 2 in counts(preset):
        assert "discard" in kinds, kinds


def passive_move(legal: list[tuple]) -> tuple:
    """Take gold, keep the first card, finish what is pending, end the turn; never build or name anyone."""
    for kind in (E.K_GOLD, E.K_KEEP, E.K_REDRAW_DONE, E.K_GRAVE_PASS, E.K_END):
        for m in legal:
            if m[0] == kind:
                return m
    return legal[0]


@pytest.mark.parametrize("preset", PRESETS)
def test_basic_moves_alike_on_the_canonical_redeal(preset):
    """basic's move on the kernels' canonical redeal for the seat to decide (boardlab.sim.citadels.infoset: every
    hidden part in a fixed order, both streams zero) is its move on the true position: what feeding it the
    canonical redeal at the start of its move would change is nothing."""
    from boardlab.sim.citadels import infoset

    scratch = np.zeros(infoset.SCRATCH_LEN, dtype=np.int32)
    arng = np.zeros(2, dtype=np.uint64)
    checked = changed = 0
    for n in counts(preset):
        for g in mixed_positions(preset, n, seed=100 + n, every=0.05):
            p = g.current
            c = g.copy()
            infoset.redeal(c.st, c.rng, c.tables.rp, np.int32(p), arng, True, scratch)
            assert scratch[infoset.WK_STATUS] == 0
            assert basic_move(c) == basic_move(g), (n, g.observation(p)["decision"])
            checked += 1
            changed += not np.array_equal(c.st, g.st)
    assert checked > 100 and changed > 0.9 * checked, (checked, changed)


def test_basic_on_the_graveyard_decision_sees_only_its_side():
    """The Graveyard owner's decision (rare in play): seat 0 keeps the Warlord and destroys seat 2's
    Watchtower; seat 1 owns the Graveyard.  Same move on redeals; the card's cost against grave_min."""
    g = Game.from_position(
        3, "official", 3, gold=[9, 9, 9], hands=[[T["Castle"]], [T["Temple"], T["Manor"]], [T["Tavern"]]],
        cities=[[T["Palace"]], [T["Graveyard"]], [T["Watchtower"]]], ranks=[1, 2, 3, 4, 5, 6, 7, 8],
    )  # fmt: skip
    g.apply((E.K_PICK, WARLORD))
    while g.phase != "graveyard":
        legal = g.legal_moves()
        destroy = (E.K_DESTROY, 2, T["Watchtower"])
        g.apply(destroy if destroy in legal else passive_move(legal))
    assert g.current == 1
    move = basic_move(g)
    assert move == (E.K_GRAVE_PASS,)  # a Watchtower costs 1 < grave_min = 2
    assert basic_move(g.redeal(1, 1), seed=g.seed) == move == basic_move(g.redeal(1, 2), seed=g.seed)
    assert basic_move(g, "basic:grave_min=1") == (E.K_GRAVE_TAKE,)


# --- basic's rules on set positions ------------------------------------------------------------------------


def four_player(cities, hands, gold=(2, 2, 2, 2), ranks=(8, 2, 3, 1, 4, 5, 6, 7), crown=0) -> Game:
    """A 4-player official round: rank 8 removed face down, 2 and 3 face up; the crown holder is offered
    1, 4, 5, 6, 7."""
    return Game.from_position(
        4, "official", 9, gold=list(gold), hands=[list(h) for h in hands], cities=[list(c) for c in cities],
        ranks=list(ranks), crown=crown,
    )  # fmt: skip


GREEN = [T[x] for x in ("Tavern", "Market", "Trading Post")]


def test_basic_picks_the_merchant_with_a_green_city():
    g = four_player([GREEN, [], [], []], [[T["Manor"]], [], [], []])
    assert g.legal_moves() == [(0, 1), (0, 4), (0, 5), (0, 6), (0, 7)]
    assert basic_move(g) == (0, 6)


def test_basic_picks_the_architect_rich_in_cards():
    hand = [T["Manor"], T["Temple"], T["Docks"]]
    assert basic_move(four_player([[], [], [], []], [hand, [], [], []])) == (0, 7)
    # with arch_hand = 4 the Architect is worth 1 like the Merchant; a crown worth 1.5 makes it the King
    assert basic_move(four_player([[], [], [], []], [hand, [], [], []]), "basic:arch_hand=4,crown=1.5") == (0, 4)


def test_basic_picks_the_assassin_when_a_rival_is_about_to_complete():
    seven = [T[x] for x in ("Manor", "Castle", "Palace", "Temple", "Church", "Monastery", "Watchtower")]
    g = four_player([GREEN, seven, [], []], [[T["Manor"]], [T["Cathedral"]], [], []])
    assert basic_move(g) == (0, 1)


def test_basic_assassin_kills_the_rank_its_target_most_likely_holds():
    """The crown holder keeps the Assassin; the next seat, about to complete with a green city, chose after
    it, so it holds one of 4, 5, 6, 7 (what the Assassin was offered less its pick): the Merchant it would
    value most is the one killed -- never a face-up rank (2, 3) nor the face-down 8."""
    greens = [T[x] for x in ("Tavern", "Market", "Trading Post", "Docks", "Harbor", "Town Hall")]
    g = four_player([[], [*greens, T["Manor"]], [], []], [[], [T["Cathedral"]], [], []])
    basic = builtin_player(parse_agent("basic"))
    basic(g)  # the crown holder: the Assassin
    assert g.characters(0) == [1]
    g.apply(parse_move("PICK 4"))  # seat 1 takes the King (which seat 0 cannot know)
    while g.phase == "select":
        g.apply(g.legal_moves()[0])
    assert g.current == 0 and g.legal_moves()[0][0] == E.K_GOLD
    assert basic_move(g) == (E.K_KILL, 6)


def test_basic_builds_the_costliest_district_it_can_afford():
    hand = [T["Palace"], T["Temple"], T["Castle"]]
    g = four_player([[], [], [], []], [hand, [], [], []], gold=(5, 2, 2, 2))
    g.apply(parse_move("PICK 5"))  # the Bishop (no blue district: no income)
    while g.current != 0 or g.phase != "turn":
        g.apply(passive_move(g.legal_moves()))
    assert basic_move(g) == (E.K_GOLD,)  # three buildable cards, not the gold for all: gold builds
    g.apply((E.K_GOLD,))
    assert basic_move(g) == (E.K_BUILD, T["Palace"])  # 7 gold: the Palace (5) over the Castle (4)


# --- strength ----------------------------------------------------------------------------------------------


def test_one_basic_beats_three_random_players():
    """4 players, basic in one seat (rotating) against three random: its win share's 95% Wilson interval lies
    above the fair 1/4 (in fact near 1: 600 games make the test robust, and they take well under a second)."""
    rules = load_rules("official")
    agents = [parse_agent(s) for s in ("basic", "random", "random", "random")]
    df = chunk_table(rules, 4, agents, "rotate", 2024, 0, 600).to_pandas()
    mine = df[df["agent"] == str(agents[0])]
    assert len(mine) == 600
    lo, hi = wilson(float(mine["win_share"].sum()), len(mine))
    assert lo > 0.25, (lo, hi)
    assert mine["total"].mean() > df[df["agent"] == "random"]["total"].mean()


# --- the registry ----------------------------------------------------------------------------------------------


def test_basic_spec_and_row():
    spec = parse_agent("basic")
    assert str(spec).startswith("basic:arch_hand=3,") and parse_agent(str(spec)) == replace(spec, tier="")  # canonical
    assert spec.tier == "basic"  # the name is also the basic tier (boardlab.agents.citadels.registry.TIERS)
    assert tuple(p.name for p in spec.definition.params) == tuple(K.BASIC_PARAMS)
    row = spec.row()
    assert row.shape == (K.P_LEN,) and row[K.P_CODE] == K.A_BASIC
    for p in spec.definition.params:
        assert row[K.BASIC_PARAMS[p.name]] == p.default, p.name
    tuned = parse_agent("basic:draw_below=1,crown=2.5")
    assert "draw_below=1," in str(tuned) and ",crown=2.5," in str(tuned) and parse_agent(str(tuned)) == tuned
    r = tuned.row()
    assert r[K.P_DRAW_BELOW] == 1 and r[K.P_CROWN] == 2.5 and r[K.P_THREAT] == row[K.P_THREAT]
    assert parse_agent("random").row()[K.P_CODE] == K.A_RANDOM
    assert split_specs("basic:draw_below=1,crown=2,random,basic") == ["basic:draw_below=1,crown=2", "random", "basic"]


@pytest.mark.parametrize(
    "spec, message",
    [
        ("basic:nope=1", "unknown parameter 'nope'"),
        ("basic:threat=9", "threat must be in"),
        ("basic:crown=x", "number"),
    ],
)
def test_basic_spec_errors(spec, message):
    with pytest.raises(AgentError, match=message):
        parse_agent(spec)


def test_python_agents_have_no_row_and_no_kernel_play():
    ismcts = parse_agent("ismcts:iters=5")
    with pytest.raises(AgentError):
        ismcts.row()
    with pytest.raises(AgentError):
        builtin_player(ismcts)
    with pytest.raises(AgentError):
        chunk_table(load_rules("official"), 2, [parse_agent("basic"), ismcts], "fixed", 0, 0, 2)


# --- the bench ----------------------------------------------------------------------------------------------


def test_bench_reports_citadels_figures(capsys):
    try:
        main(["bench", "--game", "citadels", "--games", "200", "--agent-games", "10", "--json", "--no-subprocess"])
        code = 0
    except SystemExit as e:
        code = e.code or 0
    out, err = capsys.readouterr()
    assert code == 0, err
    res = json.loads(out)
    for p in range(2, 8):
        assert res[f"random_games_per_s_{p}p"] > 0
    assert res["random_agent_games_per_s_4p"] > 0 and res["simulate_random_games_per_s_4p"] > 0
    assert res["basic_games_per_s_4p"] > 0 and res["basic_us_per_decision_4p"] > 0
    assert res["simulate_vs_kernel_4p"] > 0 and res["simulate_cpu_vs_kernel_4p"] > 0 and res["clock"] == "process CPU"
