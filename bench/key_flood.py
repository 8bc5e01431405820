"""Valid callers' latency on `aurra dev` while a flood of wrong secrets targets one key's
lookup part, against a floor: the same flood of requests that carry no key.

`aurra dev` runs on an embedded PostgreSQL of its own (in a temp dir). Phases, each with the
same flood (--flood-rate requests a second from --flood-processes processes, one keep-alive
connection each: the same load in every phase, whatever a request costs) and the same valid
callers sending requests one at a time (GET /agent/settings):

- quiet: no flood;
- floor: the flood sends no Authorization header (refused before the authorizer runs);
- malformed: the flood sends a key the key check refuses by its shape (the authorizer runs,
  no database query, no hash);
- wrong secrets: the flood sends random secrets behind one real key's lookup part.

The valid callers are another key (verified before the flood) and the attacked key itself,
first used only once the flood is under way (an idle key: its right secret must pass); the
attacked key is new each round. The phases run in turn, --rounds times, so a shared machine's
drifting load falls on every phase alike. The report: each phase's p50 and p95 over all
rounds, the median over rounds of its p50 divided by the same round's floor, the share of a
core `aurra dev` spent during the phase (its own process; PostgreSQL's is apart), and last the
authorizer alone in process (microseconds a call), without HTTP.

Run: `.venv/bin/python bench/key_flood.py [--flood-processes 3] [--flood-rate 150] [--requests 150] [--rounds 3] [--json FILE]`.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import secrets
import statistics
import sys
import time
from pathlib import Path

import httpx

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "tests" / "e2e"))

from common import Cluster, local_environment, log, pct, summary  # noqa: E402
from dev_server import start_dev_server  # noqa: E402


def _create_key(url: str, tenant: str) -> str:
    os.environ["AURRA_DATABASE_URL"] = url
    from aurra_core.access.admin import CreateKey, IssuedKey, perform

    issued = perform(CreateKey(action="create", tenant=tenant))
    assert isinstance(issued, IssuedKey)
    return issued.key


def _flood_header(kind: str, attacked: str) -> str | None:
    if kind == "none":
        return None
    if kind == "malformed":
        return "Bearer aurra_not-a-key"
    lookup_part = "_".join(attacked.split("_")[:2])  # aurra_<lookup>
    return f"Bearer {lookup_part}_{secrets.token_urlsafe(24)}"


def _flood(base_url: str, kind: str, attacked: str, rate: float, stop, sent) -> None:
    """One flooding process (its own interpreter: the measuring client shares no GIL with it),
    sending at `rate` requests a second on one keep-alive connection (open loop while the
    server keeps up: a dearer request does not slow the flood down)."""
    interval, next_at = 1.0 / rate, time.monotonic()
    with httpx.Client(base_url=base_url, timeout=30) as client:
        while not stop.is_set():
            header = _flood_header(kind, attacked)
            client.get("/agent/settings", headers={"Authorization": header} if header else {})
            with sent.get_lock():
                sent.value += 1
            next_at = max(next_at + interval, time.monotonic() - 1.0)  # no burst after a stall
            time.sleep(max(0.0, next_at - time.monotonic()))


def _cpu_s(pid: int) -> float:
    """The process's user and system CPU seconds so far (Linux: /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _phase(
    base_url: str,
    pid: int,
    kind: str | None,
    attacked: str,
    callers: dict[str, str],
    args: argparse.Namespace,
) -> dict:
    """Each valid caller's latencies (ms) while --flood-processes processes send `kind`."""
    context = multiprocessing.get_context("spawn")
    stop, sent = context.Event(), context.Value("l", 0)
    rate = args.flood_rate / args.flood_processes
    workers = [
        context.Process(target=_flood, args=(base_url, kind, attacked, rate, stop, sent))
        for _ in range(args.flood_processes if kind else 0)
    ]
    for worker in workers:
        worker.start()
    if workers:  # the flood under way before the first valid request
        deadline = time.monotonic() + 30
        while sent.value < 20 * len(workers) and time.monotonic() < deadline:
            time.sleep(0.05)
    cpu_before = _cpu_s(pid)
    latencies: dict[str, list[float]] = {name: [] for name in callers}
    refused = dict.fromkeys(callers, 0)
    sent_before, started = sent.value, time.monotonic()
    with httpx.Client(base_url=base_url, timeout=30) as client:
        for _ in range(args.requests):
            for name, key in callers.items():
                begun = time.perf_counter()
                response = client.get("/agent/settings", headers={"Authorization": f"Bearer {key}"})
                latencies[name].append((time.perf_counter() - begun) * 1000)
                if response.status_code != 200:
                    refused[name] += 1
            if time.monotonic() - started > args.cap_s:
                break
    elapsed, flood_sent = time.monotonic() - started, sent.value - sent_before
    cpu = _cpu_s(pid) - cpu_before
    stop.set()
    for worker in workers:
        worker.join(30)
    return {
        "latencies": latencies,
        "refused": refused,
        "flood_per_s": flood_sent / max(elapsed, 1e-9),
        "server_cpu_share": cpu / max(elapsed, 1e-9),  # of one core
    }


