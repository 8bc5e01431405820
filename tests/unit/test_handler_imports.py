"""What each function loads at its start, which every cold start of it pays: the heavy parts of
the layer only in the functions whose requests use them.

- numpy: none of them (an embedding is a pgvector `Vector`, not a numpy array; nothing but
  the local MiniLM embedder computes in numpy, and tests/unit/test_embeddings.py checks that
  embedding with the other two does not load it).
- the write pipeline and the text analysis it uses (the credentials detector among it): the
  write function and the Level 2 worker (which decides with the pipeline) alone (the local embedder's use of the text analysis waits for its first
  embedding: in AWS, Titan embeds; the supersede function loads the detector on its first
  request that writes a new memory).
- Powertools' event handler (the REST resolver and its OpenAPI validation): the functions
  behind API Gateway's routes, not the authorizer, migrate, admin, maintenance or dispatcher, neither at
  import nor on the authorizer's first request (its first traced call asks whether tracing is
  on, which once loaded the event handler on the path of every cold API call).

Each handler is imported in a fresh interpreter: whether a module is loaded is a fact of one
process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
HANDLERS = sorted(p.parent.name for p in (ROOT / "functions").glob("*/handler.py"))
ROUTES = {"write", "query", "settings", "supersede", "audit", "erasure"}
WATCHED = (
    "numpy",
    "aurra_core.text_analysis.text",
    "aurra_core.text_analysis.credentials",
    "aurra_core.write_path.pipeline",
    "aws_lambda_powertools.event_handler",
)


def _child(handler: str, then: str, report: str) -> Any:
    """Imports the handler in a fresh interpreter, runs `then`, and returns `report` evaluated."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT / "layers/core/python"), str(ROOT), os.environ.get("PYTHONPATH")])
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            # the packages first: in Lambda the handler is a top-level module, nothing before it
            f"import gc, json, sys\nimport functions.{handler}\n"
            "collections_before = sum(s['collections'] for s in gc.get_stats())\n"
            f"import functions.{handler}.handler as handler\n{then}\nprint(json.dumps({report}))",
        ],
        check=False,
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _loaded(handler: str, then: str = "") -> set[str]:
    return set(_child(handler, then, f"[m for m in {WATCHED!r} if m in sys.modules]"))


def test_every_handler_is_covered() -> None:
    assert set(HANDLERS) == {
        *ROUTES,
        "authorizer",
        "migrate",
        "admin",
        "maintenance",
        "level2_worker",
        "dispatcher",
    }


@pytest.mark.parametrize("handler", HANDLERS)
def test_a_handler_loads_what_its_requests_use(handler: str) -> None:
    loaded = _loaded(handler)
    expected = set()
    if handler in ("write", "level2_worker"):
        expected |= {
            "aurra_core.write_path.pipeline",
            "aurra_core.text_analysis.text",
            "aurra_core.text_analysis.credentials",
        }
    if handler in ROUTES:
        expected.add("aws_lambda_powertools.event_handler")
    assert loaded == expected


# A token the authorizer refuses before any database work: the request still passes through
# every decorator of the handler, the tracer's first call among them.
REFUSED_REQUEST = """
from aurra_local.gateway import LambdaContext
try:
    handler.lambda_handler(
        {"type": "TOKEN", "authorizationToken": "Basic x", "methodArn": "arn:aws:execute-api:us-east-1:1:a/s/GET/m"},
        LambdaContext(function_name="authorizer", aws_request_id="first"),
    )
except Exception as exc:
    assert str(exc) == "Unauthorized", exc
else:
    raise AssertionError("the authorizer allowed a Basic token")
"""


def test_the_authorizers_first_request_loads_no_event_handler() -> None:
    assert _loaded("authorizer", REFUSED_REQUEST) == set()


@pytest.mark.parametrize("handler", HANDLERS)
def test_a_handler_imports_without_garbage_collection_and_resumes_it(handler: str) -> None:
    # Collections while a cold start imports scan tens of thousands of objects that are never
    # garbage, again and again (aurra_core/runtime/cold_start.py); afterwards collection is back on,
    # with what the import loaded frozen out of its sight.
    state = _child(
        handler,
        "",
        "{'collections': sum(s['collections'] for s in gc.get_stats()) - collections_before, "
        "'enabled': gc.isenabled(), 'frozen': gc.get_freeze_count()}",
    )
    # at most one: compiling the handler's own source (Lambda has no bytecode of it) may collect
    # before its first line turns collection off; without the pause, 95-122 collections
    assert state["collections"] <= 1
    assert state["enabled"] is True
    assert state["frozen"] > 10_000


def test_models_build_their_validators_on_first_use() -> None:
    # Building every model's validator at import cost each cold start 10-15 ms of CPU: a model
    # added on plain BaseModel would build at import again.
    from pydantic import BaseModel

    from aurra_core import models

    defined = [
        value
        for value in vars(models).values()
        if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == models.__name__
    ]
    assert len(defined) > 20
    assert [m.__name__ for m in defined if not issubclass(m, models.Model)] == []
    assert all(m.model_config.get("defer_build") for m in defined)
