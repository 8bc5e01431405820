"""Reliability soak (issue 9): under load and injected faults, no acknowledged write is lost.

Concurrent clients over several tenants write facts (with and without auto-supersession, some
asking for asynchronous Level 2, some contradicting earlier ones, some in excluded categories,
some back-dated), supersede them by hand, approve proposals from the review queue, revert
supersessions, retry with the same Idempotency-Key after short client timeouts, send
deliberate duplicates, walk the change stream (GET /agent/events) page by page and read back
in time (as_of / known_at), against `aurra dev` (which decides Level 2 jobs in a thread) with
the Claude classifier pointed at a local fake Messages API. Meanwhile the fake model turns
slow, rate-limited, failing, garbled or silent, the database's connections are cut with
pg_terminate_backend and the database is restarted once (while it is down, an async write
per tenant is sent and retried until it is stored).

At the end, once the service is quiet and the Level 2 worker has decided every job (bounded),
the database (read directly as its owner) must hold every acknowledged change exactly once,
supersessions and audit events must match one for one, lineages must keep the bi-temporal
invariants, time-travel answers seen during the run must come back the same, no answer may
have been a 500 (503 only around database faults, with Retry-After), and an Idempotency-Key
whose request was carried out is never answered "still in progress" afterwards.

Asynchronous Level 2: every async write answered pending has its job, done (none left pending
past its lease), decided by exactly one audit event of its own (so at most one supersession,
matched one for one like a synchronous write's), its fact stored whatever the classifier did;
no other write has a job.

The change stream, per tenant, read as the owner: seq 1..N in commit order, no gap, no
repeat; one memory.created per memory; one memory.superseded per auto_supersede,
manual_supersede or proposal_approved event, one memory.reverted per revert (the other
audit-backed events likewise; no event naming an audit event that is not there); no fact's
token in any event's data. Over HTTP, GET /agent/events walked from the start, and the walk
made during the run carried on from its cursor, give the table's events in its order.

The CI profile is the default; `AURRA_SOAK_PROFILE=long` runs the long one (about ten minutes):
    AURRA_SOAK_PROFILE=long .venv/bin/python -m pytest tests/soak -s
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections import Counter
from pathlib import Path

import httpx
import pytest
from fake_model import FakeMessagesAPI
from soak_checks import (
    Findings,
    check_change_stream,
    check_database,
    check_jobs,
    check_statuses,
    recheck_observations,
    summarize,
)
from soak_infra import SoakPostgres, start_service
from soak_run import Tenant, profile_from_env, run_soak

pytestmark = pytest.mark.integration


def _wait_until_serving(base_url: str, key: str, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    with httpx.Client(
        base_url=base_url, trust_env=False, timeout=15, headers={"Authorization": f"Bearer {key}"}
    ) as http:
        while time.monotonic() < deadline:
            try:
                if http.get("/agent/settings").status_code == 200:
                    return True
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
    return False


def _wait_until_quiet(pg: SoakPostgres, seconds: float = 60) -> None:
    """Until calls the clients gave up on have finished inside the service and the Level 2
    worker has decided every job: nothing running in the database, no job pending and the row
    counts unchanged for a while (bounded: a job still pending then is reported stuck)."""
    deadline, previous = time.monotonic() + seconds, None
    while time.monotonic() < deadline:
        with pg.connect() as conn:
            snapshot = conn.execute(
                """SELECT (SELECT count(*) FROM memory_versions), (SELECT count(*) FROM audit_events),
                          (SELECT count(*) FROM idempotency_records WHERE status = 'INPROGRESS'),
                          (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
                             AND pid <> pg_backend_pid() AND state NOT IN ('idle')),
                          (SELECT count(*) FROM level2_jobs WHERE status = 'pending'),
                          (SELECT count(*) FROM change_events)"""
            ).fetchone()
        if snapshot == previous and snapshot[3] == 0 and snapshot[4] == 0:
            return
        previous = snapshot
        time.sleep(1.5)


def test_soak(soak_pg: SoakPostgres, new_key, db, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    profile = profile_from_env()
    run = uuid.uuid4().hex[:8]
    tenants = []
    for index in range(profile.tenants):
        caller, raw = new_key(f"soak-{run}-{index}")
        tenants.append(Tenant(index, raw, str(caller.tenant_id)))
    db.close()  # the test holds no pooled connection while the faults run

    fake = FakeMessagesAPI(
        slow_s=max(1.0, profile.classifier_timeout_s * 8), hang_max_s=20.0, seed=profile.seed
    )
    service = start_service(
        soak_pg.url,
        tmp_path / "aurra",
        tmp_path / "aurra-dev.log",
        AURRA_LEVEL2_ENABLED="true",
        AURRA_CLASSIFIER="anthropic",
        ANTHROPIC_BASE_URL=fake.url,
        ANTHROPIC_API_KEY="sk-test",
        AURRA_CLASSIFIER_TIMEOUT_S=str(profile.classifier_timeout_s),
        # A job whose worker lost its connection is claimed again once its lease passes: short
        # here (a decision takes at most ~2 s) so that happens within the run, not a minute on.
        AURRA_LEVEL2_LEASE_S=str(profile.level2_lease_s),
    )
    findings = Findings()
    try:
        result = run_soak(profile, service.base_url, soak_pg, fake, tenants)
        fake.set_mode("ok")
        serving = _wait_until_serving(service.base_url, tenants[0].key)
        _wait_until_quiet(soak_pg)
        check_statuses(result, findings)
        if serving:
            recheck_observations(service.base_url, result, findings)
        else:
            findings.fail("the service did not answer again after the faults")
        with soak_pg.connect() as conn:
            check_database(conn, result, findings)
            check_jobs(conn, result, findings)
            check_change_stream(conn, service.base_url if serving else None, result, findings)
        if service.process.poll() is not None:
            findings.fail(f"aurra dev exited with {service.process.returncode}")
    finally:
        service.stop()
        fake.close()

    summary = summarize(result, findings)
    report = {
        "profile": profile.name,
        "seconds": round(result.seconds, 1),
        **findings.stats,
        "db_faults": dict(Counter(f.kind for f in result.ledger.faults)),
        "model_faults": {k: v for k, v in result.model_requests.items() if k != "ok"},
        "violations": findings.violations,
    }
    (tmp_path / "soak-summary.json").write_text(json.dumps(report, indent=2, default=str))
    with open(tmp_path / "soak-attempts.jsonl", "w") as out:  # every request, for a post-mortem
        for a in result.ledger.attempts:
            out.write(
                json.dumps(
                    {
                        **a.__dict__,
                        "t0": round(a.t0 - result.started, 3),
                        "t1": round(a.t1 - result.started, 3),
                    }
                )
                + "\n"
            )
        for f in result.ledger.faults:
            out.write(
                json.dumps(
                    {
                        "fault": f.kind,
                        "t0": round(f.start - result.started, 3),
                        "t1": round(f.end - result.started, 3),
                        "detail": f.detail,
                    }
                )
                + "\n"
            )
    if os.environ.get("AURRA_SOAK_REPORT"):
        Path(os.environ["AURRA_SOAK_REPORT"]).write_text(json.dumps(report, indent=2, default=str))
    with capsys.disabled():
        print("\n" + summary)

    assert result.db_fault_error is None, f"fault injection failed: {result.db_fault_error!r}"
    assert result.db_faults_done.count("restart") == 1, summary
    assert result.db_faults_done.count("terminate") == profile.terminations, summary
    assert sum(result.model_requests[m] for m in result.model_requests if m != "ok") > 0, summary
    assert findings.stats["acknowledged_writes"] > 0, summary
    assert findings.stats["async_writes_acknowledged"] > 0, summary
    assert sum(findings.stats.get("events_walked_during_run", {}).values()) > 0, summary
    assert not findings.violations, summary + "\n--- aurra dev log (tail) ---\n" + service.log_tail()
