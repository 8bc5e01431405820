"""No secrets kept, over HTTP against `aurra dev`: the `secrets` setting through GET and PATCH
/agent/settings, a write's credentials redacted in what comes back, and a refused write's 422
envelope (docs/api.md, "Secrets")."""

import httpx

KEY = "sk-" + "Tq7vZp2mXc9LwK4rBn8sHd3fGj6yUe1aQo5iRt0kMv7xCb2z"
CARD = "4539-1488-0343-6467"


def envelope(response: httpx.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code and error["message"] and isinstance(error["details"], list)
    return error


def test_the_secrets_setting_is_read_patched_and_validated(api):
    client, _ = api()
    assert client.get("/agent/settings").json()["secrets"] == "redact"
    for bad in ("REFUSE", "block", "", 1, True, ["refuse"]):
        error = envelope(client.patch("/agent/settings", json={"secrets": bad}), 422, "validation_error")
        assert error["details"][0]["field"] == "secrets"
    patched = client.patch("/agent/settings", json={"secrets": "refuse"})
    assert patched.status_code == 200 and patched.json()["secrets"] == "refuse"
    assert client.patch("/agent/settings", json={"secrets": None}).json()["secrets"] == "refuse"
    event = client.get("/agent/audit", params={"type": "settings_updated"}).json()["events"][0]
    assert event["details"]["changes"] == {"secrets": {"from": "redact", "to": "refuse"}}
    assert client.patch("/agent/settings", json={"secrets": "redact"}).json()["secrets"] == "redact"


def test_a_write_comes_back_redacted_and_a_refusing_key_gets_a_422(api):
    client, _ = api()
    written = client.post(
        "/agent/memories",
        json={"content": f"User's key is {KEY}, card {CARD}", "metadata": {"db_password": "Orchid-7731"}},
        headers={"Idempotency-Key": "with-secrets"},
    )
    assert written.status_code == 201, written.text
    memory = written.json()["memory"]
    assert memory["content"] == "User's key is [REDACTED:openai_api_key], card [REDACTED:card_number]"
    assert memory["metadata"] == {"db_password": "[REDACTED:password]"}
    stored = client.get(f"/agent/memories/{memory['id']}")
    assert KEY not in stored.text and CARD not in stored.text and "Orchid-7731" not in stored.text
    replayed = client.post(
        "/agent/memories",
        json={"content": f"User's key is {KEY}, card {CARD}", "metadata": {"db_password": "Orchid-7731"}},
        headers={"Idempotency-Key": "with-secrets"},
    )
    assert replayed.status_code == 201 and replayed.json() == written.json()

    client.patch("/agent/settings", json={"secrets": "refuse"})
    conversation = {"messages": [{"role": "user", "content": f"my card is {CARD}"}], "user_id": "bo"}
    error = envelope(client.post("/agent/memories", json=conversation), 422, "sensitive_content")
    assert error["details"] == [
        {"field": "messages[0].content", "problem": "messages[0].content carries a credential: card_number"}
    ]
    assert CARD not in error["message"] and "card_number" in error["message"]
    assert client.get("/agent/memories", params={"user_id": "bo"}).json()["memories"] == []
    # nothing else of the write is refused
    assert client.post("/agent/memories", json={"content": "User likes tea"}).status_code == 201
