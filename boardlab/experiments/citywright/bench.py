"""Citywright's bench (GameDef.bench.bench, `boardlab bench`): engine and agent throughput on this machine.

Every figure is measured after warm-up on one core (the kernels are single-threaded), best of several
repeats (boardlab.experiments.bench).  Cold compile and warm start run in fresh subprocesses: cold with an empty
numba cache, warm with the normal one.

``simulate_random_games_per_s_4p`` is the user's view of the same random games:
`boardlab simulate --jobs 1` end to end (chunks played through the agents' game
loop; on simulate's one writer thread, meanwhile, result tables built, parts written
and the zstd Parquet file encoded; its metadata written at the end, parts removed),
in this process after warm-up, so without the fixed
start-up that ``warm_start_s`` measures.  ``simulate_vs_kernel_4p`` divides it by
``random_games_per_s_4p``; ``random_agent_games_per_s_4p`` is the kernel simulate
actually calls (built-in agents' loop, random in every seat), its ceiling.
``simulate_jobs2_vs_kernel_4p`` is the same at ``--jobs 2`` (two worker processes writing
their parts, this process encoding the file meanwhile) against the same one-core rate.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

from boardlab.agents.citywright.registry import EXPERT_V1
from boardlab.experiments.bench import Bench, Figures, best_rate, simulate_games_per_s, time_subprocess
from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.game import GAME
from boardlab.sim.citywright.rules import Rules, load_rules
from boardlab.sim.citywright.tables import tables_for

# The engine's throughput targets (the report's "target" column).
TARGETS = {
    "random_games_per_s_4p": ">= 30,000",
    "simulate_vs_kernel_4p": ">= 0.8",
    "simulate_jobs2_vs_kernel_4p": ">= 1.5",
    "boards_per_s": ">= 20,000,000",
    "cold_compile_s": "<= 15",
    "score_one_board_s": "<= 1.5",
    "greedy_games_per_s_4p": ">= 500",
    "specialist_R_games_per_s_4p": ">= greedy",
    "specialist_C_games_per_s_4p": ">= greedy",
    "specialist_P_games_per_s_4p": ">= greedy",
    "specialist_I_games_per_s_4p": ">= greedy",
    "strong_games_per_s_4p": ">= 100",
    "expert_ms_per_move_mean": "<= 3.5",
    "mcts_iterations_per_s": ">= 50,000",
    "mcts_mid_game_move_ms_max": "<= 100",
}


def play_random(rules: Rules, players: int, seeds: np.ndarray):
    """The engine's loop of uniform-random players over `seeds`.

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.
    seeds : numpy.ndarray
        uint64, shape ``(G,)``: the games' seeds.

    Returns
    -------
    tuple of numpy.ndarray
        The kernel's scores, boards and stats arrays.
    """
    tb = tables_for(rules, players)
    g = len(seeds)
    scores = np.zeros((g, players, E.SC_LEN), dtype=np.int32)
    boards = np.zeros((g, players, 4), dtype=np.uint64)
    stats = np.zeros((g, players, 4), dtype=np.int32)
    E.play_random_games(seeds, tb.rp, tb.shp, tb.pl_mask, tb.pl_info, tb.ach, scores, boards, stats)
    return scores, boards, stats


def random_games_per_s(rules: Rules, players: int, games: int, repeats: int = 3) -> float:
    """Random games per second of the engine's loop, best of `repeats` (after a warm-up).

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.
    games : int
        Games per timed call.
    repeats : int
        Calls timed.

    Returns
    -------
    float
        Games per second of the fastest call.
    """
    seeds = np.arange(games, dtype=np.uint64)
    play_random(rules, players, seeds[:4])  # warm-up / compile
    return best_rate(lambda: play_random(rules, players, seeds), games, repeats)


def boards_per_s(rules: Rules, boards: np.ndarray, repeats: int = 5) -> float:
    """Boards scored per second by the engine's scorer, best of `repeats`.

    Parameters
    ----------
    rules : Rules
        The rule set.
    boards : numpy.ndarray
        uint64, shape ``(B, 4)``: the boards scored.
    repeats : int
        Calls timed.

    Returns
    -------
    float
        Boards per second of the fastest call.
    """
    rp = tables_for(rules, 4).rp
    out = np.zeros((len(boards), 5), dtype=np.int32)
    E.score_boards(boards[:4], rp, out)
    return best_rate(lambda: E.score_boards(boards, rp, out), len(boards), repeats)


def uniform_random_boards(n: int, seed: int = 0) -> np.ndarray:
    """Boards whose 49 cells are independently empty or one of the four districts.

    Parameters
    ----------
    n : int
        Number of boards.
    seed : int
        Seeds the draw.

    Returns
    -------
    numpy.ndarray
        uint64, shape ``(n, 4)``.
    """
    rng = np.random.default_rng(seed)
    cells = rng.integers(0, 5, size=(n, 49))
    bits = np.array([8 * (i // 7) + i % 7 for i in range(49)], dtype=np.uint64)
    out = np.zeros((n, 4), dtype=np.uint64)
    for d in range(4):
        out[:, d] = np.bitwise_or.reduce(np.where(cells == d, np.uint64(1) << bits, np.uint64(0)), axis=1)
    return out


def warm_up_all() -> None:
    """Touch every kernel a simulation and `score` use (compiles or loads them)."""
    rules = load_rules()
    for p in (1, 2):
        play_random(rules, p, np.arange(2, dtype=np.uint64))
    out = np.zeros((1, 5), dtype=np.int32)
    E.score_boards(np.zeros((1, 4), dtype=np.uint64), tables_for(rules, 4).rp, out)


def cold_compile_s() -> float:
    """Wall time of a fresh process that compiles the engine with an empty numba cache.

    Returns
    -------
    float
        Seconds.
    """
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d)
        return time_subprocess("from boardlab.experiments.citywright.bench import warm_up_all; warm_up_all()", env)


def warm_up_agents() -> None:
    """Play one 4-player game of greedy seats through the built-in agents' game loop (compiles or loads the loop for
    tables of evaluators: greedy's search and the engine, not the searching agents)."""
    from boardlab.agents.citywright.play import run_games
    from boardlab.agents.citywright.registry import parse_agent, rows

    prm = rows([parse_agent("greedy")] * 4)[None]
    run_games(np.arange(1, dtype=np.uint64), prm, tables_for(load_rules(), 4))


