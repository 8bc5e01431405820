"""What the package aurra_core.runtime.powertools_internals relies on in Powertools beyond its public API.

Each test names the piece it checks: when a Powertools upgrade changes one, the failure says
which adapter to rework, instead of a request reading another's event in `aurra dev` or an
Idempotency-Key silently doing nothing."""

from __future__ import annotations

import inspect
import re
import threading
import typing
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from aws_lambda_powertools.event_handler.api_gateway import BaseRouter
from pydantic import BaseModel

from aurra_core.runtime import powertools_internals
from aurra_core.runtime.powertools_internals.resolver import PerThreadResolver, registered_routes

ROOT = Path(__file__).resolve().parents[2]


def _pin(text: str) -> str:
    found = re.search(r"aws-lambda-powertools(?:\[[^\]]*\])?==([0-9][^\s\"',]*)", text)
    assert found, "aws-lambda-powertools must be pinned with =="
    return found.group(1)


def test_one_powertools_version_in_pyproject_the_layer_and_the_venv() -> None:
    layer = _pin((ROOT / "layers/core/requirements.txt").read_text())
    project = _pin((ROOT / "pyproject.toml").read_text())
    assert project == layer, f"pyproject pins Powertools {project}, the layer {layer}"
    assert version("aws-lambda-powertools") == layer, (
        "the installed Powertools is not the pinned one: check aurra_core/runtime/powertools_internals against it, "
        "then move both pins"
    )


def _event(path: str) -> dict[str, Any]:
    return {
        "resource": path,
        "path": path,
        "httpMethod": "GET",
        "headers": {},
        "multiValueHeaders": {},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": None,
        "requestContext": {"resourcePath": path, "httpMethod": "GET", "path": path, "requestId": path},
        "body": None,
        "isBase64Encoded": False,
    }


