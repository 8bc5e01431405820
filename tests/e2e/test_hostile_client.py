"""What a hostile client found against `aurra dev`, probe by probe, over real HTTP: each
answers a clear 4xx naming the field (never a 500, never stored), and the tenant's reads
keep working afterwards."""

import base64
import json
import re
import secrets
import select
import socket
import time

import httpx
import pytest
from dev_server import start_dev_server

from aurra_local import gateway

DEEP_ARRAYS = '{"content": "deep", "metadata": {"k": ' + "[" * 254 + "]" * 254 + "}}"


def refused(response: httpx.Response, status: int, field: str) -> dict:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert [d["field"] for d in error["details"]][:1] == [field], error
    return error


def reads_still_work(client: httpx.Client) -> None:
    for params in ({}, {"include_superseded": "true"}, {"q": "deep"}):
        response = client.get("/agent/memories", params=params)
        assert response.status_code == 200, response.text
        assert response.json()["memories"] == []


def post_raw(client: httpx.Client, path: str, text: str, **headers: str) -> httpx.Response:
    return client.post(path, content=text.encode(), headers={"Content-Type": "application/json", **headers})


def test_a_search_text_postgresql_cannot_hold_is_refused(api):
    client, _ = api()
    for q in ("tea\x00", "\x00"):
        refused(client.get("/agent/memories", params={"q": q}), 422, "q")
    reads_still_work(client)


def test_deeply_nested_metadata_is_refused_and_nothing_is_stored(api):
    client, _ = api()
    for body in (
        DEEP_ARRAYS,
        '{"content": "deep", "metadata": {"k": ' + "[" * 400 + "]" * 400 + "}}",
        '{"content": "deep", "metadata": ' + '{"k": [' * 5000 + "]}" * 5000 + "}",
        json.dumps({"content": "deep", "metadata": _nested(33)}),
    ):
        refused(post_raw(client, "/agent/memories", body), 422, "metadata")
    # A retry with an Idempotency-Key gets the same 422, not a stored failure.
    for _ in range(2):
        refused(
            post_raw(client, "/agent/memories", DEEP_ARRAYS, **{"Idempotency-Key": "deep-1"}), 422, "metadata"
        )
    reads_still_work(client)
    stored = client.post("/agent/memories", json={"content": "deep", "metadata": _nested(32)})
    assert stored.status_code == 201, stored.text
    memory_id = stored.json()["memory"]["id"]
    for path in ("/agent/memories", f"/agent/memories/{memory_id}", f"/agent/memories/{memory_id}/history"):
        assert client.get(path).status_code == 200
    assert client.get("/agent/memories", params={"q": "deep"}).json()["memories"][0]["metadata"] == _nested(
        32
    )


def _nested(levels: int) -> dict:
    value: object = "leaf"
    for level in range(levels - 1):
        value = [value] if level % 2 == 0 else {"k": value}
    return {"k": value}


@pytest.mark.parametrize(
    "metadata",
    ['{"n": NaN}', '{"n": Infinity}', '{"n": [-Infinity]}', '{"n": 1e400}', '{"n": ' + "9" * 5000 + "}"],
)
def test_numbers_jsonb_cannot_hold_are_refused_in_metadata(api, metadata):
    client, _ = api()
    refused(
        post_raw(client, "/agent/memories", '{"content": "n", "metadata": ' + metadata + "}"), 422, "metadata"
    )
    memory = client.post("/agent/memories", json={"content": "target"}).json()["memory"]
    supersede = post_raw(
        client, f"/agent/memories/{memory['id']}/supersede", '{"content": "n", "metadata": ' + metadata + "}"
    )
    refused(supersede, 422, "metadata")
    assert [m["content"] for m in client.get("/agent/memories").json()["memories"]] == ["target"]