def cold_agents_compile_s() -> float:
    """Wall time of a fresh process that compiles the agents' game loop with an empty numba cache: a user's first
    `simulate --agents greedy` on a new machine (the engine's compile, cold_compile_s, included).

    Returns
    -------
    float
        Seconds.
    """
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d)
        return time_subprocess(
            "from boardlab.experiments.citywright.bench import warm_up_agents; warm_up_agents()", env
        )


def warm_start_s() -> float:
    """Wall time of a fresh process that loads the cached engine and plays a game.

    Returns
    -------
    float
        Seconds.
    """
    code = "from boardlab.experiments.citywright.bench import warm_up_all; warm_up_all()"
    time_subprocess(code)  # make sure the cache is warm
    return min(time_subprocess(code) for _ in range(3))


def score_one_board_s() -> float:
    """Wall time of `boardlab score` on one board, warm cache (the designer's case).

    Returns
    -------
    float
        Seconds.
    """
    board = "RRCCPPI\nRRCCPPI\n.......\nIIIIIII\nPPPPPPP\nCCCCCCC\nRRRRRRR\n"
    cmd = [sys.executable, "-m", "boardlab.experiments.cli", "score", "--game", GAME.id, "-"]
    subprocess.run(cmd, input=board, text=True, check=True, capture_output=True)
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run(cmd, input=board, text=True, check=True, capture_output=True)
        best = min(best, time.perf_counter() - t)
    return best


