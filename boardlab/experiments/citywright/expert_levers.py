"""The expert tier's levers, measured: ``python -m boardlab.experiments.citywright.expert_levers SPEC [SPEC ...]``.

Each spec plays one seat against ``--opponent`` in every other seat (default: 3 greedy, 4
players), seats rotated (game g puts it in seat g mod N), on the same game seeds for every
spec.  Per spec: its CPU time per own move (process CPU time around each of its moves, so
other work on the machine does not count; mean, 95th percentile and max over every move of
every game), its win share with a Wilson 95% interval, and its mean score margin over the
best opponent.  Games run in ``--jobs`` worker processes, each warmed up first.  One CSV row
per spec is appended to ``--out`` (and its per-game arrays beside it, for paired comparisons);
docs/games/citywright/search.md ("The expert", "A faster expert") quotes these tables.

``--timing ROUNDS`` times the specs instead, on one set of positions: every move of the expert
tier in the bench's games (boardlab.experiments.citywright.bench.expert_figures: 8 games against greedy,
seeds 2000 on, seats rotated).  Each position is searched by every spec in turn (the order
reversed every other position), ROUNDS times, in this process; per spec the median over rounds
of its CPU time per move and of its ratio to the first spec's, and what its searches did per
move (boardlab.agents.citywright.flatmc's counters).  Interleaved so that a machine slowing down for a
while slows every spec alike.

A spec may be written ``expert+KEY=VALUE,...``: the v1 expert's full spec (``EXPERT_V1``, the tier these levers
were measured against) with those parameters changed
(``expert+budget=24,own_memo=on``); ``expert-v1`` is that spec itself.  ``--timing`` positions are the v1
expert's moves.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path

import numpy as np
import pandas as pd

from boardlab.sim.seeds import game_seeds
from boardlab.sim.stats import wilson


def expand(spec: str) -> str:
    """``expert+KEY=VALUE,...`` -> the v1 expert's full spec with those parameters set; ``expert-v1`` -> the v1
    expert; other specs as given.

    Parameters
    ----------
    spec : str
        A spec, perhaps in the ``expert+KEY=VALUE`` shorthand.

    Returns
    -------
    str
        The full spec.
    """
    from boardlab.agents.citywright.registry import EXPERT_V1

    if spec == "expert-v1":
        return EXPERT_V1
    if not spec.startswith("expert+"):
        return spec
    name, args = EXPERT_V1.split(":", 1)
    params = dict(kv.split("=", 1) for kv in args.split(","))
    params.update(kv.split("=", 1) for kv in spec.removeprefix("expert+").split(",") if kv)
    return name + ":" + ",".join(f"{k}={v}" for k, v in params.items())


def timing(specs: list[str], rounds: int = 3, rules_name: str = "v1.1") -> pd.DataFrame:
    """CPU time per move of each spec on the bench's expert positions, interleaved (the module docstring).

    Parameters
    ----------
    specs : list of str
        The specs timed (each :func:`expand`-ed).
    rounds : int
        Interleaved rounds.
    rules_name : str
        The preset.

    Returns
    -------
    pandas.DataFrame
        One row per spec: its median CPU ms per move over the rounds, its ratio to the first spec's (median,
        min, max) and its search counters per position.
    """
    from boardlab.agents.citywright import flatmc as F
    from boardlab.agents.citywright.kernels import P_CODE
    from boardlab.agents.citywright.play import policy_mover, searcher
    from boardlab.agents.citywright.registry import EXPERT_V1, parse_agent
    from boardlab.agents.citywright.strong import STRONG_WEIGHTS
    from boardlab.sim.citywright import engine as E
    from boardlab.sim.citywright.api import Game

    prm = {s: parse_agent(expand(s)).row() for s in specs}
    expert, greedy = parse_agent(EXPERT_V1).row(), parse_agent("greedy").row()
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    positions = []
    for g in range(8):
        game = Game(4, rules_name, 2000 + g)
        args = game.tables.kernel_args()
        move = policy_mover(np.stack([expert, greedy]), args, STRONG_WEIGHTS)
        while not game.done:
            me = game.current == g % 4
            if me:
                positions.append((game.boards.copy(), game.st.copy(), game.rng.copy()))
            move(game.boards, game.st, game.rng, mv, expert if me else greedy)
            game.apply(game.decode(mv))
    counters = {s: np.zeros(F.N_COUNTERS, dtype=np.int64) for s in specs}
    cpu = np.zeros((rounds, len(specs)))
    search = {s: searcher(int(prm[s][P_CODE]), args, STRONG_WEIGHTS) for s in specs}  # compiled or loaded here
    for b, st, rng in positions[:1]:  # warm-up
        for s in specs:
            search[s](b.copy(), st.copy(), rng.copy(), mv, prm[s], counters[s])
    for s in specs:
        counters[s][:] = 0
    for r in range(rounds):
        for i, (b, st, rng) in enumerate(positions):
            order = range(len(specs)) if (i + r) % 2 == 0 else range(len(specs) - 1, -1, -1)
            for j in order:
                b2, st2, rng2 = b.copy(), st.copy(), rng.copy()
                c = np.zeros(F.N_COUNTERS, dtype=np.int64)
                t = time.process_time()
                search[specs[j]](b2, st2, rng2, mv, prm[specs[j]], c)
                cpu[r, j] += time.process_time() - t
                if r == 0:
                    counters[specs[j]] += c
    ms = 1000 * cpu / len(positions)
    ratio = ms / ms[:, :1]
    rows = []
    for j, s in enumerate(specs):
        c = counters[s] / len(positions)
        rows.append(
            {
                "spec": s,
                "positions": len(positions),
                "rounds": rounds,
                "ms_per_move": round(float(np.median(ms[:, j])), 2),
                "ratio": round(float(np.median(ratio[:, j])), 3),
                "ratio_min": round(float(ratio[:, j].min()), 3),
                "ratio_max": round(float(ratio[:, j].max()), 3),
                "playouts": round(float(c[F.C_PLAYOUTS]), 1),
                "repeated": round(float(c[F.C_REPEATED]), 1),
                "own_searches": round(float(c[F.C_OWN_SEARCHES]), 1),
                "opp_searches": round(float(c[F.C_OPP_SEARCHES]), 1),
                "memo_hits": round(float(c[F.C_HITS]), 1),
                "ruler_searches": round(float(c[F.C_RULER_SEARCHES]), 1),
                "ruler_hits": round(float(c[F.C_RULER_HITS]), 1),
            }
        )
    return pd.DataFrame(rows)


def _chunk(spec, opponent, players, rules_name, seeds, seats):
    from boardlab.experiments.citywright.bench import timed_games

    timed_games(spec, opponent, players, rules_name, seeds[:1], seats[:1])  # warm-up (compile or load)
    return timed_games(spec, opponent, players, rules_name, seeds, seats)


def measure(
    spec: str,
    games: int,
    opponent: str = "greedy",
    players: int = 4,
    rules_name: str = "v1.1",
    seed: int = 11,
    jobs: int = 2,
) -> dict:
    """One row of the levers table (see the module docstring).

    Parameters
    ----------
    spec : str
        The spec measured.
    games : int
        Games against `opponent`.
    opponent : str
        The agent in every other seat.
    players : int
        Seats per game.
    rules_name : str
        The preset.
    seed : int
        The run seed.
    jobs : int
        Worker processes.

    Returns
    -------
    dict
        The row.
    """
    from joblib import Parallel, delayed

    seeds = game_seeds(seed, 0, games)
    seats = np.arange(games) % players
    parts = np.array_split(np.arange(games), max(1, min(jobs, games)))
    res = Parallel(n_jobs=jobs)(
        delayed(_chunk)(spec, opponent, players, rules_name, seeds[i], seats[i]) for i in parts if len(i)
    )
    times = np.concatenate([r[0] for r in res])
    shares = np.concatenate([r[1] for r in res])
    margins = np.concatenate([r[2] for r in res])
    lo, hi = wilson(shares.sum(), games)
    measure.last = {"times": times, "shares": shares, "margins": margins}  # per game, for paired comparisons
    return {
        "spec": spec,
        "opponent": opponent,
        "players": players,
        "games": games,
        "seed": seed,
        "ms_per_move_mean": round(float(times.mean()), 2),
        "ms_per_move_p95": round(float(np.percentile(times, 95)), 2),
        "ms_per_move_max": round(float(times.max()), 2),
        "win_share": round(float(shares.mean()), 4),
        "lo": round(lo, 4),
        "hi": round(hi, 4),
        "margin_mean": round(float(margins.mean()), 2),
        "margin_se": round(float(margins.std(ddof=1) / np.sqrt(games)), 2) if games > 1 else 0.0,
    }


def main(argv: list[str] | None = None) -> None:
    """The command line of the levers' measurement: time or measure the specs given (the module docstring).

    Parameters
    ----------
    argv : list of str or None
        The arguments (None: ``sys.argv[1:]``).
    """
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="+")
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--opponent", default="greedy")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rules", default="v1.1")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path("runs/expert_levers.csv"))
    ap.add_argument("--timing", type=int, default=0, metavar="ROUNDS", help="time the specs instead (docstring)")
    a = ap.parse_args(argv)
    if a.timing:
        df = timing(a.specs, a.timing, a.rules)
        with pd.option_context("display.width", 200, "display.max_colwidth", 80):
            print(df.to_string(index=False))
        a.out.parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(a.out, mode="a", header=not a.out.exists(), index=False)
        return
    for given in a.specs:
        spec = expand(given)
        t = time.perf_counter()
        row = measure(spec, a.games, a.opponent, a.players, a.rules, a.seed, a.jobs)
        row["wall_s"] = round(time.perf_counter() - t, 1)
        a.out.parent.mkdir(parents=True, exist_ok=True)
        df = pd.DataFrame([row])
        df.to_csv(a.out, mode="a", header=not a.out.exists(), index=False)
        per_game = a.out.with_suffix("")
        per_game.mkdir(exist_ok=True)
        name = spec.replace(":", "_").replace(",", "_")
        if len(name) > 150:  # (a file name's limit: the spec's hash, the spec inside)
            name = "spec-" + hashlib.sha1(spec.encode()).hexdigest()[:12]
        np.savez(per_game / f"{name}-{a.games}-{a.seed}.npz", spec=spec, **measure.last)
        print(
            f"{spec}: {row['ms_per_move_mean']} ms/move (p95 {row['ms_per_move_p95']}, max {row['ms_per_move_max']}), "
            f"win {100 * row['win_share']:.1f}% [{100 * row['lo']:.1f}, {100 * row['hi']:.1f}] of {a.games}, "
            f"margin {row['margin_mean']} ± {row['margin_se']}",
            flush=True,
        )


if __name__ == "__main__":
    main()
