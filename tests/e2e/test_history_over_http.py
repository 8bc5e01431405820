"""Revert and Idempotency-Key over HTTP against `aurra dev`."""

import httpx


def test_revert_over_http(api):
    client, _ = api()
    vim = client.post("/agent/memories", json={"content": "User uses Vim", "topic": "preferences"}).json()[
        "memory"
    ]
    emacs = client.post(
        "/agent/memories",
        json={"content": "User switched from Vim to Emacs", "topic": "preferences", "auto_supersede": True},
    ).json()
    event_id = emacs["auto_supersede"]["supersession"]["audit_event_id"]
    reverted = client.post(f"/agent/audit/{event_id}/revert")
    assert reverted.status_code == 200, reverted.text
    body = reverted.json()
    assert body["restored"]["id"] == vim["id"] and body["restored"]["status"] == "current"
    assert body["event"]["type"] == "revert"
    assert client.post(f"/agent/audit/{event_id}/revert").json()["error"]["code"] == "conflict"
    assert client.post(f"/agent/audit/{body['event']['id']}/revert").status_code == 422
    assert client.get(f"/agent/memories/{emacs['memory']['id']}").json()["status"] == "current"
    mallory, _ = api()
    assert mallory.post(f"/agent/audit/{event_id}/revert").json()["error"]["code"] == "not_found"


def test_idempotency_key_over_http(api):
    client, _ = api()
    headers = {"Idempotency-Key": "retry-me-1"}
    first = client.post("/agent/memories", json={"content": "alice likes tea"}, headers=headers)
    again = client.post("/agent/memories", json={"content": "alice likes tea"}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert len(client.get("/agent/memories").json()["memories"]) == 1
    clash = client.post("/agent/memories", json={"content": "alice likes coffee"}, headers=headers)
    assert clash.status_code == 409 and clash.json()["error"]["code"] == "conflict"
    too_long = client.post("/agent/memories", json={"content": "x"}, headers={"Idempotency-Key": "k" * 129})
    assert too_long.status_code == 422


def test_the_sdk_retry_never_writes_twice(api, dev_server):
    from aurra import Aurra

    _, _caller = api()
    client, _ = api()
    raw = client.headers["Authorization"].split()[1]
    # A transport that loses the first response after the server has committed the write.
    attempts = []

    class LoseFirstResponse(httpx.HTTPTransport):
        def handle_request(self, request):
            response = super().handle_request(request)
            attempts.append(request.headers.get("Idempotency-Key"))
            if len(attempts) == 1:
                response.read()
                raise httpx.ReadTimeout("lost", request=request)
            return response

    sdk = Aurra(
        api_key=raw,
        base_url=dev_server.base_url,
        max_retries=2,
        http_client=httpx.Client(transport=LoseFirstResponse()),
    )
    sdk._transport.sleep = lambda s: None
    result = sdk.memories.add(content="bob drives a Volvo")
    assert result.created and len(attempts) == 2 and attempts[0] == attempts[1]
    assert [m.content for m in sdk.memories.list()] == ["bob drives a Volvo"]
