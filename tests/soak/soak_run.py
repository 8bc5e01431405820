"""The soak run: concurrent clients over several tenants against `aurra dev`, while faults are
injected into the model endpoint and the database. Everything is bounded in count and time.

The run only drives traffic and records what it saw (the ledger); `soak_checks` judges it.
"""

from __future__ import annotations

import os
import random
import threading
import time
import uuid
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from fake_model import FakeMessagesAPI
from soak_infra import SoakPostgres

# ---------------------------------------------------------------------------- profiles


@dataclass(frozen=True)
class Profile:
    name: str
    clients: int
    tenants: int
    max_requests: int  # requests the clients start (retries of a started call may add a few)
    max_seconds: float  # the clients stop starting calls after this
    terminations: int  # rounds of pg_terminate_backend
    restart_down_s: float  # how long the database stays down on its one restart
    model_switches: int  # how often the fake model changes mode over the run
    classifier_timeout_s: float
    write_timeout_s: float  # the short client timeout of idempotent writes (they retry)
    read_timeout_s: float
    call_budget_s: float  # how long one call may keep retrying
    max_observations: int  # time-travel answers re-checked at the end
    level2_lease_s: float = 5.0  # the service's lease of a Level 2 job (AURRA_LEVEL2_LEASE_S)
    seed: int = 20260601

    @property
    def drain_s(self) -> float:
        return self.max_seconds + self.call_budget_s + 30


PROFILES = {
    # CI: deterministic in what it checks; the fault schedule follows the request count.
    "short": Profile(
        "short",
        clients=4,
        tenants=2,
        max_requests=300,
        max_seconds=75,
        terminations=3,
        restart_down_s=11.0,
        model_switches=14,
        classifier_timeout_s=0.3,
        write_timeout_s=1.0,
        read_timeout_s=15.0,
        call_budget_s=45.0,
        max_observations=300,
    ),
    # By hand: AURRA_SOAK_PROFILE=long (about ten minutes).
    "long": Profile(
        "long",
        clients=16,
        tenants=6,
        max_requests=30_000,
        max_seconds=540,
        terminations=12,
        restart_down_s=15.0,
        model_switches=90,
        classifier_timeout_s=0.3,
        write_timeout_s=1.0,
        read_timeout_s=15.0,
        call_budget_s=45.0,
        max_observations=2000,
    ),
}


def profile_from_env() -> Profile:
    name = os.environ.get("AURRA_SOAK_PROFILE", "short")
    if name not in PROFILES:
        raise ValueError(f"AURRA_SOAK_PROFILE must be one of {', '.join(PROFILES)}")
    return PROFILES[name]


# How long the service waits for a pooled connection before answering 503 (aurra_core.storage.db).
SERVICE_POOL_TIMEOUT_S = 10.0

# Model fault modes in the order they are switched to (ok in between most of them).
MODEL_SCHEDULE = (
    "slow",
    "ok",
    "429",
    "500",
    "ok",
    "garbage",
    "hang",
    "ok",
    "drip",
    "ok",
    "garbage",
    "500",
    "ok",
    "hang",
)

# ---------------------------------------------------------------------------- facts

SUBJECTS = ("ana", "ben", "cy", "dee")
ATTRIBUTES = {  # topic "preferences": the auto-supersession candidates
    "editor": ("vim", "emacs", "helix"),
    "city": ("lisbon", "porto", "braga"),
    "employer": ("acme", "globex", "initech"),
    "plan": ("free", "pro", "team"),
}
EXCLUDED = {  # excluded topics: never a candidate, never auto-superseded
    "health_medical": ("allergy", ("penicillin", "peanuts", "latex")),
    "legal_status": ("visa", ("pending", "approved", "revoked")),
}
GENERAL_TOPIC = "preferences"


def fact(subject: str, attribute: str, value: str, token: str) -> str:
    return f"{subject} {attribute} is {value} (ref {token})"


