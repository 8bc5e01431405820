"""Cold start of handlers in two or more checkouts, interleaved: a lever measured against its base.

    python -m bench.experiments.cold_start_ab --trees /path/to/main,/path/to/change --handlers write --rounds 6

On a machine others load, two runs of bench/cold_start.py minutes apart differ by more than
a lever; here each round runs every tree once per handler, in a shuffled order, against one
embedded PostgreSQL, through bench/cold_start.py's own child (import, then the first request
through the imported `lambda_handler`, a tenant of its own per run). Each tree runs with its
own source on the path and its own bytecode cache (`PYTHONPYCACHEPREFIX`), warmed by one
discarded run. Prints best and median CPU (and best wall) per handler and tree, and the load
average at the start and the end.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import cold_start
from common import Cluster, local_environment


def tree_env(tree: Path, url: str, cache: Path) -> dict:
    env = cold_start.child_env(url)
    env["PYTHONPATH"] = os.pathsep.join(str(tree / p) for p in ("layers/core/python", ".", "sdk/python/src"))
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def one_run(tree: Path, handler: str, url: str, env: dict, tmp_dir: Path) -> dict:
    ids = cold_start.prepare(url)
    ids["memory"] = cold_start.fresh_memory(ids)
    event = tmp_dir / f"event-{handler}.json"
    event.write_text(json.dumps(cold_start.event_for(handler, ids)))
    done = subprocess.run(
        [sys.executable, str(tree / "bench" / "cold_start.py"), "--child", handler, "--event", str(event)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{handler} in {tree} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", required=True, help="checkouts, comma-separated")
    parser.add_argument("--handlers", default="write")
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    trees = [Path(t).resolve() for t in args.trees.split(",")]
    handlers = args.handlers.split(",")
    local_environment()
    tmp_dir = Path(tempfile.mkdtemp(prefix="aurra-cold-start-ab-"))
    cluster = Cluster()
    try:
        url = cluster.create("bench_coldstart_ab")
        envs = {t: tree_env(t, url, tmp_dir / f"pycache-{i}") for i, t in enumerate(trees)}
        for handler in handlers:
            for tree in trees:
                one_run(tree, handler, url, envs[tree], tmp_dir)  # bytecode and stored expressions
        print(f"load average at the start: {os.getloadavg()}", flush=True)
        samples: dict[tuple[str, Path], list[dict]] = {}
        for _ in range(args.rounds):
            for handler in handlers:
                for tree in random.sample(trees, len(trees)):
                    samples.setdefault((handler, tree), []).append(
                        one_run(tree, handler, url, envs[tree], tmp_dir)
                    )
        print(f"load average at the end: {os.getloadavg()}")
        for (handler, tree), runs in samples.items():

            def ms(key: str, runs: list[dict] = runs) -> tuple[float, float]:
                values = [r[key] * 1000 for r in runs]
                return min(values), statistics.median(values)

            print(
                f"{handler:<11} {tree}: import cpu {ms('import_cpu_s')[0]:.0f} best / {ms('import_cpu_s')[1]:.0f} median "
                f"(wall best {ms('import_s')[0]:.0f}); first request cpu {ms('first_request_cpu_s')[0]:.1f} best / "
                f"{ms('first_request_cpu_s')[1]:.1f} median (wall best {ms('first_request_s')[0]:.1f}) "
                f"[{runs[0]['first_status']}]"
            )
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