def test_concurrent_requests_on_one_resolver_each_read_their_own_event() -> None:
    """Powertools keeps the current event on the router class; PerThreadResolver must keep it
    per thread. Two requests resolved at once, each paused inside its route until both are,
    must each see their own path and context."""
    app = PerThreadResolver()
    both_inside = threading.Barrier(2, timeout=10)

    @app.get("/<name>")
    def route(name: str) -> dict[str, Any]:
        app.append_context(name=name)
        both_inside.wait()
        return {"path": app.current_event.path, "context": app.context.get("name"), "name": name}

    answers: dict[str, str] = {}

    def call(name: str) -> None:
        answers[name] = app.resolve(_event(f"/{name}"), None)["body"]

    threads = [threading.Thread(target=call, args=(n,)) for n in ("alice", "bob")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(15)
    for name in ("alice", "bob"):
        assert f'"path":"/{name}"' in answers[name].replace(" ", ""), answers
        assert f'"context":"{name}"' in answers[name].replace(" ", ""), answers


def test_the_resolver_state_per_thread_wraps_what_powertools_keeps() -> None:
    assert "current_event" in BaseRouter.__annotations__, "BaseRouter.current_event moved"
    assert "lambda_context" in BaseRouter.__annotations__, "BaseRouter.lambda_context moved"
    assert "context" in vars(APIGatewayRestResolver()), "the resolver's per-request context moved"
    assert list(inspect.signature(APIGatewayRestResolver._to_proxy_event).parameters) == ["self", "event"]


def test_registered_routes_lists_every_route_with_what_openapi_reads() -> None:
    app = APIGatewayRestResolver()

    @app.get("/static")
    def static() -> dict[str, Any]:
        return {}

    @app.post("/items/<item_id>")
    def dynamic(item_id: str) -> dict[str, Any]:
        return {}

    routes = registered_routes(app)
    assert sorted((r.method, r.openapi_path, r.func.__name__) for r in routes) == [
        ("GET", "/static", "static"),
        ("POST", "/items/{item_id}", "dynamic"),
    ]


class _Body(BaseModel):
    name: str


class _Out(BaseModel):
    name: str


def test_each_route_is_prepared_once_before_validation_builds_its_adapters() -> None:
    """`_call_route` is where the matched route enters the middlewares: `prepare_route` must
    see the route's types there, once, while Powertools has not yet built its adapters
    (`Route.dependant`, on the route's first call)."""
    assert list(inspect.signature(APIGatewayRestResolver._call_route).parameters) == [
        "self",
        "route",
        "route_arguments",
    ]
    app = PerThreadResolver(enable_validation=True)
    seen: list[tuple[tuple[Any, ...], bool]] = []

    def prepare(*annotations: Any) -> None:
        (route,) = registered_routes(app)
        seen.append((annotations, route._dependant is None))

    app.prepare_route = prepare

    @app.post(
        "/items", responses={200: {"description": "OK", "content": {"application/json": {"model": _Out}}}}
    )
    def create(body: _Body) -> dict[str, Any]:
        return {"name": body.name}

    event = {**_event("/items"), "httpMethod": "POST", "body": '{"name": "a"}'}
    event["requestContext"] = {**event["requestContext"], "httpMethod": "POST"}
    for _ in range(2):
        assert app.resolve(event, None)["statusCode"] == 200
    assert len(seen) == 1, "prepared once per route"
    annotations, before_adapters = seen[0]
    assert _Body in {typing.get_args(a)[0] if typing.get_args(a) else a for a in annotations}
    assert _Out in annotations
    assert before_adapters, "prepared after Powertools built the route's adapters"


def test_idempotency_handler_takes_what_run_idempotent_passes() -> None:
    from aws_lambda_powertools.utilities.idempotency.base import IdempotencyHandler

    parameters = inspect.signature(IdempotencyHandler.__init__).parameters
    passed = {"function", "function_payload", "config", "persistence_store", "key_prefix"}
    passed |= {"function_args", "function_kwargs"}
    assert passed <= set(parameters), f"IdempotencyHandler no longer takes {passed - set(parameters)}"
    assert callable(IdempotencyHandler.handle)


def test_persistence_layer_hooks_are_the_ones_ours_implements() -> None:
    from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer

    assert BasePersistenceLayer.__abstractmethods__ == {
        "_get_record",
        "_put_record",
        "_update_record",
        "_delete_record",
    }
    parameters = list(inspect.signature(BasePersistenceLayer._validate_payload).parameters)
    assert parameters == ["self", "data_payload", "stored_data_record"]


def test_a_changed_payload_is_refused_through_the_adapter() -> None:
    from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig
    from aws_lambda_powertools.utilities.idempotency.exceptions import IdempotencyValidationError
    from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import DataRecord

    from aurra_core.write_path.idempotency import PostgresPersistenceLayer

    layer = PostgresPersistenceLayer(db=lambda: pytest.fail("no database here"))
    layer.configure(IdempotencyConfig(payload_validation_jmespath="body"), function_name="test")
    stored = DataRecord("k", status="COMPLETED", payload_hash=layer._get_hashed_payload({"body": 1}))
    again = DataRecord("k", status="INPROGRESS", payload_hash=layer._get_hashed_payload({"body": 1}))
    other = DataRecord("k", status="INPROGRESS", payload_hash=layer._get_hashed_payload({"body": 2}))
    powertools_internals.validate_payload(layer, again, stored)
    with pytest.raises(IdempotencyValidationError):
        powertools_internals.validate_payload(layer, other, stored)


def test_the_payload_is_hashed_as_given_and_not_copied() -> None:
    import copy

    from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig
    from aws_lambda_powertools.utilities.idempotency.base import IdempotencyHandler
    from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import DataRecord

    from aurra_core.write_path.idempotency import PostgresPersistenceLayer

    body = {"facts": [{"content": "alice uses Vim", "metadata": {"k": [1]}}]}
    payload = powertools_internals.Unchanged({"tenant_id": "t", "key": "k", "body": body})
    assert copy.deepcopy(payload) is payload
    layer = PostgresPersistenceLayer(db=lambda: pytest.fail("no database here"))
    handler = IdempotencyHandler(
        function=lambda: {},
        function_payload=payload,
        config=IdempotencyConfig(event_key_jmespath="[tenant_id, key]", payload_validation_jmespath="body"),
        persistence_store=layer,
        key_prefix="test",
        function_args=(),
        function_kwargs={},
    )
    assert handler.data is payload  # Powertools keeps what it was given, uncopied
    plain = {"tenant_id": "t", "key": "k", "body": copy.deepcopy(body)}
    stored = DataRecord("k", status="COMPLETED", payload_hash=layer._get_hashed_payload(plain))
    again = DataRecord("k", status="INPROGRESS", payload_hash=layer._get_hashed_payload(payload))
    powertools_internals.validate_payload(layer, again, stored)  # a record of a plain dict still matches
    assert layer._get_hashed_idempotency_key(payload) == layer._get_hashed_idempotency_key(plain)
