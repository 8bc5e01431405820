"""Loading a handler by path (`aurra dev`, `aurra invoke`): a handler that fails while it
imports, after pausing garbage collection as every handler does, leaves the process collecting,
and is not left half-loaded in sys.modules; a request arriving while another loads the same
handler gets the whole handler, never the half-run module."""

from __future__ import annotations

import gc
import sys
import threading
import time
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


def test_a_handler_still_loading_is_waited_for_not_lent_half_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first requests to `aurra dev` arrive together: the second must not find the handler
    in sys.modules while its module is still running (it has no lambda_handler yet), which the
    gateway answered 503 (the authorizer) or 502 (a route)."""
    function = "slow_to_import"
    (tmp_path / function).mkdir()
    (tmp_path / function / "__init__.py").write_text("")
    (tmp_path / function / "handler.py").write_text(
        "import time\n\ntime.sleep(0.5)\n\n\ndef lambda_handler(event, context):\n    return 'whole'\n"
    )
    monkeypatch.setattr(lambda_functions, "functions_dir", lambda: tmp_path)
    monkeypatch.setattr(lambda_functions, "function_names", lambda: (function,))
    module_name = f"{lambda_functions.PACKAGE}.{function}.handler"
    for name in (module_name, module_name.rsplit(".", 1)[0]):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(lambda_functions, "_handlers", {}, raising=False)

    answers: list[object] = []

    def request() -> None:
        try:
            answers.append(lambda_functions.load_handler(function).lambda_handler(None, None))
        except Exception as exc:  # noqa: BLE001 - what the gateway would have turned into a 5xx
            answers.append(exc)

    first = threading.Thread(target=request)
    first.start()
    deadline = time.monotonic() + 10
    while module_name not in sys.modules and time.monotonic() < deadline:
        time.sleep(0.005)
    assert module_name in sys.modules, "the first request never started loading the handler"
    request()  # while the first request's import is still asleep
    first.join(10)
    assert [repr(a) for a in answers] == ["'whole'", "'whole'"]
    monkeypatch.delitem(sys.modules, module_name, raising=False)
    monkeypatch.delitem(sys.modules, module_name.rsplit(".", 1)[0], raising=False)
