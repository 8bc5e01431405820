"""Webhook signatures against Standard Webhooks' published test vector, the SDK's verifier
against the service's signer, and the address guard that keeps deliveries off private networks."""

from __future__ import annotations

import socket
from datetime import UTC, datetime

import pytest

from aurra import webhooks
from aurra.errors import InvalidArgumentError
from aurra.models import ChangeEvent
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
