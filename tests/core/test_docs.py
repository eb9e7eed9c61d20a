"""The documentation site: the generated command reference covers the CLI, documented commands parse, the examples
marked runnable run, every page is in the navigation, and every docs/ path the code cites exists."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest
import typer

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs_build"))
import hooks  # noqa: E402

from boardlab.experiments.cli import app  # noqa: E402
from boardlab.experiments.cli._app import click_exceptions  # noqa: E402  (typer's click, vendored or not)
from tests.per_game import PLUGIN_GAMES, game_ids  # noqa: E402

FENCE = re.compile(r"```(?:sh|bash|shell|console)\n(.*?)```", re.S)
RUNNABLE = re.compile(r"^<!-- runnable -->\n```(?:sh|bash|shell|console)\n(.*?)```", re.S | re.M)
ENV = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+")  # leading VAR=value assignments of a shell line
SHELL_OPS = {">", ">>", "|", "&&", ";", "2>", "2>&1"}


def help_commands() -> set[str]:
    """Every command name `boardlab --help` lists, walked down into groups, from the click app."""
    root = typer.main.get_command(app)
    names: set[str] = set()

    def walk(cmd, prefix):
        if hooks._is_group(cmd):
            ctx = hooks._ctx(cmd)
            for sub in cmd.list_commands(ctx):
                sub_cmd = cmd.get_command(ctx, sub)
                if not getattr(sub_cmd, "hidden", False):
                    names.add(f"{prefix} {sub}")
                walk(sub_cmd, f"{prefix} {sub}")

    walk(root, "boardlab")
    return names


def test_cli_reference_covers_every_command():
    page = hooks.cli_reference()
    documented = set(re.findall(r"^## `(boardlab[^`]*)`", page, re.M))
    listed = help_commands()
    assert len(listed) > 10
    assert listed <= documented, sorted(listed - documented)
    # each option of each command is in its table
    for name, cmd in hooks.cli_commands().items():
        section = page.split(f"## `{name}`\n", 1)[1].split("\n## ", 1)[0]
        for p in cmd.params:
            if p.param_type_name == "option" and not getattr(p, "hidden", False):
                assert p.opts[0] in section, (name, p.opts[0])


def shell_lines(block: str) -> list[str]:
    """The command lines of a shell block: continuations joined, comments and a ``$ `` prompt dropped."""
    lines = (line.split(" #", 1)[0].strip().removeprefix("$ ") for line in block.replace("\\\n", " ").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def split_env(line: str) -> tuple[dict[str, str], str]:
    """A shell line's leading ``VAR=value`` assignments and the command after them."""
    m = ENV.match(line)
    if not m:
        return {}, line
    return dict(a.split("=", 1) for a in m.group(0).split()), line[m.end() :]


def documented_commands() -> list[tuple[str, str]]:
    """(where, command line) for every `boardlab ...` line of a fenced shell block in README.md and docs/."""
    out = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for block in FENCE.findall(path.read_text(encoding="utf-8")):
            for line in shell_lines(block):
                line = split_env(line)[1]
                if line.startswith(("boardlab ", "citywright ")):
                    out.append((f"{path.relative_to(ROOT)}: {line}", line))
    return out


def command_args(line: str) -> list[str]:
    """A documented command's arguments after the program name, up to any shell operator (``>``, ``|``, ...)."""
    args = shlex.split(line)[1:]
    cut = next((i for i, a in enumerate(args) if a in SHELL_OPS), len(args))
    return args[:cut]


def parse(line: str) -> None:
    """Parse a command line against the app (resolving subcommands) without running anything.

    An elided example (a ``...`` standing for options, or a shell ``$VARIABLE``) is checked leniently: every option
    it names must exist, but missing ones and values that are placeholders are not errors.
    """
    args = command_args(line)
    lenient = "..." in args or "$" in line
    args = [a for a in args if a != "..."]
    cmd, name = typer.main.get_command(app), "boardlab"
    while hooks._is_group(cmd):
        sub = cmd.get_command(hooks._ctx(cmd), args[0]) if args else None
        if sub is None:
            raise click_exceptions.UsageError(f"no command in {line!r}")
        cmd, name, args = sub, args[0], args[1:]
    if not lenient:
        cmd.make_context(name, list(args))
        return
    known = {o for p in cmd.params for o in [*p.opts, *getattr(p, "secondary_opts", [])]} | {"--help"}
    for a in args:
        if a.startswith("--") and a.split("=", 1)[0] not in known:
            raise click_exceptions.NoSuchOption(a.split("=", 1)[0])


