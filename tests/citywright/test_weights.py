"""The learned value's weights per rule set: the rules' hash, `train --rules`, and `weights=auto`'s resolution."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from boardlab.agents.citywright import registry as R
from boardlab.agents.citywright.registry import TIERS, for_rules, parse_agent
from boardlab.sim.citywright.rules import load_rules

ROOT = Path(__file__).resolve().parents[2]
VARIANT = ROOT / "results" / "tune-v1.1-specialists" / "best.toml"
SMALL = {"seed": 5, "games": (24, 16), "k": 4, "ridge": 1e-3}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty weight cache of its own (BOARDLAB_WEIGHTS)."""
    monkeypatch.setenv(R.WEIGHTS_CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache" / "citywright"


def cache_weights(rules) -> Path:
    """A weight file for `rules` in the cache, as `train --rules` names it (the committed weights halved: other
    weights, so other games), without the cost of training."""
    data = json.loads(_committed().read_text())
    key = R.rules_hash(rules)
    data.update(version=key, rules_hash=key, rules=rules.name, weights=(np.array(data["weights"]) / 2).tolist())
    out = R.cached_weights(key)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data))
    return out


def _committed() -> Path:
    from boardlab.agents.citywright.value import WEIGHTS_DIR

    return WEIGHTS_DIR / "strong-v1.json"


def _train_variant(rules, jobs: int = 1) -> Path:
    from boardlab.experiments.citywright import train as T

    out = T.TRAINING.out_for(rules)
    content = T.TRAINING.train(SMALL["seed"], SMALL["games"], SMALL["k"], SMALL["ridge"], jobs=jobs, rules=rules)
    T.TRAINER.write(content, out)
    return out


# --- the hash ----------------------------------------------------------------------------------


def test_the_rules_hash_is_of_their_data_not_their_file_or_name(tmp_path):
    text = VARIANT.read_text()
    a = tmp_path / "a.toml"
    b = tmp_path / "another-name.toml"
    a.write_text(text)
    b.write_text(text.replace('name = "v1.1-tuned"', 'name = "something else"'))
    ra, rb = load_rules(a), load_rules(b)
    assert ra.name != rb.name
    assert R.rules_hash(ra) == R.rules_hash(rb) == R.rules_hash(load_rules(VARIANT))
    c = tmp_path / "c.toml"
    c.write_text(text.replace("row_points = 3", "row_points = 4"))
    assert R.rules_hash(load_rules(c)) != R.rules_hash(ra)
    # v1.1 written out whole as a variant file is v1.1: the official rules
    v11 = tmp_path / "v11.toml"
    v11.write_text(load_rules("v1.1").to_toml().replace('name = "v1.1"', 'name = "mine"'))
    assert R.rules_hash(load_rules(v11)) == R.official_hash() != R.rules_hash(ra)
    assert len(R.official_hash()) == 12 and int(R.official_hash(), 16) >= 0
    assert R.preset_hashes() == {R.official_hash(), R.rules_hash(load_rules("v1.0"))} and len(R.preset_hashes()) == 2
    # seat compensation is not part of it (the next test: self-play does not see it)
    comp = load_rules("v1.1").with_overrides({"game.compensation.4": [0, 0, 0, 0]})
    assert comp != load_rules("v1.1") and R.rules_hash(comp) == R.official_hash()


def test_self_play_does_not_see_seat_compensation():
    """Why the hash leaves compensation out: the training's games, moves and samples are the same under
    another compensation (only the final totals, which no sample's target counts, differ)."""
    from boardlab.experiments.citywright import train as T

    comp = load_rules("v1.1").with_overrides({"game.compensation.4": [9, 0, 5, 0]})
    w = np.zeros((T.TURN_BUCKETS, T.N_FEATURES))
    for r, weights in ((0, w), (1, R.load_named_weights("strong-v1"))):
        a, sa = T.TRAINING.play_chunk(5, r, 3, weights, 0, 6)
        b, sb = T.TRAINING.play_chunk(5, r, 3, weights, 0, 6, comp)
        assert np.array_equal(a.xtx, b.xtx) and np.array_equal(a.xty, b.xty) and np.array_equal(a.count, b.count)
        assert (sa != sb).any()  # the final totals


# --- resolution ----------------------------------------------------------------------------------


