"""The API key check the authorizer makes on every request, without a timing oracle and
without a lever on the database.

- An unknown or revoked lookup costs what a known one does: its secret is hashed against a
  dummy hash, so the time of a refusal does not tell whether the lookup part exists.
- The database connection is held for the lookup's one query only, never while hashing: a
  flood of wrong secrets cannot starve the pool that valid callers need.
- A key still holding a scrypt hash (issued before migration 0012) gets the SHA-256 one on its
  first successful check, so only that check pays scrypt (~50 ms), and a refusal of such a
  lookup costs more than one of an unknown lookup until then: it tells that the lookup exists,
  never anything of the 192 bits of secret behind it.
- A successful check is remembered in process for a short while, by a SHA-256 of the whole
  key with the hash it matched. The row is still read on every call: a revoked or rotated key
  is refused at once.
- A lookup whose pooled connection turns out dead (its backend terminated, the database
  restarted or failed over while it sat idle) is read once more on a fresh connection: the
  first request after such a cut is served, not refused with a 503.
- A secret is always checked before any failure counts against its lookup part, so the
  right secret always passes, however many wrong ones arrive for the same lookup. Failures
  are counted per lookup part only to bound what a flood of wrong secrets costs: past the
  limit within the window, a lookup's guesses are checked against the row read when it
  reached the limit (one salted SHA-256, no database query), and only a secret that matches
  it reads the row again. A flooded lookup costs one query per FAILURE_LIMIT guesses a
  window, and one SHA-256 a guess.
- The one exception is a key still holding a scrypt hash: while its lookup is past the limit,
  its guesses are refused without hashing (a flood would otherwise buy ~50 ms of CPU a
  request), its right secret too, until the window passes. Its first success outside a flood
  replaces the hash, and the exception with it.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache
from uuid import UUID

from aurra_core.access.keys import KEY_PREFIX, check_secret, hash_secret, is_current_hash
from aurra_core.errors import Unauthorized
from aurra_core.models import Caller
from aurra_core.storage.db import ConnectionLost, Database

# Exactly the alphabet keys are made of (keys.create_key): lowercase hex, then URL-safe base64.
# Anything else (NUL, control characters, Unicode spaces that strip() or a hash would absorb)
# is refused before it reaches the database.
_KEY = re.compile(rf"{KEY_PREFIX}([0-9a-f]{{1,32}})_([A-Za-z0-9_-]{{1,128}})")

VERIFIED_TTL_S = 60.0
VERIFIED_MAX = 4096
FAILURE_LIMIT = 10
FAILURE_WINDOW_S = 60.0
FAILURE_TRACKED_MAX = 10_000


def parse_key(raw: str) -> tuple[str, str]:
    """The lookup and secret parts of a key, or 401 when `raw` is not shaped like one."""
    found = _KEY.fullmatch(raw)
    if found is None:
        raise Unauthorized("invalid API key")
    return found.group(1), found.group(2)


@cache
def _dummy_hash() -> str:
    return hash_secret(secrets.token_urlsafe(24))


@dataclass(frozen=True)
class _KeyRow:
    key_id: UUID
    tenant_id: UUID
    secret_hash: str


class _Verified:
    """Keys that passed the check lately: SHA-256 of the key -> (the hash it matched, expiry).
    An entry's window restarts with each use, so a caller in steady use is not hashed again."""

    def __init__(self) -> None:
        self._entries: OrderedDict[bytes, tuple[str, float]] = OrderedDict()
        self._lock = threading.Lock()

    def matches(self, digest: bytes, stored: str) -> bool:
        now = time.monotonic()
        with self._lock:
            entry = self._entries.get(digest)
            if entry is None or entry[1] < now or entry[0] != stored:
                return False
            self._entries[digest] = (stored, now + VERIFIED_TTL_S)
            self._entries.move_to_end(digest)
            return True

    def remember(self, digest: bytes, stored: str) -> None:
        with self._lock:
            self._entries[digest] = (stored, time.monotonic() + VERIFIED_TTL_S)
            self._entries.move_to_end(digest)
            while len(self._entries) > VERIFIED_MAX:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


@dataclass(frozen=True)
class _Window:
    ends: float
    count: int
    # The lookup's row as read at the failure that reached the limit (None: unknown or
    # revoked); what later guesses in the window are checked against.
    row: _KeyRow | None


