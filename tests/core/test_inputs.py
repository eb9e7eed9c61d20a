"""The checks behind the INPUTS group of tests/core/test_hostile_input.py, one by one: reading a rules or board file,
the TOML nesting limit, a variant's base, the player counts a rule set supports, seeds, --jobs and provenance."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

from boardlab.experiments import provenance as P
from boardlab.experiments import simulate as S
from boardlab.experiments.cli import _app
from boardlab.sim.citywright.rules import load_rules
from boardlab.sim.files import TextFileError, read_text
from boardlab.sim.games import available_games, counts_text, get_game
from boardlab.sim.rulesets import MAX_DEPTH, RulesError, check_base, mapping_depth, parse_toml, toml_depth
from tests.cli import cli

# --- reading a user's file ------------------------------------------------------------------------


def _within(seconds: float, fn, *args):
    """fn(*args) in a thread; the test fails (instead of hanging) when it has not returned in time."""
    out: dict = {}

    def run():
        try:
            out["value"] = fn(*args)
        except BaseException as e:  # handed to the test
            out["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"{fn.__name__} still running after {seconds} s"
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    with pytest.raises(TextFileError, match=r"pipe\.toml: is a FIFO \(named pipe\), not a rules file$"):
        _within(5, read_text, fifo, "a rules file")


@pytest.mark.parametrize(
    "make, says",
    [
        (lambda d: d, r": is a directory, not a board file$"),
        (lambda d: Path("/dev/null"), r"^/dev/null: is a character device, not a board file$"),
        (lambda d: Path("/dev/zero"), r"^/dev/zero: is a character device, not a board file$"),
        (lambda d: d / "missing.txt", r"missing\.txt: no such file$"),
        (lambda d: d / "file.txt" / "below", r"below: no such file$"),
    ],
)
def test_what_is_not_a_regular_file_is_named(tmp_path, make, says):
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(TextFileError, match=says):
        _within(5, read_text, make(tmp_path), "a board file")


def test_non_utf8_bytes_are_named_by_byte_and_line(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'base = "v1.1"\n\nname = "caf\xe9"\n')
    with pytest.raises(TextFileError, match=r"latin1\.toml: is not UTF-8 text \(byte 0xe9 at line 3\)"):
        read_text(path)


def test_utf8_text_is_read_whole_its_byte_order_mark_dropped(tmp_path):
    path = tmp_path / "ok.toml"
    path.write_bytes('\ufeffname = "café"\n'.encode())
    assert read_text(path) == 'name = "café"\n'


# --- TOML nesting -----------------------------------------------------------------------------------


def test_the_depth_scan_skips_strings_and_comments():
    text = (
        'a = "[[[[" # [[[[{{{\n'
        "b = '[[['\n"
        'c = """\n[[[\\"""[[\n"""\n'
        "d = '''[[[['''\n"
        "e = [[1], [2]]\n"
        "[[f]]\n"
        "g = {h = [{i = 1}]}\n"
    )
    assert toml_depth(text) == 3


@pytest.mark.parametrize("tail", ['x = [["abc\\', "x = [['abc", 'x = [["""abc\\', "x = [['''abc"])
def test_a_string_cut_short_by_the_end_of_the_text_ends_the_scan(tail, tmp_path):
    """A document ending inside a string (after a lone backslash, too) is scanned to its end, and the rules file
    is then refused in one line as the TOML it is not."""
    assert toml_depth(tail) == 2
    path = tmp_path / "cut.toml"
    path.write_text('base = "v1.1"\n' + tail)
    with pytest.raises(RulesError, match="not valid TOML"):
        load_rules(path)


@pytest.mark.parametrize("depth", [MAX_DEPTH - 1, MAX_DEPTH])
def test_nesting_up_to_the_limit_is_read(depth):
    data = parse_toml("x = " + "[" * depth + "]" * depth + "\n", "f.toml")
    assert mapping_depth(data) == depth + 1  # the document's own table is a level too


@pytest.mark.parametrize(
    "text",
    [
        "x = " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
        "x = " + "{a=" * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1),
        "x" + ".a" * (MAX_DEPTH + 1) + " = 1",
        "[x" + ".a" * MAX_DEPTH + "]\ny = 1",
        "x = " + "[" * 100_000,  # unclosed: refused before the parser reads it
    ],
)
def test_deeper_nesting_is_one_rules_error(text):
    with pytest.raises(RulesError, match=rf"^rules: f\.toml nests tables and arrays deeper than {MAX_DEPTH} levels$"):
        parse_toml(text, "f.toml")


def test_the_parsers_recursion_never_surfaces(monkeypatch):
    """Even past the scan (a document it under-counts), the parser's RecursionError is the same one line."""
    import boardlab.sim.rulesets as RS

    monkeypatch.setattr(RS, "toml_depth", lambda text, limit=MAX_DEPTH: 0)
    with pytest.raises(RulesError, match="deeper than 32 levels"):
        parse_toml("x = " + "[" * 5000 + "]" * 5000, "f.toml")


def test_dotted_keys_up_to_the_limit_are_read():
    assert mapping_depth(parse_toml("x" + ".a" * MAX_DEPTH + " = 1", "f.toml")) == MAX_DEPTH + 1


def test_mapping_depth_counts_tables_and_lists():
    assert mapping_depth(1) == 0
    assert mapping_depth({"a": 1}) == 1
    assert mapping_depth({"a": [{"b": [1]}], "c": {}}) == 4


# --- a variant's base -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "named, says",
    [
        ({"name": "x"}, r"^base: expected the name of a preset, got \{'name': 'x'\} \(valid: a, b\)$"),
        (5, r"^base: expected the name of a preset, got 5 \(valid: a, b\)$"),
        ("", r"^base: expected the name of a preset, got '' \(valid: a, b\)$"),
        ("c", r"^base: unknown preset 'c' \(valid: a, b\)$"),
    ],
)
def test_a_base_must_name_a_preset(named, says):
    with pytest.raises(RulesError, match=says):
        check_base(named, ("a", "b"))
    assert check_base("b", ("a", "b")) == "b"


