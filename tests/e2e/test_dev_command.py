"""`aurra dev` started as a new user would start it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from dev_server import REPO, start_dev_server

pytestmark = pytest.mark.integration


def test_dev_on_own_database_in_a_fresh_directory(pg_url: str, tmp_path: Path) -> None:
    """With AURRA_DATABASE_URL set no embedded server makes the data directory; `aurra dev`
    still keeps its dev key there, creating the directory itself."""
    data_dir = tmp_path / "fresh" / ".aurra"
    server = start_dev_server(pg_url, data_dir, cwd=tmp_path)
    try:
        assert (data_dir / "dev-key").read_text().strip() == server.dev_key
        response = httpx.get(
            f"{server.base_url}/agent/settings", headers={"Authorization": f"Bearer {server.dev_key}"}
        )
        assert response.status_code == 200, response.text
    finally:
        server.process.terminate()
        server.process.wait(10)


def test_dev_on_a_port_already_taken_says_so_in_one_line(pg_url: str, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "aurra_local.cli",
                "dev",
                "--port",
                str(port),
                "--data-dir",
                str(tmp_path),
            ],
            cwd=REPO,
            env={**os.environ, "AURRA_DATABASE_URL": pg_url},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert result.returncode == 1, result
    assert f"127.0.0.1:{port} is already in use" in result.stderr and "--port" in result.stderr
    assert "Traceback" not in result.stderr, result.stderr
