"""Start `aurra dev` as a user would, in a subprocess."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@dataclass
class DevServer:
    base_url: str
    dev_key: str
    process: subprocess.Popen
    # The server's "unhandled error" log lines (the error's type and where it failed, never
    # content): a test that fails shows those logged while it ran (tests/e2e/conftest.py).
    errors: list[str] = field(default_factory=list)


def start_dev_server(
    pg_url: str,
    data_dir: Path,
    *extra_args: str,
    cwd: Path = REPO,
    stderr_path: Path | None = None,
    **env: str,
) -> DevServer:
    """`aurra dev` on a free port; its stderr (the access log) goes to `stderr_path` if given."""
    # No webhook or Level 2 worker unless asked: servers of one session share its database
    # with the integration tests, whose jobs and deliveries a worker of this server would take
    # (a test of them runs a worker of its own: tests/e2e/test_webhooks_over_http.py,
    # tests/e2e/test_async_level2_over_http.py).
    environment = {
        **os.environ,
        "AURRA_DATABASE_URL": pg_url,
        "AURRA_LEVEL2_ENABLED": "true",
        "AURRA_WEBHOOK_WORKER": "false",
        "AURRA_LEVEL2_WORKER": "false",
        **env,
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "aurra_local.cli",
            "dev",
            "--port",
            "0",
            "--data-dir",
            str(data_dir),
            *extra_args,
        ],
        cwd=cwd,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=stderr_path.open("w") if stderr_path else subprocess.DEVNULL,
        text=True,
    )
    key, deadline = None, time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        if found := re.search(r"dev API key: (\S+)", line):
            key = found.group(1)
        if found := re.search(r"listening on (http://\S+)", line):
            # What the server prints from here on (its metrics, one line a request) is read
            # and dropped: a pipe nobody reads fills at 64 KiB, and the server's next print
            # would then block the request making it, with its transaction open.
            server = DevServer(found.group(1), key, process)
            threading.Thread(target=_drain, args=(process.stdout, server.errors), daemon=True).start()
            return server
    process.kill()
    raise RuntimeError("aurra dev did not start")


def _drain(stream, errors: list[str]) -> None:
    for line in stream:
        if "unhandled error" in line:
            errors.append(line.rstrip())
