"""Every fixture in events/ run through the real CLI (`aurra invoke FUNCTION --event FILE`).

The fixtures carry placeholder tenant, key, memory and audit event ids. Each test makes a
fresh key, creates what the route needs (a memory, a supersession) in-process, puts the
real ids in place of the placeholders, and runs the fixture in a subprocess against the
session's PostgreSQL, exactly as a developer would from a shell.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from aurra_local import gateway

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"

TENANT = "0192f0c4-0000-7000-8000-00000000a001"
API_KEY_ID = "0192f0c4-0000-7000-8000-00000000b001"
MEMORY_ID = "0192f0c4-0000-7000-8000-00000000c001"
AUDIT_EVENT_ID = "0192f0c4-0000-7000-8000-00000000d001"
ERASURE_ID = "0192f0c4-0000-7000-8000-00000000e001"
TOKEN = "aurra_0123456789ab_REPLACE-WITH-A-KEY-FROM-aurra-keys-create"

# fixture -> (what must exist first, which of its ids the fixture names, expected statusCode)
CASES: dict[str, tuple[str | None, tuple[str, ...], int]] = {
    "write_memory": (None, (), 201),
    "write_messages": (None, (), 201),
    "write_batch": (None, (), 201),
    "list_memories": ("memory", (), 200),
    "search_memories": ("memory", (), 200),
    "export": ("memory", (), 200),
    "get_memory": ("memory", ("memory_id",), 200),
    "memory_history": ("memory", ("memory_id",), 200),
    "supersede_memory": ("memory", ("memory_id",), 201),
    "get_settings": (None, (), 200),
    "update_settings": (None, (), 200),
    "list_audit": ("supersession", ("memory_id",), 200),
    "get_audit_event": ("supersession", ("audit_event_id",), 200),
    "list_proposals": ("proposal", (), 200),
    "list_events": ("supersession", (), 200),
    "announce_import": (None, (), 200),
    "build_import_index": (None, (), 200),
    "import_indexing": (None, (), 200),
}
PROXY_FIXTURES = [
    *CASES,
    "revert_audit_event",
    "approve_proposal",
    "dismiss_proposal",
    "create_erasure",
    "get_erasure",
    "list_webhook_deliveries",
    "replay_webhook_delivery",
    "list_jobs",
    "get_job",
]

pytestmark = pytest.mark.integration


# ---------------------------------------------------------------- helpers


def load(name: str) -> dict[str, Any]:
    return json.loads((EVENTS / f"{name}.json").read_text())


def function_for(name: str) -> str:
    event = load(name)
    found = gateway.match(event["httpMethod"], event["path"])
    assert found is not None, f"{name}: no route for {event['httpMethod']} {event['path']}"
    return found[1]


def instantiate(name: str, tmp_path: Path, caller: Any, **ids: str) -> Path:
    """Write a copy of the fixture with the placeholders replaced by real ids."""
    text = (EVENTS / f"{name}.json").read_text()
    replacements = {TENANT: str(caller.tenant_id), API_KEY_ID: str(caller.api_key_id)}
    if "memory_id" in ids:
        replacements[MEMORY_ID] = ids["memory_id"]
    if "audit_event_id" in ids:
        replacements[AUDIT_EVENT_ID] = ids["audit_event_id"]
    if "erasure_id" in ids:
        replacements[ERASURE_ID] = ids["erasure_id"]
    for placeholder, value in replacements.items():
        assert placeholder in text, f"{name}.json does not carry the placeholder {placeholder}"
        text = text.replace(placeholder, value)
    path = tmp_path / f"{name}.json"
    path.write_text(text)
    return path


def run_invoke(
    function: str, event_path: Path, pg_url: str, *options: str, **env_vars: str
) -> tuple[int, dict[str, Any]]:
    """`aurra invoke FUNCTION --event FILE [OPTIONS]` in a subprocess: (exit code, the printed JSON)."""
    env = dict(os.environ, AURRA_DATABASE_URL=pg_url, **env_vars)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "layers" / "core" / "python"), str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    proc = subprocess.run(
        [sys.executable, "-m", "aurra_local.cli", "invoke", function, "--event", str(event_path), *options],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # The CLI prints the response as indented JSON; anything logged before it is one line per record.
    lines = proc.stdout.splitlines()
    starts = [i for i, line in enumerate(lines) if line == "{"]
    assert starts, f"no JSON printed (exit {proc.returncode})\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    try:
        printed = json.loads("\n".join(lines[starts[-1] :]))
    except json.JSONDecodeError as exc:
        raise AssertionError(
            f"unparsable output: {exc}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        ) from None
    return proc.returncode, printed


def invoke_fixture(
    name: str, tmp_path: Path, pg_url: str, caller: Any, **ids: str
) -> tuple[dict[str, Any], Any]:
    """Run a proxy fixture; return the proxy response and its parsed body."""
    code, response = run_invoke(function_for(name), instantiate(name, tmp_path, caller, **ids), pg_url)
    assert code == 0, f"{name}: the CLI failed: {response}"
    assert set(response) >= {"statusCode", "body"}, response
    if content_type(response) == "application/x-ndjson":  # GET /agent/export: one JSON value a line
        return response, [json.loads(line) for line in response["body"].splitlines()]
    body = json.loads(response["body"]) if response.get("body") else None
    return response, body


def content_type(response: dict[str, Any]) -> str | None:
    """A REST proxy response may carry its headers in `headers` or in `multiValueHeaders`."""
    if "Content-Type" in (response.get("headers") or {}):
        return response["headers"]["Content-Type"]
    values = (response.get("multiValueHeaders") or {}).get("Content-Type")
    return values[-1] if values else None


def make_memory(caller: Any) -> str:
    """The write fixture's own body, stored in-process."""
    from aurra_core import service
    from aurra_core.models import WriteRequest

    _, result = service.write_memory(caller, WriteRequest(**json.loads(load("write_memory")["body"])))
    return str(result.memory.id)


