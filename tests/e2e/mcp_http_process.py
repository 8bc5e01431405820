"""`aurra mcp --http` in a subprocess, as a user runs it, against a running `aurra dev`."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@dataclass
class McpProcess:
    url: str
    process: subprocess.Popen
    api_port: int


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def running_mcp_http(api_base_url: str) -> Iterator[McpProcess]:
    """Started with only AURRA_BASE_URL (no key of its own: each caller brings theirs), the layer
    and the SDK importable from this checkout; stopped on exit."""
    port = free_port()
    env = {
        **os.environ,
        "AURRA_BASE_URL": api_base_url,
        "PYTHONPATH": os.pathsep.join(
            [str(REPO / "layers/core/python"), str(REPO), str(REPO / "sdk/python/src")]
        ),
    }
    env.pop("AURRA_API_KEY", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "aurra_local.cli", "mcp", "--http", "--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        else:
            raise RuntimeError("aurra mcp --http did not start")
        yield McpProcess(f"http://127.0.0.1:{port}/mcp", process, int(api_base_url.rsplit(":", 1)[1]))
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
