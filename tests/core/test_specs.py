"""Agent specs (boardlab.agents.specs): the grammar every game's registry shares, the checks of its values, and a
user's own Python agents (py:module:Name)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from boardlab.agents.generic import registry as GENERIC
from boardlab.agents.specs import AgentError, PythonSpec, module_version
from boardlab.sim.games import get_game
from tests.core import user_agents
from tests.per_game import PLUGIN_GAMES, game_ids

# every registered game's registry: the example games' here (the generic registry), each built-in game's in its
# folder (tests/per_game.py), with its own agents' cases (tests/<game>/)
game_id = game_ids(PLUGIN_GAMES)


def _registry(game_id: str):
    return get_game(game_id).agents()


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("ismcts:c=nan", "ismcts: c must be a finite number"),
        ("greedy", "unknown agent 'greedy' (valid: random, ismcts, random-prefers, ismcts-prefers, py:"),
    ],
)
def test_bad_values_are_one_line_errors_naming_the_parameter(spec, fragment):
    with pytest.raises(AgentError) as e:
        GENERIC.parse_agent(spec)
    assert fragment in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("text", ["random,", "random,,random", ",random", "random, ,random"])
def test_an_empty_spec_in_a_list_is_refused(game_id, text):
    reg = _registry(game_id)
    with pytest.raises(AgentError, match="empty agent spec"):
        reg.split_specs(text)


def test_every_agent_s_spec_string_round_trips(game_id):
    reg = _registry(game_id)
    for d in reg.available_agents():
        need = ",".join(f"{p.name}={p.choices[0] if p.choices else 'x'}" for p in d.params if p.default is None)
        a = replace(reg.parse_agent(f"{d.name}:{need}" if need else d.name), tier="")  # a tier's name aside
        text = str(a)
        assert reg.parse_agent(text) == a and str(reg.parse_agent(text)) == text


def test_the_generic_agents_are_in_every_game_s_registry_and_a_game_s_own_random_keeps_its_name(game_id):
    reg = _registry(game_id)
    own = get_game(game_id).agents_module != GENERIC.__name__  # a registry of its own (a built-in game's)
    names = [d.name for d in reg.available_agents()]
    assert "ismcts" in names and names.count("random") == 1
    assert reg.parse_agent("ismcts:iters=5").python and reg.parse_agent("ismcts:iters=5").make().iters == 5
    # a game's own random (a kernel agent) keeps its name; a game without a registry of its own has the generic one
    assert reg.parse_agent("random").python is not own and GENERIC.parse_agent("random").python
    if own:
        with pytest.raises(AgentError, match="no parameter row"):
            reg.parse_agent("ismcts").row()


# --- py:module:Name ----------------------------------------------------------------------------------


def test_a_python_agent_spec_is_imported_made_and_round_trips_exactly(game_id):
    reg = _registry(game_id)
    text = "py:tests.core.user_agents:FirstMove:pick=last,risk=0.25,deep=true,depth=3"
    a = reg.parse_agent(text)
    assert isinstance(a, PythonSpec) and a.python and str(a) == text and reg.parse_agent(str(a)) == a
    agent = a.make()
    assert (agent.pick, agent.risk, agent.deep, agent.depth) == ("last", 0.25, True, 3)
    assert a.make() is not agent  # a fresh agent each time (each game)
    assert a.version == "1.2.3"
    plain = reg.parse_agent("py:tests.core.user_agents:FIRST")
    assert plain.make() is user_agents.FIRST and str(plain) == "py:tests.core.user_agents:FIRST"


def test_split_specs_keeps_a_python_agent_s_parameters_with_it(game_id):
    reg = _registry(game_id)
    assert reg.split_specs("py:tests.core.user_agents:FirstMove:pick=last,risk=0.5,random,ismcts:c=4,iters=9") == [
        "py:tests.core.user_agents:FirstMove:pick=last,risk=0.5",
        "random",
        "ismcts:c=4,iters=9",
    ]
    assert reg.split_specs("py:tests.core.user_agents:FirstMove,pick=last,random") == [
        "py:tests.core.user_agents:FirstMove:pick=last",
        "random",
    ]


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("py:tests.core.no_such_module:A", "cannot import tests.core.no_such_module (ModuleNotFoundError"),
        ("py:tests.core.user_agents:Missing", "tests.core.user_agents has no 'Missing'"),
        ("py:tests.core.user_agents:NoAct", "has no act(observation, legal_moves, rng) method"),
        ("py:tests.core.user_agents:FirstMove:pick=middle", "cannot be made (ValueError: pick must be first or last"),
        ("py:tests.core.user_agents:FirstMove:colour=red", "cannot be made (TypeError"),
        ("py:tests.core.user_agents:FIRST:pick=last", "is an object, not a class: it takes no parameters"),
        ("py:tests.core.user_agents:FirstMove:risk=nan", "risk must be a finite number"),
        ("py:tests.core.user_agents:FirstMove:risk", "expected key=value, got 'risk'"),
        ("py:tests.core.user_agents:FirstMove:risk=1,risk=2", "parameter 'risk' given twice"),
        ("py:tests.core.user_agents:FirstMove:", "nothing after ':'"),
        ("py:tests.core.user_agents", "expected py:package.module:Name"),
    ],
)
def test_a_bad_python_agent_is_a_one_line_error(spec, fragment):
    with pytest.raises(AgentError) as e:
        GENERIC.parse_agent(spec)
    assert fragment in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_a_module_s_version_is_its_version_or_its_distribution_s_or_a_hash_of_its_file():
    import numpy

    import boardlab.agents.generic.uniform as plain_module

    assert module_version(user_agents) == "1.2.3"
    assert module_version(numpy) == numpy.__version__
    v = module_version(plain_module)  # no __version__: the installed distribution's (boardlab), else the file's hash
    assert v.startswith("boardlab ") or (v.startswith("sha256:") and len(v) == len("sha256:") + 12)


def test_a_trailing_comma_is_refused(game_id):
    with pytest.raises(AgentError, match="empty agent spec in 'random,'"):
        _registry(game_id).split_specs("random,")
