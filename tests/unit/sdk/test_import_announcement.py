"""How `aurra import` announces itself (aurra_local.portability): with Level 2, the file's
largest scope goes along, and a service that does not know the field is asked without it."""

from __future__ import annotations

from aurra_local.import_formats import Fact, Plan
from aurra_local.portability import ImportReport, _announce, largest_scope

SHARED = {"indexing": "shared", "reason": "small"}
DEFERRED = {"indexing": "deferred", "reason": "no scope needs an index"}


def _plan() -> Plan:
    scopes = [("u1", None)] * 3 + [("u1", "a")] * 4 + [("u2", None)] * 2 + [(None, None)]
    return Plan(
        facts=[
            Fact(body={"content": f"fact {n}", "user_id": user, "agent_id": agent}, line=n)
            for n, (user, agent) in enumerate(scopes, 1)
        ]
    )


def test_the_largest_scope_counts_user_and_agent_together() -> None:
    assert largest_scope(_plan()) == 4
    assert largest_scope(Plan(facts=[])) == 0


def test_level2_announces_its_largest_scope_and_level2_off_does_not(client, server) -> None:
    server.reply(200, DEFERRED).reply(200, SHARED)
    report = ImportReport()
    assert _announce(client, _plan(), True, report) is True
    assert server.body() == {"facts": 10, "auto_supersede": True, "largest_scope": 4}
    assert report.indexing == "deferred"
    assert _announce(client, _plan(), False, ImportReport()) is False
    assert server.body() == {"facts": 10, "auto_supersede": False}


def test_a_service_that_does_not_know_the_largest_scope_is_asked_without_it(client, server) -> None:
    refused = {
        "error": {"code": "validation_error", "message": "largest_scope: extra inputs are not permitted"}
    }
    server.reply(422, refused).reply(200, SHARED)
    assert _announce(client, _plan(), True, ImportReport()) is False
    assert [server.body(i) for i in range(2)] == [
        {"facts": 10, "auto_supersede": True, "largest_scope": 4},
        {"facts": 10, "auto_supersede": True},
    ]


def test_a_service_without_the_announcement_indexes_as_it_goes(client, server) -> None:
    server.reply(404, {"error": {"code": "not_found", "message": "no route"}})
    assert _announce(client, _plan(), True, ImportReport()) is False
