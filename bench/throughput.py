"""Section 5: write throughput with 1, 4 and 16 concurrent clients against `aurra dev`.

Each client is a thread with its own keep-alive connection to 127.0.0.1, writing with Level 2
requested (rules classifier) into the store's tenants; a run is bounded by its write count and
by a deadline, and stops by itself.
"""

from __future__ import annotations

import random
import threading
import time

from common import new_fact_for, summary
from write_path import Client


def run(server, store, clients: int, writes: int, seed: int, deadline_s: float = 300.0) -> dict:
    lock = threading.Lock()
    remaining = [writes]
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    errors: list[str] = []
    stop_at = time.monotonic() + deadline_s

    ready = threading.Barrier(clients + 1, timeout=120)

    def worker(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        client = Client(server.host, server.port)
        try:
            # Connect (and authenticate) before the clock starts: a burst of simultaneous
            # connects overflows the dev server's listen backlog, which is not write throughput.
            client.request("GET", "/agent/settings", store.callers[index % len(store.callers)][1])
            ready.wait()
            while time.monotonic() < stop_at:
                with lock:
                    if remaining[0] <= 0:
                        return
                    remaining[0] -= 1
                caller, raw = store.callers[(index + rng.randrange(len(store.callers))) % len(store.callers)]
                body = {
                    "content": new_fact_for(store, caller.tenant_id, rng),
                    "topic": "general",
                    "auto_supersede": True,
                }
                try:
                    status, _, elapsed, _ = client.request("POST", "/agent/memories", raw, body)
                except Exception as exc:  # noqa: BLE001 - counted, and the client reconnects
                    with lock:
                        errors.append(type(exc).__name__)
                    client.close()
                    client = Client(server.host, server.port)
                    continue
                with lock:
                    latencies.append(elapsed)
                    statuses[status] = statuses.get(status, 0) + 1
        finally:
            client.close()

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    ready.wait()
    started = time.perf_counter()
    for t in threads:
        t.join(timeout=deadline_s + 30)
    wall = time.perf_counter() - started
    ok = sum(n for s, n in statuses.items() if 200 <= s < 300)
    return {
        "clients": clients,
        "writes": len(latencies),
        "ok": ok,
        "wall_s": wall,
        "writes_per_s": ok / wall if wall else 0.0,
        "latency": summary(latencies),
        "statuses": statuses,
        "errors": len(errors),
    }
