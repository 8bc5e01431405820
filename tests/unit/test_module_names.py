"""No module of the service binds a top-level name twice: the second binding of a constant or a
helper silently replaces the first for every reader above it (a classifier's time words once
replaced another list of the same name, and every reading that used it changed)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

ROOTS = [
    Path(__file__).parents[2] / "layers/core/python/aurra_core",
    Path(__file__).parents[2] / "aurra_local",
]
MODULES = sorted(path for root in ROOTS for path in root.rglob("*.py"))


def bound_twice(path: Path) -> list[str]:
    names: Counter[str] = Counter()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[node.name] += 1
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] += 1
    return sorted(name for name, count in names.items() if count > 1)


def test_the_check_finds_a_name_bound_twice(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("WORDS = frozenset()\n\n\ndef f():\n    return WORDS\n\n\nWORDS = frozenset({'a'})\n")
    assert bound_twice(module) == ["WORDS"]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_no_top_level_name_is_bound_twice(path):
    assert bound_twice(path) == []
