"""The shared Lambda layer (layers/core), built on this machine without Docker.

`pip install --platform manylinux..._<arch> --only-binary=:all:
--python-version <runtime> --implementation cp --target <out>/python` fetches
the wheels that match the Lambda runtime and architecture whatever machine
runs synth (psycopg's binary wheel for another architecture fails at import
with "no pq wrapper available"); then the domain package is copied next to
them. `LocalPipBundler` plugs this into CDK asset bundling, so the Docker
image given to CDK is never started: the bundler either builds the layer or
raises.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import aws_cdk as cdk
import jsii
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra import constants as c
from infra.config import AurraConfig

# The Lambda runtime already ships these (and keeps them patched); bundling
# them would only add ~30 MB and shadow the runtime's copies.
RUNTIME_PROVIDED = ("boto3", "botocore", "s3transfer")

LAMBDA_MACHINE = {"arm64": "aarch64", "x86_64": "x86_64"}


def runtime_for(python_version: str) -> lambda_.Runtime:
    return {
        "3.12": lambda_.Runtime.PYTHON_3_12,
        "3.13": lambda_.Runtime.PYTHON_3_13,
    }[python_version]


def architecture_for(name: str) -> lambda_.Architecture:
    return lambda_.Architecture.ARM_64 if name == "arm64" else lambda_.Architecture.X86_64


def pip_platforms(architecture: str, python_version: str) -> list[str]:
    """Wheel platform tags the Lambda runtime can load.

    Python 3.12+ runtimes run on Amazon Linux 2023 (glibc 2.34), so
    manylinux_2_28 wheels load there as well as manylinux2014 ones; several
    dependencies (numpy, psycopg-binary) publish only the newer tag.
    """
    machine = LAMBDA_MACHINE[architecture]
    platforms = [f"manylinux2014_{machine}"]
    if tuple(int(p) for p in python_version.split(".")) >= (3, 12):
        platforms.append(f"manylinux_2_28_{machine}")
    return platforms


def pip_arguments(*, requirements: str, target: str, architecture: str, python_version: str) -> list[str]:
    """The arguments after `pip` that install the layer's dependencies."""
    args = ["install", "--requirement", requirements, "--target", target]
    for platform in pip_platforms(architecture, python_version):
        args += ["--platform", platform]
    args += [
        "--only-binary=:all:",
        "--python-version",
        python_version,
        "--implementation",
        "cp",
        "--no-compile",
        "--disable-pip-version-check",
        "--no-input",
        "--quiet",
    ]
    return args


def _prune_runtime_provided(site: Path) -> None:
    for entry in site.iterdir():
        name = entry.name.lower()
        for package in RUNTIME_PROVIDED:
            if name == package or (name.startswith(f"{package}-") and name.endswith(".dist-info")):
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
                break
    # `bin/` holds console scripts nobody runs inside a layer.
    shutil.rmtree(site / "bin", ignore_errors=True)


def build_layer(
    output_dir: str | os.PathLike[str],
    *,
    architecture: str,
    python_version: str,
    source_dir: Path = c.LAYER_DIR,
    python: Sequence[str] | None = None,
) -> Path:
    """Build the layer's content into `output_dir`/python and return that path.

    `python` is the interpreter command that runs pip (default: the one
    running synth).
    """
    site = Path(output_dir) / "python"
    site.mkdir(parents=True, exist_ok=True)
    requirements = source_dir / "requirements.txt"
    domain = source_dir / "python"
    if not requirements.is_file():
        raise FileNotFoundError(f"layer requirements missing: {requirements}")
    if not (domain / "aurra_core").is_dir():
        raise FileNotFoundError(f"layer package missing: {domain / 'aurra_core'}")

    command = [*(python or [sys.executable]), "-m", "pip"]
    command += pip_arguments(
        requirements=str(requirements),
        target=str(site),
        architecture=architecture,
        python_version=python_version,
    )
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(
            "building the Aurra layer failed: " + " ".join(command) + f"\n{result.stdout}\n{result.stderr}"
        )
    _prune_runtime_provided(site)
    shutil.copytree(
        domain,
        site,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache"),
    )
    return site


@jsii.implements(cdk.ILocalBundling)
class LocalPipBundler:
    """CDK local bundling for the layer: pip on this machine, never Docker."""

    def __init__(self, *, architecture: str, python_version: str, source_dir: Path = c.LAYER_DIR):
        self.architecture = architecture
        self.python_version = python_version
        self.source_dir = source_dir

    # jsii hands the BundlingOptions struct over as keyword arguments; only the
    # names declared here are passed.
    def try_bundle(self, output_dir: str, *, image=None, command=None, environment=None) -> bool:
        build_layer(
            output_dir,
            architecture=self.architecture,
            python_version=self.python_version,
            source_dir=self.source_dir,
        )
        return True


class CoreLayer(Construct):
    """The `aurra_core` layer: domain code plus its third-party dependencies."""

    def __init__(self, scope: Construct, construct_id: str, *, config: AurraConfig) -> None:
        super().__init__(scope, construct_id)
        runtime = runtime_for(config.python_version)
        bundler = LocalPipBundler(architecture=config.architecture, python_version=config.python_version)
        # What the bundler does, written as the equivalent shell command. It
        # is part of the asset hash (a new platform or Python version gives a
        # new asset); Docker never runs it, since the local bundler always
        # either succeeds or fails the synth.
        equivalent = (
            "pip "
            + " ".join(
                pip_arguments(
                    requirements="/asset-input/requirements.txt",
                    target="/asset-output/python",
                    architecture=config.architecture,
                    python_version=config.python_version,
                )
            )
            + " && cp -r /asset-input/python/. /asset-output/python/"
        )
        code = lambda_.Code.from_asset(
            str(c.LAYER_DIR),
            exclude=c.ASSET_EXCLUDES,
            bundling=cdk.BundlingOptions(
                image=runtime.bundling_image,
                command=["bash", "-c", equivalent],
                local=bundler,
            ),
        )
        self.layer = lambda_.LayerVersion(
            self,
            "Layer",
            code=code,
            compatible_runtimes=[runtime],
            compatible_architectures=[architecture_for(config.architecture)],
            description=f"Aurra core: domain code and dependencies ({config.stage})",
        )