COMMANDS = documented_commands()


def test_documented_commands_found():
    assert len(COMMANDS) > 20


@pytest.mark.parametrize("line", [c[1] for c in COMMANDS], ids=[c[0] for c in COMMANDS])
def test_documented_command_parses(line):
    parse(line)


@pytest.mark.parametrize(
    "line",
    [
        "boardlab simulate --no-such-option 3",
        "boardlab no-such-command",
        "boardlab tune scoring --games x",
        "boardlab simulate --players 2 --agents greedy --games 10",  # --out missing
        "boardlab simulate ... --no-such-option 3",
        "boardlab tune",
    ],
)
def test_a_wrong_command_does_not_parse(line):
    with pytest.raises(click_exceptions.ClickException):
        parse(line)


def test_studies_index_lists_every_report_with_its_command():
    page = hooks.studies_index()
    for report in (ROOT / "results").glob("*/REPORT.md"):
        assert f"]({report.parent.name}/REPORT.md)" in page
    assert "`boardlab reproduce --game citywright --games 100000 --jobs 2 --out results/appendix`" in page


def test_links_outside_the_site_become_text():
    from mkdocs.structure.files import Files

    md = "[the rules](../../sim/x.py) and [report](../../results/appendix/REPORT.md) and [web](https://x.org)"
    out = hooks._rewrite_links(md, "games/citywright.md", Files([]), ROOT / "docs" / "games")
    assert "(`sim/x.py`)" in out and "](../studies/appendix/REPORT.md)" in out and "(https://x.org)" in out


def test_a_missing_page_of_the_site_stays_a_link():
    from mkdocs.structure.files import Files

    md = "[gone](../no-such-page.md)"
    assert hooks._rewrite_links(md, "games/citywright.md", Files([]), ROOT / "docs" / "games") == md


def test_game_reference_has_agents_columns_and_rule_keys():
    import boardlab

    g = boardlab.get_game("citywright")
    page = hooks.game_reference(g)
    for d in g.agents().available_agents():
        assert f"| `{d.name}` |" in page
    assert "| `win_share` | `double` |" in page
    for col in g.result_columns:
        assert f"| `{col}` |" in page
    assert "## Rule keys" in page and page.count("\n| `") > 50


def test_readme_is_short_and_links_into_the_site():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) < 150
    assert "make run" in text and "make test" in text and "import boardlab" in text
    for target in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (ROOT / target).exists(), target


def test_shell_lines_drop_environment_and_redirection():
    assert split_env("PYTHONPATH=examples/agents boardlab simulate --quiet") == (
        {"PYTHONPATH": "examples/agents"},
        "boardlab simulate --quiet",
    )
    assert command_args("boardlab rules v1.1 > runs/mine.toml") == ["rules", "v1.1"]
    block = "boardlab a \\\n  --b 1   # note\n# comment\n$ boardlab c"
    assert shell_lines(block) == ["boardlab a    --b 1", "boardlab c"]
    with pytest.raises(click_exceptions.ClickException):
        parse("boardlab rules v1.1 extra > runs/mine.toml")


# --- examples marked runnable: run at their tiny size ---------------------------------------------------------


def runnable_blocks() -> list[tuple[str, list[str]]]:
    """(where, command lines) of every shell block marked ``<!-- runnable -->`` in docs/."""
    out = []
    for path in sorted((ROOT / "docs").rglob("*.md")):
        for k, block in enumerate(RUNNABLE.findall(path.read_text(encoding="utf-8"))):
            out.append((f"{path.relative_to(ROOT)}#{k}", shell_lines(block)))
    return out


RUNNABLE_BLOCKS = runnable_blocks()


def test_runnable_examples_found_in_the_guides():
    pages = {where.split("#")[0] for where, _ in RUNNABLE_BLOCKS}
    for guide in ("simulate", "ladder", "sweep", "compare", "tune-scoring", "tune-seats", "python-agents", "studies"):
        assert f"docs/guides/{guide}.md" in pages, guide
    for _, lines in RUNNABLE_BLOCKS:
        assert lines and all(split_env(line)[1].startswith("boardlab ") for line in lines), lines
        # each plays the registry's default game: they run in its folder (tests/citywright/test_docs_examples.py)
        assert not any("--game" in command_args(split_env(line)[1]) for line in lines), lines


