"""boardlab.testing.Golden, the shared golden-games helper, on a toy game (Pig): the update procedure writes
the data file, a check replays a set and names what changed, a partial update keeps the other sets' rows,
and its command line refuses bad input in one line."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from boardlab.testing import Golden, GoldenSet, load_golden
from boardlab.testing import golden as GM

SETS = {
    "random-2p": GoldenSet("standard", 2, "random", "fixed", 11, 6),
    "prefers-3p": GoldenSet("quick", 3, "random-prefers:hold,random,random", "rotate", 12, 4),
}


@pytest.fixture
def golden(tmp_path) -> Golden:
    """A Pig golden object over a data file in `tmp_path`, written by its update procedure."""
    g = Golden(game="pig", path=tmp_path / "data" / "golden.csv", sets=dict(SETS), module="pig-golden")
    assert g.update() == list(SETS)
    return g


def test_update_writes_one_row_per_game_and_check_passes(golden):
    df = golden.committed()
    assert list(df.columns) == ["set", "game", "totals", "rows"]
    assert df.groupby("set", sort=False).size().to_dict() == {"random-2p": 6, "prefers-3p": 4}
    assert all(len(t.split()) == 2 for t in df[df["set"] == "random-2p"]["totals"])
    golden.check_committed()
    for name in SETS:
        golden.check(name)


def test_a_changed_game_is_named_with_its_fingerprints(golden):
    text = golden.path.read_text().splitlines()
    i = next(k for k, line in enumerate(text) if line.startswith("random-2p,3,"))
    cells = text[i].split(",")
    cells[3] = "0" * 16  # game 3's rows digest
    text[i] = ",".join(cells)
    golden.path.write_text("\n".join(text) + "\n")
    with pytest.raises(AssertionError) as e:
        golden.check("random-2p")
    msg = str(e.value)
    assert "pig random-2p: 1 of 6 games no longer play as committed, games [3]" in msg
    assert "(committed '0000000000000000')" in msg and "python -m boardlab.testing.golden pig-golden --update" in msg
    golden.check("prefers-3p")  # the other set is untouched


def test_another_seed_fails_the_check(golden, monkeypatch):
    monkeypatch.setitem(golden.sets, "random-2p", dataclasses.replace(SETS["random-2p"], seed=99))
    with pytest.raises(AssertionError, match=r"pig random-2p: \d of 6 games no longer play as committed"):
        golden.check("random-2p")


def test_check_committed_names_missing_extra_and_short_sets(golden):
    golden.sets["new-4p"] = GoldenSet("standard", 4, "random", "fixed", 13, 2)
    with pytest.raises(AssertionError, match="sets not committed: new-4p"):
        golden.check_committed()
    del golden.sets["new-4p"]
    golden.sets["random-2p"] = dataclasses.replace(SETS["random-2p"], games=7)
    with pytest.raises(AssertionError, match=r"another number of games: random-2p \(6 committed, 7 declared\)"):
        golden.check_committed()
    del golden.sets["random-2p"]
    with pytest.raises(AssertionError, match="committed sets no longer declared: random-2p"):
        golden.check_committed()


def test_a_partial_update_replays_named_and_new_sets_only(golden):
    before = golden.path.read_text()
    lines = before.splitlines()
    lines = [ln if not ln.startswith("prefers-3p,0,") else ln[:-16] + "f" * 16 for ln in lines]  # a stale row
    golden.path.write_text("\n".join(lines) + "\n")
    golden.sets["new-4p"] = GoldenSet("standard", 4, "random", "fixed", 13, 2)
    assert golden.update(["random-2p"]) == ["random-2p", "new-4p"]  # named, and not yet committed
    after = golden.path.read_text()
    assert after.startswith("\n".join(lines) + "\n")  # the stale row kept: prefers-3p was not replayed
    assert after.count("\nnew-4p,") == 2
    with pytest.raises(KeyError, match="no golden set nope"):
        golden.update(["nope"])
    golden.update()
    assert golden.path.read_text() == before + "".join(ln + "\n" for ln in after.splitlines()[-2:])


def test_named_digests_are_written_and_checked(tmp_path):
    value = {"x": "0123456789abcdef"}
    g = Golden(
        game="pig",
        path=tmp_path / "g.csv",
        sets={"random-2p": SETS["random-2p"]},
        module="m",
        digests_path=tmp_path / "d.json",
        digests={"x": lambda: value["x"]},
    )
    g.update()
    g.check_digest("x")
    value["x"] = "fedcba9876543210"
    with pytest.raises(AssertionError, match="pig x: digest fedcba9876543210, committed 0123456789abcdef"):
        g.check_digest("x")


def _cli(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "boardlab.testing.golden", *map(str, args)], cwd=cwd, capture_output=True, text=True
    )


@pytest.mark.slow  # the golden command end to end in subprocesses
def test_the_command_line_updates_checks_and_refuses_bad_input(tmp_path):
    mod = tmp_path / "pig_golden.py"
    mod.write_text(
        textwrap.dedent(
            f"""
            from pathlib import Path
            from boardlab.testing import Golden, GoldenSet
            GOLDEN = Golden(game="pig", path=Path(__file__).parent / "g.csv", module={str(mod)!r},
                            sets={{"r": GoldenSet("quick", 2, "random", "fixed", 5, 3)}})
            """
        )
    )
    r = _cli(mod, "--update", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "replayed 1 set(s): r" in r.stdout and (tmp_path / "g.csv").exists()
    assert load_golden(str(mod)).committed().shape == (3, 4)
    r = _cli(mod, cwd=tmp_path)
    assert (r.returncode, r.stdout.strip()) == (0, "ok   pig r")
    (tmp_path / "g.csv").write_text((tmp_path / "g.csv").read_text().replace("r,1,", "r,1,9", 1))
    r = _cli(mod, cwd=tmp_path)
    assert r.returncode == 1 and r.stdout.startswith("FAIL pig r: 1 of 3 games no longer play as committed")
    for bad, says in [
        ((tmp_path / "nope.py",), "no such file"),
        (("no.such.module",), "cannot import no.such.module"),
        ((mod, "zz"), "no golden set zz"),
        (("boardlab.testing",), "defines no GOLDEN"),
        ((mod, "--bogus"), "unrecognized arguments: --bogus"),
    ]:
        r = _cli(*bad, cwd=tmp_path)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and says in r.stderr, r.stderr
        assert "Traceback" not in r.stderr


def test_the_module_exports():
    assert GM.digest("a") == GM.digest("a") and set(GM.__all__) >= {"Golden", "GoldenSet", "load_golden"}
