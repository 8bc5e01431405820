"""Webhook signatures against Standard Webhooks' published test vector, the SDK's verifier
against the service's signer, and the address guard that keeps deliveries off private networks."""

from __future__ import annotations

import socket
from datetime import UTC, datetime

import pytest

from aurra import webhooks
from aurra.errors import InvalidArgumentError
from aurra.models import ChangeEvent
from aurra_core.models import is_public_address
from aurra_core.runtime.config import reset_config
from aurra_core.webhooks import delivery, signing

# The example of the Standard Webhooks specification (and of its reference libraries' tests).
VECTOR_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
VECTOR_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
VECTOR_TIMESTAMP = 1614265330
VECTOR_BODY = b'{"test": 2432232314}'
VECTOR_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


@pytest.fixture(autouse=True)
def _fresh_config():
    yield
    reset_config()  # after monkeypatch has put the environment back


def test_the_service_signs_the_published_vector() -> None:
    assert signing.sign(VECTOR_SECRET, VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY) == VECTOR_SIGNATURE
    assert webhooks.sign(VECTOR_SECRET, VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY) == VECTOR_SIGNATURE


def test_the_sdk_verifies_what_the_service_signs_and_nothing_else() -> None:
    headers = signing.headers(VECTOR_SECRET, VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY)
    webhooks.verify_signature(VECTOR_BODY, headers, VECTOR_SECRET, now=VECTOR_TIMESTAMP + 10)
    upper = {k.upper(): v for k, v in headers.items()}  # header names in any case
    webhooks.verify_signature(VECTOR_BODY.decode(), upper, VECTOR_SECRET, now=VECTOR_TIMESTAMP)
    # Several signatures (a secret being rotated): any one that matches.
    rotated = {**headers, "webhook-signature": "v1,bm90LXRoaXMtb25l " + headers["webhook-signature"]}
    webhooks.verify_signature(VECTOR_BODY, rotated, VECTOR_SECRET, now=VECTOR_TIMESTAMP)
    wrong = [
        (b'{"test": 2432232315}', headers, VECTOR_SECRET, VECTOR_TIMESTAMP),
        (VECTOR_BODY, headers, "whsec_" + "A" * 32, VECTOR_TIMESTAMP),
        (VECTOR_BODY, {**headers, "webhook-id": "msg_other"}, VECTOR_SECRET, VECTOR_TIMESTAMP),
        (VECTOR_BODY, headers, VECTOR_SECRET, VECTOR_TIMESTAMP + 301),  # too old
        (VECTOR_BODY, headers, VECTOR_SECRET, VECTOR_TIMESTAMP - 301),  # from the future
        (
            VECTOR_BODY,
            {k: v for k, v in headers.items() if k != "webhook-signature"},
            VECTOR_SECRET,
            VECTOR_TIMESTAMP,
        ),
    ]
    for body, given, secret, now in wrong:
        with pytest.raises(webhooks.WebhookVerificationError):
            webhooks.verify_signature(body, given, secret, now=now)
    for tolerance in (float("nan"), -1.0, float("inf")):  # NaN would let any timestamp through
        with pytest.raises(InvalidArgumentError):
            webhooks.verify_signature(VECTOR_BODY, headers, VECTOR_SECRET, tolerance=tolerance)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        webhooks.verify_signature(VECTOR_BODY, headers, VECTOR_SECRET, now=float("nan"))


def test_verify_returns_the_change_event_as_events_list_yields_it() -> None:
    body = (
        b'{"id": "4b0c", "type": "memory.superseded", "created_at": "2026-05-03T10:00:00.123456Z",'
        b' "user_id": "alice", "agent_id": null, "memory_id": "m-1",'
        b' "data": {"superseded_by": "m-2", "event_id": "e-1", "by": "auto"}}'
    )
    headers = signing.headers(VECTOR_SECRET, "4b0c", VECTOR_TIMESTAMP, body)
    event = webhooks.verify(body, headers, VECTOR_SECRET, now=VECTOR_TIMESTAMP)
    assert isinstance(event, ChangeEvent)
    assert (event.id, event.type, event.user_id, event.memory_id) == (
        "4b0c",
        "memory.superseded",
        "alice",
        "m-1",
    )
    assert event.created_at == datetime(2026, 5, 3, 10, 0, 0, 123456, tzinfo=UTC)
    assert event.data == {"superseded_by": "m-2", "event_id": "e-1", "by": "auto"}
    # Signed, but not a change event (the specification's example body): not trusted as one.
    vector = signing.headers(VECTOR_SECRET, VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY)
    with pytest.raises(webhooks.WebhookVerificationError, match="not a change event"):
        webhooks.verify(VECTOR_BODY, vector, VECTOR_SECRET, now=VECTOR_TIMESTAMP)
    with pytest.raises(webhooks.WebhookVerificationError, match="no signature"):
        webhooks.verify(body.replace(b"m-2", b"m-3"), headers, VECTOR_SECRET, now=VECTOR_TIMESTAMP)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.9",
        "192.168.1.1",
        "169.254.169.254",
        "::1",
        "fe80::1",
        "fd00::1",
        "::ffff:127.0.0.1",
        "0.0.0.0",
        "100.64.0.1",
        "224.0.0.1",
        # IPv6 addresses that carry a non-public IPv4 one, which a NAT64 gateway (as a VPC's
        # NAT gateway is) or a tunnel would carry the request on to.
        "64:ff9b::a9fe:a9fe",
        "64:ff9b::a00:1",
        "64:ff9b:1::a00:1",
        "2002:a9fe:a9fe::1",
        "2002:7f00:1::1",
        "::a00:1",
        "::ffff:10.0.0.1",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    ],
)
def test_no_private_loopback_or_link_local_address_is_reached(address: str, monkeypatch) -> None:
    monkeypatch.delenv("AURRA_WEBHOOKS_ALLOW_PRIVATE", raising=False)
    reset_config()
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    monkeypatch.setattr(
        socket, "getaddrinfo", lambda *a, **k: [(family, socket.SOCK_STREAM, 6, "", (address, 443))]
    )
    connected = []
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: connected.append(a))
    with pytest.raises(delivery.Refused, match="not a public address"):
        delivery.post("https://hooks.example.com/x", b"{}", {})
    assert connected == []
    with pytest.raises(delivery.Refused, match="https"):
        delivery.post("http://hooks.example.com/x", b"{}", {})


