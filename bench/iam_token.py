"""What signing in to RDS Proxy with an IAM token costs a function's first request.

Every function that reaches the database in AWS signs its first connection's password (an
IAM authentication token) before connecting. Each way runs in a fresh interpreter, the rounds
interleaved, after the authorizer's module is imported (psycopg, pydantic and Powertools already
loaded and not counted), with Lambda's environment (region, the role's credentials, the login):

- `boto3`: as the functions signed before: import boto3, create an RDS client, sign;
- `stdlib`: `db.iam_password` now: `aurra_core.storage.rds_auth_token` from the credentials Lambda puts
  in the environment.

Only the signing is measured: connecting (TLS, the proxy) is the same either way.

    python bench/iam_token.py [--rounds 8]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WAYS = {
    "boto3": (
        "import boto3\n"
        "client = boto3.client('rds', region_name=config.aws_region)\n"
        "token = client.generate_db_auth_token(DBHostname=config.db_host, Port=config.db_port, "
        "DBUsername=config.db_user)"
    ),
    "stdlib": "from aurra_core.storage.db import iam_password\ntoken = iam_password(config)()['password']",
}

CHILD = """
import json, sys, time
import functions.authorizer.handler
from aurra_core.runtime.config import get_config
config = get_config()
started, started_cpu = time.perf_counter(), time.process_time()
{way}
print(json.dumps({{"ms": (time.perf_counter() - started) * 1000,
                  "cpu_ms": (time.process_time() - started_cpu) * 1000,
                  "boto3": "boto3" in sys.modules, "token": len(token)}}))
"""


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("AURRA_DATABASE_URL", None)
    env.update(
        PYTHONPATH=os.pathsep.join([str(ROOT / "layers/core/python"), str(ROOT)]),
        AWS_REGION="eu-west-1",
        AWS_ACCESS_KEY_ID="ASIAEXAMPLEEXAMPLE",
        AWS_SECRET_ACCESS_KEY="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        AWS_SESSION_TOKEN="IQoJb3JpZ2luX2VjEXAMPLE" * 20,  # Lambda's are ~1 KB
        AURRA_DB_USER="aurra_service",
        AURRA_DB_HOST="aurra-prod.proxy-abcdefghijkl.eu-west-1.rds.amazonaws.com",
        PYDANTIC_DISABLE_PLUGINS="__all__",
    )
    return env


def one(way: str, env: dict[str, str]) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(way=WAYS[way])],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    env = environment()
    for way in WAYS:
        one(way, env)  # bytecode
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(f"load average at the start: {os.getloadavg()}")
    samples: dict[str, list[dict]] = {way: [] for way in WAYS}
    for _ in range(args.rounds):
        for way in random.sample(list(WAYS), len(WAYS)):
            samples[way].append(one(way, env))
    print(f"load average at the end: {os.getloadavg()}")
    for way, runs in samples.items():
        cpu = [r["cpu_ms"] for r in runs]
        wall = [r["ms"] for r in runs]
        print(
            f"{way:<7} sign the first token: cpu {min(cpu):.1f} best / {statistics.median(cpu):.1f} median ms, "
            f"wall {min(wall):.1f} best; boto3 loaded: {runs[0]['boto3']}"
        )


if __name__ == "__main__":
    main()