@pytest.mark.parametrize(
    "valid_from", ["0001-01-01T00:00:00+01:00", "9999-12-31T20:00:00-14:00", "0001-01-01T00:00:00.5+00:01"]
)
def test_valid_from_outside_years_1_to_9999_in_utc_is_a_422(api, valid_from):
    client, _ = api()
    refused(
        client.post("/agent/memories", json={"content": "x", "valid_from": valid_from}), 422, "valid_from"
    )
    refused(client.get("/agent/memories", params={"as_of": valid_from}), 422, "as_of")
    refused(client.get("/agent/audit", params={"since": valid_from}), 422, "since")
    reads_still_work(client)


@pytest.mark.parametrize("value", ["NaN", '"NaN"', '"nan"', "Infinity", "true", '"0.9"', "1e400"])
def test_min_confidence_takes_a_finite_number_only(api, value):
    client, _ = api()
    patch = client.patch(
        "/agent/settings",
        content='{"min_confidence": ' + value + "}",
        headers={"Content-Type": "application/json"},
    )
    refused(patch, 422, "min_confidence")
    assert client.get("/agent/settings").json()["min_confidence"] == 0.85


def test_a_json_array_body_is_refused_whole(api):
    client, _ = api()
    two = '[{"content": "first"}, {"content": "second"}]'
    refused(post_raw(client, "/agent/memories", two), 422, "body")
    patch = client.patch(
        "/agent/settings", content='[{"min_confidence": 0.99}]', headers={"Content-Type": "application/json"}
    )
    refused(patch, 422, "body")
    assert client.get("/agent/memories").json()["memories"] == []
    assert client.get("/agent/settings").json()["min_confidence"] == 0.85


def _second_page(client: httpx.Client, path: str) -> str:
    cursor = client.get(path, params={"limit": 1}).json()["next_cursor"]
    assert cursor, f"{path} gave no second page"
    return cursor


def test_cursors_are_bound_to_their_tenant_and_endpoint_and_cannot_be_forged(api):
    alice, _ = api()
    mallory, _ = api()
    for client in (alice, mallory):
        for fact in ("one", "two"):
            client.post("/agent/memories", json={"content": fact})
        client.patch("/agent/settings", json={"min_confidence": 0.9})
        client.patch("/agent/settings", json={"min_confidence": 0.95})
    memories = _second_page(alice, "/agent/memories")
    audit = _second_page(alice, "/agent/audit")
    assert alice.get("/agent/memories", params={"limit": 1, "cursor": memories}).status_code == 200
    assert alice.get("/agent/audit", params={"limit": 1, "cursor": audit}).status_code == 200
    refused(mallory.get("/agent/memories", params={"limit": 1, "cursor": memories}), 422, "cursor")
    refused(mallory.get("/agent/audit", params={"limit": 1, "cursor": audit}), 422, "cursor")
    refused(alice.get("/agent/audit", params={"limit": 1, "cursor": memories}), 422, "cursor")
    refused(alice.get("/agent/memories", params={"limit": 1, "cursor": audit}), 422, "cursor")
    body, _, signature = memories.partition(".")
    payload = json.loads(base64.urlsafe_b64decode(body + "=="))
    for change in ({"k": 5}, {"d": "x"}, {"d": {}}, {"k": "2999-01-01T00:00:00Z"}):
        forged = base64.urlsafe_b64encode(json.dumps({**payload, **change}).encode()).decode().rstrip("=")
        refused(
            alice.get("/agent/memories", params={"limit": 1, "cursor": f"{forged}.{signature}"}),
            422,
            "cursor",
        )
    missing = {k: v for k, v in payload.items() if k != "id"}
    forged = base64.urlsafe_b64encode(json.dumps(missing).encode()).decode().rstrip("=")
    refused(alice.get("/agent/memories", params={"limit": 1, "cursor": forged}), 422, "cursor")


