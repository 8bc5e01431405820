"""What the HTTP server of `aurra dev` adds to a request.

Starts `aurra dev` from a source tree (this one by default; `--tree` another checkout, to
compare servers) on its own embedded PostgreSQL, then sends requests one at a time over one
keep-alive connection: GET /agent/settings and POST /agent/memories. For each it records
the client's round trip and the gateway's own time (X-Aurra-Latency-Ms: authorizer and
handler); the difference is what the HTTP server and the loopback cost.

Run: `python -m bench.experiments.dev_server_latency [--tree PATH] [--requests 300] [--json FILE]`.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import log, summary

ROOT = Path(__file__).resolve().parents[2]


def start(tree: Path, data_dir: Path) -> tuple[subprocess.Popen, str, int]:
    env = {
        **os.environ,
        "PYTHONPATH": f"{tree / 'layers/core/python'}:{tree}:{tree / 'sdk/python/src'}",
        "AURRA_CLASSIFIER": "rules",
        "AURRA_EMBEDDER": "local",
        "AURRA_LEVEL2_ENABLED": "true",
    }
    env.pop("AURRA_DATABASE_URL", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "aurra_local.cli", "dev", "--port", "0", "--data-dir", str(data_dir)],
        cwd=tree,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    key = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if found := re.search(r"dev API key: (\S+)", line):
            key = found.group(1)
        if found := re.search(r"listening on http://([\d.]+):(\d+)", line):
            return process, key, int(found.group(2))
    process.kill()
    raise RuntimeError("aurra dev did not start")


def measure(port: int, key: str, method: str, path: str, body: dict | None, n: int) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    totals, inside = [], []
    for i in range(n + 10):
        payload = json.dumps({**body, "content": f"{body['content']} {i}"}) if body else None
        started = time.perf_counter()
        conn.request(method, path, body=payload, headers=headers)
        response = conn.getresponse()
        response.read()
        total = (time.perf_counter() - started) * 1000
        if response.status >= 300:
            raise RuntimeError(f"{method} {path}: {response.status}")
        if i >= 10:  # warm-up
            totals.append(total)
            inside.append(float(response.getheader("X-Aurra-Latency-Ms")))
    conn.close()
    overhead = [t - g for t, g in zip(totals, inside, strict=True)]
    return {
        "round_trip": summary(totals),
        "gateway": summary(inside),
        "server_and_loopback": summary(overhead),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--json")
    args = parser.parse_args()
    results: dict = {"tree": str(args.tree)}
    with tempfile.TemporaryDirectory(prefix="aurra-bench-dev-") as data_dir:
        process, key, port = start(args.tree.resolve(), Path(data_dir))
        try:
            results["GET /agent/settings"] = measure(port, key, "GET", "/agent/settings", None, args.requests)
            results["POST /agent/memories"] = measure(
                port,
                key,
                "POST",
                "/agent/memories",
                {"content": "bench fact", "topic": "general"},
                args.requests,
            )
        finally:
            process.terminate()
            process.wait(30)
    results["machine"] = (
        f"{platform.machine()} {os.cpu_count()} cores, python {platform.python_version()}, {platform.platform()}"
    )
    for name, value in results.items():
        if isinstance(value, dict):
            for part, figures in value.items():
                log(
                    f"{name:22} {part:20} p50 {figures['p50_ms']:7.2f}  p95 {figures['p95_ms']:7.2f}  "
                    f"p99 {figures['p99_ms']:7.2f} ms (n={figures['n']})"
                )
        else:
            log(f"{name}: {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