def agent_games_per_s(
    rules: Rules, specs: list[str], players: int, games: int, repeats: int = 3, clock=time.perf_counter
) -> dict[str, float]:
    """Games/s of each spec with every seat played by it (after warm-up), one core.

    The specs take turns within each repeat and each keeps its best time, so a
    machine that slows down for a while slows them all alike: the figures can be
    compared with each other (the specialists' target is "no slower than greedy").
    clock: wall time by default; time.process_time for process CPU time.

    Parameters
    ----------
    rules : Rules
        The rule set.
    specs : list of str
        The agents measured.
    players : int
        Seats per game.
    games : int
        Games per timed call.
    repeats : int
        Rounds of calls.
    clock : callable
        The clock (wall time by default).

    Returns
    -------
    dict of str to float
        Spec -> games per second of its fastest call.
    """
    from boardlab.agents.citywright.play import run_games
    from boardlab.agents.citywright.registry import parse_agent, rows

    tb = tables_for(rules, players)
    seeds = np.arange(games, dtype=np.uint64)
    prms = {}
    for spec in specs:
        prm = rows([parse_agent(spec)] * players)
        run_games(seeds[:2], np.tile(prm, (2, 1, 1)), tb)  # warm-up / compile
        prms[spec] = np.tile(prm, (games, 1, 1))
    best = dict.fromkeys(specs, float("inf"))
    for _ in range(repeats):
        for spec in specs:
            t = clock()
            run_games(seeds, prms[spec], tb)
            best[spec] = min(best[spec], clock() - t)
    return {spec: games / best[spec] for spec in specs}


def mcts_figures(rules: Rules, spec: str = "mcts", players: int = 4, positions: int = 6) -> dict:
    """MCTS iterations/s (random rollouts) and time per decision at mid-game positions.

    Parameters
    ----------
    rules : Rules
        The rule set.
    spec : str
        The MCTS agent's spec.
    players : int
        Seats per game.
    positions : int
        Mid-game positions timed.

    Returns
    -------
    dict
        Iterations per second and milliseconds per decision.
    """
    from boardlab.agents.citywright import mcts
    from boardlab.agents.citywright.registry import parse_agent
    from boardlab.sim.citywright.api import Game

    prm = parse_agent(spec).row()
    total_it = 0
    total_t = 0.0
    worst = 0.0
    for k in range(positions + 1):
        g = Game(players, rules, seed=1000 + k)
        for _ in range(6 * players):  # mid-game: half the turns played
            g.apply(g.random_move())
        tb = g.tables
        mv = np.zeros(E.MV_LEN, dtype=np.int32)
        t = time.perf_counter()
        it = mcts.mcts_move(g.boards, g.st, g.rng.copy(), mv, prm, tb.kernel_args())
        dt = time.perf_counter() - t
        if k == 0:
            continue  # warm-up
        total_it += it
        total_t += dt
        worst = max(worst, dt)
    return {
        "mcts_iterations_per_s": round(total_it / total_t),
        "mcts_mid_game_move_ms_mean": round(1000 * total_t / positions, 1),
        "mcts_mid_game_move_ms_max": round(1000 * worst, 1),
    }


def timed_games(spec: str, opponent: str, players: int, rules: Rules | str, seeds, seats):
    """Games with `spec` in seat seats[g] and `opponent` in every other seat, one move at a time.

    Returns the process CPU milliseconds of each of `spec`'s moves (other work on the machine
    does not count), and per game its win share and its score margin over the best opponent.

    Parameters
    ----------
    spec : str
        The agent timed.
    opponent : str
        The agent in every other seat.
    players : int
        Seats per game.
    rules : Rules or str
        The rule set.
    seeds : sequence of int
        The games' seeds.
    seats : sequence of int
        `spec`'s seat in each game.

    Returns
    -------
    tuple
        ``(ms, shares, margins)``: float array of CPU ms per move, and per game the win share and the margin.
    """
    from boardlab.agents.citywright.play import policy_mover
    from boardlab.agents.citywright.registry import parse_agent
    from boardlab.agents.citywright.strong import STRONG_WEIGHTS
    from boardlab.sim.citywright.api import Game

    me_row = parse_agent(spec).row()
    opp_row = parse_agent(opponent).row()
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    out = np.zeros((players, E.SC_LEN), dtype=np.int32)
    times: list[float] = []
    shares = np.zeros(len(seeds))
    margins = np.zeros(len(seeds))
    movers: dict = {}  # id of a game's tables -> policy_mover (one per rule set's tables)
    for g, (seed, me) in enumerate(zip(seeds, seats, strict=True)):
        game = Game(players, rules, int(seed))
        tb = game.tables
        args = tb.kernel_args()
        if id(tb) not in movers:
            movers[id(tb)] = (tb, policy_mover(np.stack([me_row, opp_row]), args, STRONG_WEIGHTS))
        move = movers[id(tb)][1]
        while not game.done:
            p = game.current
            t = time.process_time_ns()
            move(game.boards, game.st, game.rng, mv, me_row if p == me else opp_row)
            dt = time.process_time_ns() - t
            if p == me:
                times.append(dt / 1e6)
            E.apply_move(game.boards, game.st, game.rng, mv, tb.rp, tb.shp, tb.pl_info)
        E.final_scores(game.boards, game.st, tb.rp, tb.ach, out)
        winners = int((out[:, E.SC_RANK] == 1).sum())
        shares[g] = 1.0 / winners if out[me, E.SC_RANK] == 1 else 0.0
        others = [out[q, E.SC_TOTAL] for q in range(players) if q != me]
        margins[g] = out[me, E.SC_TOTAL] - (max(others) if others else 0)
    return np.array(times), shares, margins


