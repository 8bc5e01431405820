"""The authorizer's latency for valid, unknown and wrong-secret keys, and a valid caller's
latency while other threads flood wrong secrets for one known key.

The authorizer runs in process as `aurra dev` runs it (aurra_local.gateway.authorize: the
Lambda handler on a TOKEN event, the service's pool of connections) against an embedded
PostgreSQL of its own. Run: `python -m bench.experiments.auth_check [--keys 40] [--flood-s 5] [--json FILE]`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import secrets
import threading
import time

from common import Cluster, local_environment, log, summary


def _timed(call) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keys", type=int, default=40)
    parser.add_argument("--valid", type=int, default=200)
    parser.add_argument("--unknown", type=int, default=100)
    parser.add_argument("--flood-threads", type=int, default=8)
    parser.add_argument("--flood-s", type=float, default=5.0)
    parser.add_argument("--json", help="write the figures to this file too")
    args = parser.parse_args()

    local_environment()
    cluster = Cluster()
    try:
        url = cluster.create("auth_bench")
        os.environ["AURRA_DATABASE_URL"] = url
        from aurra_core import service
        from aurra_core.access import admin
        from aurra_local import gateway

        service.reset()
        keys = [admin.perform({"action": "create", "tenant": f"t{i}"})["key"] for i in range(args.keys)]

        def authorize(raw: str) -> bool:
            return gateway.authorize("GET", "/agent/settings", f"Bearer {raw}") is not None

        def wrong(raw: str) -> str:
            prefix, _, secret = raw.rpartition("_")
            return f"{prefix}_{secrets.token_urlsafe(len(secret))[: len(secret)]}"

        authorize(keys[0])  # the pool and imports, before any clock
        results: dict = {}
        results["valid_first_use"] = summary([_timed(lambda k=k: authorize(k)) for k in keys[1:]])
        results["valid_repeat"] = summary(
            [_timed(lambda i=i: authorize(keys[i % len(keys)])) for i in range(args.valid)]
        )
        results["unknown_lookup"] = summary(
            [
                _timed(lambda: authorize(f"aurra_{secrets.token_hex(6)}_{secrets.token_urlsafe(24)}"))
                for _ in range(args.unknown)
            ]
        )
        # One wrong secret per key: each stays under any per-lookup failure limit.
        results["wrong_secret"] = summary([_timed(lambda k=k: authorize(wrong(k))) for k in keys])
        assert all(authorize(k) for k in keys[:3]), "a valid key was refused"

        stop = threading.Event()
        refused = [0]

        def flood() -> None:
            while not stop.is_set():
                if not authorize(wrong(keys[0])):
                    refused[0] += 1

        valid_during: list[float] = []
        threads = [threading.Thread(target=flood) for _ in range(args.flood_threads)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + args.flood_s
        while time.monotonic() < deadline:
            valid_during.append(_timed(lambda: authorize(keys[1])))
        stop.set()
        for thread in threads:
            thread.join()
        results["valid_during_flood"] = summary(valid_during)
        results["flood_attempts"] = refused[0]
        results["machine"] = (
            f"{platform.machine()} {platform.processor() or ''} {os.cpu_count()} cores, "
            f"python {platform.python_version()}, {platform.platform()}"
        )
    finally:
        cluster.stop()
    for name, value in results.items():
        if isinstance(value, dict):
            log(
                f"{name:20} n={value['n']:4}  p50 {value['p50_ms']:7.2f}  p95 {value['p95_ms']:7.2f}  "
                f"p99 {value['p99_ms']:7.2f}  max {value['max_ms']:7.2f} ms"
            )
        else:
            log(f"{name:20} {value}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
