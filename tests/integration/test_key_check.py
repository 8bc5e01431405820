"""The key check against the real database: no timing oracle (the same hashing whether a
lookup exists or not), no connection held while hashing, a brief cache of successes and a
limit on failures per lookup part."""

import secrets
import threading

import pytest

from aurra_core import key_check, service
from aurra_core.db import Database
from aurra_core.errors import Unauthorized


@pytest.fixture
def hashes(monkeypatch):
    """Every scrypt check the key check makes: (the stored hash it compared against)."""
    made: list[str] = []
    real = key_check.check_secret

    def counting(secret: str, stored: str) -> bool:
        made.append(stored)
        return real(secret, stored)

    monkeypatch.setattr(key_check, "check_secret", counting)
    key_check.forget()
    yield made
    key_check.forget()


def wrong_secret(raw: str) -> str:
    # The secret may itself hold "_" (even end with one): replace all of it, after the lookup.
    prefix, lookup, secret = raw.split("_", 2)
    wrong = "A" * len(secret) if secret != "A" * len(secret) else "B" * len(secret)
    return f"{prefix}_{lookup}_{wrong}"


def test_unknown_revoked_and_wrong_keys_all_cost_one_scrypt(db, new_key, hashes):
    caller, raw = new_key()
    revoked, revoked_raw = new_key()
    with db.transaction() as conn:
        conn.execute("UPDATE api_keys SET revoked_at = now() WHERE id = %s", (revoked.api_key_id,))
    for key in (
        f"aurra_{secrets.token_hex(6)}_{secrets.token_urlsafe(24)}",  # unknown lookup
        wrong_secret(raw),  # known lookup, wrong secret
        revoked_raw,  # revoked
    ):
        before = len(hashes)
        with pytest.raises(Unauthorized):
            service.authenticate(key)
        assert len(hashes) == before + 1, key
    assert service.authenticate(raw) == caller
    # The unknown and revoked lookups were hashed against the same dummy, never a real hash.
    assert hashes[0] == hashes[2] != hashes[1]


def test_a_verified_key_is_not_hashed_again_but_is_refused_at_once_when_revoked(db, new_key, hashes):
    caller, raw = new_key()
    assert service.authenticate(raw) == caller
    assert service.authenticate(raw) == caller
    assert len(hashes) == 1
    with db.transaction() as conn:
        conn.execute("UPDATE api_keys SET revoked_at = now() WHERE id = %s", (caller.api_key_id,))
    with pytest.raises(Unauthorized):
        service.authenticate(raw)


def test_no_database_connection_is_held_while_hashing(pg_url, new_key, monkeypatch):
    _, raw = new_key()
    single = Database(pg_url, max_size=1, timeout_s=2)
    seen: list[bool] = []
    real = key_check.check_secret

    def while_hashing(secret: str, stored: str) -> bool:
        # The pool's only connection must be free: a second borrower gets it without waiting.
        with single.transaction() as conn:
            seen.append(conn.execute("SELECT true").fetchone()[0])
        return real(secret, stored)

    monkeypatch.setattr(key_check, "check_secret", while_hashing)
    key_check.forget()
    try:
        key_check.authenticate(single, raw)
        with pytest.raises(Unauthorized):
            key_check.authenticate(single, wrong_secret(raw))
    finally:
        key_check.forget()
        single.close()
    assert seen == [True, True]


def test_failures_past_the_limit_are_refused_without_hashing_for_that_lookup_only(new_key, hashes):
    _, attacked = new_key()
    other_caller, other = new_key()
    _, verified_before = new_key()
    assert service.authenticate(verified_before)
    hashed_before = len(hashes)
    flood = [threading.Thread(target=_refused, args=(wrong_secret(attacked),)) for _ in range(3)]
    for _ in range(key_check.FAILURE_LIMIT):
        _refused(wrong_secret(attacked))
    assert len(hashes) == hashed_before + key_check.FAILURE_LIMIT
    for thread in flood:
        thread.start()
    for thread in flood:
        thread.join()
    _refused(attacked)  # even the right secret waits for the window to pass
    assert len(hashes) == hashed_before + key_check.FAILURE_LIMIT
    # Other lookups are untouched.
    assert service.authenticate(other) == other_caller
    # A key verified before the flood began keeps working through the cache.
    lookup = verified_before.split("_")[1]
    for _ in range(key_check.FAILURE_LIMIT):
        _refused(wrong_secret(verified_before))
    assert key_check._failures.blocked(lookup)
    assert service.authenticate(verified_before)


def _refused(key: str) -> None:
    with pytest.raises(Unauthorized):
        service.authenticate(key)