def expert_figures(
    rules: Rules,
    spec: str = "expert",
    players: int = 4,
    games: int = 8,
    before: str | None = EXPERT_V1,
    rounds: int = 3,
) -> dict:
    """CPU time per move of the expert tier over whole games against greedy (seats rotated), after a
    warm-up game: the mean (what a table's time depends on) and the slowest move.

    With `before`, that spec (the tier before its levers, ``EXPERT_V1``) is timed beside it in the same
    process, interleaved: every round plays each game seed with both specs, which one first alternating by
    game and round, so a machine slowing down for a while slows both alike (``expert_v1_*``, and the ratio
    of the two means, ``expert_vs_v1``: what the tier's time is on a quieter machine, from the v1 tier's).

    Parameters
    ----------
    rules : Rules
        The rule set.
    spec : str
        The expert tier's spec.
    players : int
        Seats per game.
    games : int
        Games timed.
    before : str or None
        The spec of the tier before its levers, timed alongside (None: not).
    rounds : int
        Rounds of alternating timings.

    Returns
    -------
    dict
        The figures (means, maxima, and the ratio to `before`).
    """
    specs = {"expert": spec} if before is None else {"expert": spec, "expert_v1": before}
    for s in specs.values():
        timed_games(s, "greedy", players, rules, np.array([999], dtype=np.uint64), [0])  # warm-up
    times: dict[str, list[np.ndarray]] = {k: [] for k in specs}
    for r in range(rounds):
        for g in range(games):
            seed, seat = np.array([2000 + g], dtype=np.uint64), [g % players]
            order = list(specs) if (g + r) % 2 == 0 else list(specs)[::-1]
            for k in order:
                times[k].append(timed_games(specs[k], "greedy", players, rules, seed, seat)[0])
    res = {}
    for k in specs:
        t = np.concatenate(times[k])
        res[f"{k}_ms_per_move_mean"] = round(float(t.mean()), 2)
        res[f"{k}_ms_per_move_max"] = round(float(t.max()), 2)
    if before is not None:
        res["expert_vs_v1"] = round(res["expert_ms_per_move_mean"] / res["expert_v1_ms_per_move_mean"], 3)
    return res


