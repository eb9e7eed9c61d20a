"""Compilation as a phase of its own: ``boardlab warmup``, the compile line of a cold command, the warm markers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from boardlab.experiments import warmup as W
from boardlab.sim import _cache
from boardlab.sim.games import get_game
from tests.cli import cli

ROOT = Path(__file__).parents[2]


def _env(cache: Path, times: Path) -> dict[str, str]:
    return {**os.environ, "NUMBA_CACHE_DIR": str(cache), "BOARDLAB_COMPILE_TIMES": str(times)}


def _boardlab(env, *args) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "boardlab.experiments.cli", *map(str, args)]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)


def _cached(cache: Path) -> set[str]:
    return {str(p) for p in cache.rglob("*") if p.suffix in (".nbi", ".nbc")}


@pytest.mark.slow  # a cold compile in a private cache
def test_warmup_compiles_into_an_empty_cache_and_a_second_call_compiles_nothing(tmp_path):
    cache, times = tmp_path / "numba", tmp_path / "times.json"
    env = _env(cache, times)
    first = _boardlab(env, "warmup", "--game", "citadels", "--agents", "random")
    assert first.returncode == 0, first.stderr
    files = _cached(cache)
    assert any(f.endswith(".nbi") for f in files) and any("engine." in Path(f).name for f in files)
    assert "compiled 1 of 1" in first.stdout and "citadels: compiled in" in first.stderr
    assert json.loads(times.read_text())["citadels"] > 0  # the measured time is kept for the next estimate

    second = _boardlab(env, "warmup", "--game", "citadels", "--agents", "random")
    assert second.returncode == 0, second.stderr
    assert "nothing to compile" in second.stdout and "already cached" in second.stderr
    assert _cached(cache) == files


@pytest.mark.slow  # a cold compile in a private cache
def test_a_cold_command_says_what_it_compiles_before_the_long_wait(tmp_path):
    cache, times = tmp_path / "numba", tmp_path / "times.json"
    times.write_text(json.dumps({"citadels": 42.0}))
    env = _env(cache, times)
    out = tmp_path / "r.parquet"
    args = ("simulate", "--game", "citadels", "--players", "4", "--agents", "random", "--games", "4", "--quiet")
    cmd = [sys.executable, "-m", "boardlab.experiments.cli", *args, "--out", str(out)]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=900)  # fmt: skip
    assert proc.returncode == 0, proc.stdout
    line = "compiling the citadels kernels (random): first run on this machine or kernels changed, about 42 s"
    assert line in proc.stdout
    assert proc.stdout.index(line) < proc.stdout.index("compiled the citadels kernels in") < proc.stdout.index("wrote")
    # the run's clock starts after compilation: the warm play of 4 games is counted, not the compile
    meta = json.loads(Path(f"{out}.json").read_text())
    assert meta["this_session"]["seconds"] < json.loads(times.read_text()).get("citadels", 42.0)
    # the compile time is kept apart, in the metadata and in the closing line
    assert meta["this_session"]["compile_seconds"] > meta["this_session"]["seconds"]
    assert f"(compile {meta['this_session']['compile_seconds']:.1f} s; 4 games played now in" in proc.stdout

    again = _boardlab(env, *args, "--out", tmp_path / "s.parquet")
    assert again.returncode == 0 and "compiling" not in again.stderr and "(compile " not in again.stdout
    assert "compile_seconds" not in json.loads((tmp_path / "s.parquet.json").read_text())["this_session"]


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setenv("BOARDLAB_COMPILE_TIMES", str(tmp_path / "times.json"))
    _cache.ensure_fresh_cache()
    return tmp_path / "numba"


def _fake_cached(game) -> None:
    for name in W.indexed_modules(game):
        src = _cache._ROOT / name
        folder = W._cache_folder(src)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{src.stem}.k-1.py311.nbi").write_bytes(b"")


def test_a_warm_marker_holds_only_under_the_same_stamp_and_cached_modules(private_cache):
    g = get_game("citadels")
    assert W.cold_modules(g, ["random"])  # empty cache: cold
    _fake_cached(g)
    assert W.cold_modules(g, ["random"])  # kernels cached but never warmed up for these agents
    W._mark_warm(g, ["random"])
    assert W.cold_modules(g, ["random"]) == []
    assert W.cold_modules(g, ["strong"])  # other agents: their own marker
    assert W.cold_modules(g, ["random", "strong"])  # a table of both: strong was never warmed up
    W._mark_warm(g, ["strong"])
    assert W.cold_modules(g, ["strong", "random", "random"]) == []  # each warmed up on its own: warm together
    engine = next(private_cache.rglob("engine.*.nbi"))
    engine.unlink()
    assert W.cold_modules(g, ["random"]) == ["boardlab/sim/citadels/engine.py"]
    engine.write_bytes(b"")
    assert W.cold_modules(g, ["random"]) == []
    # a changed kernel source: the cache guard's stamp differs, the cache is dropped, the game is cold again
    (private_cache / _cache._STAMP).write_text("another source")
    assert "boardlab/sim/citadels/engine.py" in W.cold_modules(g, ["random"])
    assert not list(private_cache.rglob("*.nbi"))


def test_the_compile_line_is_said_only_when_the_tiny_game_outlasts_a_cache_load(private_cache, monkeypatch, capsys):
    """A run whose kernels numba has cached, under agents no warm-up marked (other parameters), loads them in
    well under ANNOUNCE_AFTER: nothing is said.  A tiny game that takes longer (compiling) is announced."""
    import time

    from boardlab.experiments import simulate as S

    g = get_game("citadels")
    monkeypatch.setattr(W, "ANNOUNCE_AFTER", 0.2)
    monkeypatch.setattr(S, "play_chunk", lambda spec, i: None)  # a cache load: at once
    lines: list[str] = []
    fast = W.ensure_compiled(g, ["random"], log=lines.append)
    assert fast["cold"] and not fast["compiled"] and lines == []
    W.ensure_compiled(g, ["basic"])  # the default log: stderr, closing line included
    assert capsys.readouterr().err == ""

    monkeypatch.setattr(S, "play_chunk", lambda spec, i: time.sleep(0.6))  # compiling: longer
    slow = W.ensure_compiled(g, ["random"], log=lines.append, force=True)
    assert lines == [W.announce("citadels", " (random)", W.estimate("citadels", "citadels"))]
    assert slow["seconds"] >= 0.6
    W.ensure_compiled(g, ["basic"], force=True)
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("compiling the citadels kernels (basic)")
    assert err[1].startswith("the citadels kernels were cached already: in ")


def test_a_marker_counts_for_the_recorded_loop_only_once_a_warm_up_played_it(private_cache):
    g = get_game("citadels")
    _fake_cached(g)
    W._mark_warm(g, ["random"])  # a simulate run's warm-up: the chunk player only
    assert W.cold_modules(g, ["random"]) == []
    assert W.cold_modules(g, ["random"], recorded=True)  # the anatomy panel's loop was never played
    W._mark_warm(g, ["random"], recorded=True)
    assert W.cold_modules(g, ["random"], recorded=True) == []
    W._mark_warm(g, ["random"])  # a later simulate run keeps what the marker says of the loop
    assert W.cold_modules(g, ["random"], recorded=True) == []
    (private_cache / _cache._STAMP).write_text("another source")  # a stale marker says nothing
    W._mark_warm(g, ["random"])
    assert W.cold_modules(g, ["random"], recorded=True)


_RECORDED: list = []


def _recording_player(rules, players, agents, seating, seed, start, stop):
    _RECORDED.append((players, [a.name for a in agents], seating, start, stop))


def test_the_warm_up_plays_one_game_through_the_recorded_loop_too(private_cache, monkeypatch):
    """A warm-up task compiles what the game-anatomy panel plays (the game's recorded loop) beside the chunk
    player; a simulate run's check does not."""
    import dataclasses

    from boardlab.experiments import simulate as S
    from boardlab.sim.games import Lazy

    g = get_game("citadels")
    sim = dataclasses.replace(g.simulation, trajectory_player=Lazy("tests.core.test_warmup:_recording_player"))
    game = dataclasses.replace(g, simulation=sim)
    monkeypatch.setattr(S, "play_chunk", lambda spec, i: None)
    monkeypatch.setattr(W, "get_game", lambda game_id: game)
    _RECORDED.clear()
    W.ensure_compiled(game, ["basic"], 3, log=lambda line: None)
    assert _RECORDED == []
    W.run_task("citadels", "basic", ["basic"])
    assert _RECORDED == [(2, ["basic", "basic"], "fixed", 0, 1)]
    W.run_task("citadels", "basic", ["basic"])  # warm now, by its marker: nothing played
    assert len(_RECORDED) == 1


PAIRED = [("a vs b", ["basic", "random"], 0.6), ("c vs b", ["basic:prefers=1", "random"], 0.5)]
PAIRED_KNOWN = [("a vs b", ["basic", "random"], 0.6)]


def test_the_warm_up_compiles_the_ladders_agents_that_no_tier_plays():
    """A game whose fixed ladder pairs an agent that is neither a default agent nor a tier gets a task of the
    pairings' agents together (Citywright: mcts); one whose pairings are all known (``basic`` is the basic tier,
    spelled out) gets none."""
    import dataclasses

    from boardlab.sim.games import Lazy

    assert ("citywright", "ladder", ["greedy", "random", "mcts"]) in W.tasks([get_game("citywright")])
    g = get_game("citadels")
    for pairings, expected in (("PAIRED", ["basic", "random", "basic:prefers=1"]), ("PAIRED_KNOWN", None)):
        ladder = dataclasses.replace(g.ladder, pairings=Lazy(f"tests.core.test_warmup:{pairings}"))
        todo = W.tasks([dataclasses.replace(g, ladder=ladder)])
        assert [t for t in todo if t[1] == "ladder"] == ([("citadels", "ladder", expected)] if expected else [])
        assert todo[: len(g.tiers()) + 1] == W.tasks([g])[: len(g.tiers()) + 1]  # the tiers' tasks first, as before


def test_the_extras_are_tasks_of_the_games_with_kernels_and_random_where_no_tier_plays_it():
    """The public API's per-move players and self-play training are warm-up tasks of every game with kernels (and
    a trainer); a game whose runs of random agents alone play a loop of their own that no tier or ladder plays
    (Cartographers) gets a task ``random``; a pure-Python game gets none of them."""
    cart, city, pig = get_game("cartographers"), get_game("citywright"), get_game("pig")
    assert [t[1] for t in W.tasks([cart])][-3:] == ["random", "api", "train"]
    assert W.tasks([cart])[-3] == ("cartographers", "random", ["random"])
    assert [t[1] for t in W.tasks([city])][-2:] == ["api", "train"] and "random" not in [t[1] for t in W.tasks([city])]
    assert W.tasks([pig]) == [("pig", None, None)]
    assert W.tasks([cart], ["greedy"]) == [("cartographers", None, ["greedy"])]  # the agents given: nothing else
    tiers = W.tasks([cart], extras=False)  # warmup --tiers-only, what bench --compile times
    assert tiers == W.tasks([cart])[:-3] and tiers[-1][1] == "expert"


def test_bench_compile_times_the_tiers_only(monkeypatch):
    """bench --compile's figure is the game loops of the game's default agents, tiers and ladder: the warm-up it
    runs says --tiers-only (no public API players, training or random agents alone)."""
    from boardlab.experiments import compile_bench

    seen = []
    monkeypatch.setattr(compile_bench.subprocess, "run", lambda cmd, **kw: seen.append((cmd, kw["env"])))
    compile_bench.cold_warmup(["citadels"], 2)
    ((cmd, env),) = seen
    assert cmd[cmd.index("warmup") :] == ["warmup", "--tiers-only", "--jobs", "2", "--game", "citadels"]
    assert env["NUMBA_CACHE_DIR"]


_CALLS: list = []
_SPY_TRAINER = None  # the test's trainer (a Lazy part names a module attribute)


def _trainer_spy(seed, rounds, **kw):
    _CALLS.append(("train", seed, rounds, kw["jobs"], "rules" in kw))
    return {}


def test_an_extra_plays_once_until_its_marker_goes_stale(private_cache, monkeypatch):
    """api plays one game through the generic chunk player with the default agents; train one self-play round,
    nothing written; each leaves a marker, so a second warm-up does nothing, until a kernel source changes."""
    import dataclasses

    from boardlab.experiments import play as P
    from boardlab.sim.games import Lazy

    g = get_game("citadels")
    _fake_cached(g)
    monkeypatch.setattr(f"{__name__}._SPY_TRAINER", dataclasses.replace(g.require("trainer"), train=_trainer_spy))
    training = dataclasses.replace(g.training, trainer=Lazy(f"{__name__}:_SPY_TRAINER"))
    game = dataclasses.replace(g, training=training)
    monkeypatch.setattr(W, "get_game", lambda game_id: game)
    monkeypatch.setattr(P, "play_table", lambda *a: _CALLS.append(("api", a[2], [x.name for x in a[3]], a[5:])))
    _CALLS.clear()
    for _ in range(2):
        W.run_task("citadels", "api", None)
        W.run_task("citadels", "train", None)
    agents = [a.split(":")[0] for a in g.agents().split_specs(g.ladder.default_agents)]
    assert _CALLS == [("api", 2, agents * (2 // len(agents)), (0, 0, 1)), ("train", 0, (4,), 1, False)]
    (private_cache / _cache._STAMP).write_text("another source")  # a kernel changed: the markers are stale
    W.run_task("citadels", "api", None)
    assert len(_CALLS) == 3
    with pytest.raises(ValueError, match="no warm-up task"):
        W.ensure_extra(game, "nothing")


def test_the_compile_line_quotes_the_measured_time(private_cache, tmp_path):
    W.record_compile_time("citadels/strong", 12.34)
    assert W.compile_times()["citadels/strong"] == 12.3
    assert W.estimate("citadels/strong", "citadels") == 12.3
    assert "about 12 s" in W.announce("citadels", " (strong)", W.estimate("citadels/strong", "citadels"))
    assert W.announce("citadels", "", None).endswith("kernels changed")


def test_batches_keep_each_game_whole_and_give_the_largest_games_out_first(monkeypatch):
    times = {"big/a": 50.0, "big/b": 40.0, "mid": 60.0, "small": 10.0, "tiny": 5.0}
    monkeypatch.setattr(W, "compile_times", lambda: times)
    todo = [("big", None, None), ("big", "a", ["x"]), ("big", "b", ["y"]), ("mid", None, None),
            ("small", None, None), ("tiny", None, None)]  # fmt: skip
    two = W.batches(todo, 2)
    # big (50 + 40 + its default, estimated as 1 s) first, then mid beside it, small and tiny onto the lighter one
    assert two == [todo[:3], [todo[3], todo[4], todo[5]]]
    assert sorted(map(repr, (t for b in W.batches(todo, 3) for t in b))) == sorted(map(repr, todo))  # each once
    assert [[t[0] for t in b] for b in W.batches(todo, 3)] == [["big"] * 3, ["mid"], ["small", "tiny"]]
    assert W.batches(todo, 1) == [todo]
    one_game = todo[:3]
    assert W.batches(one_game, 2) == [[t] for t in one_game]  # fewer games than processes: tiers spread
    assert W.batches([], 2) == []


def test_a_tier_without_a_figure_of_its_own_costs_nothing_beside_its_game(monkeypatch):
    # measured as a make install's warm-up measures them: each tier after its game's default agents
    times = {"citywright": 52.7, "citywright/strong": 16.7, "citywright/expert": 27.3,
             "citadels": 15.8, "citadels/basic": 40.1, "cartographers": 45.8}  # fmt: skip
    monkeypatch.setattr(W, "compile_times", lambda: times)
    tiers = {"citywright": ["strong", "expert"], "citadels": ["basic", "strong", "expert"],
             "cartographers": ["greedy", "planner", "strong", "expert"]}  # fmt: skip
    todo = [(g, t, None) for g, ts in tiers.items() for t in [None, *ts]]
    # citywright (96.7 s) alone; cartographers (45.8: its tiers compile nothing more) and citadels (55.9) together
    assert [sorted({t[0] for t in b}) for b in W.batches(todo, 2)] == [["citywright"], ["cartographers", "citadels"]]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--jobs", "0"], "--jobs must be at least 1"),
        (["--game", "nope"], "--game: unknown game"),
        (["--agents", "random"], "--agents: name one --game"),
        (["--game", "pig", "--agents", "nosuchagent"], "--agents:"),  # a built-in game's: in its folder
    ],
)
def test_warmup_user_errors_are_one_line(capsys, private_cache, args, says):
    code, _out, err = cli(capsys, "warmup", *args)
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not list(private_cache.rglob("*.nbi"))


def test_parallel_batches_forward_one_line_per_task_as_each_finishes(private_cache):
    todo = W.tasks([get_game("pig"), get_game("heartslite")])  # pure Python: nothing to compile
    parts = W.batches(todo, 2)
    assert len(parts) == 2
    lines: list[str] = []
    results = W.run_batches(parts, 2, lines.append)
    assert sorted((r["game"], r["tier"]) for r in results) == sorted((g, t) for g, t, _ in todo)
    assert len(lines) == len(todo)  # each task's line once, forwarded from its worker
    for g, t, _ in todo:
        name = g + (f"/{t}" if t else "")
        assert sum(line.startswith(f"  {name}: already cached in") for line in lines) == 1, lines