def test_a_games_own_rules_error_is_raised():
    from boardlab.sim.citadels.rules import RulesError as CitadelsError

    with pytest.raises(CitadelsError):
        check_base(5, ("official",), CitadelsError)


@pytest.mark.parametrize("game", ["citywright", "cartographers", "citadels"])
def test_an_empty_base_no_longer_means_the_default(game, tmp_path):
    g = get_game(game)
    path = tmp_path / "v.toml"
    path.write_text('base = ""\n')
    with pytest.raises(g.rules_error, match=r"v\.toml: base: expected the name of a preset, got ''"):
        g.load_rules(str(path))
    path.write_text(f'base = "{g.presets[-1]}"\n')
    assert g.load_rules(str(path)).name == "v"


# --- decks that cannot be drawn ---------------------------------------------------------------------


# --- player counts under a rule set (each seed game's own rules: tests/<game>/) ----------------------


@pytest.mark.parametrize("game", [g.id for g in available_games()])
def test_the_registry_range_is_what_the_presets_support(game):
    g = get_game(game)
    counts = set().union(*(g.players_for(g.load_rules(p)) for p in g.presets))
    assert counts == set(range(g.players[0], g.players[1] + 1))


def test_counts_text():
    assert counts_text((2, 3, 4, 5)) == "2..5"
    assert counts_text((1, 3, 4)) == "1, 3, 4"
    assert counts_text((2, 3)) == "2, 3"


# --- seeds -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [-1, 2**64, -(2**64), 2**80])
def test_a_seed_outside_64_bits_is_refused_not_wrapped(seed):
    rules = get_game("citywright").load_rules("v1.1")
    with pytest.raises(S.SimulateError, match=rf"^--seed must be 0\.\.{2**64 - 1} \(2\*\*64 - 1\), got {seed}$"):
        S.make_spec(2, ["random"], 2, seed, rules)
    with pytest.raises(_app.UserError, match=rf"^--seed must be 0\.\.{2**64 - 1} \(2\*\*64 - 1\), got {seed}$"):
        _app.check_seed(seed)


@pytest.mark.parametrize("seed", [0, 2**64 - 1, np.uint64(2**64 - 1), np.int64(5)])
def test_every_64_bit_seed_is_kept_as_given(seed):
    rules = get_game("citywright").load_rules("v1.1")
    assert S.make_spec(2, ["random"], 2, seed, rules).seed == int(seed)
    assert _app.check_seed(int(seed)) == int(seed)


def test_a_seed_that_is_not_an_integer_is_refused():
    rules = get_game("citywright").load_rules("v1.1")
    for bad in (True, 1.0, "1"):
        with pytest.raises(S.SimulateError, match=r"^--seed must be"):
            S.make_spec(2, ["random"], 2, bad, rules)


# --- --jobs ------------------------------------------------------------------------------------------


def test_jobs_above_the_cores_are_lowered_with_a_note(monkeypatch, capsys):
    monkeypatch.setattr(_app, "machine_cores", lambda: 2)
    assert _app.check_jobs(5) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith("note: --jobs 5 is more than the 2 cores of this machine; using 2")
    assert _app.check_jobs(2) == 2 and capsys.readouterr().err == ""