def run_agents(rules: Rules, games: int = 400, res: dict | None = None) -> dict:
    """The agents' figures, into `res` (a Figures, which reports each) or a new dict.

    Parameters
    ----------
    rules : Rules
        The rule set.
    games : int
        Games per agent figure.
    res : dict or None
        Where the figures go (a Figures reports each); None: a new dict.

    Returns
    -------
    dict
        `res` with the agents' figures.
    """
    res = {} if res is None else res
    rates = agent_games_per_s(rules, ["greedy"] + [f"specialist:{d}" for d in "RCPI"], 4, games)
    res["greedy_games_per_s_4p"] = round(rates["greedy"], 1)
    for d in "RCPI":
        res[f"specialist_{d}_games_per_s_4p"] = round(rates[f"specialist:{d}"], 1)
    # the strong tier in every seat, in process CPU time (its target is for 100,000-game tables on a
    # shared machine), on a quarter of the games: it is several times slower than greedy
    strong = agent_games_per_s(rules, ["strong"], 4, max(games // 4, 10), clock=time.process_time)
    res["strong_games_per_s_4p"] = round(strong["strong"], 1)
    res.update(mcts_figures(rules))
    res.update(expert_figures(rules))
    return res


def run(
    games: int = 50_000,
    boards: int = 1_000_000,
    rules: Rules | None = None,
    subprocesses: bool = True,
    agents: bool = True,
    agent_games: int = 400,
    simulate_games: int | None = None,
    log: Callable[[str], None] | None = None,
) -> dict:
    """All figures as a flat dict (the --json output); `log` reports each as it is measured.

    simulate_games: games of the end-to-end simulate figure (default 4 x games: four
    chunks of random play at the default 50,000, so the per-run costs -- manifest,
    git commit, assembly's last file, metadata -- weigh what they do in a long run).

    Parameters
    ----------
    games : int
        Random games per figure.
    boards : int
        Boards scored for the scorer's figure.
    rules : Rules or None
        The rule set (None: the default preset).
    subprocesses : bool
        Measure the fresh-process figures (compile, start-up).
    agents : bool
        Measure the agents' figures.
    agent_games : int
        Games per agent figure.
    simulate_games : int or None
        Games of the end-to-end simulate figure.
    log : callable or None
        Receives each figure as it is measured (None: silent).

    Returns
    -------
    dict
        Figure name -> value.
    """
    rules = rules or load_rules()
    res = Figures(log, rules=rules.name, games_per_player_count=games)
    for p in (1, 2, 3, 4):
        res[f"random_games_per_s_{p}p"] = round(random_games_per_s(rules, p, games))
    simulate_games = simulate_games or 4 * games
    res["random_agent_games_per_s_4p"] = round(agent_games_per_s(rules, ["random"], 4, games)["random"])
    res["simulate_games"] = simulate_games
    res["simulate_random_games_per_s_4p"] = round(simulate_games_per_s(GAME, rules, 4, simulate_games))
    res["simulate_vs_kernel_4p"] = round(res["simulate_random_games_per_s_4p"] / res["random_games_per_s_4p"], 2)
    res["simulate_random_games_per_s_4p_jobs2"] = round(simulate_games_per_s(GAME, rules, 4, simulate_games, jobs=2))
    res["simulate_jobs2_vs_kernel_4p"] = round(
        res["simulate_random_games_per_s_4p_jobs2"] / res["random_games_per_s_4p"], 2
    )
    _, game_boards, _ = play_random(rules, 4, np.arange(boards // 4 + 1, dtype=np.uint64))
    game_boards = game_boards.reshape(-1, 4)[:boards].copy()
    res["boards_per_s"] = round(boards_per_s(rules, game_boards))
    res["boards_per_s_uniform_random"] = round(boards_per_s(rules, uniform_random_boards(boards)))
    if agents:
        run_agents(rules, agent_games, res)
    if subprocesses:
        res["cold_compile_s"] = round(cold_compile_s(), 2)
        if agents:
            res["cold_agents_compile_s"] = round(cold_agents_compile_s(), 2)
        res["warm_start_s"] = round(warm_start_s(), 2)
        res["score_one_board_s"] = round(score_one_board_s(), 2)
    return dict(res)


def random_summary(rules: Rules, players: int, games: int, seed: int) -> dict:
    """Uniform-random games (seeds seed..seed+games-1): mean points per district, total, waste, empty cells,
    seat win shares with 95% Wilson intervals and the time taken (what `boardlab demo` prints).

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        Seats per game.
    games : int
        Number of games.
    seed : int
        The first game's seed.

    Returns
    -------
    dict
        The summary's numbers.
    """
    from boardlab.sim.stats import wilson

    seeds = (np.arange(games, dtype=np.uint64) + np.uint64(seed & ((1 << 64) - 1))).astype(np.uint64)
    t = time.perf_counter()
    scores, _, stats = play_random(rules, players, seeds)
    out = {
        "seconds": time.perf_counter() - t,
        "means": {
            name: float(scores[:, :, i].mean())
            for name, i in (("R", E.SC_R), ("C", E.SC_C), ("P", E.SC_P), ("I", E.SC_I), ("achievements", E.SC_ACH))
        },
        "total": float(scores[:, :, E.SC_TOTAL].mean()),
        "waste": float(stats[:, :, 1].mean()),
        "empty": float(scores[:, :, E.SC_EMPTY].mean()),
        "seat_win_shares": [],
    }
    if players > 1:
        rank1 = scores[:, :, E.SC_RANK] == 1
        share = rank1 / rank1.sum(axis=1, keepdims=True)
        for s in range(players):
            w = share[:, s].sum()
            lo, hi = wilson(w, games)
            out["seat_win_shares"].append((w / games, lo, hi))
    return out


BENCH = Bench(run, TARGETS)
