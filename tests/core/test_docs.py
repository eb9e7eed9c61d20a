"""The documentation site: the generated command reference covers the CLI, and documented commands parse."""

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

FENCE = re.compile(r"```(?:sh|bash|shell|console)\n(.*?)```", re.S)


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


def documented_commands() -> list[tuple[str, str]]:
    """(where, command line) for every `boardlab ...` line of a fenced shell block in README.md and docs/."""
    out = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for block in FENCE.findall(path.read_text(encoding="utf-8")):
            for line in block.replace("\\\n", " ").splitlines():
                line = line.split(" #", 1)[0].strip().removeprefix("$ ")
                if line.startswith(("boardlab ", "citywright ")):
                    out.append((f"{path.relative_to(ROOT)}: {line}", line))
    return out


def parse(line: str) -> None:
    """Parse a command line against the app (resolving subcommands) without running anything.

    An elided example (a ``...`` standing for options, or a shell ``$VARIABLE``) is checked leniently: every option
    it names must exist, but missing ones and values that are placeholders are not errors.
    """
    args = shlex.split(line)[1:]
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
    assert "`citywright reproduce --games 100000 --jobs 2 --out results/appendix`" in page


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