def test_auto_is_the_default_and_resolves_to_the_committed_weights_under_the_official_rules(cache):
    v11 = load_rules("v1.1")
    strong = parse_agent("strong")
    assert strong.params["weights"] == "auto" and TIERS["strong"][0] == "strong:k=3,weights=auto"
    # what results record under v1.1 reads as before
    assert str(for_rules(strong, v11)) == "strong:k=3,weights=strong-v1"
    assert (
        str(for_rules(parse_agent("strong-specialist:C"), v11))
        == "strong-specialist:C,weight=3,progress=0.5,k=3,weights=strong-v1"
    )
    expert = parse_agent("expert")
    assert str(for_rules(expert, v11)) == TIERS["expert"][0] and "weights" not in TIERS["expert"][0]
    for a in (strong, expert, parse_agent("expert-specialist:R")):
        assert R.weights_name(a, v11) == "strong-v1"
        assert R.weights_name(a, load_rules("v1.0")) == "strong-v1"  # every preset: as it always played
    assert str(for_rules(parse_agent("greedy"), v11)) == "greedy"
    assert parse_agent("strong:weights=v1").params["weights"] == "strong-v1"
    assert not cache.exists()  # nothing looked for, nothing written


def test_a_variant_without_trained_weights_is_a_one_line_error_naming_the_command(cache, capsys):
    from boardlab.experiments import simulate as S
    from boardlab.experiments.cli import main

    rules = load_rules(VARIANT)
    with pytest.raises(R.AgentError) as e:
        for_rules(parse_agent("strong-specialist:R"), rules)
    msg = str(e.value)
    assert "\n" not in msg and R.rules_hash(rules) in msg
    assert "boardlab train --game citywright --rules FILE" in msg and "weights=v1" in msg
    with pytest.raises(S.SimulateError, match="no weights trained"):
        S.make_spec(4, ["expert"], 8, 1, rules)
    with pytest.raises(SystemExit) as ex:
        main(
            [
                "simulate",
                "--players",
                "4",
                "--agents",
                "strong",
                "--games",
                "4",
                "--rules",
                str(VARIANT),
                "--out",
                str(cache.parent.parent / "r.parquet"),
            ]
        )
    assert ex.value.code == 2
    err = capsys.readouterr().err
    assert "no weights trained" in err and err.count("\n") == 1
    assert not cache.exists()
    # v1.1's weights, asked for, play under any rules; a hash not in the cache is refused
    assert str(for_rules(parse_agent("strong:weights=v1"), rules)) == "strong:k=3,weights=strong-v1"
    with pytest.raises(R.AgentError, match="no such weights"):
        for_rules(parse_agent("strong:weights=0123456789ab"), rules)
    with pytest.raises(R.AgentError, match="weights must be one of"):
        parse_agent("strong:weights=v2")


def test_a_variant_with_trained_weights_resolves_to_its_cached_file(cache, tmp_path):
    rules = load_rules(VARIANT)
    key = R.rules_hash(rules)
    out = cache_weights(rules)
    assert out == cache / f"{key}.json"
    strong = for_rules(parse_agent("strong"), rules)
    assert str(strong) == f"strong:k=3,weights={key}"
    expert = for_rules(parse_agent("expert"), rules)
    assert str(expert).endswith(f",weights={key}") and parse_agent(str(expert)).params == expert.params
    w = R.load_named_weights(key)
    assert np.array_equal(w, np.array(json.loads(out.read_text())["weights"]))
    assert not np.array_equal(w, R.load_named_weights("strong-v1"))
    # the same rules from a file of another name find the same weights
    other = tmp_path / "renamed.toml"
    shutil.copy(VARIANT, other)
    assert for_rules(parse_agent("strong"), load_rules(other)) == strong
    # the official rules still play the committed weights
    assert R.weights_name(parse_agent("strong"), load_rules("v1.1")) == "strong-v1"


def test_every_weight_set_reaches_the_kernels_read_only_and_contiguous(cache):
    """One type for weights in every kernel (docs/architecture.md, "Compile time"): the committed set, a cached
    variant's set, the game loop's default bank and readonly_weights of any array (what run_games and training
    pass) are read-only C-contiguous float64 arrays, as the committed weights are inside a kernel; and a copy, so
    the caller's array is left writable."""
    from boardlab.agents.citywright.play import default_bank
    from boardlab.agents.citywright.strong import STRONG_WEIGHTS, readonly_weights

    key = R.rules_hash(load_rules(VARIANT))
    cache_weights(load_rules(VARIANT))
    bank, index = R.weight_bank([parse_agent(f"strong:weights={key}"), parse_agent("greedy")], load_rules(VARIANT))
    writable = np.asfortranarray(np.array(STRONG_WEIGHTS))
    for w in (R.load_named_weights("strong-v1"), R.load_named_weights(key), default_bank(), readonly_weights(writable)):
        assert w.dtype == np.float64 and w.flags.c_contiguous and not w.flags.writeable
    assert index == [1, 0] and bank.shape[0] == 2
    assert writable.flags.writeable and np.array_equal(readonly_weights(writable), STRONG_WEIGHTS)