def utc(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat().replace("+00:00", "Z")


# ---------------------------------------------------------------------------- the ledger


@dataclass
class Attempt:
    op: str
    method: str
    path: str
    status: int | str  # an HTTP status, or "timeout" / "transport"
    t0: float
    t1: float
    retry_after: str | None = None
    error_code: str | None = None
    envelope_ok: bool | None = None  # for non-2xx answers: the API's error envelope?
    detail: str = ""
    key: str | None = None  # the Idempotency-Key sent


@dataclass
class Ack:
    """A 2xx answer to a call that changes state: the service said it committed this."""

    kind: str  # write | supersede | revert
    tenant: int
    token: str | None
    status: int
    body: dict[str, Any]
    request: dict[str, Any]


@dataclass
class Observation:
    """A time-travel answer (explicit known_at and as_of) to ask again at the end."""

    tenant: int
    path: str
    params: dict[str, str]
    status: int
    body: Any


@dataclass
class Fault:
    kind: str
    start: float
    end: float
    detail: str = ""


class Ledger:
    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.lock = threading.Lock()
        self.started = 0  # calls started (the request budget)
        self.attempts: list[Attempt] = []
        self.acks: list[Ack] = []
        self.sent_tokens: dict[str, int] = {}  # token -> tenant index, every token ever sent
        self.unacked_tokens: set[str] = set()  # sent, never acknowledged (outcome unknown or refused)
        self.async_tokens: set[str] = set()  # sent with "auto_supersede": "async"
        self.observations: list[Observation] = []
        self.duplicate_sends: list[tuple[str, Any, Any]] = []  # (op, first answer, second answer)
        self.anomalies: list[str] = []  # things the clients saw that must never happen
        self.faults: list[Fault] = []
        self.probes: list[dict[str, Any]] = []  # requests made while the database was down
        self.notes: Counter[str] = Counter()

    def take_budget(self) -> bool:
        with self.lock:
            if self.started >= self.profile.max_requests:
                return False
            self.started += 1
            return True

    def record(self, attempt: Attempt) -> None:
        with self.lock:
            self.attempts.append(attempt)

    def anomaly(self, text: str) -> None:
        with self.lock:
            self.anomalies.append(text)

    def note(self, name: str, n: int = 1) -> None:
        with self.lock:
            self.notes[name] += n


# ---------------------------------------------------------------------------- tenants


@dataclass
class Tenant:
    index: int
    key: str
    tenant_id: str
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Acknowledged memories of the preferences topic: id -> (subject, attribute)
    memories: dict[str, tuple[str, str]] = field(default_factory=dict)
    values: dict[str, str] = field(default_factory=dict)  # id -> the value the memory states
    times: deque = field(default_factory=lambda: deque(maxlen=64))  # recorded_at / valid_from seen
    # The change stream as one consumer walks it during the run (GET /agent/events): its cursor
    # and the event ids in the order the pages gave them. One walker at a time.
    stream_lock: threading.Lock = field(default_factory=threading.Lock)
    stream_cursor: str | None = None
    stream_seen: list[str] = field(default_factory=list)

    def remember(self, memory: dict[str, Any]) -> None:
        with self.lock:
            parsed = memory.get("content", "").split(" ")
            if memory.get("topic") == GENERAL_TOPIC and len(parsed) >= 4:
                self.memories[memory["id"]] = (parsed[0], parsed[1])
                self.values[memory["id"]] = parsed[3]
            for name in ("recorded_at", "valid_from"):
                if memory.get(name):
                    self.times.append(memory[name])

    def pick_memory(self, rng: random.Random) -> tuple[str, tuple[str, str]] | None:
        with self.lock:
            if not self.memories:
                return None
            memory_id = rng.choice(list(self.memories))
            return memory_id, self.memories[memory_id]

    def pick_time(self, rng: random.Random) -> str | None:
        with self.lock:
            return rng.choice(list(self.times)) if self.times else None


# ---------------------------------------------------------------------------- a client


class Client:
    """One thread of traffic for one tenant."""

    def __init__(
        self, index: int, tenant: Tenant, base_url: str, ledger: Ledger, stop: threading.Event, run_id: str
    ) -> None:
        self.index = index
        self.tenant = tenant
        self.ledger = ledger
        self.profile = ledger.profile
        self.stop = stop
        self.rng = random.Random(self.profile.seed * 1000 + index)
        self.run_id = run_id
        self.seq = 0
        self.http = httpx.Client(
            base_url=base_url,
            headers={"Authorization": f"Bearer {tenant.key}"},
            trust_env=False,
            timeout=self.profile.read_timeout_s,
        )
        self.started_at = time.monotonic()

    # ------------------------------------------------------------------ plumbing

    def token(self) -> str:
        self.seq += 1
        token = f"s{self.run_id}c{self.index}n{self.seq}"
        with self.ledger.lock:
            self.ledger.sent_tokens[token] = self.tenant.index
            self.ledger.unacked_tokens.add(token)
        return token

    def send(
        self,
        op: str,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: dict[str, str] | None = None,
        idem: str | None = None,
        timeout: float | None = None,
    ) -> tuple[int | str, Any, httpx.Headers | None]:
        headers = {"Idempotency-Key": idem} if idem else {}
        t0 = time.monotonic()
        status: int | str
        data: Any = None
        response_headers = None
        attempt = Attempt(op, method, path, "timeout", t0, t0, key=idem)
        try:
            response = self.http.request(
                method,
                path,
                json=body,
                params=params,
                headers=headers,
                timeout=timeout or self.profile.read_timeout_s,
            )
            status = response.status_code
            response_headers = response.headers
            try:
                data = response.json()
            except ValueError:
                data = None
            attempt.status = status
            if status >= 300:
                error = data.get("error") if isinstance(data, dict) else None
                attempt.envelope_ok = (
                    isinstance(error, dict)
                    and isinstance(error.get("code"), str)
                    and isinstance(error.get("message"), str)
                    and isinstance(error.get("details", []), list)
                )
                attempt.error_code = error.get("code") if isinstance(error, dict) else None
                attempt.retry_after = response.headers.get("retry-after")
                attempt.detail = (
                    (error or {}).get("message", "")[:160] if isinstance(error, dict) else response.text[:160]
                )
        except httpx.TimeoutException:
            status = "timeout"
            attempt.status = status
        except httpx.TransportError as exc:
            status = "transport"
            attempt.status = status
            attempt.detail = type(exc).__name__
        attempt.t1 = time.monotonic()
        self.ledger.record(attempt)
        return status, data, response_headers

    def call(
        self,
        op: str,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: dict[str, str] | None = None,
        idem: str | None = None,
        timeout: float | None = None,
        retry: bool = True,
    ) -> tuple[int | str, Any]:
        """One logical call. With `retry`, a timeout, a transport error, a 503 or a 409 for a
        request still in progress is retried (with the same Idempotency-Key), within a budget.
        The first attempt has the short timeout; a retry waits longer each time (up to the read
        timeout), so the clients also see what the service answers when it is slow to answer."""
        deadline = min(time.monotonic() + self.profile.call_budget_s, self.started_at + self.profile.drain_s)
        delay = 0.2
        timeout = timeout or self.profile.read_timeout_s
        while True:
            status, data, headers = self.send(
                op, method, path, body=body, params=params, idem=idem, timeout=timeout
            )
            timeout = min(timeout * 2, self.profile.read_timeout_s)
            in_progress = status == 409 and "in progress" in str(
                (data or {}).get("error", {}).get("message", "")
            )
            retryable = status in ("timeout", "transport", 503) or in_progress
            if not retry or not retryable or time.monotonic() >= deadline:
                return status, data
            if status == 503 and headers is not None:
                try:
                    delay = max(delay, min(float(headers.get("retry-after", "1")), 2.0))
                except ValueError:
                    self.ledger.anomaly(f"{op}: Retry-After is not a number: {headers.get('retry-after')!r}")
            time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 1.6, 2.0)

    def acknowledge(
        self, kind: str, token: str | None, status: int, body: dict[str, Any], request: dict[str, Any]
    ) -> None:
        with self.ledger.lock:
            self.ledger.acks.append(Ack(kind, self.tenant.index, token, status, body, request))
            if token:
                self.ledger.unacked_tokens.discard(token)

    # ------------------------------------------------------------------ the loop

    def run(self) -> None:
        ops: list[tuple[Callable[[], None], int]] = [
            (self.write_auto, 22),
            (self.write_async, 12),
            (self.write_plain, 8),
            (self.write_no_auto, 8),
            (self.write_excluded, 7),
            (self.write_backdated, 5),
            (self.duplicate_send, 7),
            (self.supersede_content, 8),
            (self.supersede_link, 3),
            (self.revert, 7),
            (self.approve, 3),
            (self.read_list, 10),
            (self.read_get, 6),
            (self.read_history, 5),
            (self.read_audit, 4),
            (self.read_events, 4),
        ]
        functions, weights = zip(*ops, strict=True)
        try:
            while not self.stop.is_set() and time.monotonic() - self.started_at < self.profile.max_seconds:
                if not self.ledger.take_budget():
                    return
                operation = self.rng.choices(functions, weights)[0]
                try:
                    operation()
                except Exception as exc:  # noqa: BLE001 - a client bug must fail the run, not hang it
                    self.ledger.anomaly(f"client {self.index} crashed in {operation.__name__}: {exc!r}")
        finally:
            self.http.close()

    # ------------------------------------------------------------------ writes

    def _fact_body(
        self,
        *,
        topic: str = GENERAL_TOPIC,
        auto: bool | str | None = True,
        valid_from: str | None = None,
        contradict: bool = False,
    ) -> tuple[str, dict[str, Any]]:
        """A fact with a fresh token; `contradict`: another value of a memory seen (when any)."""
        token = self.token()
        subject = self.rng.choice(SUBJECTS)
        picked = self.tenant.pick_memory(self.rng) if contradict else None
        if picked is not None:
            memory_id, (subject, attribute) = picked
            seen = self.tenant.values.get(memory_id)
            value = self.rng.choice([v for v in ATTRIBUTES[attribute] if v != seen])
        elif topic == GENERAL_TOPIC:
            attribute = self.rng.choice(list(ATTRIBUTES))
            value = self.rng.choice(ATTRIBUTES[attribute])
        else:
            attribute, values = EXCLUDED[topic]
            value = self.rng.choice(values)
        body: dict[str, Any] = {
            "content": fact(subject, attribute, value, token),
            "topic": topic,
            "metadata": {"soak_token": token, "client": self.index},
        }
        if auto is not None:
            body["auto_supersede"] = auto
        if auto == "async":
            with self.ledger.lock:
                self.ledger.async_tokens.add(token)
        if valid_from:
            body["valid_from"] = valid_from
        return token, body

    def _write(self, op: str, token: str, body: dict[str, Any], *, idem: bool) -> tuple[int | str, Any]:
        key = f"w-{token}" if idem else None
        status, data = self.call(
            op,
            "POST",
            "/agent/memories",
            body=body,
            idem=key,
            timeout=self.profile.write_timeout_s if idem else self.profile.read_timeout_s,
            retry=idem,
        )
        self._judge_write(op, token, body, status, data)
        return status, data

    def _judge_write(self, op: str, token: str, body: dict[str, Any], status: int | str, data: Any) -> None:
        if status in (200, 201):
            memory = (data or {}).get("memory") or {}
            if status == 201 and (not data.get("created") or token not in memory.get("content", "")):
                self.ledger.anomaly(f"{op}: 201 that is not the memory written: {str(data)[:200]}")
            if status == 200 and (
                data.get("created")
                or not data.get("duplicate_of")
                or data.get("duplicate_of") != memory.get("id")
            ):
                self.ledger.anomaly(f"{op}: 200 that names no existing memory: {str(data)[:200]}")
            level2 = data.get("auto_supersede") or {}
            if body.get("topic") != GENERAL_TOPIC and level2.get("ran"):
                self.ledger.anomaly(f"{op}: the classifier ran for an excluded topic: {str(data)[:200]}")
            if body.get("auto_supersede") == "async":
                self._judge_async(op, body, status, level2)
            self.acknowledge("write", token, status, data, body)
            self.tenant.remember(memory)
        elif status not in ("timeout", "transport", 409, 503):
            self.ledger.note(f"write answered {status}")

    def _judge_async(self, op: str, body: dict[str, Any], status: int, level2: dict[str, Any]) -> None:
        """An asynchronous write is stored at once and never classified while it waits: a job
        decides it (its topic allowed), or nothing does (an excluded topic, no job)."""
        if status != 201 or level2.get("ran") or level2.get("decision") or level2.get("supersession"):
            self.ledger.anomaly(
                f"{op}: an async write was decided while it waited: {status} {str(level2)[:200]}"
            )
        elif body.get("topic") == GENERAL_TOPIC:
            if level2.get("status") != "pending" or not level2.get("job_id"):
                self.ledger.anomaly(
                    f"{op}: an async write answered without a pending job: {str(level2)[:200]}"
                )
        elif level2.get("job_id") or level2.get("skipped_reason") != "excluded_category":
            self.ledger.anomaly(f"{op}: an async write of an excluded topic got a job: {str(level2)[:200]}")

    def write_auto(self) -> None:
        token, body = self._fact_body(auto=True)
        self._write("write_auto", token, body, idem=True)

    def write_async(self) -> None:
        """Level 2 after the answer, mostly contradicting a memory seen: a job decides it."""
        token, body = self._fact_body(auto="async", contradict=self.rng.random() < 0.6)
        self._write("write_async", token, body, idem=True)

    def write_plain(self) -> None:
        """No Idempotency-Key: not retried, so a timeout leaves its outcome unknown (at most once)."""
        token, body = self._fact_body(auto=self.rng.choice([True, None, "async"]))
        self._write("write_plain", token, body, idem=False)

    def write_no_auto(self) -> None:
        token, body = self._fact_body(auto=False)
        self._write("write_no_auto", token, body, idem=self.rng.random() < 0.7)

    def write_excluded(self) -> None:
        token, body = self._fact_body(
            topic=self.rng.choice(list(EXCLUDED)), auto=self.rng.choice([True, "async"])
        )
        self._write("write_excluded", token, body, idem=True)

    def write_backdated(self) -> None:
        when = datetime.now(UTC) - timedelta(
            days=self.rng.randint(1, 400), seconds=self.rng.randint(0, 86_399)
        )
        token, body = self._fact_body(auto=self.rng.choice([True, "async"]), valid_from=utc(when))
        self._write("write_backdated", token, body, idem=True)

    def duplicate_send(self) -> None:
        """The same request and Idempotency-Key twice (one after the other, or at once): one write."""
        token, body = self._fact_body(auto=self.rng.choice([True, False, "async"]))
        key = f"d-{token}"
        answers: list[tuple[int | str, Any]] = [None, None]  # type: ignore[list-item]

        def one(slot: int) -> None:
            answers[slot] = self.call(
                "duplicate_send",
                "POST",
                "/agent/memories",
                body=body,
                idem=key,
                timeout=self.profile.write_timeout_s,
            )

        if self.rng.random() < 0.5:
            one(0)
            one(1)
        else:
            other = threading.Thread(target=one, args=(1,))
            other.start()
            one(0)
            other.join(self.profile.call_budget_s + 30)
        for status, data in answers:
            if status in (200, 201):
                self._judge_write("duplicate_send", token, body, status, data)
        with self.ledger.lock:
            self.ledger.duplicate_sends.append(("duplicate_send", answers[0], answers[1]))

    # ------------------------------------------------------------------ supersessions

    def supersede_content(self) -> None:
        picked = self.tenant.pick_memory(self.rng)
        if picked is None:
            return self.write_auto()
        memory_id, (subject, attribute) = picked
        token = self.token()
        value = self.rng.choice(ATTRIBUTES[attribute])
        body = {
            "content": fact(subject, attribute, value, token),
            "topic": GENERAL_TOPIC,
            "metadata": {"soak_token": token, "client": self.index, "manual": True},
        }
        status, data = self.call(
            "supersede",
            "POST",
            f"/agent/memories/{memory_id}/supersede",
            body=body,
            idem=f"s-{token}",
            timeout=self.profile.write_timeout_s,
        )
        if status == 201:
            new, old = (data or {}).get("memory") or {}, (data or {}).get("superseded") or {}
            if (
                token not in new.get("content", "")
                or old.get("id") != memory_id
                or old.get("superseded_by") != new.get("id")
            ):
                self.ledger.anomaly(
                    f"supersede: 201 that does not describe the supersession: {str(data)[:200]}"
                )
            self.acknowledge("supersede", token, 201, data, {"memory_id": memory_id, **body})
            self.tenant.remember(new)
        elif status not in ("timeout", "transport", 409, 503):
            self.ledger.note(f"supersede answered {status}")

    def supersede_link(self) -> None:
        first, second = self.tenant.pick_memory(self.rng), self.tenant.pick_memory(self.rng)
        if first is None or second is None or first[0] == second[0]:
            return self.read_list()
        old, newer = sorted([first[0], second[0]])  # UUIDv7: the older id first
        status, data = self.call(
            "supersede_link",
            "POST",
            f"/agent/memories/{old}/supersede",
            body={"superseded_by": newer},
            idem=f"l-{uuid.uuid4().hex}",
            timeout=self.profile.write_timeout_s,
        )
        if status == 201:
            if (data or {}).get("superseded", {}).get("superseded_by") != newer:
                self.ledger.anomaly(f"supersede_link: 201 that does not describe the link: {str(data)[:200]}")
            self.acknowledge("supersede", None, 201, data, {"memory_id": old, "superseded_by": newer})
        elif status not in ("timeout", "transport", 409, 422, 503):
            self.ledger.note(f"supersede_link answered {status}")

    def revert(self) -> None:
        kind = (
            "proposal_approved"
            if self.rng.random() < 0.2
            else self.rng.choice(["auto_supersede", "manual_supersede"])
        )
        status, data = self.call("audit_list", "GET", "/agent/audit", params={"type": kind, "limit": "20"})
        events = (data or {}).get("events") or [] if status == 200 else []
        if not events:
            return
        event = self.rng.choice(events)
        status, data = self.call(
            "revert",
            "POST",
            f"/agent/audit/{event['id']}/revert",
            idem=f"r-{uuid.uuid4().hex}",
            timeout=self.profile.write_timeout_s,
        )
        if status == 200:
            revert = (data or {}).get("event") or {}
            if (
                revert.get("type") != "revert"
                or (data or {}).get("restored", {}).get("id") != event["superseded_id"]
            ):
                self.ledger.anomaly(f"revert: 200 that does not describe the revert: {str(data)[:200]}")
            self.acknowledge("revert", None, 200, data, {"event_id": event["id"], "event": event})
            self.tenant.remember((data or {}).get("restored") or {})
        elif status not in ("timeout", "transport", 409, 503):
            self.ledger.note(f"revert answered {status}")

    def approve(self) -> None:
        """A proposal from the review queue applied (a weak contradiction, sync or async)."""
        status, data = self.call(
            "audit_list",
            "GET",
            "/agent/audit",
            params={"type": "supersession_proposed", "status": "open", "limit": "20"},
        )
        proposals = (data or {}).get("events") or [] if status == 200 else []
        if not proposals:
            return self.read_audit()
        proposal = self.rng.choice(proposals)
        status, data = self.call(
            "approve",
            "POST",
            f"/agent/audit/{proposal['id']}/approve",
            idem=f"a-{uuid.uuid4().hex}",
            timeout=self.profile.write_timeout_s,
        )
        if status == 201:
            event = (data or {}).get("event") or {}
            superseded = (data or {}).get("superseded") or {}
            if (
                event.get("type") != "proposal_approved"
                or superseded.get("id") != proposal["superseded_id"]
                or superseded.get("superseded_by") != proposal["memory_id"]
            ):
                self.ledger.anomaly(f"approve: 201 that does not describe the approval: {str(data)[:200]}")
            self.acknowledge(
                "approve", None, 201, data, {"proposal_id": proposal["id"], "proposal": proposal}
            )
        elif status not in ("timeout", "transport", 409, 503):
            self.ledger.note(f"approve answered {status}")

    # ------------------------------------------------------------------ the change stream

    def read_events(self) -> None:
        """One page of the tenant's change stream after the cursor of the walk so far: what the
        pages give, in order, must be the tenant's events in commit order, none missed."""
        if not self.tenant.stream_lock.acquire(blocking=False):
            return self.read_list()  # another client of the tenant is reading the next page
        try:
            params = {"limit": str(self.rng.choice([7, 50, 200]))}
            if self.tenant.stream_cursor is not None:
                params["after"] = self.tenant.stream_cursor
            status, data = self.call("events_list", "GET", "/agent/events", params=params)
            if status != 200:
                return
            page = (data or {}).get("events")
            if not isinstance(page, list) or not (data or {}).get("next_cursor"):
                self.ledger.anomaly(f"events_list: 200 that is not a page: {str(data)[:200]}")
                return
            self.tenant.stream_seen.extend(e["id"] for e in page)
            self.tenant.stream_cursor = data["next_cursor"]
        finally:
            self.tenant.stream_lock.release()

    # ------------------------------------------------------------------ time-travel reads

    def _point_in_time(self) -> dict[str, str]:
        """An explicit known_at (never in the future) and as_of, so the answer can be asked again."""
        now = datetime.now(UTC)
        seen = self.tenant.pick_time(self.rng)
        choice = self.rng.random()
        if seen and choice < 0.4:
            known_at = seen
        elif choice < 0.7:  # "what did we know just now?": writes may still be in flight
            known_at = utc(now - timedelta(milliseconds=self.rng.randint(0, 20)))
        else:
            known_at = utc(now - timedelta(milliseconds=self.rng.randint(0, 3000)))
        as_of_choice = self.rng.random()
        if as_of_choice < 0.4:
            as_of = known_at
        elif as_of_choice < 0.7 and seen:
            as_of = self.tenant.pick_time(self.rng) or known_at
        else:
            as_of = utc(now - timedelta(days=self.rng.randint(0, 500)))
        return {"known_at": known_at, "as_of": as_of}

    def _observe(self, op: str, path: str, params: dict[str, str]) -> None:
        status, data = self.call(op, "GET", path, params=params)
        if status in (200, 404):
            with self.ledger.lock:
                self.ledger.observations.append(Observation(self.tenant.index, path, params, status, data))

    def read_list(self) -> None:
        params = {**self._point_in_time(), "limit": "100"}
        if self.rng.random() < 0.5:
            params["include_superseded"] = "true"
        if self.rng.random() < 0.3:
            params["topic"] = GENERAL_TOPIC
        self._observe("read_list", "/agent/memories", params)

    def read_get(self) -> None:
        picked = self.tenant.pick_memory(self.rng)
        if picked is None:
            return self.read_list()
        params = self._point_in_time()
        if self.rng.random() < 0.4:
            params.pop("as_of")
        self._observe("read_get", f"/agent/memories/{picked[0]}", params)

    def read_history(self) -> None:
        picked = self.tenant.pick_memory(self.rng)
        if picked is None:
            return self.read_list()
        params = self._point_in_time()
        if self.rng.random() < 0.5:
            params.pop("as_of")
        self._observe("read_history", f"/agent/memories/{picked[0]}/history", params)

    def read_audit(self) -> None:
        self.call("audit_list", "GET", "/agent/audit", params={"limit": "50"})


