"""One OpenAPI document for the whole API, merged from what Powertools generates for each
handler. Committed as docs/openapi.json; a test fails when it drifts from the code."""

from __future__ import annotations

import json
import typing
from typing import Any

from aws_lambda_powertools.event_handler.openapi.params import Query
from pydantic import BaseModel

from aurra_core.runtime.powertools_internals.resolver import registered_routes
from aurra_local.lambda_functions import catalog, load_handler

VERSION = "1.0.0"


def build() -> dict[str, Any]:
    merged: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": "Aurra",
            "version": VERSION,
            "description": "Bi-temporal memory for AI agents with precision-first automatic supersession.",
        },
        "servers": [{"url": "http://127.0.0.1:3000", "description": "aurra dev"}],
        "paths": {},
        "components": {
            "schemas": {},
            "securitySchemes": {
                "apiKey": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "Authorization: Bearer aurra_...",
                }
            },
        },
        "security": [{"apiKey": []}],
    }
    for function in catalog().HTTP_FUNCTIONS:
        app = load_handler(function).app
        document = app.get_openapi_schema(title="Aurra", version=VERSION).model_dump(
            mode="json", by_alias=True, exclude_none=True
        )
        _restore_query_constraints(app, document)
        for path, operations in document.get("paths", {}).items():
            merged["paths"].setdefault(path, {}).update(operations)
        for name, schema in document.get("components", {}).get("schemas", {}).items():
            merged["components"]["schemas"].setdefault(name, schema)
    merged["paths"] = dict(sorted(merged["paths"].items()))
    merged["components"]["schemas"] = dict(sorted(merged["components"]["schemas"].items()))
    return merged


def render() -> str:
    return json.dumps(build(), indent=2, sort_keys=False) + "\n"


def _query_models(app) -> dict[tuple[str, str], type[BaseModel]]:
    """(method, path) -> the pydantic model a route takes its query parameters from."""
    found = {}
    for route in registered_routes(app):
        for hint in typing.get_type_hints(route.func, include_extras=True).values():
            args = typing.get_args(hint)
            if len(args) == 2 and isinstance(args[1], Query) and issubclass(args[0], BaseModel):
                found[(route.method.lower(), route.openapi_path)] = args[0]
    return found


def _restore_query_constraints(app, document: dict[str, Any]) -> None:
    """Powertools flattens a query model into plain parameters and drops their constraints
    (formats, bounds, enums); put each field's own JSON schema back."""
    for (method, path), model in _query_models(app).items():
        model_schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        for name, definition in model_schema.get("$defs", {}).items():
            document.setdefault("components", {}).setdefault("schemas", {}).setdefault(name, definition)
        fields = model_schema["properties"]
        for parameter in document["paths"][path][method].get("parameters", []):
            if parameter["in"] == "query" and parameter["name"] in fields:
                schema = dict(fields[parameter["name"]])
                schema.pop("title", None)
                if "anyOf" in schema:  # Optional[X]: absent means null, so the parameter is X
                    schema = next(s for s in schema.pop("anyOf") if s.get("type") != "null") | {
                        k: v for k, v in schema.items() if k != "default"
                    }
                parameter["schema"] = schema
