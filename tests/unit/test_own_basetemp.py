"""Each test run gets its own base temp directory, so two runs on one machine cannot prune each
other's (the embedded PostgreSQL's data directory lives there)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest


def run_base_temp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's base temp directory: a parallel worker's (`make test`) is a folder inside it."""
    base = tmp_path_factory.getbasetemp()
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        assert base.name == f"popen-{worker}"
        return base.parent
    return base


def test_this_run_has_its_own_base_temp(tmp_path_factory: pytest.TempPathFactory) -> None:
    base = run_base_temp(tmp_path_factory)
    assert base.name.startswith("aurra-pytest-")
    assert base.parent.resolve() == Path(tempfile.gettempdir()).resolve()


def test_a_second_run_neither_shares_nor_removes_this_one(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    mine = run_base_temp(tmp_path_factory)
    probe = tmp_path / "probe_test.py"
    probe.write_text(
        "def test_probe(tmp_path_factory):\n    print('BASE=' + str(tmp_path_factory.getbasetemp()))\n"
    )
    # The second run loads this suite's conftest, as a concurrent `make test` would.
    conftest = Path(__file__).resolve().parents[1] / "conftest.py"
    (tmp_path / "conftest.py").write_text(conftest.read_text())
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", str(probe)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    other = next(line[5:] for line in out.stdout.splitlines() if line.startswith("BASE="))
    assert Path(other) != mine
    assert not Path(other).exists()  # the second run cleaned up after itself
    assert mine.exists() and tmp_path.exists()  # and left this run's alone