# ---------------------------------------------------------------------------- faults


class ModelFaults(threading.Thread):
    """Switches the fake model's mode as the run progresses."""

    def __init__(
        self, fake: FakeMessagesAPI, ledger: Ledger, progress: Callable[[], float], stop: threading.Event
    ):
        super().__init__(name="model-faults", daemon=True)
        self.fake, self.ledger, self.progress, self.stop_event = fake, ledger, progress, stop
        self.switches: Counter[str] = Counter()

    def run(self) -> None:
        n = self.ledger.profile.model_switches
        step = 0
        while not self.stop_event.wait(0.05) and step < n:
            if self.progress() >= (step + 1) / (n + 1):
                mode = MODEL_SCHEDULE[step % len(MODEL_SCHEDULE)]
                self.fake.set_mode(mode)
                self.switches[mode] += 1
                step += 1
        self.fake.set_mode("ok")


class DatabaseFaults(threading.Thread):
    """pg_terminate_backend several times and one restart (pg_ctl stop -m fast, then start), at
    fixed fractions of the run. While the database is down it probes the service itself with a
    patient client: the answer must be a 503 with Retry-After and the error envelope; and
    `while_down` sends writes that must be stored once it is back (they retry through it)."""

    def __init__(
        self,
        pg: SoakPostgres,
        ledger: Ledger,
        progress: Callable[[], float],
        stop: threading.Event,
        base_url: str,
        probe_key: str,
        fake: FakeMessagesAPI,
        while_down: Callable[[], None],
    ):
        super().__init__(name="db-faults", daemon=True)
        self.pg, self.ledger, self.progress, self.stop_event = pg, ledger, progress, stop
        self.fake, self.while_down = fake, while_down
        self.base_url, self.probe_key = base_url, probe_key
        profile = ledger.profile
        spread = [0.08 + 0.84 * (i + 0.5) / profile.terminations for i in range(profile.terminations)]
        self.schedule = sorted([(f, "terminate") for f in spread] + [(0.45, "restart")])
        self.done: list[str] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            for fraction, kind in self.schedule:
                while not self.stop_event.wait(0.05):
                    if self.progress() >= fraction:
                        break
                else:
                    return
                getattr(self, kind)()
                self.done.append(kind)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc
        finally:
            if not self.pg.running:
                self.pg.start()

    def terminate(self) -> None:
        t0 = time.monotonic()
        killed = self.pg.terminate_backends()
        with self.ledger.lock:
            self.ledger.faults.append(
                Fault("pg_terminate_backend", t0, time.monotonic(), f"{killed} backends")
            )

    def restart(self) -> None:
        # Faults compose: the model hangs first, so writes are caught between their
        # transactions (classified, not yet stored) when the database goes away.
        self.fake.set_mode("hang")
        time.sleep(1.0)
        t0 = time.monotonic()
        self.pg.stop()
        down_at = time.monotonic()
        writers = threading.Thread(target=self.while_down, name="soak-writes-while-down", daemon=True)
        writers.start()
        with httpx.Client(
            base_url=self.base_url,
            trust_env=False,
            timeout=30,
            headers={"Authorization": f"Bearer {self.probe_key}"},
        ) as probe:
            # A probe waits out the service's pool timeout (10 s) before its 503: start one only
            # if it can finish while the database is still down.
            while (
                self.ledger.profile.restart_down_s - (time.monotonic() - down_at)
                > SERVICE_POOL_TIMEOUT_S + 0.5
            ):
                p0 = time.monotonic()
                try:
                    response = probe.get("/agent/settings")
                    try:
                        body = response.json()
                    except ValueError:
                        body = response.text[:200]
                    result = {
                        "status": response.status_code,
                        "retry_after": response.headers.get("retry-after"),
                        "body": body,
                        "seconds": round(time.monotonic() - p0, 2),
                    }
                except httpx.HTTPError as exc:
                    result = {"status": type(exc).__name__, "seconds": round(time.monotonic() - p0, 2)}
                with self.ledger.lock:
                    self.ledger.probes.append(result)
                remaining = self.ledger.profile.restart_down_s - (time.monotonic() - down_at)
                if remaining > 0.5:
                    time.sleep(min(0.5, remaining - 0.5))
            remaining = self.ledger.profile.restart_down_s - (time.monotonic() - down_at)
            if remaining > 0:
                time.sleep(remaining)
            self.pg.start()
            up_at = time.monotonic()
            # The service must come back by itself: the first 200 after the restart.
            recovered = None
            while time.monotonic() - up_at < 60:
                try:
                    if probe.get("/agent/settings", timeout=15).status_code == 200:
                        recovered = time.monotonic() - up_at
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.2)
        writers.join(self.ledger.profile.call_budget_s + 30)
        if writers.is_alive():
            self.ledger.anomaly("the writes sent while the database was down did not finish")
        with self.ledger.lock:
            self.ledger.faults.append(Fault("db_restart", t0, up_at, f"down {up_at - down_at:.1f}s"))
            self.ledger.notes["recovery_ms"] = int((recovered if recovered is not None else -0.001) * 1000)