def make_supersession(caller: Any) -> tuple[str, str]:
    """A memory superseded by the supersede fixture's body; returns (old memory id, its audit event id)."""
    from uuid import UUID

    from aurra_core import service
    from aurra_core.models import AuditListQuery, AuditType, SupersedeRequest

    memory_id = make_memory(caller)
    service.supersede_memory(
        caller, UUID(memory_id), SupersedeRequest(**json.loads(load("supersede_memory")["body"]))
    )
    page = service.list_audit_events(caller, AuditListQuery(type=AuditType.MANUAL_SUPERSEDE))
    events = [e for e in page.events if str(e.superseded_id) == memory_id]
    assert len(events) == 1, page
    return memory_id, str(events[0].id)


class _ProposingClassifier:
    """A classifier double (the classifier port, not storage): a contradiction at 0.7, below
    the default min_confidence (0.85) and above proposal_min_confidence (0.5)."""

    def classify(self, new_content: str, new_topic: str, candidates: list[Any], model: str) -> Any:
        from aurra_core.classifiers.base import Classification, ClassifierVerdict
        from aurra_core.models import Verdict

        verdicts = [
            ClassifierVerdict(c.id, Verdict.CONTRADICTS, 0.7, "the editor changed") for c in candidates
        ]
        return Classification(verdicts, "scripted-model", input_tokens=10, output_tokens=2)


def make_proposal(caller: Any) -> tuple[str, str]:
    """A memory and a later write proposed to supersede it; returns (old memory id, proposal event id)."""
    from aurra_core.embedders import get_embedder
    from aurra_core.models import WriteRequest
    from aurra_core.runtime.flags import EnvFlagSource
    from aurra_core.storage.db import get_database
    from aurra_core.write_path.pipeline import WriteDependencies, write_memory

    memory_id = make_memory(caller)
    deps = WriteDependencies(
        db=get_database(),
        embedder=get_embedder(),
        classifier_factory=_ProposingClassifier,
        flags=EnvFlagSource(True),
    )
    body = json.loads(load("write_memory")["body"])
    outcome = write_memory(caller, WriteRequest(**{**body, "valid_from": "2026-06-01T00:00:00Z"}), deps)
    proposal = outcome.result.auto_supersede.proposal
    assert proposal is not None and str(proposal.superseded_id) == memory_id, outcome
    return memory_id, str(proposal.audit_event_id)


