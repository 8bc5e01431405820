"""The layer's folders import one way: down the map in aurra_core/__init__.py, never up it."""

from __future__ import annotations

import ast
from pathlib import Path

import aurra_core

ROOT = Path(aurra_core.__file__).parent
# The map's order (aurra_core/__init__.py, docs/architecture.md); one rank per line.
ORDER = [
    {"service"},
    {"api"},
    {"level2_jobs"},
    {"write_path"},
    {"access", "webhooks"},
    {"storage"},
    {"classifiers", "extractors", "embedders"},
    {"metering"},
    {"models", "request_json", "errors"},
    {"text_analysis"},
    {"runtime"},
]
RANK = {name: rank for rank, names in enumerate(ORDER) for name in names}


def _part(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "aurra_core" and len(parts) > 1 else None


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "aurra_core":
                found.update(alias.name for alias in node.names)
            elif (part := _part(node.module)) is not None:
                found.add(part)
        elif isinstance(node, ast.Import):
            found.update(p for alias in node.names if (p := _part(alias.name)) is not None)
    return found


def test_every_top_level_entry_is_on_the_map() -> None:
    entries = {p.stem for p in ROOT.iterdir() if p.suffix == ".py" and p.stem != "__init__"}
    entries |= {p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert entries == set(RANK)


def test_imports_run_down_the_map() -> None:
    upward = []
    for path in ROOT.rglob("*.py"):
        relative = path.relative_to(ROOT)
        own = relative.parts[0].removesuffix(".py")
        if own == "__init__":
            continue
        for used in _imports(path) - {own}:
            if RANK[used] < RANK[own]:  # the same rank may import each other (extractors use classifiers)
                upward.append(f"{relative} imports {used}")
    assert upward == []