@pytest.mark.parametrize("control", ["\x00", "\x0b", "\x1c", "\x85"])
def test_only_the_keys_alphabet_is_accepted(dev_server, api, control):
    client, _ = api()
    raw = client.headers["Authorization"].removeprefix("Bearer ")
    for key in (raw + control, raw[:8] + control + raw[8:]):
        # As API Gateway hands the header to the authorizer: refused, never a 503 to retry.
        answer = gateway.handle("GET", "/agent/settings", {"Authorization": f"Bearer {key}"}, None)
        assert answer["statusCode"] == 401, answer
        # Over HTTP, waitress refuses control characters in a header itself (400); either way
        # the envelope's 4xx, never a 503 to retry.
        response = _raw_request(
            dev_server.base_url,
            b"GET /agent/settings HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
            + key.encode("latin-1")
            + b"\r\nConnection: close\r\n\r\n",
        )
        status = response.split(b" ", 2)[1]
        assert status == (b"401" if control == "\x85" else b"400"), response[:200]
        assert json.loads(response.partition(b"\r\n\r\n")[2])["error"]["code"] in (
            "unauthorized",
            "bad_request",
        )
        assert b"retry-after" not in response.lower()


def test_a_flood_of_wrong_secrets_never_locks_the_right_one_out(dev_server, new_key):
    """Anyone who knows a key's lookup part can send wrong secrets for it; the key's owner,
    idle until then (no cache of `aurra dev` vouches for it), still gets in."""
    statuses = []
    with httpx.Client(base_url=dev_server.base_url, timeout=30) as client:
        for _ in range(3):
            _, raw = new_key()
            lookup_part = "_".join(raw.split("_")[:2])  # aurra_<lookup>
            for _ in range(3 * 10):  # three times the failure limit
                wrong = f"Bearer {lookup_part}_{secrets.token_urlsafe(24)}"
                assert client.get("/agent/settings", headers={"Authorization": wrong}).status_code == 401
            statuses.append(
                client.get("/agent/settings", headers={"Authorization": f"Bearer {raw}"}).status_code
            )
    assert statuses == [200] * 3


def test_authenticated_json_is_never_cached_or_sniffed_and_names_no_server(dev_server, api):
    client, _ = api()
    for response in (
        client.get("/agent/settings"),
        client.post("/agent/memories", json={"content": ""}),
        httpx.get(f"{dev_server.base_url}/agent/settings"),
        httpx.get(f"{dev_server.base_url}/agent/nothing"),
    ):
        assert response.headers["x-content-type-options"] == "nosniff", response.status_code
        assert response.headers["cache-control"] == "no-store"
        assert "server" not in response.headers


def test_docs_are_served_from_the_package_under_a_content_security_policy(dev_server):
    page = httpx.get(f"{dev_server.base_url}/docs")
    assert page.status_code == 200
    policy = page.headers["content-security-policy"]
    assert "script-src 'self';" in policy and "default-src 'none'" in policy
    assert "<script>" not in page.text and "https://" not in page.text
    for asset in ("/docs/swagger-ui-bundle.js", "/docs/swagger-ui.css", "/docs/init.js"):
        response = httpx.get(f"{dev_server.base_url}{asset}")
        assert response.status_code == 200 and len(response.content) > 30, asset
        assert response.headers["x-content-type-options"] == "nosniff"
    assert "SwaggerUIBundle" in httpx.get(f"{dev_server.base_url}/docs/swagger-ui-bundle.js").text


# ---------------------------------------------------------------- HTTP framing


def _raw_request(base_url: str, data: bytes, timeout: float = 10, pause_after: int | None = None) -> bytes:
    host, port = base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(data)
        received = b""
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except (ConnectionResetError, TimeoutError):
            pass
    return received


def _json_error(response: bytes, status: int) -> dict:
    head, _, body = response.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == str(status).encode(), head
    assert b"content-type: application/json" in head.lower()
    return json.loads(body)["error"]


