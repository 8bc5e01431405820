"""The tracer costs no handler's import: the X-Ray SDK loads on the first traced call, only
where tracing is on, and then traces as the Powertools Tracer does.

Each case runs in a fresh interpreter: whether a module is loaded is a fact of one process, and
a Tracer patches libraries for the whole of it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HANDLERS = sorted(p.parent.name for p in (ROOT / "functions").glob("*/handler.py"))
TRACE_HEADER = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"


def _run(code: str, **env: str) -> dict:
    environment = {k: v for k, v in os.environ.items() if k != "POWERTOOLS_TRACE_DISABLED"}
    environment.update(env)
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT / "layers/core/python"), str(ROOT), os.environ.get("PYTHONPATH")])
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("handler", HANDLERS)
def test_no_handler_imports_the_xray_sdk(handler: str) -> None:
    # As in Lambda with active tracing: tracing is on, and still the import does not pay for it.
    loaded = _run(
        f"import json, sys\nimport functions.{handler}.handler\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('aws_xray_sdk'))))",
        LAMBDA_TASK_ROOT=str(ROOT),
        _X_AMZN_TRACE_ID=TRACE_HEADER,
    )
    assert loaded == []


TRACED = """
import json, sys
from aurra_core.runtime.observability import tracer

@tracer.capture_method
def double(x: int) -> int:
    return 2 * x

@tracer.capture_lambda_handler
def lambda_handler(event, context):
    return {"doubled": double(event["x"])}

before = "aws_xray_sdk.core" in sys.modules
emitted = []
if tracer.get() is not None:
    from aws_xray_sdk.core import patcher, xray_recorder

    class Capture:
        def send_entity(self, entity):
            emitted.append(entity.to_dict())

        def set_daemon_address(self, address):
            pass

    xray_recorder.configure(emitter=Capture())
result = lambda_handler({"x": 21}, None)
print(json.dumps({
    "before": before,
    "after": "aws_xray_sdk.core" in sys.modules,
    "result": result,
    "subsegments": [e["name"] for e in emitted],
    "metadata": [e.get("metadata", {}) for e in emitted],
    "annotations": [e.get("annotations", {}) for e in emitted],
    "patched": sorted(patcher._PATCHED_MODULES) if "aws_xray_sdk.core" in sys.modules else None,
}))
"""


def test_with_tracing_on_the_first_call_creates_the_tracer_and_every_call_is_traced() -> None:
    seen = _run(
        TRACED, LAMBDA_TASK_ROOT=str(ROOT), _X_AMZN_TRACE_ID=TRACE_HEADER, POWERTOOLS_SERVICE_NAME="aurra"
    )
    assert seen["before"] is False and seen["after"] is True
    assert seen["result"] == {"doubled": 42}
    # The method's subsegment closes first, inside the handler's.
    assert seen["subsegments"] == ["## __main__.double", "## lambda_handler"]
    assert seen["metadata"][0]["aurra"]["__main__.double response"] == 42
    assert seen["annotations"][1] == {"ColdStart": True, "Service": "aurra"}
    assert seen["patched"] == ["botocore", "httpx", "psycopg"]


@pytest.mark.parametrize(
    "env",
    [{"POWERTOOLS_TRACE_DISABLED": "true", "LAMBDA_TASK_ROOT": str(ROOT)}, {}],
    ids=["disabled-in-lambda", "outside-lambda"],
)
def test_with_tracing_off_the_xray_sdk_is_never_loaded(env: dict[str, str]) -> None:
    seen = _run(TRACED, **env)
    assert seen["result"] == {"doubled": 42}
    assert seen["before"] is False and seen["after"] is False
    assert seen["subsegments"] == []