class _Failures:
    """Failed checks per lookup part in a fixed window that starts with the first failure."""

    def __init__(self) -> None:
        self._windows: OrderedDict[str, _Window] = OrderedDict()
        self._lock = threading.Lock()

    def flooded(self, lookup: str) -> _Window | None:
        """The lookup's window while it is past the limit, else None."""
        now = time.monotonic()
        with self._lock:
            window = self._windows.get(lookup)
            if window is None or window.ends <= now or window.count < FAILURE_LIMIT:
                return None
            return window

    def record(self, lookup: str, row: _KeyRow | None) -> None:
        now = time.monotonic()
        with self._lock:
            window = self._windows.get(lookup)
            if window is None or window.ends <= now:
                window = _Window(now + FAILURE_WINDOW_S, 0, None)
            # The row is remembered once, when the count reaches the limit.
            remembered = window.row if window.count >= FAILURE_LIMIT else row
            self._windows[lookup] = _Window(window.ends, window.count + 1, remembered)
            self._windows.move_to_end(lookup)
            while len(self._windows) > FAILURE_TRACKED_MAX:
                self._windows.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._windows.clear()


_verified = _Verified()
_failures = _Failures()


def _find(db: Database, lookup: str) -> _KeyRow | None:
    try:
        return _read_row(db, lookup)
    except ConnectionLost:
        # The pooled connection had died while idle (a terminated backend, a restart, a
        # failover): the lookup only reads, so it is asked once more, on a fresh connection,
        # rather than failing the request that happened to find it.
        return _read_row(db, lookup)


def _read_row(db: Database, lookup: str) -> _KeyRow | None:
    # The tenant is not known yet: the one function allowed to look a key up across tenants.
    with db.tenant_transaction(None) as conn:
        row = conn.execute(
            "SELECT id, tenant_id, secret_hash, revoked_at FROM aurra_find_api_key(%s)", (lookup,)
        ).fetchone()
    if row is None or row[3] is not None:
        return None
    return _KeyRow(key_id=row[0], tenant_id=row[1], secret_hash=row[2])


def authenticate(db: Database, raw_key: str) -> Caller:
    """Who `raw_key` is, or Unauthorized; the same work whether or not its lookup exists."""
    lookup, secret = parse_key(raw_key)
    window = _failures.flooded(lookup)
    # A lookup past the failure limit: its guess is checked against the row remembered from
    # the window first, without the database. Only a match goes on to read the row.
    checked: str | None = None
    if window is not None:
        remembered = window.row.secret_hash if window.row is not None else _dummy_hash()
        if not is_current_hash(remembered) or not check_secret(secret, remembered):
            _failures.record(lookup, window.row)
            raise Unauthorized("invalid API key")
        checked = remembered
    row = _find(db, lookup)
    digest = hashlib.sha256(raw_key.encode()).digest()
    if row is not None and _verified.matches(digest, row.secret_hash):
        return Caller(tenant_id=row.tenant_id, api_key_id=row.key_id)
    stored = row.secret_hash if row is not None else _dummy_hash()
    matched = stored == checked or check_secret(secret, stored)
    if row is None or not matched:
        _failures.record(lookup, row)
        raise Unauthorized("invalid API key")
    stored = row.secret_hash if is_current_hash(row.secret_hash) else _upgrade(db, row, secret)
    _verified.remember(digest, stored)
    return Caller(tenant_id=row.tenant_id, api_key_id=row.key_id)


def _upgrade(db: Database, row: _KeyRow, secret: str) -> str:
    """Replace the verified key's scrypt hash by a SHA-256 one; the hash the row holds after."""
    upgraded = hash_secret(secret)
    with db.tenant_transaction(None) as conn:
        done = conn.execute(
            "SELECT aurra_upgrade_api_key_hash(%s, %s, %s)", (row.key_id, row.secret_hash, upgraded)
        ).fetchone()
    # Not done: the row changed since it was read (revoked, or upgraded by a concurrent check).
    return upgraded if done is not None and done[0] else row.secret_hash


def forget() -> None:
    """Drop what the process remembers of checks (tests, and `service.reset`)."""
    _verified.clear()
    _failures.clear()