def test_head_answers_carry_no_body_and_keep_the_connection_usable(dev_server, api):
    client, _ = api()
    auth = client.headers["Authorization"].encode()
    response = _raw_request(
        dev_server.base_url,
        b"HEAD /agent/settings HTTP/1.1\r\nHost: x\r\nAuthorization: " + auth + b"\r\n\r\n"
        b"GET /agent/settings HTTP/1.1\r\nHost: x\r\nAuthorization: "
        + auth
        + b"\r\nConnection: close\r\n\r\n",
    )
    first, _, rest = response.partition(b"\r\n\r\n")
    assert first.startswith(b"HTTP/1.1 404 ")
    assert rest.startswith(b"HTTP/1.1 200 "), rest[:100]
    assert json.loads(rest.partition(b"\r\n\r\n")[2])["min_confidence"] == 0.85


def test_a_chunked_body_is_read(api):
    client, _ = api()
    chunks = iter([b'{"content": "alice ', b'uses vim"}'])
    response = client.post("/agent/memories", content=chunks, headers={"Content-Type": "application/json"})
    assert response.status_code == 201, response.text
    assert response.json()["memory"]["content"] == "alice uses vim"


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"POST /agent/memories HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        b"POST /agent/memories HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
        b"GARBAGE\r\n\r\n",
        b"GET /agent/settings HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * 40_000 + b"\r\n\r\n",
    ],
    ids=["negative-length", "text-length", "malformed-line", "oversized-headers"],
)
def test_bad_framing_gets_the_json_envelope(dev_server, request_bytes):
    error = _json_error(
        _raw_request(dev_server.base_url, request_bytes), 431 if b"X-Padding" in request_bytes else 400
    )
    assert error["code"] == "bad_request" and error["message"]


