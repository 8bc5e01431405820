"""The SDK's framework adapters (aurra.integrations: LangGraph, the OpenAI Agents SDK, Strands
Agents) against the real framework packages, in their own environment (`make
setup-frameworks`), end to end against `aurra dev` with Level 2 on; and their types checked
strictly there, where the frameworks are installed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from dev_server import start_dev_server

REPO = Path(__file__).resolve().parents[2]
PYTHON = REPO / ".venv-frameworks" / "bin" / "python"
TESTS = REPO / "sdk" / "python" / "tests" / "frameworks"


def _require_environment() -> None:
    if not PYTHON.exists():
        pytest.fail("the frameworks' environment is missing: `make setup-frameworks` (make test makes it)")


def _run(command: list[str], env: dict[str, str]) -> None:
    result = subprocess.run(
        command, cwd=REPO, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert result.returncode == 0, (
        f"`{' '.join(command)}` failed:\n{(result.stdout + result.stderr)[-20_000:]}"
    )


def test_the_adapters_type_check_against_the_frameworks() -> None:
    _require_environment()
    env = {**os.environ, "MYPYPATH": str(REPO / "sdk" / "python" / "src")}
    _run(
        [str(PYTHON), "-m", "mypy", "--config-file", os.devnull, "--strict", "-p", "aurra.integrations"], env
    )


def test_the_adapters_against_the_frameworks_and_aurra_dev(pg_url: str, tmp_path: Path, new_key) -> None:
    _require_environment()
    server = start_dev_server(pg_url, tmp_path / "dev")
    _, key = new_key()  # a tenant of their own: the dev key's is shared by every server on this database
    try:
        env = {**os.environ, "AURRA_BASE_URL": server.base_url, "AURRA_API_KEY": key}
        _run(
            [
                str(PYTHON),
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-c",
                os.devnull,
                "--rootdir",
                str(TESTS),
                str(TESTS),
            ],
            env,
        )
    finally:
        server.process.kill()
        server.process.wait()
