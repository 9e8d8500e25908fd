"""The documentation holds together: every relative link and image of README.md and docs/
resolves to a file (and a ``#section`` to a heading of it), every command they name exists
(the CLI's commands and options, ``python -m`` modules, ``make`` targets), the README stays
short, and no committed text file names a path of a developer's machine."""

from __future__ import annotations

import argparse
import importlib.util
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from core.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$", re.MULTILINE)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
# A developer's home or work folder. Split so this file does not name one itself.
MACHINE_PATH = re.compile("/(?:" + "|".join(("wo" + "rk", "ro" + "ot", "ho" + "me", "Us" + "ers"))
                          + r")/[\w.-]")


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def _links(page: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8")))


def _anchors(page: Path) -> set[str]:
    return {_anchor(h) for h in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8")))}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_image_resolves(page):
    broken = []
    for target in _links(page):
        if re.match(r"[a-z]+:", target):  # https:, mailto:: not ours to check offline
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
            broken.append(f"{target}: no heading #{anchor}")
    assert not broken, broken


def test_the_readme_is_read_in_five_minutes():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 200


def _committed_text_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    files = [ROOT / name for name in listed.stdout.decode().split("\0") if name]
    return [f for f in files if f.is_file() and b"\0" not in f.read_bytes()[:8192]]


def test_no_committed_text_file_names_a_path_of_a_developers_machine():
    found = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
             for path in _committed_text_files()
             for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace")
                                      .splitlines(), start=1)
             if MACHINE_PATH.search(line)]
    assert not found, found


# Commands a page tells a reader to type: the CLI's (`chunklab SUB`, `python -m core SUB`), a
# module run with `python -m` (the benches, the generators), and `make TARGET`.
# A CLI line opens with the command, perhaps after settings (`LLM_MODEL=local chunklab …`) or
# a folder (`.venv/bin/chunklab …`).
CLI = re.compile(r"^\s*(?:\w+=\S*\s+)*(?:\S*/)?(?:chunklab|python -m core)((?:\s+[^\s|;&>#`]+)+)")
MODULE = re.compile(r"python -m ((?:bench|core|corpora|fakes|sample_docs|tests)(?:\.[a-z_]\w*)*)")
MAKE = re.compile(r"(?:^|[\s`])make ([a-z][\w.-]*)")
INLINE = re.compile(r"`([^`\n]+)`")


def _commands(page: Path) -> list[str]:
    """Every command line of a page: each line of its code blocks (continued lines joined,
    comments dropped) and each inline code span."""
    text = page.read_text(encoding="utf-8")
    lines = []
    for block in FENCE.findall(text):
        body = re.sub(r"\\\n\s*", " ", "\n".join(block.splitlines()[1:-1]))
        lines += [line.split(" #")[0] for line in body.splitlines() if not line.startswith("#")]
    return lines + INLINE.findall(FENCE.sub("", text))


def _cli_parsers() -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """The CLI's parsers by the words that reach them: (), ("chunk",), ("sets", "list")…"""
    found: dict[tuple[str, ...], argparse.ArgumentParser] = {}

    def walk(words: tuple[str, ...], parser: argparse.ArgumentParser) -> None:
        found[words] = parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk((*words, name), child)

    walk((), build_parser())
    return found


def _cli_problem(words: list[str],
                 parsers: dict[tuple[str, ...], argparse.ArgumentParser]) -> str | None:
    """What a `chunklab …` line names that the CLI lacks (a command or an option), or None."""
    reached: tuple[str, ...] = ()
    for word in (w.strip("[]") for w in words):
        if word.startswith("--"):
            option = word.split("=")[0]
            if option not in parsers[reached]._option_string_actions:
                return f"{' '.join(('chunklab', *reached))} has no option {option}"
        elif (*reached, word) in parsers:
            reached = (*reached, word)
        elif any(len(key) == len(reached) + 1 and key[:-1] == reached for key in parsers):
            if word.isupper():  # a placeholder (`chunklab COMMAND --help`): not checked further
                return None
            return f"no command {' '.join(('chunklab', *reached, word))!r}"
    return None


def _cli_lines(page: Path) -> list[list[str]]:
    lines = []
    for command in _commands(page):
        for match in CLI.finditer(command):
            try:
                lines.append(shlex.split(match.group(1)))
            except ValueError:  # an apostrophe in prose
                lines.append(match.group(1).split())
    return lines


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_command_a_page_names_exists(page):
    parsers = _cli_parsers()
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"(?m)^([a-z][\w.-]*):", makefile))
    commands = _commands(page)
    problems = [problem for words in _cli_lines(page)
                if (problem := _cli_problem(words, parsers))]
    problems += [f"python -m {module}: no such module" for command in commands
                 for module in MODULE.findall(command) if importlib.util.find_spec(module) is None]
    problems += [f"make {target}: no such target" for command in commands
                 for target in MAKE.findall(command) if target not in targets]
    assert not problems, problems
