"""The TypeScript SDK's own suite (`npm ci && npm test` in sdk/typescript), run as part of pytest.

It builds the package, runs its unit tests on a mock fetch, packs it and installs the tarball
into a fresh Node project, and runs its end-to-end tests against `aurra dev` servers that it
starts itself. Here those servers use this session's embedded PostgreSQL, and this Python, which
also signs the webhooks the TypeScript verifier checks (the service's signer and the Python SDK's).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from sdk_checkout import SDK_TYPESCRIPT as SDK
from sdk_checkout import typescript_sdk_exclusively


def _run(command: list[str], env: dict[str, str]) -> None:
    result = subprocess.run(
        command, cwd=SDK, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    if result.returncode != 0:
        output = (result.stdout + result.stderr)[-20_000:]
        raise AssertionError(f"`{' '.join(command)}` in sdk/typescript failed:\n{output}")


def test_typescript_sdk_suite(pg_url: str) -> None:
    npm = shutil.which("npm")
    assert npm, "the TypeScript SDK's tests need Node.js >= 18 with npm on the PATH"
    env = {**os.environ, "AURRA_DATABASE_URL": pg_url, "AURRA_PYTHON": sys.executable}
    with typescript_sdk_exclusively():
        _run([npm, "ci", "--no-audit", "--no-fund"], env)
        _run([npm, "test"], env)
