"""docs/openapi.json is what the handlers generate; regenerate with `aurra openapi --write`."""

import re
from pathlib import Path

from aurra_local import openapi
from aurra_local.environment import apply_local_defaults
from functions import ROUTES

DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"


def test_committed_document_matches_the_code():
    apply_local_defaults()
    assert DOCUMENT.read_text() == openapi.render(), (
        "run `aurra openapi --write` and commit docs/openapi.json"
    )


def test_every_route_documents_its_errors_with_the_envelope():
    apply_local_defaults()
    document = openapi.build()
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            codes = set(operation["responses"])
            assert {"401", "404", "422", "500"} <= codes, (method, path)
            assert operation["responses"]["401"]["content"]["application/json"]["schema"]["$ref"].endswith(
                "ErrorEnvelope"
            )


def test_the_document_has_exactly_the_routes_of_the_one_list():
    """functions.ROUTES (which the local gateway and the CDK app serve) against the document
    the handlers generate; path parameters compared by position, not by name."""
    apply_local_defaults()

    def shape(path: str) -> str:
        return re.sub(r"\{[^}]+\}", "{}", path)

    document = openapi.build()["paths"]
    documented = {
        (method.upper(), shape(path)) for path, operations in document.items() for method in operations
    }
    assert documented == {(method, shape(path)) for method, path, _ in ROUTES}


def test_the_document_is_the_same_with_every_route_prepared_as_its_first_request_does():
    """A route's first request builds its models before Powertools builds its adapters
    (`PerThreadResolver.prepare_route`); a document rendered after that, as `aurra dev`
    serves one, is the committed one."""
    from aurra_core.models import build_models
    from aurra_core.runtime.powertools_internals.resolver import registered_routes, route_annotations
    from aurra_local.lambda_functions import catalog, load_handler

    apply_local_defaults()
    for function in catalog().HTTP_FUNCTIONS:
        app = load_handler(function).app
        assert app.prepare_route is build_models
        for route in registered_routes(app):
            build_models(*route_annotations(route))
    assert DOCUMENT.read_text() == openapi.render()
