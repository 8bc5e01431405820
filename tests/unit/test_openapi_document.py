"""docs/openapi.json is what the handlers generate; regenerate with `aurra openapi --write`."""

from aurra_local import openapi
from aurra_local.environment import apply_local_defaults


def test_committed_document_matches_the_code():
    apply_local_defaults()
    assert openapi.DOCUMENT.read_text() == openapi.render(), (
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