@pytest.mark.parametrize(
    "address", ["93.184.215.14", "2606:4700::1111", "64:ff9b::5db8:d70e", "2002:5db8:d70e::1"]
)
def test_a_public_address_is_public_also_through_nat64_or_6to4(address: str) -> None:
    assert is_public_address(address)


def test_a_public_address_is_connected_to_as_checked(monkeypatch) -> None:
    """The connection goes to the address that was checked, not to a second lookup's."""
    monkeypatch.delenv("AURRA_WEBHOOKS_ALLOW_PRIVATE", raising=False)
    reset_config()
    monkeypatch.setattr(
        socket,
        "getaddrinfo",
        lambda *a, **k: [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", 443))],
    )
    connected = []

    def refuse(address, timeout=None):
        connected.append(address)
        raise ConnectionRefusedError("test: no network")

    monkeypatch.setattr(socket, "create_connection", refuse)
    with pytest.raises(ConnectionRefusedError):
        delivery.post("https://hooks.example.com/x", b"{}", {})
    assert connected == [("93.184.215.14", 443)]


def test_a_delay_grows_exponentially_with_jitter_and_stays_under_an_hour(monkeypatch) -> None:
    monkeypatch.setenv("AURRA_WEBHOOK_RETRY_BASE_S", "10")
    reset_config()
    for attempts, (low, high) in {1: (5, 10), 2: (10, 20), 3: (20, 40), 30: (1800, 3600)}.items():
        delays = [delivery._delay(attempts) for _ in range(50)]
        assert all(low <= d <= high for d in delays) and len(set(delays)) > 1


def test_a_name_with_one_private_address_among_public_ones_is_refused(monkeypatch) -> None:
    """Every address the name resolves to is checked, not only the first."""
    monkeypatch.delenv("AURRA_WEBHOOKS_ALLOW_PRIVATE", raising=False)
    reset_config()
    answers = [("93.184.215.14", 443), ("10.0.0.7", 443)]
    monkeypatch.setattr(
        socket,
        "getaddrinfo",
        lambda *a, **k: [(socket.AF_INET, socket.SOCK_STREAM, 6, "", a) for a in answers],
    )
    connected = []
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: connected.append(a))
    with pytest.raises(delivery.Refused, match=r"10\.0\.0\.7"):
        delivery.post("https://hooks.example.com/x", b"{}", {})
    assert connected == []


def test_a_redirect_is_an_answer_not_followed_and_the_timeout_is_short(monkeypatch) -> None:
    """A receiver on loopback (as `aurra dev` allows) answering 307 to somewhere else: the
    attempt's status is 307, nothing else is requested, and the connection took the short
    timeout."""
    import http.server
    import threading

    seen: list[str] = []

    class Redirecting(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append(self.path)
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(307)
            self.send_header("Location", "http://169.254.169.254/latest/meta-data/")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Redirecting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("AURRA_WEBHOOKS_ALLOW_PRIVATE", "true")
    monkeypatch.setenv("AURRA_WEBHOOK_TIMEOUT_S", "2.5")
    reset_config()
    timeouts = []
    real_connect = socket.create_connection

    def connect(address, timeout=None, *args, **kwargs):
        timeouts.append(timeout)
        return real_connect(address, timeout, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", connect)
    try:
        status = delivery.post(f"http://127.0.0.1:{server.server_port}/hook", b"{}", {})
    finally:
        server.shutdown()
        server.server_close()
    assert status == 307 and seen == ["/hook"]
    assert timeouts == [2.5]
