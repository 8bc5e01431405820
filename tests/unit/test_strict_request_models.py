"""Every request body model the handlers take is strict: a JSON value of the wrong type is a
422 for that field, never coerced (`true` is not 1.0, "0.9" is not 0.9, 12 is not "12").
The models are found through the handlers' routes, so a new body model is checked too."""

import importlib
import inspect
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from aurra_core.runtime.powertools_internals.resolver import registered_routes
from aurra_local.gateway import FUNCTIONS

# Values of the wrong JSON type for each JSON schema type.
WRONG = {
    "string": [12, 1.5, True],
    "number": [True, "0.9", "nan"],
    "integer": [True, "1", 1.5],
    "boolean": ["true", 1, 0],
    "object": ["{}", [], 1],
    "array": ["a", {}, 1],
}


def body_models() -> list[type[BaseModel]]:
    found: dict[str, type[BaseModel]] = {}
    for function in FUNCTIONS:
        module = importlib.import_module(f"functions.{function}.handler")
        app = getattr(module, "app", None)
        if app is None:
            continue
        for route in registered_routes(app):
            for parameter in inspect.signature(route.func).parameters.values():
                annotation = parameter.annotation
                if isinstance(annotation, str):
                    annotation = route.func.__globals__.get(annotation)
                if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
                    found[annotation.__name__] = annotation
    return list(found.values())


def json_types(schema: dict[str, Any], definitions: dict[str, Any]) -> set[str]:
    if "$ref" in schema:
        return json_types(definitions[schema["$ref"].rsplit("/", 1)[1]], definitions)
    if "anyOf" in schema:
        return set().union(*(json_types(option, definitions) for option in schema["anyOf"]))
    if "enum" in schema:
        return {"string"}
    kind = schema.get("type")
    return {kind} if isinstance(kind, str) else set()


def test_the_handlers_take_the_body_models_we_expect():
    assert {model.__name__ for model in body_models()} >= {
        "WriteBody",
        "SupersedeRequest",
        "SettingsPatch",
    }


@pytest.mark.parametrize("model", body_models(), ids=lambda model: model.__name__)
def test_every_field_refuses_json_values_of_another_type(model: type[BaseModel]):
    schema = model.model_json_schema()
    definitions = schema.get("$defs", {})
    checked = 0
    for field, field_schema in schema["properties"].items():
        types = json_types(field_schema, definitions) - {"null"}
        for kind in types:
            for wrong in WRONG.get(kind, []):
                if any(isinstance(wrong, bool) if t == "boolean" else _is(wrong, t) for t in types):
                    continue  # the value is of another type the field also takes
                with pytest.raises(ValidationError) as info:
                    model.model_validate({field: wrong})
                assert any(error["loc"][:1] == (field,) for error in info.value.errors()), (field, wrong)
                checked += 1
    assert checked


def _is(value: Any, kind: str) -> bool:
    return {
        "string": isinstance(value, str),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
    }.get(kind, False)