def test_a_stalled_body_is_dropped_after_the_timeout_without_holding_the_server(pg_url, tmp_path, new_key):
    server = start_dev_server(pg_url, tmp_path, "--timeout", "2")
    try:
        host, port = server.base_url.removeprefix("http://").split(":")
        stalled = socket.create_connection((host, int(port)), timeout=15)
        stalled.sendall(b"POST /agent/memories HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        _, raw = new_key()
        # Meanwhile the server answers others.
        assert (
            httpx.get(
                f"{server.base_url}/agent/settings", headers={"Authorization": f"Bearer {raw}"}
            ).status_code
            == 200
        )
        started = time.monotonic()
        assert stalled.recv(1024) == b""  # closed by the server, not answered
        assert time.monotonic() - started < 10
        stalled.close()
    finally:
        server.process.terminate()
        server.process.wait(10)


def test_the_access_log_holds_no_key_and_no_search_text(pg_url, tmp_path, new_key):
    log = tmp_path / "stderr.log"
    server = start_dev_server(pg_url, tmp_path / "data", stderr_path=log)
    try:
        _, raw = new_key()
        httpx.get(f"{server.base_url}/agent/memories", params={"api_key": raw, "q": "alice has diabetes"})
        httpx.get(
            f"{server.base_url}/agent/memories",
            params={"note": raw, "topic": "general"},
            headers={"Authorization": f"Bearer {raw}"},
        )
    finally:
        server.process.terminate()
        server.process.wait(10)
    text = log.read_text()
    assert "GET /agent/memories?api_key=[REDACTED]&q=[REDACTED] 401" in text, text
    assert "topic=general" in text
    secret = raw.split("_", 2)[2]
    for leaked in (raw, secret, "diabetes"):
        assert leaked not in text


# ---------------------------------------------------------------- the access log and slow heads

HEAD_TIMEOUT_S = 2
ACCESS_LINE = re.compile(rb"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \S+ \S+ \d{3} \d+\.\dms$")


@pytest.fixture(scope="module")
def edgy_server(pg_url, tmp_path_factory):
    """`aurra dev` with a short head deadline, its stderr (the access log) in a file."""
    folder = tmp_path_factory.mktemp("edgy")
    log = folder / "stderr.log"
    server = start_dev_server(
        pg_url, folder / "data", "--header-timeout", str(HEAD_TIMEOUT_S), stderr_path=log
    )
    yield server, log
    server.process.terminate()
    server.process.wait(10)


FORGED = b"2026-01-01T00:00:00Z GET /forged 200 1.0ms"


def test_the_access_log_cannot_be_forged_or_drive_a_terminal(edgy_server):
    server, log = edgy_server
    targets = [
        b"/forge-1%0A2026-01-01T00:00:00Z%20GET%20/forged%20200%201.0ms",  # an encoded newline
        b"/forge-2%0D%00%1B[31m%E2%80%A8%C2%85%5C",  # CR, NUL, ESC, U+2028, NEL, a backslash
        b"/forge-3?x=%0A2026-01-01T00:00:00Z%20GET%20/forged%20200%201.0ms",  # in the query
        b"/forge-4?y=%1B]0;owned%07",  # a terminal title escape in the query
        b"/forge-5\x1b[2J\x7f",  # raw bytes in the request line, not encoded
    ]
    for target in targets:
        response = _raw_request(
            server.base_url, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        assert response.split(b" ", 2)[1] in (b"401", b"404"), response[:200]
    # One line a request, and nothing logged before the log is read.
    deadline = time.monotonic() + 20
    while log.read_bytes().count(b"/forge-") < len(targets) and time.monotonic() < deadline:
        time.sleep(0.1)
    text = log.read_bytes()
    ours = [line for line in text.split(b"\n") if b"/forge-" in line]
    assert len(ours) == len(targets), ours
    assert all(ACCESS_LINE.match(line) for line in ours), ours
    assert not any(
        line.startswith(FORGED) or b"/forged" in line.split(b" ")[2:3] for line in text.split(b"\n")
    )
    for raw in (b"\r", b"\x00", b"\x1b", b"\x07", b"\x7f", "\u2028".encode(), "\x85".encode()):
        assert raw not in text, raw
    first, second, third, fourth, fifth = ours
    assert b"/forge-1\\n2026-01-01T00:00:00Z\\x20GET\\x20/forged" in first
    assert b"/forge-2\\r\\x00\\x1b[31m" in second and b"\\\\" in second
    assert b"?x=\\n2026" in third
    assert b"?y=\\x1b]0;owned\\x07" in fourth
    assert b"/forge-5\\x1b[2J\\x7f" in fifth


def test_a_trickled_request_head_is_cut_off_at_the_deadline(edgy_server, new_key):
    server, _ = edgy_server
    host, port = server.base_url.removeprefix("http://").split(":")
    lines_sent, answer = 0, b""
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(b"GET /agent/settings HTTP/1.1\r\nHost: x\r\n")
        # A header line every 0.25 s: never idle, so only the head deadline can end it. At most
        # 30 s of it (the idle timeout is 30 s); the deadline is 2 s.
        while lines_sent < 120:
            ready, _, _ = select.select([sock], [], [], 0.25)
            if ready:
                break
            sock.sendall(b"X-Slow: %d\r\n" % lines_sent)
            lines_sent += 1
        while chunk := sock.recv(65536):
            answer += chunk
    # Answered in the envelope and closed, well before the 120 lines' 30 s, after a few lines.
    assert 4 <= lines_sent < 60, lines_sent
    error = _json_error(answer, 408)
    assert error["code"] == "bad_request" and "2 s" in error["message"], error
    # A head that arrives in parts within the deadline is served, and so is the next request.
    _, raw = new_key()
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(b"GET /agent/settings HTTP/1.1\r\nHost: x\r\n")
        time.sleep(0.3)
        sock.sendall(b"Authorization: Bearer " + raw.encode() + b"\r\nConnection: close\r\n\r\n")
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    assert received.startswith(b"HTTP/1.1 200 "), received[:200]
