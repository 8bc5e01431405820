"""Where an import's CPU goes, server against database, for one or more checkouts, alternating.

    .venv/bin/python -m bench.experiments.import_server_cpu --facts 20000 --rounds 3 . ../other-checkout

For each round and each checkout in turn: `aurra dev` from that checkout's code (`--embedder`,
the offline lexical one by default; its own embedded PostgreSQL in a temp dir), a fresh key, one
`aurra import --format jsonl` of N of bench/portability.py's facts (Level 2 off, 4 batches in
flight, the index build asked for but not waited for; `--auto-supersede`: Level 2 on, the rules
classifier, scopes in 4 lanes), and the CPU seconds the server process and the PostgreSQL
processes used (`/proc`, the backends alive at the end: an import's connections are the pool's,
kept open), and the server's worker processes' (the classifier's, the embedder's and the
credentials screen's).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the suite's modules

import portability
from common import ROOT, log

TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_s(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return total / TICKS


def _postgres_pids(data_dir: Path, server: int) -> list[int]:
    """The embedded PostgreSQL's processes: its postmaster (its command line names the data
    directory, as the server's own does, which is left out) and the postmaster's children."""
    found = subprocess.run(["pgrep", "-f", str(data_dir)], capture_output=True, text=True, check=False).stdout
    parents = [int(p) for p in found.split() if int(p) != server]
    children = subprocess.run(
        ["pgrep", "-P", ",".join(map(str, parents)) or "0"], capture_output=True, text=True, check=False
    ).stdout
    return parents + [int(p) for p in children.split()]


def _worker_pids(server: int, postgres: list[int]) -> list[int]:
    """The server's worker processes (runtime/worker_processes.py): its children that are not
    PostgreSQL's. Started with the server; replaced ones are not counted."""
    found = subprocess.run(["pgrep", "-P", str(server)], capture_output=True, text=True, check=False).stdout
    return [int(p) for p in found.split() if int(p) not in postgres]


def run(
    checkout: Path, source: Path, work: Path, embedder: str = "local", auto_supersede: bool = False
) -> dict[str, float]:
    data_dir = Path(tempfile.mkdtemp(prefix="dev-", dir=work))
    env = {
        **os.environ,
        "AURRA_EMBEDDER": embedder,
        "AURRA_CLASSIFIER": "rules",
        "AURRA_FLAG_SOURCE": "env",
        "AURRA_WEBHOOK_WORKER": "false",
        "AURRA_LEVEL2_WORKER": "false",
        "AURRA_LEVEL2_ENABLED": "true" if auto_supersede else "false",
        "PYTHONPATH": f"{checkout}/layers/core/python{os.pathsep}{checkout}",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "aurra_local.cli", "dev", "--port", "0", "--data-dir", str(data_dir)],
        cwd=checkout,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        key = base_url = None
        while base_url is None:
            line = server.stdout.readline()
            if not line:
                raise RuntimeError("aurra dev stopped before listening")
            key = (re.search(r"dev API key: (\S+)", line) or [None, key])[1]
            if found := re.search(r"listening on (http://\S+)", line):
                base_url = found.group(1)
        postgres = _postgres_pids(data_dir, server.pid)
        server_before, postgres_before = _cpu_s([server.pid]), _cpu_s(postgres)
        workers_before = _cpu_s(_worker_pids(server.pid, postgres))
        started = time.perf_counter()
        imported = subprocess.run(
            [
                sys.executable,
                "-m",
                "aurra_local.cli",
                "import",
                str(source),
                "--format",
                "jsonl",
                "--index-wait",
                "0",
                *(["--auto-supersede"] if auto_supersede else []),
            ],
            cwd=ROOT,
            env={**os.environ, "AURRA_BASE_URL": base_url, "AURRA_API_KEY": key},
            capture_output=True,
            text=True,
            check=True,
        )
        wall = time.perf_counter() - started
        postgres = _postgres_pids(data_dir, server.pid)
        return {
            "wall_s": wall,
            "server_cpu_s": _cpu_s([server.pid]) - server_before,
            "workers_cpu_s": _cpu_s(_worker_pids(server.pid, postgres)) - workers_before,
            "postgres_cpu_s": _cpu_s(postgres) - postgres_before,
            "reported": float(re.search(r"in ([\d.]+) s", imported.stdout).group(1)),
        }
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("checkouts", nargs="+", type=Path)
    parser.add_argument("--facts", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--embedder", default="local", help="the server's embedder (local, minilm, mpnet)")
    parser.add_argument(
        "--auto-supersede", action="store_true", help="the import with Level 2 on (the rules classifier)"
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="aurra-exp-import-cpu-"))
    try:
        source = work / "facts.jsonl"
        portability.facts_file(source, args.facts)
        for round_ in range(args.rounds):
            order = args.checkouts if round_ % 2 == 0 else list(reversed(args.checkouts))
            for checkout in order:
                result = run(checkout.resolve(), source, work, args.embedder, args.auto_supersede)
                log(
                    f"round {round_ + 1} {checkout}: import {result['reported']:.1f} s, server CPU "
                    f"{result['server_cpu_s']:.2f} s ({1000 * result['server_cpu_s'] / args.facts:.2f} ms a "
                    f"fact), worker processes' CPU {result['workers_cpu_s']:.2f} s, PostgreSQL CPU "
                    f"{result['postgres_cpu_s']:.2f} s"
                )
    finally:
        # every round's database is in it: most of a gigabyte a round
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
