"""The key check against the real database: no timing oracle (the same hashing whether a
lookup exists or not), no connection held while hashing, a brief cache of successes and a
limit on failures per lookup part."""

import base64
import hashlib
import secrets
import threading

import pytest

from aurra_core import service
from aurra_core.access import key_check
from aurra_core.errors import Unauthorized
from aurra_core.storage.db import Database


@pytest.fixture
def hashes(monkeypatch):
    """Every hash check the key check makes: (the stored hash it compared against)."""
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


def test_unknown_revoked_and_wrong_keys_all_cost_one_hash_check(db, new_key, hashes):
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


@pytest.fixture
def reads(monkeypatch):
    """Every read of a key's row the key check makes: (the lookup part it read)."""
    made: list[str] = []
    real = key_check._find

    def counting(db, lookup: str):
        made.append(lookup)
        return real(db, lookup)

    monkeypatch.setattr(key_check, "_find", counting)
    return made


def test_the_right_secret_passes_while_its_lookup_is_flooded_with_wrong_ones(new_key, hashes):
    caller, attacked = new_key()  # never used: no cache vouches for it
    other_caller, other = new_key()
    stop = threading.Event()
    refusals = [0] * 4

    def flood(index: int) -> None:
        while not stop.is_set():
            _refused(wrong_secret(attacked))
            refusals[index] += 1

    threads = [threading.Thread(target=flood, args=(i,)) for i in range(len(refusals))]
    for thread in threads:
        thread.start()
    passed = 0
    try:
        # Past the limit before the first right secret, then interleaved with the flood.
        while sum(refusals) < 4 * key_check.FAILURE_LIMIT:
            threading.Event().wait(0.01)
        lookup = attacked.split("_")[1]
        assert key_check._failures.flooded(lookup) is not None
        for _ in range(40):
            key_check._verified.clear()  # each time as an idle key, verified by its hash
            assert service.authenticate(attacked) == caller
            passed += 1
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert passed == 40 and sum(refusals) > 4 * key_check.FAILURE_LIMIT
    assert service.authenticate(other) == other_caller  # other lookups are untouched


def test_past_the_limit_a_guess_costs_one_sha256_and_no_query(db, new_key, hashes, reads):
    caller, attacked = new_key()
    lookup = attacked.split("_")[1]
    unknown = f"aurra_{secrets.token_hex(6)}_{secrets.token_urlsafe(24)}"
    against: dict[str, set[str]] = {}
    for key in (attacked, unknown):
        key_lookup = key.split("_")[1]
        hashed, read = len(hashes), len(reads)
        for _ in range(key_check.FAILURE_LIMIT):
            _refused(wrong_secret(key))
        # Up to the limit, each guess reads the row and is hashed once.
        assert (len(hashes) - hashed, reads[read:]) == (key_check.FAILURE_LIMIT, [key_lookup] * 10)
        hashed, read = len(hashes), len(reads)
        for _ in range(300):
            _refused(wrong_secret(key))
        # Past it: one SHA-256 a guess, against the remembered row, and not one query.
        assert len(hashes) - hashed == 300 and len(reads) == read
        against[key] = set(hashes[hashed:])
    # The known lookup's guesses went against its row, the unknown one's against the dummy.
    assert against == {attacked: {_stored_hash(db, caller.api_key_id)}, unknown: {key_check._dummy_hash()}}
    # The right secret: its one check against the remembered row, then the row is read again.
    hashed, read = len(hashes), len(reads)
    assert service.authenticate(attacked) == caller
    assert (len(hashes) - hashed, reads[read:]) == (1, [lookup])
    # Read again, not trusted: a key revoked during the flood is refused at once.
    key_check._verified.clear()
    with db.transaction() as conn:
        conn.execute("UPDATE api_keys SET revoked_at = now() WHERE id = %s", (caller.api_key_id,))
    _refused(attacked)


def test_a_flooded_scrypt_key_pays_scrypt_at_most_the_limit_a_window(db, new_key, hashes, reads):
    """The documented exception: a key still on scrypt would turn each guess into ~50 ms of CPU."""
    caller, raw = new_key()
    legacy = _make_legacy(db, caller, raw)
    for _ in range(key_check.FAILURE_LIMIT):
        _refused(wrong_secret(raw))
    assert hashes.count(legacy) == key_check.FAILURE_LIMIT
    hashed, read = len(hashes), len(reads)
    for _ in range(100):
        _refused(wrong_secret(raw))
    assert (len(hashes), len(reads)) == (hashed, read)
    assert _stored_hash(db, caller.api_key_id) == legacy


