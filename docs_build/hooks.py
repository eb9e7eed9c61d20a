"""MkDocs hooks: the generated pages of the site (command reference, per-game reference and results, studies,
notebooks).

Nothing here is copied by hand: the command reference is walked from the typer app, the per-game pages from the
game registry, each game's agent registry and its default rule book, the studies from every committed
``results/*/REPORT.md`` (with the charts beside it), each game's results page from the studies of that game, and
the tutorials from ``notebooks/*.ipynb`` (executed by mkdocs-jupyter during the build).  Relative links that lead
outside the site (source files, tests, CSV tables) are turned into code spans, and links from a study into docs/
into links to the site's page, so ``mkdocs build --strict`` sees no broken link.
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

import typer
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
DOCS = ROOT / "docs"
NOTEBOOKS = ROOT / "notebooks"
COMMAND_LINE = re.compile(r"(?:Command:|Produced by)\s*`((?:boardlab|citywright) [^`]+)`")
TAG = re.compile(r"(?<![\\!])\[([A-Z][A-Z0-9]{1,5})\](?![(:])")  # a citation tag like [RB], not a link
LINK = re.compile(r"(?<!!)\[([^\]]*)\]\(([^)\s]+)\)")


# --- the command reference ------------------------------------------------------------------------------------
def _is_group(cmd) -> bool:
    return hasattr(cmd, "list_commands")


def _ctx(cmd):
    return cmd.context_class(cmd)


def cli_commands() -> dict:
    """Every command and subcommand of the `boardlab` application, by its full name.

    Returns
    -------
    dict of str to Command
        ``{"boardlab simulate": <Command>, "boardlab tune scoring": <Command>, ...}`` in the app's order.
    """
    from boardlab.experiments.cli import app

    out: dict = {}

    def walk(cmd, name: str) -> None:
        out[name] = cmd
        if _is_group(cmd):
            for sub_name in cmd.list_commands(_ctx(cmd)):
                walk(cmd.get_command(_ctx(cmd), sub_name), f"{name} {sub_name}")

    walk(typer.main.get_command(app), "boardlab")
    return out


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ").strip()


def _type_name(param) -> str:
    if getattr(param, "is_flag", False):
        return "flag"
    t = getattr(param, "type", None)
    if t is not None:
        return t.name
    ann = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    return getattr(ann, "__name__", None) or str(ann or "").replace("typing.", "")


def cli_reference() -> str:
    """The command reference page: every command, its arguments and options with defaults and help.

    Returns
    -------
    str
        Markdown of ``reference/cli.md``.
    """
    lines = [
        "# Command reference",
        "",
        "Generated from the `boardlab` application at build time (`citywright` is the same program).",
        "",
    ]
    for name, cmd in cli_commands().items():
        lines += [f"## `{name}`", "", _cell(cmd.help or ""), ""]
        if _is_group(cmd):
            subs = cmd.list_commands(_ctx(cmd))
            lines += ["Commands: " + ", ".join(f"`{name} {s}`" for s in subs), ""]
            continue
        params = [p for p in cmd.params if not getattr(p, "hidden", False)]
        if not params:
            continue
        lines += ["| argument or option | type | default | help |", "| --- | --- | --- | --- |"]
        for p in params:
            if p.param_type_name == "option":
                flag = ", ".join(p.opts + p.secondary_opts)
                help_text = p.help or ""
            else:
                flag = (getattr(p, "metavar", None) or p.name or "").upper()
                help_text = getattr(p, "help", "") or ""
            default = p.default
            if callable(default) or default is None or p.required:
                default = "required" if p.required else ""
            elif isinstance(default, (list, tuple)):
                default = " ".join(map(str, default))
            show = getattr(p, "show_default", None)
            if isinstance(show, str):
                default = show
            typ = _type_name(p)
            default_cell = f"`{_cell(default)}`" if str(default) != "" else ""
            lines.append(f"| `{_cell(flag)}` | {_cell(typ)} | {default_cell} | {_cell(help_text)} |")
        lines.append("")
    return "\n".join(lines) + "\n"


# --- per game ------------------------------------------------------------------------------------------------
def _flatten(d: object, prefix: str = "") -> list[tuple[str, object]]:
    if isinstance(d, dict):
        out: list[tuple[str, object]] = []
        for k, v in d.items():
            out += _flatten(v, f"{prefix}.{k}" if prefix else str(k))
        return out
    return [(prefix, d)]


def game_reference(game) -> str:
    """One game's generated reference: agents with parameters and defaults, skill tiers, result columns, rule keys.

    Parameters
    ----------
    game : boardlab.sim.games.GameDef
        The game's registry entry.

    Returns
    -------
    str
        Markdown of ``reference/games/<id>.md``.
    """
    from boardlab.experiments.cli._app import load_rules

    lines = [f"# {game.id}: generated reference", "", "Generated at build time from the game registry.", ""]
    reg = game.agents()
    lines += ["## Agents", "", "| agent | parameter | default | help |", "| --- | --- | --- | --- |"]
    for d in reg.available_agents():
        lines.append(f"| `{d.name}` | | | {_cell(d.description)} |")
        for p in d.params:
            default = "required" if p.default is None else p.default
            choices = f" (one of {', '.join(p.choices)})" if p.choices else ""
            lines.append(f"| | `{p.name}` | `{_cell(default)}` | {_cell(p.help)}{_cell(choices)} |")
    lines.append("")
    tiers = game.tiers()
    if tiers:
        lines += ["## Skill tiers", "", "| tier | spec | description |", "| --- | --- | --- |"]
        for name, (spec, description) in tiers.items():
            lines.append(f"| `{name}` | `{_cell(spec)}` | {_cell(description)} |")
        lines.append("")
    schema = game.optional("schema")
    if schema is None:
        from boardlab.experiments.schema import CORE_TYPES

        types = {c: str(CORE_TYPES.get(c, "")) for c in game.result_columns}
    else:
        types = {f.name: str(f.type) for f in schema}
    lines += ["## Result columns", "", "One row per (game, seat).", "", "| column | type |", "| --- | --- |"]
    lines += [f"| `{c}` | `{types.get(c, '')}` |" for c in game.result_columns]
    lines.append("")
    rules = load_rules(None, game)
    lines += [
        "## Rule keys",
        "",
        f"Every key of the default rule set `{rules.name}` with its value (`boardlab rules --game {game.id}`"
        " prints it as a variant file).",
        "",
        "| key | default |",
        "| --- | --- |",
    ]
    for key, value in _flatten(rules.to_dict()):
        lines.append(f"| `{_cell(key)}` | `{_cell(json.dumps(value))}` |")
    return "\n".join(lines) + "\n"


GENERATED = re.compile(r"^<!-- generated: agents ([a-z0-9_-]+) -->$", re.M)


def agents_and_tiers(game) -> str:
    """A game's agents (name and description) and its skill tiers, as Markdown tables.

    Parameters
    ----------
    game : boardlab.sim.games.GameDef
        The game's registry entry.

    Returns
    -------
    str
        Two tables: agents, then tiers (when the game has any).
    """
    lines = ["| agent | what it does |", "| --- | --- |"]
    lines += [f"| `{d.name}` | {_cell(d.description)} |" for d in game.agents().available_agents()]
    tiers = game.tiers()
    if tiers:
        lines += ["", "| tier | spec | description |", "| --- | --- | --- |"]
        lines += [f"| `{n}` | `{_cell(spec)}` | {_cell(desc)} |" for n, (spec, desc) in tiers.items()]
    return "\n".join(lines)


def _fill_generated(markdown: str) -> str:
    """Replace each ``<!-- generated: agents GAME -->`` line with that game's agents and tiers."""
    from boardlab import get_game

    return GENERATED.sub(lambda m: agents_and_tiers(get_game(m.group(1))), markdown)


