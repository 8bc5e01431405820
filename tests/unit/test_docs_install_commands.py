"""The install commands in the README and the docs work from a fresh clone: every extra a
`pip install` names is one of pyproject.toml's, every `make` target is the Makefile's, and the
MCP server's install brings the Python SDK it talks to the API through."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXTRAS = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
MAKE_TARGETS = set(re.findall(r"^([a-z][a-z0-9-]*):", (ROOT / "Makefile").read_text(), re.MULTILINE))
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"), ROOT / "sdk/python/README.md"])

# `pip install -e '.[a,b]'`, `pip install ".[a]"`, `pip install .[a]`: the service's extras.
SERVICE_EXTRAS = re.compile(r"""pip install[^\n`]*?\s['"]?\.\[([a-z0-9_,\s-]+)\]""")
MAKE = re.compile(r"`(?:[A-Z_]+=\S+\s+)*make ([a-z][a-z0-9-]*)")


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: str(path.relative_to(ROOT)))
def test_extras_and_make_targets_named_in_the_docs_exist(doc: Path) -> None:
    text = doc.read_text()
    for extras in SERVICE_EXTRAS.findall(text):
        for extra in (e.strip() for e in extras.split(",")):
            assert extra in EXTRAS, (
                f"{doc.name}: pip install names the extra {extra!r}; pyproject.toml has {EXTRAS}"
            )
    for target in MAKE.findall(text):
        assert target in MAKE_TARGETS, f"{doc.name}: `make {target}` is not a Makefile target"


def test_the_mcp_install_brings_the_sdk() -> None:
    """`aurra mcp` imports the SDK (`aurra`), a distribution of its own in sdk/python: the
    install the MCP guide gives must bring it, and the `mcp` package must come with the service."""
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(re.match(r"mcp\b", requirement) for requirement in dependencies)
    guide = (ROOT / "docs" / "mcp.md").read_text()
    commands = re.findall(r"pip install [^\n`]+", guide)
    assert commands, "docs/mcp.md gives a pip install command"
    for command in commands:
        assert "sdk/python" in command, command
    assert "make setup" in guide
    assert "setup" in MAKE_TARGETS
    assert "-e sdk/python" in (ROOT / "Makefile").read_text(), "make setup installs the SDK"