def _authorizer_alone(url: str, attacked: str, valid: str, calls: int) -> dict:
    """The authorizer in this process as `aurra dev` runs it (gateway.authorize): microseconds
    a call for each kind of request, the attacked lookup past its failure limit."""
    from aurra_local import gateway

    def timed(header) -> float:
        started = time.perf_counter()
        for _ in range(calls):
            gateway.authorize("GET", "/agent/settings", header())
        return (time.perf_counter() - started) / calls * 1e6

    kinds = {
        "no key": lambda: None,
        "malformed key": lambda: _flood_header("malformed", attacked),
        "wrong secret (flooded lookup)": lambda: _flood_header("wrong", attacked),
        "valid key (cached)": lambda: f"Bearer {valid}",
    }
    for header in kinds.values():  # imports, pool, the flood past the limit: before any clock
        for _ in range(20):
            gateway.authorize("GET", "/agent/settings", header())
    return {name: round(timed(header), 1) for name, header in kinds.items()}


PHASES = (
    ("quiet", None),
    ("floor (no key)", "none"),
    ("malformed key", "malformed"),
    ("wrong secrets", "wrong"),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--flood-processes", type=int, default=3)
    parser.add_argument(
        "--flood-rate", type=float, default=150.0, help="flood requests a second, all processes"
    )
    parser.add_argument(
        "--requests", type=int, default=150, help="valid requests per caller, phase and round"
    )
    parser.add_argument("--rounds", type=int, default=3, help="the phases in turn, this many times")
    parser.add_argument("--cap-s", type=float, default=60.0, help="at most this long a phase")
    parser.add_argument("--json", help="write the figures to this file too")
    args = parser.parse_args()

    local_environment()
    cluster = Cluster()
    server = None
    rounds: list[dict] = []
    try:
        url = cluster.create("key_flood")
        server = start_dev_server(url, cluster.dir / "dev")
        base = server.base_url
        other = _create_key(url, "flood-other")
        httpx.get(f"{base}/agent/settings", headers={"Authorization": f"Bearer {other}"}).raise_for_status()
        for round_index in range(args.rounds):
            # The attacked key: new each round and never used before its flood, so no cache
            # of the server's holds it.
            attacked = _create_key(url, f"flood-attacked-{round_index}")
            figures = {}
            for name, kind in PHASES:
                callers = {"other key": other, **({"attacked key": attacked} if kind == "wrong" else {})}
                figures[name] = _phase(base, server.process.pid, kind, attacked, callers, args)
            rounds.append(figures)
            log(f"round {round_index + 1} of {args.rounds} done")
        authorizer = _authorizer_alone(url, attacked, other, 2000)
        machine = (
            f"{platform.machine()} {os.cpu_count()} cores, python {platform.python_version()}, "
            f"load average {os.getloadavg()[0]:.1f}"
        )
    finally:
        if server is not None:
            server.process.terminate()
            server.process.wait(10)
        cluster.stop()
    report: dict = {"machine": machine, "authorizer_us": authorizer, "phases": {}}
    for name, _ in PHASES:
        for caller in ("other key", "attacked key"):
            if caller not in rounds[0][name]["latencies"]:
                continue
            pooled = [ms for figures in rounds for ms in figures[name]["latencies"][caller]]
            ratios = [
                pct(figures[name]["latencies"][caller], 50)
                / pct(figures["floor (no key)"]["latencies"]["other key"], 50)
                for figures in rounds
            ]
            entry = {
                **summary(pooled),
                "p50_over_floor_by_round": [round(r, 2) for r in ratios],
                "p50_over_floor_median": round(statistics.median(ratios), 2),
                "refused": sum(figures[name]["refused"][caller] for figures in rounds),
                "flood_per_s": round(statistics.fmean(figures[name]["flood_per_s"] for figures in rounds), 1),
                "server_cpu_share": round(
                    statistics.fmean(figures[name]["server_cpu_share"] for figures in rounds), 2
                ),
            }
            report["phases"][f"{name} / {caller}"] = entry
            log(
                f"{name:15} {caller:13} n={entry['n']:4}  p50 {entry['p50_ms']:7.2f}  p95 {entry['p95_ms']:7.2f} ms  "
                f"p50/floor {entry['p50_over_floor_median']:4.2f} (rounds {entry['p50_over_floor_by_round']})  "
                f"refused {entry['refused']}  flood {entry['flood_per_s']}/s  "
                f"server CPU {entry['server_cpu_share']:.2f} core"
            )
    for kind, us in authorizer.items():
        log(f"authorizer alone, {kind:30} {us:8.1f} us a call")
    log(machine)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
