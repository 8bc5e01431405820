"""The layer: how it is built, and (marked layer_build) one real build.

The real build goes through CDK's asset bundling exactly as `cdk synth` does
(the ILocalBundling callback over jsii), for the Lambda platform rather than
this machine's, then checks the wheels' platform tags, the architecture of
every shared object, what was left out, and the unzipped size.
"""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import pytest

from infra import constants as c
from infra.components.layer import (
    RUNTIME_PROVIDED,
    _prune_runtime_provided,
    pip_arguments,
    pip_platforms,
)

# Lambda's limit on a function's code plus all its layers, unzipped.
LAMBDA_UNZIPPED_LIMIT = 250 * 1024 * 1024
ELF_MACHINE = {"arm64": 183, "x86_64": 62}  # EM_AARCH64, EM_X86_64
WHEEL_PLATFORM = {"arm64": "aarch64", "x86_64": "x86_64"}


def test_pip_targets_the_lambda_platform_not_this_machine() -> None:
    args = pip_arguments(
        requirements="r.txt", target="out/python", architecture="arm64", python_version="3.12"
    )
    text = " ".join(args)
    assert "--only-binary=:all:" in args
    assert "--python-version 3.12" in text
    assert "--implementation cp" in text
    assert "--platform manylinux2014_aarch64" in text
    assert "--target out/python" in text
    assert pip_platforms("x86_64", "3.12") == ["manylinux2014_x86_64", "manylinux_2_28_x86_64"]
    assert pip_platforms("arm64", "3.13") == ["manylinux2014_aarch64", "manylinux_2_28_aarch64"]


def test_runtime_provided_packages_are_pruned(tmp_path: Path) -> None:
    for name in ("boto3", "botocore", "s3transfer", "numpy", "botocore_stub"):
        (tmp_path / name).mkdir()
    for name in ("boto3-1.0.dist-info", "botocore-1.0.dist-info", "numpy-2.0.dist-info"):
        (tmp_path / name).mkdir()
    (tmp_path / "bin").mkdir()
    _prune_runtime_provided(tmp_path)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["botocore_stub", "numpy", "numpy-2.0.dist-info"]


def test_requirements_leave_out_what_the_runtime_has() -> None:
    lines = [line.split("#")[0].strip() for line in c.LAYER_REQUIREMENTS.read_text().splitlines()]
    names = {re.split(r"[\[=<>~!]", line)[0].lower() for line in lines if line}
    assert not names & set(RUNTIME_PROVIDED)
    assert {"pydantic", "psycopg", "pgvector", "numpy", "anthropic", "aws-lambda-powertools"} <= names


# ------------------------------------------------------------ real build
def elf_machine(path: Path) -> int | None:
    with path.open("rb") as f:
        header = f.read(20)
    if header[:4] != b"\x7fELF":
        return None
    return struct.unpack("<H", header[18:20])[0]


def tree_size(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink())


@pytest.mark.layer_build
def test_layer_builds_for_the_lambda_platform(tmp_path: Path) -> None:
    import aws_cdk as cdk

    from infra.components.layer import CoreLayer
    from infra.config import AurraConfig

    config = AurraConfig()
    outdir = tmp_path / "cdk.out"
    app = cdk.App(outdir=str(outdir))
    stack = cdk.Stack(app, "LayerOnly")
    CoreLayer(stack, "CoreLayer", config=config)
    app.synth()

    manifest = json.loads((outdir / "LayerOnly.assets.json").read_text())
    (asset,) = [a for a in manifest["files"].values() if a["source"].get("packaging") == "zip"]
    layer_root = outdir / asset["source"]["path"]
    site = layer_root / "python"
    assert site.is_dir()

    # wheels: built for CPython on the Lambda architecture (or pure Python)
    machine = WHEEL_PLATFORM[config.architecture]
    py = "cp" + config.python_version.replace(".", "")
    tags = []
    for wheel in site.glob("*.dist-info/WHEEL"):
        tags += [
            line.split(":", 1)[1].strip()
            for line in wheel.read_text().splitlines()
            if line.startswith("Tag:")
        ]
    assert tags
    for tag in tags:
        interpreter, abi, platform = tag.split("-")
        if platform == "any":
            continue
        assert platform.startswith("manylinux") and platform.endswith(machine), tag
        assert interpreter == py or abi == "abi3", tag

    # every shared object is for the Lambda architecture (psycopg's pq
    # wrapper included: the wrong one fails with "no pq wrapper available")
    shared = [p for p in site.rglob("*.so*") if p.is_file()]
    assert any("psycopg_binary" in str(p) for p in shared)
    wrong = [
        str(p.relative_to(site))
        for p in shared
        if elf_machine(p) not in (None, ELF_MACHINE[config.architecture])
    ]
    assert wrong == []

    # the domain package, its migrations, and nothing the runtime provides
    assert (site / "aurra_core" / "__init__.py").is_file()
    if c.MIGRATIONS_DIR.is_dir():
        for sql in c.MIGRATIONS_DIR.glob("*.sql"):
            assert (site / "aurra_core" / "migrations" / sql.name).is_file()
    # the CA bundle `verify-full` checks the database endpoints against
    bundle = site / "aurra_core" / "certs" / "aws-rds-ca-bundle.pem"
    assert bundle.read_text().count("BEGIN CERTIFICATE") >= 90
    for name in RUNTIME_PROVIDED:
        assert not (site / name).exists(), name
    assert not list(site.rglob("__pycache__"))

    # size: layer plus the largest function must fit Lambda's unzipped limit
    layer_bytes = tree_size(layer_root)
    largest_function = max(tree_size(c.FUNCTIONS_DIR / name) for name in c.ALL_FUNCTIONS)
    total = layer_bytes + largest_function
    print(
        f"\nlayer unzipped: {layer_bytes / 2**20:.1f} MiB; with the largest function: {total / 2**20:.1f} MiB"
    )
    assert total < LAMBDA_UNZIPPED_LIMIT