# --- studies -------------------------------------------------------------------------------------------------
def studies() -> list[tuple[str, Path, str]]:
    """Every committed study: its folder name, its report and the command the report records.

    Returns
    -------
    list of (str, pathlib.Path, str)
        ``(name, REPORT.md path, command or "")`` sorted by name.
    """
    out = []
    for report in sorted(RESULTS.glob("*/REPORT.md")):
        m = COMMAND_LINE.search(report.read_text(encoding="utf-8"))
        out.append((report.parent.name, report, m.group(1) if m else ""))
    return out


def _study_game(command: str, name: str) -> str:
    m = re.search(r"--game[ =](\S+)", command)
    if m:
        return m.group(1)
    for game in ("cartographers", "citadels"):
        if name.startswith(game):
            return game
    return "citywright"


def study_pages(name: str) -> list[tuple[str, str]]:
    """The hand-written pages a study has in the site besides its report (``docs/studies/<name>/*.md``).

    Parameters
    ----------
    name : str
        The study's folder name under ``results/``.

    Returns
    -------
    list of (str, str)
        ``(file name, title)`` of each page, sorted by file name; the title is the page's first heading.
    """
    out = []
    for page in sorted((DOCS / "studies" / name).glob("*.md")):
        first = page.read_text(encoding="utf-8").lstrip().split("\n", 1)[0]
        out.append((page.name, first.lstrip("# ").strip() or page.stem))
    return out