def _refused(key: str) -> None:
    with pytest.raises(Unauthorized):
        service.authenticate(key)


def _scrypt_hash(secret: str) -> str:
    """A hash as keys issued before migration 0012 hold (scrypt, n 2^14, r 8, p 1)."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=2**14, r=8, p=1, dklen=32)
    return "scrypt$" + base64.b64encode(salt).decode() + "$" + base64.b64encode(digest).decode()


def _stored_hash(db, key_id) -> str:
    with db.transaction() as conn:
        return conn.execute("SELECT secret_hash FROM api_keys WHERE id = %s", (key_id,)).fetchone()[0]


def _make_legacy(db, caller, raw: str) -> str:
    secret = raw.split("_", 2)[2]
    legacy = _scrypt_hash(secret)
    with db.transaction() as conn:
        conn.execute("UPDATE api_keys SET secret_hash = %s WHERE id = %s", (legacy, caller.api_key_id))
    return legacy


def test_new_keys_store_a_salted_sha256_of_their_secret(db, new_key):
    caller, raw = new_key()
    stored = _stored_hash(db, caller.api_key_id)
    scheme, salt_b64, digest_b64 = stored.split("$")
    secret = raw.split("_", 2)[2]
    assert scheme == "sha256"
    assert (
        base64.b64decode(digest_b64) == hashlib.sha256(base64.b64decode(salt_b64) + secret.encode()).digest()
    )
    assert secret not in stored


def test_a_legacy_scrypt_key_still_works_and_gets_a_sha256_hash_on_its_first_check(db, new_key, hashes):
    caller, raw = new_key()
    legacy = _make_legacy(db, caller, raw)
    with pytest.raises(Unauthorized):
        service.authenticate(wrong_secret(raw))
    assert _stored_hash(db, caller.api_key_id) == legacy  # a refusal upgrades nothing
    assert service.authenticate(raw) == caller
    upgraded = _stored_hash(db, caller.api_key_id)
    assert upgraded.startswith("sha256$")
    key_check.forget()  # a new process: the check runs against the upgraded row
    assert service.authenticate(raw) == caller
    assert hashes[-1] == upgraded
    with pytest.raises(Unauthorized):
        service.authenticate(wrong_secret(raw))


def test_the_upgrade_replaces_only_the_scrypt_hash_it_read(db, new_key):
    """The service role reaches api_keys' hashes through this function only: it cannot put a
    hash of its choosing over a current one, over a revoked key's, or over a hash it did not read."""
    current, _ = new_key()
    legacy_caller, legacy_raw = new_key()
    legacy = _make_legacy(db, legacy_caller, legacy_raw)
    revoked, revoked_raw = new_key()
    revoked_legacy = _make_legacy(db, revoked, revoked_raw)
    with db.transaction() as conn:
        conn.execute("UPDATE api_keys SET revoked_at = now() WHERE id = %s", (revoked.api_key_id,))
    chosen = "sha256$" + base64.b64encode(b"s" * 16).decode() + "$" + base64.b64encode(b"d" * 32).decode()
    attempts = [
        (current.api_key_id, _stored_hash(db, current.api_key_id), chosen),  # not scrypt
        (legacy_caller.api_key_id, "scrypt$AAAA$AAAA", chosen),  # not the hash it holds
        (legacy_caller.api_key_id, legacy, legacy),  # not a SHA-256
        (revoked.api_key_id, revoked_legacy, chosen),  # revoked
    ]
    with db.tenant_transaction(None) as conn:
        for key_id, old, new in attempts:
            assert (
                conn.execute("SELECT aurra_upgrade_api_key_hash(%s, %s, %s)", (key_id, old, new)).fetchone()[
                    0
                ]
                is False
            )
        assert conn.execute("SELECT current_user").fetchone()[0] == "aurra_app"
    assert _stored_hash(db, legacy_caller.api_key_id) == legacy
    assert _stored_hash(db, revoked.api_key_id) == revoked_legacy