# ---------------------------------------------------------------- the fixtures themselves


def test_every_route_has_a_fixture() -> None:
    covered = set()
    for name in PROXY_FIXTURES:
        event = load(name)
        covered.add((event["httpMethod"], event["resource"]))
    assert covered == {(method, resource) for method, resource, _ in gateway.ROUTES}


@pytest.mark.parametrize("name", PROXY_FIXTURES)
def test_fixture_is_a_rest_proxy_event(name: str) -> None:
    event = load(name)
    found = gateway.match(event["httpMethod"], event["path"])
    assert found is not None
    resource, _, params = found
    assert event["resource"] == resource
    assert (event["pathParameters"] or {}) == params
    assert event["stageVariables"] is None
    assert event["isBase64Encoded"] is False
    assert event["multiValueHeaders"] == {k: [v] for k, v in event["headers"].items()}
    query, multi = event["queryStringParameters"], event["multiValueQueryStringParameters"]
    assert (query is None) == (multi is None)
    if query is not None:
        assert multi == {k: [v] for k, v in query.items()}
    ctx = event["requestContext"]
    assert ctx["resourcePath"] == resource
    assert ctx["httpMethod"] == event["httpMethod"]
    assert ctx["path"] == f"/{ctx['stage']}{event['path']}"
    assert ctx["stage"] == "prod"
    assert ctx["authorizer"] == {
        "principalId": API_KEY_ID,
        "tenant_id": TENANT,
        "api_key_id": API_KEY_ID,
        "integrationLatency": 0,
    }
    if event["body"] is None:
        assert "Content-Type" not in event["headers"]
    else:
        json.loads(event["body"])
        assert event["headers"]["Content-Type"] == "application/json"
        assert event["headers"]["Content-Length"] == str(len(event["body"].encode()))


# ---------------------------------------------------------------- as shipped, through `aurra invoke`

# What events/README.md says each fixture answers as shipped, its placeholder ids naming nothing
# in the database: a proxy response's status, the authorizer's refusal, the maintenance report.
AS_SHIPPED: dict[str, int | str] = {
    "write_memory": 404,
    "write_messages": 404,
    "write_batch": 404,
    "get_settings": 404,
    "update_settings": 404,
    "get_memory": 404,
    "memory_history": 404,
    "supersede_memory": 404,
    "get_audit_event": 404,
    "revert_audit_event": 404,
    "approve_proposal": 404,
    "dismiss_proposal": 404,
    "create_erasure": 404,
    "get_erasure": 404,
    "list_memories": 200,
    "search_memories": 200,
    "export": 200,
    "list_audit": 200,
    "list_proposals": 200,
    "list_events": 200,
    "list_webhook_deliveries": 200,
    "replay_webhook_delivery": 404,
    "list_jobs": 200,
    "get_job": 404,
    "announce_import": 404,
    "build_import_index": 404,
    "import_indexing": 404,
    "authorizer": "Unauthorized",
    "scheduled_maintenance": "report",
    # The job named does not exist: nothing to do, and no message failed.
    "level2_jobs": "batch",
    "scheduled_level2_sweep": "sweep",
    # No bus configured locally: it delivers webhooks (none are due) for its whole run.
    "scheduled_dispatcher": "dispatch",
}
EVERY_FIXTURE = sorted(path.stem for path in EVENTS.glob("*.json"))
# The write function reads the key's settings first only when the Level 2 switch is on: its
# fixtures run both ways.
WRITES = [name for name in EVERY_FIXTURE if "httpMethod" in load(name) and function_for(name) == "write"]


def shipped_function(name: str) -> str:
    """The function `aurra invoke` is given for a fixture, as events/README.md's table names it."""
    event = load(name)
    if "httpMethod" in event:
        return function_for(name)
    if event.get("type") == "TOKEN":
        return "authorizer"
    if "Records" in event:
        return "level2_worker"
    assert event.get("detail-type") == "Scheduled Event", f"{name}.json: which function takes it?"
    rule = event["resources"][0]
    if rule.endswith("-dispatcher"):
        return "dispatcher"
    return "level2_worker" if rule.endswith("level2-sweep") else "maintenance"


