"""The wheel, installed outside the repository, does what a user runs: `aurra --help`,
`aurra dev` on an embedded and on their own PostgreSQL, `aurra eval --dataset FILE` and
`aurra invoke maintenance`.

The wheel is built offline from a copy of the sources (pip, no build isolation) and installed
with --no-deps into a fresh virtualenv whose only other path is this environment's
site-packages, for the dependencies: the service's own code comes from the wheel alone (a
test below checks), and every command runs in an empty directory without PYTHONPATH.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import venv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "functions", "layers/core/python/aurra_core", "aurra_local", "console")


@dataclass
class Installed:
    bin: Path
    python: Path
    outside: Path  # an empty working directory, nowhere near the repository

    def env(self, **extra: str) -> dict[str, str]:
        base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("AURRA_")}
        return {**base, **extra}

    def run(self, *args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / "aurra"), *args],
            cwd=self.outside,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("wheel")
    source = root / "src"
    for name in SOURCES:
        origin = REPO / name
        if origin.is_dir():
            shutil.copytree(origin, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(origin, source / name)
    dist = root / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(dist),
            str(source),
        ],
        check=True,
        timeout=300,
    )
    (wheel,) = dist.glob("aurra_service-*.whl")
    environment = root / "venv"
    venv.create(environment, with_pip=False)
    python = environment / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # The dependencies, from this environment: appended after the new venv's own site-packages.
    # This environment has the service installed too (editable): --ignore-installed below, so
    # pip installs the wheel into the new venv rather than call it already satisfied.
    (Path(site) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            "--ignore-installed",
            str(wheel),
        ],
        check=True,
        timeout=300,
    )
    outside = root / "elsewhere"
    outside.mkdir()
    return Installed(environment / "bin", python, outside)


def test_the_code_comes_from_the_wheel_and_functions_are_not_a_top_level_package(
    installed: Installed,
) -> None:
    probe = (
        "import importlib.util, json, aurra_core, aurra_local, aurra_functions; "
        "print(json.dumps([aurra_core.__file__, aurra_local.__file__, aurra_functions.__file__, "
        "importlib.util.find_spec('functions') is None]))"
    )
    out = subprocess.run(
        [str(installed.python), "-c", probe],
        cwd=installed.outside,
        env=installed.env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    *files, no_functions = json.loads(out)
    venv_root = str(installed.python.parent.parent)
    assert all(f.startswith(venv_root) for f in files), files
    assert no_functions, "the wheel installs a top-level package named 'functions'"


def test_help(installed: Installed) -> None:
    result = installed.run("--help")
    assert result.returncode == 0, result.stderr
    for command in ("dev", "keys", "invoke", "eval", "openapi", "migrate"):
        assert command in result.stdout


def test_eval_on_a_dataset_file(installed: Installed) -> None:
    cases = [
        {"id": "a", "category": "preferences", "label": "contradicts",
         "old": {"content": "User uses Vim", "topic": "preferences"},
         "new": {"content": "User switched from Vim to Emacs", "topic": "preferences"}},
        {"id": "b", "category": "preferences", "label": "new_fact",
         "old": {"content": "User uses Vim", "topic": "preferences"},
         "new": {"content": "User has a dog named Rex", "topic": "pets"}},
    ]  # fmt: skip
    dataset = installed.outside / "mine.jsonl"
    dataset.write_text("".join(json.dumps(c) + "\n" for c in cases))
    result = installed.run("eval", "--dataset", str(dataset), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["cases"] == 2


def test_a_missing_dataset_or_document_is_one_line(installed: Installed) -> None:
    for args in (("eval",), ("eval", "--dataset", "nope.jsonl"), ("openapi", "--check")):
        result = installed.run(*args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert result.stderr.startswith(f"aurra {args[0]}: no "), result.stderr


def test_invoke_maintenance(installed: Installed, pg_url: str) -> None:
    event = installed.outside / "tick.json"
    event.write_text(json.dumps({"detail-type": "Scheduled Event", "source": "aws.events", "detail": {}}))
    result = installed.run("invoke", "maintenance", "--event", str(event), AURRA_DATABASE_URL=pg_url)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert {"built", "over_limit"} <= set(report), report


@pytest.fixture
def dev(installed: Installed) -> Iterator[callable]:
    processes: list[subprocess.Popen[str]] = []

    def start(data_dir: Path, **env: str) -> tuple[str, str]:
        process = subprocess.Popen(
            [str(installed.bin / "aurra"), "dev", "--port", "0", "--data-dir", str(data_dir)],
            cwd=installed.outside,
            env=installed.env(**env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        processes.append(process)
        key, output, deadline = None, [], time.monotonic() + 120
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            output.append(line)
            if found := re.search(r"dev API key: (\S+)", line):
                key = found.group(1)
            if (found := re.search(r"listening on (http://\S+)", line)) and key:
                return found.group(1), key
        raise AssertionError("aurra dev did not start:\n" + "".join(output))

    yield start
    for process in processes:
        process.terminate()
        process.wait(30)


def _serves(base_url: str, key: str) -> None:
    headers = {"Authorization": f"Bearer {key}"}
    written = httpx.post(f"{base_url}/agent/memories", json={"content": "User uses Vim"}, headers=headers)
    assert written.status_code == 201, written.text
    listed = httpx.get(f"{base_url}/agent/memories", headers=headers)
    assert [m["content"] for m in listed.json()["memories"]] == ["User uses Vim"]
    assert httpx.get(f"{base_url}/docs").status_code == 200
    console = httpx.get(f"{base_url}/console/")
    assert console.status_code == 200 and "<html" in console.text.lower()
    assert console.headers.get("content-security-policy")


def test_dev_on_its_embedded_database(installed: Installed, dev) -> None:
    base_url, key = dev(installed.outside / ".aurra")
    _serves(base_url, key)


def test_dev_on_ones_own_database(installed: Installed, dev, pg_url: str) -> None:
    base_url, key = dev(installed.outside / "own", AURRA_DATABASE_URL=pg_url)
    _serves(base_url, key)
