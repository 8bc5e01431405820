"""The API of docs/api.md over HTTP against `aurra dev`: shapes, codes, the envelope."""

import httpx
from dev_server import start_dev_server

EMACS = "User has been using Emacs as their daily editor, having moved away from Vim"


def envelope(response: httpx.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code and error["message"] and isinstance(error["details"], list)
    assert "Traceback" not in response.text
    return error


def test_vim_to_emacs_supersession_and_time_travel(api):
    client, _ = api()
    settings = client.get("/agent/settings").json()
    assert settings == {
        "auto_supersede_default": False,
        "excluded_categories": ["health_medical", "legal_status"],
        "min_confidence": 0.85,
        "classifier_model": "claude-haiku-4-5-20251001",
        "proposal_min_confidence": 0.5,
        "daily_model_calls_limit": None,
        "secrets": "redact",
        "daily_model_cost_limit_usd": None,
        "history_retention_days": None,
        "memory_retention_days": None,
        "auto_supersede_mode": "sync",
        "webhooks": [],
    }
    vim = client.post(
        "/agent/memories",
        json={"content": "User uses Vim", "topic": "preferences", "valid_from": "2026-04-01T00:00:00Z"},
    )
    assert vim.status_code == 201
    assert vim.json()["auto_supersede"] == {
        "ran": False,
        "skipped_reason": "auto_supersede_off",
        "candidates_examined": 0,
        "decision": None,
        "supersession": None,
        "proposal": None,
        "usage": None,
    }
    vim_id = vim.json()["memory"]["id"]
    emacs = client.post(
        "/agent/memories",
        json={
            "content": EMACS,
            "topic": "preferences",
            "valid_from": "2026-05-03T10:00:00Z",
            "auto_supersede": True,
        },
    )
    assert emacs.status_code == 201, emacs.text
    body = emacs.json()
    assert body["created"] is True
    auto = body["auto_supersede"]
    assert auto["ran"] is True and auto["skipped_reason"] is None and auto["candidates_examined"] == 1
    assert auto["decision"]["classifier"] == "contradicts" and auto["decision"]["confidence"] >= 0.85
    assert auto["supersession"]["superseded_id"] == vim_id
    assert auto["decision"]["not_acted_reason"] is None
    assert auto["usage"]["model_calls"] == 1 and auto["usage"]["cost_usd"] == 0  # the offline classifier
    assert body["memory"]["supersedes"] == vim_id and body["memory"]["valid_from"] == "2026-05-03T10:00:00Z"

    now = client.get("/agent/memories").json()
    assert [m["content"] for m in now["memories"]] == [EMACS] and now["next_cursor"] is None
    april = client.get("/agent/memories", params={"as_of": "2026-04-15T00:00:00Z"}).json()["memories"]
    assert [m["content"] for m in april] == ["User uses Vim"]
    recorded = body["memory"]["recorded_at"]
    old = client.get(f"/agent/memories/{vim_id}").json()
    assert old["status"] == "superseded" and old["valid_to"] == "2026-05-03T10:00:00Z"
    assert old["superseded_event_id"] == auto["supersession"]["audit_event_id"]
    assert old["superseded_by"] == body["memory"]["id"]
    history = client.get(f"/agent/memories/{vim_id}/history").json()
    assert [m["id"] for m in history["chain"]] == [vim_id, body["memory"]["id"]]
    assert [v["status"] for v in history["versions"]] == ["current", "superseded"]
    assert history["versions"][1]["recorded_at"] == recorded

    events = client.get("/agent/audit").json()["events"]
    assert events[0]["type"] == "auto_supersede" and events[0]["id"] == auto["supersession"]["audit_event_id"]
    assert client.get(f"/agent/audit/{events[0]['id']}").json() == events[0]
    assert (
        client.get("/agent/audit", params={"memory_id": vim_id, "type": "auto_supersede"}).json()["events"]
        == events[:1]
    )


def test_settings_patch_and_search(api):
    client, _ = api()
    patched = client.patch(
        "/agent/settings",
        json={"excluded_categories": ["health_medical", "legal_status", "financial"], "min_confidence": 0.92},
    )
    assert patched.status_code == 200
    assert patched.json()["min_confidence"] == 0.92 and "financial" in patched.json()["excluded_categories"]
    assert client.get("/agent/audit", params={"type": "settings_updated"}).json()["events"][0]["details"][
        "changes"
    ]
    for text in ("alice uses Vim", "bob lives in Paris"):
        client.post("/agent/memories", json={"content": text})
    found = client.get("/agent/memories", params={"q": "which editor does alice use, vim?"}).json()[
        "memories"
    ]
    assert found[0]["content"] == "alice uses Vim" and found[0]["score"] > found[1]["score"]


def test_manual_supersede_over_http(api):
    client, _ = api()
    a = client.post("/agent/memories", json={"content": "alice works at Acme"}).json()["memory"]
    out = client.post(f"/agent/memories/{a['id']}/supersede", json={"content": "alice works at Globex"})
    assert out.status_code == 201
    assert out.json()["superseded"]["superseded_by"] == out.json()["memory"]["id"]
    again = client.post(f"/agent/memories/{a['id']}/supersede", json={"content": "alice works at Initech"})
    envelope(again, 409, "conflict")
    b = client.post("/agent/memories", json={"content": "bob likes tea"}).json()["memory"]
    c = client.post("/agent/memories", json={"content": "bob likes coffee"}).json()["memory"]
    linked = client.post(f"/agent/memories/{b['id']}/supersede", json={"superseded_by": c["id"]})
    assert linked.status_code == 201 and linked.json()["memory"]["supersedes"] == b["id"]
    envelope(
        client.post(f"/agent/memories/{c['id']}/supersede", json={"superseded_by": c["id"]}),
        422,
        "validation_error",
    )


def test_every_endpoint_refuses_another_tenant(api):
    alice, _ = api()
    mallory, _ = api()
    memory = alice.post("/agent/memories", json={"content": "alice's secret plan"}).json()["memory"]
    alice.post(f"/agent/memories/{memory['id']}/supersede", json={"content": "alice's new secret plan"})
    event = alice.get("/agent/audit").json()["events"][0]
    alice.patch("/agent/settings", json={"min_confidence": 0.9})

    envelope(mallory.get(f"/agent/memories/{memory['id']}"), 404, "not_found")
    envelope(mallory.get(f"/agent/memories/{memory['id']}/history"), 404, "not_found")
    envelope(
        mallory.post(f"/agent/memories/{memory['id']}/supersede", json={"content": "x"}), 404, "not_found"
    )
    mine = mallory.post("/agent/memories", json={"content": "mallory's fact"}).json()["memory"]
    envelope(
        mallory.post(f"/agent/memories/{mine['id']}/supersede", json={"superseded_by": event["memory_id"]}),
        404,
        "not_found",
    )
    envelope(mallory.get(f"/agent/audit/{event['id']}"), 404, "not_found")
    envelope(mallory.post(f"/agent/audit/{event['id']}/approve"), 404, "not_found")
    envelope(mallory.post(f"/agent/audit/{event['id']}/dismiss"), 404, "not_found")
    assert mallory.get("/agent/audit", params={"status": "open"}).json()["events"] == []
    assert mallory.get("/agent/audit", params={"memory_id": memory["id"]}).json()["events"] == []
    listed = mallory.get("/agent/memories", params={"include_superseded": "true", "q": "secret plan"}).json()
    assert [m["id"] for m in listed["memories"]] == [mine["id"]]
    assert mallory.get("/agent/settings").json()["min_confidence"] == 0.85
    assert mallory.post(
        "/agent/memories", json={"content": "alice's secret plan", "auto_supersede": True}
    ).json()["auto_supersede"]["skipped_reason"] in ("no_candidates", None)
    # Asynchronous Level 2's jobs: alice's job is neither listed nor readable by mallory.
    job_id, _ = (
        alice.post(
            "/agent/memories", json={"content": plan, "user_id": "alice", "auto_supersede": "async"}
        ).json()["auto_supersede"]["job_id"]
        for plan in ("alice's plan B", "alice's plan C")
    )
    assert alice.get(f"/agent/jobs/{job_id}").status_code == 200
    envelope(mallory.get(f"/agent/jobs/{job_id}"), 404, "not_found")
    assert mallory.get("/agent/jobs").json() == {"jobs": [], "next_cursor": None}
    assert mallory.get("/agent/jobs", params={"user_id": "alice"}).json()["jobs"] == []
    first = alice.get("/agent/jobs", params={"limit": 1}).json()
    assert len(first["jobs"]) == 1 and first["next_cursor"]
    envelope(
        mallory.get("/agent/jobs", params={"limit": 1, "cursor": first["next_cursor"]}),
        422,
        "validation_error",
    )


def test_documented_client_errors(api, dev_server):
    client, _ = api()
    url = dev_server.base_url
    # 400: not JSON
    envelope(
        client.post("/agent/memories", content=b"{not json", headers={"content-type": "application/json"}),
        400,
        "bad_request",
    )
    envelope(
        client.post(
            "/agent/memories",
            content=b"content=hi",
            headers={"content-type": "application/x-www-form-urlencoded"},
        ),
        400,
        "bad_request",
    )
    # 401: missing, wrong, malformed keys
    envelope(httpx.get(f"{url}/agent/settings"), 401, "unauthorized")
    envelope(
        httpx.get(f"{url}/agent/settings", headers={"Authorization": "Bearer aurra_nope_nope"}),
        401,
        "unauthorized",
    )
    envelope(
        httpx.get(f"{url}/agent/settings", headers={"Authorization": "Basic dXNlcjpwYXNz"}),
        401,
        "unauthorized",
    )
    # 404: unknown memory, unknown event, unknown route
    missing = "0192f0c4-0000-7000-8000-000000000001"
    envelope(client.get(f"/agent/memories/{missing}"), 404, "not_found")
    envelope(client.get(f"/agent/audit/{missing}"), 404, "not_found")
    envelope(client.get("/agent/nothing-here"), 404, "not_found")
    # 413: body too large
    envelope(client.post("/agent/memories", json={"content": "x" * 70_000}), 413, "payload_too_large")
    # 422: the validation rules
    error = envelope(client.patch("/agent/settings", json={"min_confidence": 0.5}), 422, "validation_error")
    assert error["message"] == "min_confidence must be >= 0.85"
    assert error["details"][0]["field"] == "min_confidence"
    for bad in (
        {},
        {"content": "   "},
        {"content": "x" * 4001},
        {"content": "a", "valid_from": "2026-04-01T00:00:00"},
        {"content": "a", "topic": "Not A Topic"},
        {"content": "a", "colour": "blue"},
        {"content": "a", "auto_supersede": "yes"},
        {"content": "a", "metadata": {"blob": "x" * 9000}},
    ):
        envelope(client.post("/agent/memories", json=bad), 422, "validation_error")
    envelope(client.patch("/agent/settings", json={"classifier_model": "gpt-4o"}), 422, "validation_error")
    # a Claude model the deployment does not allow: the operator pays for every call
    dearest = envelope(
        client.patch("/agent/settings", json={"classifier_model": "claude-opus-4-1-20250805"}),
        422,
        "validation_error",
    )
    (detail,) = dearest["details"]
    assert detail["field"] == "classifier_model" and "claude-haiku-4-5-20251001" in detail["problem"]
    assert client.get("/agent/settings").json()["classifier_model"] == "claude-haiku-4-5-20251001"
    chosen = client.patch("/agent/settings", json={"classifier_model": "claude-sonnet-4-5-20250929"})
    assert chosen.status_code == 200 and chosen.json()["classifier_model"] == "claude-sonnet-4-5-20250929"
    envelope(
        client.patch("/agent/settings", json={"excluded_categories": [f"t{i}" for i in range(51)]}),
        422,
        "validation_error",
    )
    envelope(client.get("/agent/memories", params={"limit": 0}), 422, "validation_error")
    envelope(client.get("/agent/memories", params={"limit": 101}), 422, "validation_error")
    envelope(client.get("/agent/memories", params={"as_of": "2026-04-01T00:00:00"}), 422, "validation_error")
    envelope(client.get("/agent/memories", params={"cursor": "garbage"}), 422, "validation_error")
    envelope(client.get("/agent/memories/not-a-uuid"), 422, "validation_error")
    envelope(client.get("/agent/audit", params={"type": "nope"}), 422, "validation_error")
    envelope(client.get("/agent/audit", params={"status": "pending"}), 422, "validation_error")
    envelope(client.get("/agent/audit", params={"type": "revert", "status": "open"}), 422, "validation_error")
    for bad in (
        {"proposal_min_confidence": 0.9},
        {"proposal_min_confidence": -1},
        {"daily_model_calls_limit": -1},
        {"daily_model_calls_limit": 1.5},
        {"daily_model_calls_limit": "10"},
        {"daily_model_cost_limit_usd": -0.01},
        {"daily_model_cost_limit_usd": "5"},
        {"daily_model_cost_limit_usd": True},
        {"daily_model_cost_limit_usd": 10_000_000},
    ):
        envelope(client.patch("/agent/settings", json=bad), 422, "validation_error")
    error = envelope(
        client.patch("/agent/settings", json={"proposal_min_confidence": 0.85}), 422, "validation_error"
    )
    assert error["details"][0]["field"] == "proposal_min_confidence"
    # null is a value for these two: no proposals, no limit
    cleared = client.patch(
        "/agent/settings", json={"proposal_min_confidence": None, "daily_model_calls_limit": 5}
    )
    assert cleared.status_code == 200, cleared.text
    assert (cleared.json()["proposal_min_confidence"], cleared.json()["daily_model_calls_limit"]) == (None, 5)
    dollars = client.patch("/agent/settings", json={"daily_model_cost_limit_usd": 2.5})
    assert dollars.status_code == 200 and dollars.json()["daily_model_cost_limit_usd"] == 2.5
    cleared_dollars = client.patch("/agent/settings", json={"daily_model_cost_limit_usd": None})
    assert cleared_dollars.json()["daily_model_cost_limit_usd"] is None
    envelope(client.post(f"/agent/audit/{missing}/approve"), 404, "not_found")
    envelope(client.post(f"/agent/audit/{missing}/dismiss"), 404, "not_found")
    settings_event = client.get("/agent/audit", params={"type": "settings_updated"}).json()["events"][0]
    envelope(client.post(f"/agent/audit/{settings_event['id']}/approve"), 422, "validation_error")


def test_throttled_key_gets_429(pg_url, new_key, tmp_path):
    server = start_dev_server(pg_url, tmp_path, "--throttle-rps", "1", "--throttle-burst", "2")
    try:
        _, raw = new_key()
        responses = [
            httpx.get(f"{server.base_url}/agent/settings", headers={"Authorization": f"Bearer {raw}"})
            for _ in range(6)
        ]
        assert [r.status_code for r in responses[:2]] == [200, 200]
        limited = [r for r in responses if r.status_code == 429]
        assert limited, [r.status_code for r in responses]
        envelope(limited[0], 429, "rate_limited")
    finally:
        server.process.terminate()
        server.process.wait(10)


def test_swagger_ui_and_the_openapi_document_are_served_locally(dev_server):
    document = httpx.get(f"{dev_server.base_url}/openapi.json").json()
    assert "/agent/memories" in document["paths"]
    assert "swagger-ui" in httpx.get(f"{dev_server.base_url}/docs").text


def test_job_reads_refuse_bad_input_with_the_envelope(api):
    client, _ = api()
    for params in (
        {"status": "running"},
        {"status": "nope"},
        {"limit": "0"},
        {"limit": "101"},
        {"memory_id": "not-a-uuid"},
        {"user_id": "bad user"},
        {"cursor": "forged.cursor"},
        {"colour": "blue"},
    ):
        envelope(client.get("/agent/jobs", params=params), 422, "validation_error")
    envelope(client.get("/agent/jobs/not-a-uuid"), 422, "validation_error")
    envelope(client.get("/agent/jobs/0192f0c4-0000-7000-8000-000000000001"), 404, "not_found")
    assert client.get("/agent/jobs", params={"status": "done", "limit": "100"}).json() == {
        "jobs": [],
        "next_cursor": None,
    }