# --- the site's structure ---------------------------------------------------------------------------------------


def nav_pages() -> set[str]:
    """Every page the navigation of mkdocs.yml names."""
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    return set(re.findall(r"([\w./-]+\.(?:md|ipynb))\s*$", text, re.M))


def test_every_page_and_notebook_is_in_the_navigation():
    nav = nav_pages()
    pages = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    pages = {p for p in pages if not p.startswith("studies/")}  # reached from the studies index
    assert pages <= nav, sorted(pages - nav)
    notebooks = {f"notebooks/{p.name}" for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert len(notebooks) >= 3 and notebooks <= nav, sorted(notebooks - nav)
    for game in ("citywright", "cartographers", "citadels"):
        for page in ("engine.md", "usage.md", "results.md"):
            assert f"games/{game}/{page}" in nav, (game, page)


def test_mkdocs_executes_the_notebooks_and_fails_on_an_error():
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8").replace("!!python", "#"))
    jupyter = next(p["mkdocs-jupyter"] for p in config["plugins"] if isinstance(p, dict) and "mkdocs-jupyter" in p)
    assert jupyter["execute"] is True and jupyter["allow_errors"] is False


# the games with committed studies: the built-in games, each in its folder (tests/per_game.py); none of the examples
game_id = game_ids([g for g in PLUGIN_GAMES if g in hooks.studies_by_game()])


def test_each_game_has_its_results_page_and_agents_table(game_id):
    import boardlab

    by_game = hooks.studies_by_game()
    g = boardlab.get_game(game_id)
    page = hooks.game_results(g)
    assert by_game[game_id], game_id
    for name, _ in by_game[game_id]:
        assert f"](../../studies/{name}/REPORT.md)" in page, (game_id, name)
    table = hooks.agents_and_tiers(g)
    for d in g.agents().available_agents():
        assert f"| `{d.name}` |" in table, (game_id, d.name)
    assert {"citywright", "cartographers", "citadels"} <= set(by_game)  # every built-in game has studies


def test_a_study_page_of_the_site_is_listed_beside_its_report():
    assert ("tuning.md", "v1.2: how the tuning went") in hooks.study_pages("v1.2")
    assert "(also: [v1.2: how the tuning went](v1.2/tuning.md))" in hooks.studies_index()


def test_a_link_from_a_study_into_docs_becomes_a_link_to_the_site_page():
    from mkdocs.structure.files import File, Files

    files = Files([File("guides/page.md", str(ROOT / "docs"), "/tmp/site", True)])
    md = "[the guide](../../docs/guides/page.md#a) and [gone](../../docs/guides/missing.md)"
    out = hooks._rewrite_links(md, "studies/s/REPORT.md", files, hooks.RESULTS / "s")
    assert "[the guide](../../guides/page.md#a)" in out
    assert "[gone](../../docs/guides/missing.md)" in out  # a missing page stays a link, for --strict to report


# --- the code's citations of the documentation -----------------------------------------------------------------

CITATION = re.compile(r"\bdocs/([\w./-]+?\.md)")


def test_every_docs_path_the_code_and_tests_cite_exists():
    cited = []
    for folder in ("boardlab", "tests", "examples"):
        for path in (ROOT / folder).rglob("*.py"):
            if path == Path(__file__):
                continue  # this file's own examples of links
            for m in CITATION.finditer(path.read_text(encoding="utf-8")):
                if "<" not in m.group(1):  # a pattern such as docs/games/<game>.md
                    cited.append((path.relative_to(ROOT).as_posix(), m.group(1)))
    assert len(cited) > 20
    missing = [(where, page) for where, page in cited if not (ROOT / "docs" / page).exists()]
    assert not missing, missing


def test_module_docstrings_are_short_and_their_design_notes_exist():
    import ast

    notes = re.compile(r"Design notes: docs/([\w./-]+\.md)#([\w-]+)")
    linked = 0
    for path in sorted((ROOT / "boardlab").rglob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        assert len(doc.splitlines()) <= 25, (path, len(doc.splitlines()))
        for page, anchor in notes.findall(doc):
            linked += 1
            text = (ROOT / "docs" / page).read_text(encoding="utf-8")
            assert "{#" + anchor + "}" in text, (path, page, anchor)
    assert linked >= 20
