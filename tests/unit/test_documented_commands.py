"""Every `aurra` command in a shell block of the repository's Markdown works as written on a
fresh clone after `make dev`.

`make dev` does not put `aurra` on PATH: the docs call it `.venv/bin/aurra` (from the
repository root; `/path/to/aurra/.venv/bin/aurra` from elsewhere). Each command must be
written so, and must parse with the CLI's own parser: its sub-command and every flag exist
(square brackets around an optional part are read as if the part were given).
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest

from aurra_local.cli import build_parser

REPO = Path(__file__).resolve().parents[2]
SKIP = {".venv", "node_modules", ".git", "dist", "build", "cdk.out", ".pytest_cache", ".mypy_cache"}
SHELL = {"sh", "bash", "shell", "console"}
# `aurra` where a shell reads a command name: at the start, after ; & | ( $( or `--`, after any
# NAME=value assignments.
INVOCATION = re.compile(
    r"(?:^|[;&|(]|\$\(|\s--\s)\s*(?:[A-Z][A-Z0-9_]*=\S*\s+)*(?P<command>(?:[\w./-]*/)?aurra)(?=\s|$)(?P<rest>[^;&|)#]*)"
)


def markdown_files() -> list[Path]:
    return sorted(
        path for path in REPO.rglob("*.md") if not SKIP.intersection(path.relative_to(REPO).parts[:-1])
    )


def shell_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, logical line) of the file's shell blocks, continuation lines joined."""
    found: list[tuple[int, str]] = []
    language: str | None = None
    pending, start = "", 0
    for number, line in enumerate(path.read_text().splitlines(), 1):
        fence = re.match(r"^\s*```(\w*)\s*$", line)
        if fence:
            language = None if language is not None else fence.group(1)
            continue
        if language not in SHELL:
            continue
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        found.append((start, pending + line))
        pending = ""
    return found


def invocations() -> list[tuple[str, str, str]]:
    """(where, command as written, its arguments) for every `aurra` run in a shell block."""
    found = []
    for path in markdown_files():
        for number, line in shell_lines(path):
            for match in INVOCATION.finditer(line.strip()):
                found.append(
                    (
                        f"{path.relative_to(REPO)}:{number}",
                        match.group("command"),
                        match.group("rest").strip(),
                    )
                )
    return found


def test_the_docs_run_aurra_commands() -> None:
    """The scan finds what it is for (a scan that found nothing would check nothing)."""
    where = {w.split(":")[0] for w, _, _ in invocations()}
    assert {"events/README.md", "docs/mcp.md", "docs/deploy.md", "evals/README.md", "README.md"} <= where


def test_aurra_is_where_make_dev_installs_it() -> None:
    """`.venv/bin/aurra` is the Makefile's virtualenv and the package's console script."""
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["aurra"] == "aurra_local.cli:main"
    assert re.search(r"^VENV \?= \.venv$", (REPO / "Makefile").read_text(), re.M)
    assert re.search(
        r"^dev: setup\n(?:\t.*\n)*\t.*\$\(VENV\)/bin/aurra dev", (REPO / "Makefile").read_text(), re.M
    )


@pytest.mark.parametrize(("where", "command", "arguments"), invocations(), ids=lambda v: str(v)[:60])
def test_documented_aurra_command(where: str, command: str, arguments: str) -> None:
    assert command == ".venv/bin/aurra" or command.endswith("/.venv/bin/aurra"), (
        f"{where}: `{command} {arguments}`: `aurra` is not on PATH after `make dev`; write .venv/bin/aurra"
    )
    words = shlex.split(arguments.replace("[", " ").replace("]", " "))
    try:
        build_parser().parse_args(words)
    except SystemExit:
        pytest.fail(f"{where}: `aurra {arguments}` does not parse with the CLI's own parser")