def _study_line(name: str, command: str, prefix: str) -> str:
    line = f"- [{name}]({prefix}{name}/REPORT.md)" + (f": `{command}`" if command else "")
    extra = [f"[{title}]({prefix}{name}/{file})" for file, title in study_pages(name)]
    return line + (f" (also: {', '.join(extra)})" if extra else "")


def studies_by_game() -> dict[str, list[tuple[str, str]]]:
    """Every committed study's (name, command), grouped by the game it studies.

    Returns
    -------
    dict of str to list of (str, str)
        Game id -> ``(study name, command or "")`` in name order.
    """
    by_game: dict[str, list[tuple[str, str]]] = {}
    for name, _, command in studies():
        by_game.setdefault(_study_game(command, name), []).append((name, command))
    return by_game


def studies_index() -> str:
    """The studies page: every committed report, by game, with the command that produced it.

    Returns
    -------
    str
        Markdown of ``studies/index.md``.
    """
    lines = ["# Studies", "", "Every committed report under `results/`, with the command that produced it.", ""]
    for game, items in sorted(studies_by_game().items()):
        lines += [f"## {game}", "", *(_study_line(name, command, "") for name, command in items), ""]
    return "\n".join(lines)


def game_results(game) -> str:
    """A game's results page: its committed studies, with the command of each and its other pages.

    Parameters
    ----------
    game : boardlab.sim.games.GameDef
        The game's registry entry.

    Returns
    -------
    str
        Markdown of ``games/<id>/results.md``.
    """
    items = studies_by_game().get(game.id, [])
    lines = [
        f"# {game.id}: results",
        "",
        "The committed studies of this game (generated from `results/*/REPORT.md` at build time); every report",
        "quotes its command, commit and wall time. How a study is built: [studies](../../guides/studies.md).",
        "",
    ]
    lines += [_study_line(name, command, "../../studies/") for name, command in items] or ["No committed study yet."]
    return "\n".join(lines) + "\n"


def notebooks_index() -> str:
    """The tutorials' index page: ``notebooks/README.md`` and a link to each notebook.

    Returns
    -------
    str
        Markdown of ``notebooks/index.md``.
    """
    readme = (NOTEBOOKS / "README.md").read_text(encoding="utf-8")
    body = readme.split("\n", 1)[1] if readme.startswith("# ") else readme
    links = [f"- [{nb.stem}]({nb.name})" for nb in sorted(NOTEBOOKS.glob("*.ipynb"))]
    return "# Tutorials (executed notebooks)\n" + body.rstrip("\n") + "\n\n" + "\n".join(links) + "\n"