def test_every_fixture_has_its_answer_as_shipped() -> None:
    assert sorted(AS_SHIPPED) == EVERY_FIXTURE


@pytest.mark.parametrize(
    ("name", "level2"),
    [(name, "false") for name in EVERY_FIXTURE] + [(name, "true") for name in WRITES],
)
def test_every_fixture_as_shipped_answers_as_documented_never_5xx(
    name: str, level2: str, pg_url: str
) -> None:
    """`aurra invoke FUNCTION --event events/NAME.json` exactly as a newcomer runs it, unchanged."""
    # The dispatcher drains until shortly before its time is up: with 10 s left, one round.
    options = ("--time-left", "10") if name == "scheduled_dispatcher" else ()
    code, printed = run_invoke(
        shipped_function(name), EVENTS / f"{name}.json", pg_url, *options, AURRA_LEVEL2_ENABLED=level2
    )
    expected = AS_SHIPPED[name]
    if expected == "Unauthorized":  # API Gateway's 401
        assert (code, printed) == (1, {"errorMessage": "Unauthorized", "errorType": "Exception"})
        return
    assert code == 0, printed
    if expected == "report":
        assert printed["ran"] is True, printed
        return
    if expected == "batch":
        assert printed == {"batchItemFailures": []}, printed
        return
    if expected == "sweep":
        assert isinstance(printed["nudged"], int), printed
        return
    if expected == "dispatch":
        assert printed["rounds"] == 1 and printed["published"] == 0, printed
        assert printed["stalled_tenants"] == [] and printed["outbox_lag_s"] == 0, printed
        return
    assert printed["statusCode"] < 500, printed
    body = json.loads(printed["body"])
    assert printed["statusCode"] == expected, body
    if expected == 404:
        assert body["error"]["code"] == "not_found", body
    elif name == "list_events":  # the change stream always gives a cursor to poll from
        assert body["events"] == [] and body["next_cursor"], body
    else:
        assert body["next_cursor"] is None, body
        assert not (body.get("memories") or body.get("events") or body.get("jobs")), body


# ---------------------------------------------------------------- through `aurra invoke`, with real ids


