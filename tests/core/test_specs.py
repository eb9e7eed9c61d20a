"""Agent specs (boardlab.agents.specs): the grammar every game's registry shares, the checks of its values, and a
user's own Python agents (py:module:Name)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from boardlab.agents.cartographers import registry as CARTO
from boardlab.agents.citywright import registry as CITY
from boardlab.agents.generic import registry as GENERIC
from boardlab.agents.specs import AgentError, PythonSpec, module_version
from tests.core import user_agents

REGISTRIES = [CITY, CARTO, GENERIC]


@pytest.mark.parametrize(
    ("reg", "spec", "fragment"),
    [
        (CITY, "mcts:c=nan", "mcts: c must be a finite number, got 'nan'"),
        (CITY, "specialist:C,weight=nan", "specialist: weight must be a finite number, got 'nan'"),
        (CITY, "specialist:C,weight=inf", "weight must be a finite number"),
        (CITY, "flatmc:taper=-inf", "taper must be a finite number"),
        (CARTO, "ismcts:c=NaN", "ismcts: c must be a finite number"),
        (GENERIC, "ismcts:c=nan", "ismcts: c must be a finite number"),
        (CITY, "greedy:", "greedy: nothing after ':'"),
        (CITY, "mcts:iters=10,", "mcts: empty parameter"),
        (CITY, "ismcts:rollout=greedy", "rollout must be one of random, uniform"),
        (GENERIC, "greedy", "unknown agent 'greedy' (valid: random, ismcts, random-prefers, ismcts-prefers, py:"),
    ],
)
def test_bad_values_are_one_line_errors_naming_the_parameter(reg, spec, fragment):
    with pytest.raises(AgentError) as e:
        reg.parse_agent(spec)
    assert fragment in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("reg", REGISTRIES)
@pytest.mark.parametrize("text", ["random,", "random,,random", ",random", "random, ,random"])
def test_an_empty_spec_in_a_list_is_refused(reg, text):
    with pytest.raises(AgentError, match="empty agent spec"):
        reg.split_specs(text)


@pytest.mark.parametrize("reg", REGISTRIES)
def test_every_agent_s_spec_string_round_trips(reg):
    for d in reg.available_agents():
        need = ",".join(f"{p.name}={p.choices[0] if p.choices else 'x'}" for p in d.params if p.default is None)
        a = replace(reg.parse_agent(f"{d.name}:{need}" if need else d.name), tier="")  # a tier's name aside
        text = str(a)
        assert reg.parse_agent(text) == a and str(reg.parse_agent(text)) == text


def test_stored_spec_strings_print_as_they_always_have_and_floats_read_back_exactly():
    assert str(CITY.parse_agent("specialist:C,weight=3")) == "specialist:C,weight=3,progress=0.5"
    assert str(CITY.parse_agent("mcts:iters=200")) == "mcts:iters=200,k=24,c=0.4,rollout=random,reward=win"
    a = CITY.parse_agent("specialist:P,weight=3.14159265358979,progress=0.1")
    assert a.params["weight"] == 3.14159265358979 and CITY.parse_agent(str(a)) == a
    assert str(CARTO.parse_agent("greedy")) == "greedy:ambush=adversarial"


def test_the_generic_agents_are_in_every_game_s_registry_and_a_game_s_own_random_keeps_its_name():
    for reg in (CITY, CARTO):
        names = [d.name for d in reg.available_agents()]
        assert "ismcts" in names and names.count("random") == 1
        assert not reg.parse_agent("random").python and reg.parse_agent("ismcts:iters=5").python
        assert reg.parse_agent("ismcts:iters=5").make().iters == 5
        with pytest.raises(AgentError, match="no parameter row"):
            reg.parse_agent("ismcts").row()
    assert GENERIC.parse_agent("random").python


# --- py:module:Name ----------------------------------------------------------------------------------


@pytest.mark.parametrize("reg", REGISTRIES)
def test_a_python_agent_spec_is_imported_made_and_round_trips_exactly(reg):
    text = "py:tests.core.user_agents:FirstMove:pick=last,risk=0.25,deep=true,depth=3"
    a = reg.parse_agent(text)
    assert isinstance(a, PythonSpec) and a.python and str(a) == text and reg.parse_agent(str(a)) == a
    agent = a.make()
    assert (agent.pick, agent.risk, agent.deep, agent.depth) == ("last", 0.25, True, 3)
    assert a.make() is not agent  # a fresh agent each time (each game)
    assert a.version == "1.2.3"
    plain = reg.parse_agent("py:tests.core.user_agents:FIRST")
    assert plain.make() is user_agents.FIRST and str(plain) == "py:tests.core.user_agents:FIRST"


def test_split_specs_keeps_a_python_agent_s_parameters_with_it():
    assert CITY.split_specs("py:tests.core.user_agents:FirstMove:pick=last,risk=0.5,greedy,mcts:k=4,iters=9") == [
        "py:tests.core.user_agents:FirstMove:pick=last,risk=0.5",
        "greedy",
        "mcts:k=4,iters=9",
    ]
    assert CARTO.split_specs("py:tests.core.user_agents:FirstMove,pick=last,random") == [
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
        CITY.parse_agent(spec)
    assert fragment in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_a_module_s_version_is_its_version_or_its_distribution_s_or_a_hash_of_its_file():
    import numpy

    import boardlab.agents.generic.uniform as plain_module

    assert module_version(user_agents) == "1.2.3"
    assert module_version(numpy) == numpy.__version__
    v = module_version(plain_module)  # no __version__: the installed distribution's (boardlab), else the file's hash
    assert v.startswith("boardlab ") or (v.startswith("sha256:") and len(v) == len("sha256:") + 12)


def test_the_issue_s_trailing_comma_is_refused():
    for reg in (CITY, CARTO):
        with pytest.raises(AgentError, match="empty agent spec in 'greedy,'"):
            reg.split_specs("greedy,")