# --- links that leave the site -------------------------------------------------------------------------------
def _rewrite_links(markdown: str, page_uri: str, files: Files, source_dir: Path | None) -> str:
    """Point links to committed reports at the studies pages; turn links to files outside docs/ into text.

    A link to a missing page inside docs/ is kept, so that ``--strict`` reports it.
    """

    def fix(m: re.Match) -> str:
        text, target = m.group(1), m.group(2)
        if re.match(r"^[a-z]+:|^#|^/", target):
            return m.group(0)
        path, _, anchor = target.partition("#")
        site_path = posixpath.normpath(posixpath.join(posixpath.dirname(page_uri), path))
        if files.get_file_from_path(site_path) is not None:
            return m.group(0)
        # the repository path the link meant (docs/ pages link relative to docs/, studies relative to results/)
        repo = (source_dir / path).resolve() if source_dir else None
        if repo is not None and repo.name == "REPORT.md" and repo.parent.parent == RESULTS:
            study = f"studies/{repo.parent.name}/REPORT.md"
            rel = posixpath.relpath(study, posixpath.dirname(page_uri) or ".")
            return f"[{text}]({rel}{'#' + anchor if anchor else ''})"
        page = repo.relative_to(DOCS).as_posix() if repo is not None and repo.is_relative_to(DOCS) else None
        if page is not None and files.get_file_from_path(page) is not None:  # a site page linked from a study
            rel = posixpath.relpath(page, posixpath.dirname(page_uri) or ".")
            return f"[{text}]({rel}{'#' + anchor if anchor else ''})"
        if repo is None or repo.is_relative_to(DOCS):
            return m.group(0)  # a page of the site that does not exist: left for --strict to report
        shown = repo.relative_to(ROOT).as_posix() if repo is not None and repo.is_relative_to(ROOT) else path
        return f"{text} (`{shown}`)" if text and text.strip("`") != shown else f"`{shown}`"

    return LINK.sub(fix, markdown)


def _escape_tags(markdown: str) -> str:
    """Escape citation tags such as ``[RB][SEED]`` (outside code) so they are not read as reference links."""
    out, fenced = [], False
    for line in markdown.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced:
            parts = line.split("`")
            line = "`".join(TAG.sub(r"\\[\1\\]", p) if i % 2 == 0 else p for i, p in enumerate(parts))
        out.append(line)
    return "\n".join(out)


# --- the hooks -----------------------------------------------------------------------------------------------
@event_priority(50)  # before mkdocs-jupyter's on_files, which turns the notebooks added here into pages
def on_files(files: Files, config) -> Files:
    """Add the generated pages, the studies with their charts, and the notebooks."""
    from boardlab import games

    files.append(File.generated(config, "reference/cli.md", content=cli_reference()))
    for g in games():
        files.append(File.generated(config, f"reference/games/{g.id}.md", content=game_reference(g)))
        if (DOCS / "games" / g.id).is_dir():  # a built-in game's section
            files.append(File.generated(config, f"games/{g.id}/results.md", content=game_results(g)))
    files.append(File.generated(config, "notebooks/index.md", content=notebooks_index()))
    for nb in sorted(NOTEBOOKS.glob("*.ipynb")):
        # a plain File (src_dir the repository root), which mkdocs-jupyter can wrap, not a generated one
        files.append(File(f"notebooks/{nb.name}", str(ROOT), config["site_dir"], config["use_directory_urls"]))
    index = ["# Games: generated reference", ""] + [f"- [{g.id}]({g.id}.md)" for g in games()]
    files.append(File.generated(config, "reference/games/index.md", content="\n".join(index) + "\n"))
    files.append(File.generated(config, "studies/index.md", content=studies_index()))
    for name, report, _ in studies():
        files.append(File.generated(config, f"studies/{name}/REPORT.md", content=report.read_text(encoding="utf-8")))
        for png in sorted(report.parent.glob("*.png")):
            files.append(File.generated(config, f"studies/{name}/{png.name}", abs_src_path=str(png)))
    return files


def on_page_markdown(markdown: str, page, config, files: Files) -> str:
    """Rewrite links that leave the site (see _rewrite_links)."""
    uri = page.file.src_uri
    if uri.startswith("studies/") and uri != "studies/index.md":
        source_dir = RESULTS / uri.split("/")[1]
    elif page.file.abs_src_path:
        source_dir = Path(page.file.abs_src_path).parent
    else:
        source_dir = None
    return _rewrite_links(_escape_tags(_fill_generated(markdown)), uri, files, source_dir)