def test_results_record_the_weights_that_played_and_each_seat_plays_its_own(cache):
    """A table of strong with v1.1's weights against strong with the variant's: each seat's spec names its
    weights, the game loop plays each seat's (the same games as the public API's per-move players), and the
    variant's weights play other games than v1.1's on the same seeds."""
    from boardlab.experiments.citywright.runner import play_chunk_table
    from boardlab.experiments.play import play_table

    rules = load_rules(VARIANT)
    key = R.rules_hash(rules)
    cache_weights(rules)
    mixed = [parse_agent(s) for s in ("strong:weights=v1", "strong", "expert", "greedy")]
    t = play_chunk_table(rules, 4, mixed, "rotate", 11, 0, 4)[0].to_pandas()
    assert sorted(set(t["agent"])) == sorted(
        {"strong:k=3,weights=strong-v1", f"strong:k=3,weights={key}", "greedy", str(for_rules(mixed[2], rules))}
    )
    api = play_table("citywright", rules, 4, mixed, "rotate", 11, 0, 4).to_pandas()
    assert list(api["total"]) == list(t["total"])
    v1 = [parse_agent(s) for s in ("strong:weights=v1",) * 4]
    own = [parse_agent("strong")] * 4
    a = play_chunk_table(rules, 4, v1, "rotate", 11, 0, 8)[0].to_pandas()
    b = play_chunk_table(rules, 4, own, "rotate", 11, 0, 8)[0].to_pandas()
    assert list(a["total"]) != list(b["total"])


# --- training under a variant ------------------------------------------------------------------------


def test_training_under_a_variant_is_deterministic_and_goes_to_the_cache(cache, tmp_path):
    """`train --rules FILE` at a small size, on 1 and 2 processes: byte-identical files in the cache, named
    by the rules' hash, holding the rules they were fitted under."""
    from boardlab.experiments.cli import main

    rules = load_rules(VARIANT)
    key = R.rules_hash(rules)
    first = _train_variant(rules).read_text()
    renamed = tmp_path / "renamed.toml"
    renamed.write_text(VARIANT.read_text().replace('name = "v1.1-tuned"', 'name = "renamed"'))
    args = ["train", "--seed", "5", "--games", "24,16", "--k", "4", "--jobs", "2", "--quiet", "--rules", str(VARIANT)]
    try:
        main(args)
    except SystemExit as e:
        assert not e.code
    second = (cache / f"{key}.json").read_text()
    assert first == second
    meta = json.loads(first)
    assert meta["rules_hash"] == meta["version"] == key and meta["rules"] == "v1.1-tuned"
    assert meta["command"] == "citywright train --rules FILE --seed 5 --games 24,16 --k 4 --ridge 0.001"
    assert meta["rules_data"]["scoring"]["park"]["row_points"] == 3
    assert R.rules_hash(load_rules(renamed)) == key
    # another seed: other weights, in the same place
    from boardlab.experiments.citywright import train as T

    other = T.TRAINING.train(6, SMALL["games"], SMALL["k"], SMALL["ridge"], rules=rules)
    assert other["weights"] != meta["weights"]


def test_train_rules_errors_are_one_line(cache, capsys):
    from boardlab.experiments.cli import main

    for args, fragment in (
        (["--rules", "no-such.toml"], "no-such.toml"),
        (["--game", "cartographers", "--rules", "v1.1"], "default rules only"),
    ):
        with pytest.raises(SystemExit) as e:
            main(["train", "--quiet", "--games", "4", *args])
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert fragment in err and err.count("\n") == 1
    assert not cache.exists()


def test_compare_says_which_weights_each_rule_set_played(cache, tmp_path, capsys):
    """compare v1.1 against a variant with trained weights: B's rows carry A's labels, so the page names the
    weights each side played (strong-v1 under v1.1, the variant's hash under it); with the same agents on
    both sides (greedy) there is no such line."""
    from boardlab.experiments.cli import main

    rules = load_rules(VARIANT)
    key = R.rules_hash(rules)
    cache_weights(rules)
    out = tmp_path / "cmp"
    main(["compare", "v1.1", str(VARIANT), "--agents", "strong", "--players", "2", "--games", "4", "--quiet",
          "--out", str(out)])  # fmt: skip
    capsys.readouterr()
    text = (out / "REPORT.md").read_text()
    assert f"`strong:k=3,weights=strong-v1` under A, `strong:k=3,weights={key}` under B" in text
    about = json.loads((out / "compare.json").read_text())
    assert about["played_differently"] == [["strong:k=3,weights=strong-v1", f"strong:k=3,weights={key}"]]
    main(["compare", "v1.1", str(VARIANT), "--agents", "greedy", "--players", "2", "--games", "4", "--quiet",
          "--out", str(tmp_path / "greedy")])  # fmt: skip
    assert "Agents as played" not in (tmp_path / "greedy" / "REPORT.md").read_text()
