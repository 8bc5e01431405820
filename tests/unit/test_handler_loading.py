"""Loading a handler by path (`aurra dev`, `aurra invoke`): a handler that fails while it
imports, after pausing garbage collection as every handler does, leaves the process collecting,
and is not left half-loaded in sys.modules."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest

from aurra_local import lambda_functions


def test_a_handler_failing_mid_import_leaves_collection_on(tmp_path: Path) -> None:
    broken = tmp_path / "handler.py"
    broken.write_text("import gc\n\ngc.disable()\n\nraise RuntimeError('a broken import')\n")
    assert gc.isenabled()
    with pytest.raises(RuntimeError, match="a broken import"):
        lambda_functions._load("aurra_functions_test_broken.handler", broken)
    assert gc.isenabled()
    assert "aurra_functions_test_broken.handler" not in sys.modules


def test_every_real_handler_loads_and_leaves_collection_on() -> None:
    for name in lambda_functions.function_names():
        lambda_functions.load_handler(name)
        assert gc.isenabled(), name