@pytest.mark.parametrize("name", list(CASES))
def test_fixture_through_invoke(name: str, tmp_path: Path, pg_url: str, new_key) -> None:
    needs, named, expected = CASES[name]
    caller, _ = new_key()
    ids: dict[str, str] = {}
    if needs == "memory":
        ids["memory_id"] = make_memory(caller)
    elif needs == "supersession":
        ids["memory_id"], ids["audit_event_id"] = make_supersession(caller)
    elif needs == "proposal":
        ids["memory_id"], ids["audit_event_id"] = make_proposal(caller)

    response, body = invoke_fixture(name, tmp_path, pg_url, caller, **{k: ids[k] for k in named})

    assert response["statusCode"] == expected, body
    assert content_type(response) == ("application/x-ndjson" if name == "export" else "application/json")
    if name == "write_memory":
        assert body["created"] is True
        assert body["memory"]["content"] == json.loads(load(name)["body"])["content"]
        assert body["memory"]["valid_from"] == "2026-05-03T10:00:00Z"
    elif name == "write_messages":
        assert [f["memory"]["content"] for f in body["facts"]] == [
            "User moved to Berlin last month",
            "User uses Emacs now",
        ]
        assert {f["memory"]["user_id"] for f in body["facts"]} == {"alice"}
        assert {f["memory"]["valid_from"] for f in body["facts"]} == {"2026-05-03T10:00:00Z"}
        assert body["extraction"]["extractor"] == "rules" and body["extraction"]["facts_found"] == 2
    elif name == "write_batch":
        vim, emacs, berlin = body["results"]
        assert [r["memory"]["content"] for r in body["results"]] == [
            f["content"] for f in json.loads(load(name)["body"])["facts"]
        ]
        assert {r["memory"]["user_id"] for r in body["results"]} == {"alice"}
        assert berlin["memory"]["metadata"] == {"imported_from": "crm"}
        if emacs["auto_supersede"]["skipped_reason"] is None:  # the Level 2 switch is on here
            assert emacs["auto_supersede"]["supersession"]["superseded_id"] == vim["memory"]["id"]
        else:
            assert emacs["auto_supersede"]["skipped_reason"] == "level_2_disabled_by_env"
    elif name == "announce_import":
        # 250,000 facts take a fresh tenant past the threshold: its index waits for the end.
        assert body["indexing"] == "deferred", body
    elif name in ("build_import_index", "import_indexing"):
        # Nothing announced: the tenant's memories go to the shared index, nothing to build.
        assert body["indexing"] == "shared", body
    elif name == "export":
        assert [line["kind"] for line in body] == ["memory_version", "end"]
        assert body[0]["id"] == ids["memory_id"] and body[-1]["next_cursor"] is None
    elif name == "list_memories":
        # What was known on 2026-06-02 about 2026-06-01: the query parsed (no 422); a memory
        # recorded after that known_at is rightly absent, so only the page's shape is checked.
        assert body["next_cursor"] is None
        assert isinstance(body["memories"], list)
    elif name == "search_memories":
        found = {m["id"]: m for m in body["memories"]}
        assert ids["memory_id"] in found
        assert "score" in found[ids["memory_id"]]
    elif name == "get_memory":
        assert body["id"] == ids["memory_id"]
        assert body["status"] == "current"
    elif name == "memory_history":
        assert body["memory_id"] == ids["memory_id"]
        assert [m["id"] for m in body["chain"]] == [ids["memory_id"]]
    elif name == "supersede_memory":
        assert body["superseded"]["id"] == ids["memory_id"]
        assert body["superseded"]["status"] == "superseded"
        assert body["superseded"]["valid_to"] == body["memory"]["valid_from"] == "2026-06-10T09:00:00Z"
    elif name == "get_settings":
        assert body["min_confidence"] == 0.85
    elif name == "update_settings":
        assert body["min_confidence"] == 0.9
        assert body["excluded_categories"] == ["health_medical", "legal_status", "finances"]
    elif name == "list_audit":
        assert [(e["type"], e["superseded_id"]) for e in body["events"]] == [
            ("manual_supersede", ids["memory_id"])
        ]
    elif name == "list_proposals":
        assert [(e["id"], e["status"], e["superseded_id"]) for e in body["events"]] == [
            (ids["audit_event_id"], "open", ids["memory_id"])
        ]
    elif name == "list_events":
        old = ids["memory_id"]
        assert [(e["type"], e["memory_id"] == old) for e in body["events"]] == [
            ("memory.created", True),
            ("memory.created", False),
            ("memory.superseded", True),
        ]
        assert body["events"][2]["data"]["superseded_by"] == body["events"][1]["memory_id"]
        assert body["next_cursor"]
    elif name == "get_audit_event":
        assert body["id"] == ids["audit_event_id"]
        assert body["type"] == "manual_supersede"
        assert body["api_key_id"] == str(caller.api_key_id)


def test_revert_fixture(tmp_path: Path, pg_url: str, new_key) -> None:
    caller, _ = new_key()
    memory_id, event_id = make_supersession(caller)
    response, body = invoke_fixture("revert_audit_event", tmp_path, pg_url, caller, audit_event_id=event_id)
    assert response["statusCode"] == 200, body
    assert body["event"]["type"] == "revert"
    assert body["restored"]["id"] == memory_id
    assert body["restored"]["status"] == "current"


def test_approve_fixture(tmp_path: Path, pg_url: str, new_key) -> None:
    caller, _ = new_key()
    memory_id, event_id = make_proposal(caller)
    response, body = invoke_fixture("approve_proposal", tmp_path, pg_url, caller, audit_event_id=event_id)
    assert response["statusCode"] == 201, body
    assert body["event"]["type"] == "proposal_approved"
    assert body["superseded"]["id"] == memory_id and body["superseded"]["status"] == "superseded"
    assert body["superseded"]["superseded_event_id"] == body["event"]["id"]
    again, body = invoke_fixture("approve_proposal", tmp_path, pg_url, caller, audit_event_id=event_id)
    assert again["statusCode"] == 409 and body["error"]["code"] == "conflict"