def test_jobs_never_exceed_the_chunks(monkeypatch, capsys):
    monkeypatch.setattr(_app, "machine_cores", lambda: 8)
    assert _app.check_jobs(4, chunks=3) == 3
    assert _app.check_jobs(4, chunks=0) == 1
    assert _app.check_jobs(16, "dask", chunks=100) == 16  # a cluster's size is its own
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("jobs", [0, -1])
def test_jobs_below_one_are_refused(jobs):
    with pytest.raises(_app.UserError, match=rf"^--jobs must be at least 1, got {jobs}$"):
        _app.check_jobs(jobs)


def test_machine_cores_follow_the_affinity(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5}, raising=False)
    assert _app.machine_cores() == 3


def test_simulate_starts_no_more_workers_than_cores_and_chunks(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_app, "machine_cores", lambda: 3)
    seen = []
    real = S.run
    monkeypatch.setattr(S, "run", lambda spec, out, jobs=1, **kw: seen.append(jobs) or real(spec, out, jobs=1, **kw))
    base = ["simulate", "--game", "pig", "--players", 2, "--agents", "random", "--quiet"]
    code, _, err = cli(capsys, *base, "--games", 8, "--chunk-size", 2, "--out", "a.parquet", "--jobs", 8)
    assert code == 0 and "note: --jobs 8 is more than the 3 cores of this machine; using 3" in err
    code, _, err = cli(capsys, *base, "--games", 4, "--chunk-size", 2, "--out", "b.parquet", "--jobs", 3)
    assert code == 0 and "note" not in err
    assert seen == [3, 2]  # 4 chunks on 3 cores; 2 chunks


# --- provenance ------------------------------------------------------------------------------------


def _git(*args, cwd):
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout.strip()


def test_the_commit_is_the_toolkits_own_not_the_current_folders(tmp_path, monkeypatch):
    other = tmp_path / "other"
    other.mkdir()
    _git("init", "-q", cwd=other)
    _git("commit", "-q", "--allow-empty", "-m", "x", cwd=other)
    monkeypatch.chdir(other)
    own = subprocess.run(["git", "-C", str(P.source_dir()), "rev-parse", "HEAD"], capture_output=True, text=True)
    if own.returncode:
        pytest.skip("the toolkit is not a git checkout here")
    assert P.git_commit() == own.stdout.strip() != _git("rev-parse", "HEAD", cwd=other)
    assert P.git_commit(short=True) == own.stdout.strip()[:7]


def test_package_files_not_tracked_by_the_enclosing_repository_have_no_commit(tmp_path):
    repo = tmp_path / "repo"
    (repo / "tracked").mkdir(parents=True)
    (repo / "site" / "pkg").mkdir(parents=True)
    (repo / "tracked" / "__init__.py").write_text("")
    (repo / "site" / "pkg" / "__init__.py").write_text("")  # an installed copy inside someone's repository
    _git("init", "-q", cwd=repo)
    _git("add", "tracked", cwd=repo)
    _git("commit", "-q", "-m", "x", cwd=repo)
    head = _git("rev-parse", "HEAD", cwd=repo)
    assert P.commit_of(repo / "tracked") == head
    assert P.commit_of(repo / "site" / "pkg") == "unknown"
    assert P.commit_of(tmp_path) == "unknown"  # not a repository at all


def test_outside_a_checkout_the_version_is_recorded_and_the_commit_unknown(tmp_path, monkeypatch):
    (tmp_path / "__init__.py").write_text("")
    monkeypatch.setattr(P, "source_dir", lambda: tmp_path)
    assert P.git_commit() == "unknown"
    assert P.provenance() == {"package_version": P.package_version(), "git_commit": "unknown"}
    assert P.package_version() not in ("", "unknown")  # the toolkit is installed in the test environment


def test_a_run_records_the_toolkits_commit_from_another_repository(tmp_path, capsys, monkeypatch):
    other = tmp_path / "other"
    other.mkdir()
    _git("init", "-q", cwd=other)
    _git("commit", "-q", "--allow-empty", "-m", "x", cwd=other)
    monkeypatch.chdir(other)
    code, _, err = cli(capsys, "simulate", "--game", "pig", "--players", 2, "--agents", "random", "--games", 2,
                       "--out", "r.parquet", "--quiet")  # fmt: skip
    assert code == 0, err
    meta = S.read_metadata(other / "r.parquet")
    assert meta["git_commit"] == P.git_commit() != _git("rev-parse", "HEAD", cwd=other)
    assert meta["package_version"] == P.package_version()
