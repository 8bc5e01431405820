"""The layer's lock file, `layers/core/requirements.lock`: every package the layer installs (the
pins of `requirements.txt` and everything they pull in), each at one version with the sha256 of
every wheel a Lambda runtime of Aurra's may get (both architectures, both Python versions). The
layer build installs it with `pip --require-hashes` (infra/components/layer.py): a wheel that is
not the one locked, or a dependency that is not locked, stops the build.

Regenerate it after changing `requirements.txt` (pip downloads the wheels: it needs the package
index):

    python -m infra.layer_lock            # or: make layer-lock
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from infra import constants as c
from infra.components.layer import pip_platforms
from infra.config import ARCHITECTURES, PYTHON_VERSIONS

HEADER = """\
# The aurra_core layer's packages, every one pinned and hashed: generated from requirements.txt
# by `python -m infra.layer_lock` (do not edit; regenerate after changing requirements.txt).
# The hashes are of the wheels for each Lambda architecture and Python version Aurra deploys.
"""
_WHEEL = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)-.*\.whl$")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_text(wheels: Iterable[Path]) -> str:
    """The lock for these wheels: one line per package, its version, its wheels' hashes."""
    versions: dict[str, set[str]] = defaultdict(set)
    hashes: dict[str, set[str]] = defaultdict(set)
    for wheel in wheels:
        match = _WHEEL.match(wheel.name)
        if match is None:
            raise ValueError(f"not a wheel: {wheel.name}")
        name = canonical(match["name"])
        versions[name].add(match["version"])
        hashes[name].add(hashlib.sha256(wheel.read_bytes()).hexdigest())
    split = {name: sorted(v) for name, v in versions.items() if len(v) > 1}
    if split:
        raise ValueError(f"packages resolved to different versions per platform, pin them: {split}")
    lines = [HEADER]
    for name in sorted(versions):
        (version,) = versions[name]
        lines.append(
            f"{name}=={version} \\\n"
            + " \\\n".join(f"    --hash=sha256:{digest}" for digest in sorted(hashes[name]))
            + "\n"
        )
    return "".join(lines)


def download(requirements: Path, into: Path, *, architecture: str, python_version: str) -> None:
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--requirement",
        str(requirements),
        "--dest",
        str(into),
    ]
    for platform in pip_platforms(architecture, python_version):
        command += ["--platform", platform]
    command += [
        "--only-binary=:all:",
        "--python-version",
        python_version,
        "--implementation",
        "cp",
        "--disable-pip-version-check",
        "--quiet",
    ]
    subprocess.run(command, check=True)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="aurra-layer-lock-") as work:
        wheels: list[Path] = []
        for architecture in ARCHITECTURES:
            for python_version in PYTHON_VERSIONS:
                into = Path(work) / f"{architecture}-{python_version}"
                download(c.LAYER_REQUIREMENTS, into, architecture=architecture, python_version=python_version)
                wheels += into.glob("*.whl")
        c.LAYER_LOCK.write_text(lock_text(wheels))
    print(f"wrote {c.LAYER_LOCK.relative_to(c.REPO_ROOT)}")


if __name__ == "__main__":
    main()
