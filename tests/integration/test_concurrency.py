"""Two writers racing to supersede the same memory, on real concurrent connections."""

import threading
from concurrent.futures import ThreadPoolExecutor

from pipeline_support import ScriptedClassifier, contradicts_when, deps

from aurra_core.models import WriteRequest
from aurra_core.storage import store
from aurra_core.write_path.pipeline import write_memory


def test_two_concurrent_supersessions_of_one_memory_end_with_exactly_one(db, new_key):
    caller, _ = new_key()
    old = write_memory(
        caller,
        WriteRequest(content="alice uses Vim", topic="preferences"),
        deps(ScriptedClassifier(), level2=False),
    ).result.memory
    # Both writers get their verdict before either starts its transaction.
    barrier = threading.Barrier(2, timeout=10)
    clf = ScriptedClassifier(contradicts_when("alice uses Vim"), before_answer=barrier.wait)

    def writer(text):
        request = WriteRequest(content=text, topic="preferences", auto_supersede=True)
        return write_memory(caller, request, deps(clf)).result

    with ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(writer, t) for t in ("alice switched to Emacs", "alice switched to Helix")]
        results = [f.result(timeout=30) for f in futures]  # a writer's error is raised here
    assert len(results) == 2 and all(r.created for r in results)
    acted = [r for r in results if r.auto_supersede.supersession is not None]
    assert len(acted) == 1
    with db.transaction() as conn:
        closed = store.select_memory(conn, caller.tenant_id, old.id)
        versions = store.memory_versions(conn, caller.tenant_id, old.id)
        n_events = conn.execute(
            "SELECT count(*) FROM audit_events WHERE tenant_id = %s AND superseded_id = %s",
            (caller.tenant_id, old.id),
        ).fetchone()[0]
    assert closed.superseded_by == acted[0].memory.id
    assert len(versions) == 2 and n_events == 1