def test_dismiss_fixture(tmp_path: Path, pg_url: str, new_key) -> None:
    caller, _ = new_key()
    memory_id, event_id = make_proposal(caller)
    stranger, _ = new_key()
    theirs, body = invoke_fixture("dismiss_proposal", tmp_path, pg_url, stranger, audit_event_id=event_id)
    assert theirs["statusCode"] == 404, body
    response, body = invoke_fixture("dismiss_proposal", tmp_path, pg_url, caller, audit_event_id=event_id)
    assert response["statusCode"] == 200, body
    assert body["event"]["type"] == "proposal_dismissed" and body["event"]["superseded_id"] == memory_id


def test_erasure_fixtures(tmp_path: Path, pg_url: str, new_key) -> None:
    """The write_messages fixture's memories of alice, erased by the create_erasure fixture:
    201 with a receipt, 200 with the same one again; the receipt reads back through
    get_erasure for its tenant and is a 404 for another."""
    caller, _ = new_key()
    stranger, _ = new_key()
    written, body = invoke_fixture("write_messages", tmp_path, pg_url, caller)
    assert written["statusCode"] == 201, body
    memory_ids = [f["memory"]["id"] for f in body["facts"]]
    response, receipt = invoke_fixture("create_erasure", tmp_path, pg_url, caller)
    assert response["statusCode"] == 201, receipt
    assert receipt["selector"] == {"user_id": "alice"} and receipt["counts"]["memories"] == 2
    again, repeated = invoke_fixture("create_erasure", tmp_path, pg_url, caller)
    assert again["statusCode"] == 200 and repeated == receipt
    read, body = invoke_fixture("get_erasure", tmp_path, pg_url, caller, erasure_id=receipt["id"])
    assert read["statusCode"] == 200 and body == receipt
    theirs, body = invoke_fixture("get_erasure", tmp_path, pg_url, stranger, erasure_id=receipt["id"])
    assert theirs["statusCode"] == 404 and body["error"]["code"] == "not_found"
    gone, body = invoke_fixture("get_memory", tmp_path, pg_url, caller, memory_id=memory_ids[0])
    assert gone["statusCode"] == 410 and body["error"]["code"] == "gone"


def test_write_then_get_through_invoke_is_tenant_isolated(tmp_path: Path, pg_url: str, new_key) -> None:
    owner, _ = new_key()
    stranger, _ = new_key()
    response, body = invoke_fixture("write_memory", tmp_path, pg_url, owner)
    assert response["statusCode"] == 201, body
    memory_id = body["memory"]["id"]

    theirs, body = invoke_fixture("get_memory", tmp_path, pg_url, stranger, memory_id=memory_id)
    assert theirs["statusCode"] == 404, body
    assert body["error"]["code"] == "not_found"

    mine, body = invoke_fixture("get_memory", tmp_path, pg_url, owner, memory_id=memory_id)
    assert mine["statusCode"] == 200, body
    assert body["id"] == memory_id


# ---------------------------------------------------------------- the authorizer


def test_authorizer_fixture_allows_a_real_key(tmp_path: Path, pg_url: str, new_key) -> None:
    caller, raw = new_key()
    text = (EVENTS / "authorizer.json").read_text()
    assert TOKEN in text
    path = tmp_path / "authorizer.json"
    path.write_text(text.replace(TOKEN, raw))

    code, policy = run_invoke("authorizer", path, pg_url)

    assert code == 0, policy
    key_id = str(caller.api_key_id)
    assert policy["principalId"] == key_id
    assert policy["context"] == {"tenant_id": str(caller.tenant_id), "api_key_id": key_id}
    assert policy["usageIdentifierKey"] == key_id
    statements = policy["policyDocument"]["Statement"]
    allow = [s for s in statements if s["Effect"] == "Allow"]
    assert allow and all(s["Action"] == "execute-api:Invoke" for s in allow)
    resources = [
        r for s in allow for r in (s["Resource"] if isinstance(s["Resource"], list) else [s["Resource"]])
    ]
    assert "arn:aws:execute-api:us-east-1:123456789012:abcdef1234/prod/*/*" in resources
    assert not [s for s in statements if s["Effect"] == "Deny"]