# ---------------------------------------------------------------------------- the run


@dataclass
class RunResult:
    ledger: Ledger
    tenants: list[Tenant]
    model_switches: Counter
    model_requests: Counter
    garbage_kinds: Counter
    excluded_seen_by_model: int
    db_faults_done: list[str]
    db_fault_error: BaseException | None
    seconds: float
    started: float


def run_soak(
    profile: Profile, base_url: str, pg: SoakPostgres, fake: FakeMessagesAPI, tenants: list[Tenant]
) -> RunResult:
    ledger = Ledger(profile)
    stop = threading.Event()
    started = time.monotonic()
    run_id = uuid.uuid4().hex[:6]

    def progress() -> float:
        return max(ledger.started / profile.max_requests, (time.monotonic() - started) / profile.max_seconds)

    clients = [
        Client(i, tenants[i % len(tenants)], base_url, ledger, stop, run_id) for i in range(profile.clients)
    ]
    threads = [threading.Thread(target=c.run, name=f"soak-client-{c.index}", daemon=True) for c in clients]

    def while_down() -> None:
        """An async write per tenant sent while the database is down: 503s, retried with the
        same Idempotency-Key until the database is back, then stored with its job."""
        writers = [Client(profile.clients + t.index, t, base_url, ledger, stop, run_id) for t in tenants]
        threads = [threading.Thread(target=w.write_async, daemon=True) for w in writers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(profile.call_budget_s + 15)
        for writer in writers:
            writer.http.close()

    model = ModelFaults(fake, ledger, progress, stop)
    database = DatabaseFaults(pg, ledger, progress, stop, base_url, tenants[0].key, fake, while_down)
    model.start()
    database.start()
    for thread in threads:
        thread.start()
    hard_stop = started + profile.drain_s + 60
    for thread in threads:
        thread.join(max(0.0, hard_stop - time.monotonic()))
    if any(t.is_alive() for t in threads):
        ledger.anomaly("clients did not finish within the run's hard time limit")
    # Every scheduled database fault happens (they sit below 100% of the request budget);
    # the injector only waits for them if the clients finished first.
    database.join(max(0.0, hard_stop - time.monotonic()))
    stop.set()
    model.join(5)
    database.join(max(5.0, profile.restart_down_s + 75))
    if database.is_alive():
        ledger.anomaly("the database fault injector did not finish")
    return RunResult(
        ledger,
        tenants,
        model.switches,
        Counter(fake.by_mode),
        Counter(fake.garbage_kinds),
        fake.excluded_seen,
        list(database.done),
        database.error,
        time.monotonic() - started,
        started,
    )