@pytest.mark.parametrize("token", ["placeholder", "wrong secret"])
def test_authorizer_fixture_refuses_a_wrong_key(token: str, tmp_path: Path, pg_url: str, new_key) -> None:
    _, raw = new_key()
    text = (EVENTS / "authorizer.json").read_text()
    if token == "wrong secret":
        text = text.replace(TOKEN, raw[:-4] + ("AAAA" if not raw.endswith("AAAA") else "BBBB"))
    path = tmp_path / "authorizer.json"
    path.write_text(text)

    code, printed = run_invoke("authorizer", path, pg_url)

    assert code == 1
    assert printed["errorMessage"] == "Unauthorized"


def test_level2_jobs_fixture_decides_a_real_job(tmp_path: Path, pg_url: str, new_key, configure) -> None:
    """The queue message fixture with a real job: the worker function decides it, once."""
    from aurra_core import service
    from aurra_core.models import PointInTime, WriteRequest

    configure(AURRA_LEVEL2_ENABLED="true")
    caller, _ = new_key()
    _, vim = service.write_memory(caller, WriteRequest(content="alice uses Vim"))
    _, emacs = service.write_memory(
        caller, WriteRequest(content="alice switched to Emacs", auto_supersede="async")
    )
    job_id = emacs.auto_supersede.job_id
    assert job_id is not None
    text = (EVENTS / "level2_jobs.json").read_text()
    assert ERASURE_ID in text and TENANT in text
    path = tmp_path / "level2_jobs.json"
    path.write_text(text.replace(ERASURE_ID, str(job_id)).replace(TENANT, str(caller.tenant_id)))
    for _ in range(2):  # a redelivery changes nothing
        code, printed = run_invoke("level2_worker", path, pg_url, AURRA_LEVEL2_ENABLED="true")
        assert (code, printed) == (0, {"batchItemFailures": []})
    old = service.get_memory(caller, vim.memory.id, PointInTime())
    assert old.status == "superseded" and old.superseded_by == emacs.memory.id


def test_job_fixtures_with_a_real_job(tmp_path: Path, pg_url: str, new_key, configure) -> None:
    """`list_jobs` and `get_job` with a real pending job: the tenant's own, and no other's."""
    from aurra_core import service
    from aurra_core.models import WriteRequest

    configure(AURRA_LEVEL2_ENABLED="true")
    caller, _ = new_key()
    stranger, _ = new_key()
    _, emacs = service.write_memory(
        caller, WriteRequest(content="alice switched to Emacs", user_id="alice", auto_supersede="async")
    )
    job_id = str(emacs.auto_supersede.job_id)
    listed, body = invoke_fixture("list_jobs", tmp_path, pg_url, caller)
    assert listed["statusCode"] == 200 and body["next_cursor"] is None, body
    # Pending, unless a Level 2 worker of the session's `aurra dev` (same database) took it
    # already: the fixture lists pending jobs only, so it lists this one or none.
    same = ("id", "memory_id", "user_id", "agent_id", "created_at")
    for job in body["jobs"]:
        assert (job["id"], job["memory_id"], job["user_id"]) == (job_id, str(emacs.memory.id), "alice")
        assert job["status"] in ("pending", "running")
    assert "Emacs" not in json.dumps(body)
    read, body = invoke_fixture("get_job", tmp_path, pg_url, caller, erasure_id=job_id)
    assert read["statusCode"] == 200 and body["id"] == job_id and body["user_id"] == "alice", body
    assert set(body) == {*same, "status", "attempts", "completed_at", "outcome", "audit_event_id"}
    theirs, body = invoke_fixture("get_job", tmp_path, pg_url, stranger, erasure_id=job_id)
    assert theirs["statusCode"] == 404 and body["error"]["code"] == "not_found"
    _, body = invoke_fixture("list_jobs", tmp_path, pg_url, stranger)
    assert body["jobs"] == []
