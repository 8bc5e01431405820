"""The shared Lambda layer (layers/core), built on this machine without Docker.

`pip install --require-hashes --requirement requirements.lock --platform
manylinux..._<arch> --only-binary=:all: --python-version <runtime> --implementation cp
--target <out>/python` installs exactly the locked wheels (every package pinned, each wheel's
sha256 checked: infra/layer_lock.py makes the lock from requirements.txt) that match the
Lambda runtime and architecture whatever machine
runs synth (psycopg's binary wheel for another architecture fails at import
with "no pq wrapper available"); then the domain package is copied next to
them; last, the whole site is compiled to bytecode by an interpreter of the
runtime's Python version (`layerPython`, see `bytecode_python`). `/opt` is
read-only in Lambda, so a module without its .pyc is compiled from source at
every cold start: most of an import's CPU time (bench/notes/cold-start.md). The same
interpreter stores the regular expressions of the rules classifier and the text
normalizer as compiled programs beside the bytecode (`store_regex_programs`), which the first Level 2
write of a cold start would otherwise translate. Without such an interpreter
the layer ships source only and synth warns. `LocalPipBundler`
plugs this into CDK asset bundling, so the Docker image given to CDK is never
started: the bundler either builds the layer or raises.
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
from infra.config import AurraConfig, ConfigError

# The Lambda runtime already ships these (and keeps them patched); bundling
# them would only add ~30 MB and shadow the runtime's copies.
RUNTIME_PROVIDED = ("boto3", "botocore", "s3transfer")

LAMBDA_MACHINE = {"arm64": "aarch64", "x86_64": "x86_64"}

# Where Lambda mounts a layer's `python/` folder: the file names the bytecode records.
LAMBDA_LAYER_SITE = "/opt/python"


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
    """The arguments after `pip` that install the layer's dependencies: `requirements` is the
    lock, every package in it pinned and hashed (`--require-hashes`: a wheel whose hash is not
    the locked one, or a dependency the lock lacks, stops the build)."""
    args = ["install", "--require-hashes", "--requirement", requirements, "--target", target]
    for platform in pip_platforms(architecture, python_version):
        args += ["--platform", platform]
    args += [
        "--only-binary=:all:",
        "--python-version",
        python_version,
        "--implementation",
        "cp",
        # pip would compile with the interpreter running synth, whose version need not be the
        # runtime's; compile_bytecode does it with one that is.
        "--no-compile",
        "--disable-pip-version-check",
        "--no-input",
        "--quiet",
    ]
    return args


def cache_tag(python_version: str) -> str:
    """The tag of the .pyc files the runtime reads: `cpython-312` for 3.12."""
    return "cpython-" + python_version.replace(".", "")


def _cache_tag_of(command: str) -> str | None:
    """The cache tag of the interpreter `command`, or None if it does not run."""
    try:
        done = subprocess.run(
            [command, "-c", "import sys; print(sys.implementation.cache_tag)"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def bytecode_python(
    python_version: str,
    *,
    explicit: str | None = None,
    running: str | None = None,
    search_path: str | None = None,
) -> str | None:
    """The interpreter that compiles the layer: one whose bytecode the runtime reads.

    In order: `explicit` (the `layerPython` context value; one that does not run or is of
    another version stops synth, since it was asked for), the interpreter running synth if
    its version matches, `python3.12` / `python3.13` on the PATH (`search_path`, default the
    environment's) if it runs and matches (a pyenv shim of a version not selected does not).
    None: no such interpreter on this machine.
    """
    wanted = cache_tag(python_version)
    running = running or sys.executable
    if explicit:
        found = _cache_tag_of(explicit)
        if found != wanted:
            problem = f"it reports {found}" if found else "it does not run"
            raise ConfigError(
                f"context layerPython={explicit!r}: the layer's bytecode needs a Python "
                f"{python_version} interpreter ({wanted}), and {problem}"
            )
        return explicit
    running_tag = sys.implementation.cache_tag if running == sys.executable else _cache_tag_of(running)
    if running_tag == wanted:
        return running
    on_path = shutil.which(f"python{python_version}", path=search_path)
    if on_path and _cache_tag_of(on_path) == wanted:
        return on_path
    return None


def missing_bytecode_warning(python_version: str) -> str:
    return (
        f"no Python {python_version} interpreter found to compile the Lambda layer: it ships "
        "without bytecode, and every cold start compiles each module it imports from source "
        "(0.7-1.0 s more CPU per function start as measured in bench/notes/cold-start.md). Install Python "
        f"{python_version} and put python{python_version} on the PATH, or pass its path with "
        f"-c layerPython=/path/to/python{python_version}."
    )


def compile_arguments(site: str) -> list[str]:
    """The arguments after `python` that compile the layer's site dir.

    unchecked-hash: the runtime loads each .pyc without comparing it with its source. The
    default (timestamp) .pyc records the source's mtime, which the asset zip and the copy to
    /opt need not keep, and a mismatch there means compiling from source at every cold start
    (read-only /opt: the fresh .pyc cannot be written); a checked hash would read and hash
    every source file at each import. The layer is immutable, so nothing can go stale.
    `-s/-p` record the files under /opt/python, where Lambda mounts them (tracebacks, and
    the same bytes whatever directory the build ran in).
    """
    return [
        "-m",
        "compileall",
        "-q",
        "-j",
        "0",
        "--invalidation-mode",
        "unchecked-hash",
        "-s",
        site,
        "-p",
        LAMBDA_LAYER_SITE,
        site,
    ]


def compile_bytecode(site: Path, python: str) -> None:
    """Compile every module under `site` with the interpreter `python`."""
    command = [python, *compile_arguments(str(site))]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(
            "compiling the Aurra layer failed: " + " ".join(command) + f"\n{result.stdout}\n{result.stderr}"
        )


# Run by the interpreter running synth (it has the domain package's dependencies): the
# expressions the rules classifier, the text normalizer, the topic gate and the credentials
# detector compile at import, as a JSON list.
RECORD_REGEX_EXPRESSIONS = (
    "import json\n"
    "from aurra_core.text_analysis import credentials, regex_programs, sensitive_topics, text\n"
    "from aurra_core.classifiers import rules\n"
    "print(json.dumps(regex_programs.recorded()))\n"
)


def store_regex_programs(site: Path, python: str, domain: Path = c.LAYER_PYTHON_DIR) -> Path:
    """Store the compiled expressions of the rules classifier, the text normalizer and the
    topic gate for `python` beside the layer's bytecode.

    Two steps, because the runtime's interpreter has none of the layer's dependencies (and
    cannot load another architecture's wheels): this interpreter imports the classifier from
    the domain package's source and lists its expressions; `python` translates them, running
    `regex_programs.py` of the built site as a script (standard library only, `-I`: no
    environment, no script folder on the path), which writes
    `aurra_core/text_analysis/__pycache__/regex_programs.<cache tag>.sre`.
    """
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    # nothing written into the source tree by the recording import
    environment.update(PYTHONPATH=str(domain), PYTHONDONTWRITEBYTECODE="1")
    recorded = subprocess.run(
        [sys.executable, "-c", RECORD_REGEX_EXPRESSIONS],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    if recorded.returncode != 0:
        raise RuntimeError(f"listing the rules classifier's expressions failed:\n{recorded.stderr}")
    script = site / "aurra_core" / "text_analysis" / "regex_programs.py"
    stored = subprocess.run(
        [python, "-I", str(script)], input=recorded.stdout, capture_output=True, text=True, check=False
    )
    if stored.returncode != 0:
        raise RuntimeError(
            f"storing the rules classifier's expressions failed:\n{stored.stdout}\n{stored.stderr}"
        )
    return Path(stored.stdout.strip())


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
    bytecode: str | None = None,
) -> Path:
    """Build the layer's content into `output_dir`/python and return that path.

    `python` is the interpreter command that runs pip (default: the one
    running synth); `bytecode` the interpreter that compiles the result (one of
    the runtime's version, see `bytecode_python`; None: source only).
    """
    site = Path(output_dir) / "python"
    site.mkdir(parents=True, exist_ok=True)
    requirements = source_dir / c.LAYER_LOCK.name
    domain = source_dir / "python"
    if not requirements.is_file():
        raise FileNotFoundError(f"layer lock missing: {requirements} (python -m infra.layer_lock)")
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
    if bytecode:
        compile_bytecode(site, bytecode)
        store_regex_programs(site, bytecode, domain)
    return site


@jsii.implements(cdk.ILocalBundling)
class LocalPipBundler:
    """CDK local bundling for the layer: pip on this machine, never Docker."""

    def __init__(
        self,
        *,
        architecture: str,
        python_version: str,
        bytecode: str | None,
        source_dir: Path = c.LAYER_DIR,
    ):
        self.architecture = architecture
        self.python_version = python_version
        self.bytecode = bytecode
        self.source_dir = source_dir

    # jsii hands the BundlingOptions struct over as keyword arguments; only the
    # names declared here are passed.
    def try_bundle(self, output_dir: str, *, image=None, command=None, environment=None) -> bool:
        build_layer(
            output_dir,
            architecture=self.architecture,
            python_version=self.python_version,
            source_dir=self.source_dir,
            bytecode=self.bytecode,
        )
        return True


class CoreLayer(Construct):
    """The `aurra_core` layer: domain code plus its third-party dependencies."""

    def __init__(self, scope: Construct, construct_id: str, *, config: AurraConfig) -> None:
        super().__init__(scope, construct_id)
        runtime = runtime_for(config.python_version)
        bytecode = bytecode_python(config.python_version, explicit=config.layer_python)
        if bytecode is None:
            cdk.Annotations.of(self).add_warning_v2(
                "aurra:layer-bytecode", missing_bytecode_warning(config.python_version)
            )
        bundler = LocalPipBundler(
            architecture=config.architecture, python_version=config.python_version, bytecode=bytecode
        )
        # What the bundler does, written as the equivalent shell command. It
        # is part of the asset hash (a new platform or Python version gives a
        # new asset); Docker never runs it, since the local bundler always
        # either succeeds or fails the synth.
        equivalent = (
            "pip "
            + " ".join(
                pip_arguments(
                    requirements=f"/asset-input/{c.LAYER_LOCK.name}",
                    target="/asset-output/python",
                    architecture=config.architecture,
                    python_version=config.python_version,
                )
            )
            + " && cp -r /asset-input/python/. /asset-output/python/"
        )
        if bytecode:
            # Bytecode or not changes the asset (and its hash); which interpreter made it does not.
            equivalent += f" && python{config.python_version} " + " ".join(
                compile_arguments("/asset-output/python")
            )
        # ASSET_EXCLUDES filters what the source hash reads (layers/core), not the bundled
        # output, so the compiled __pycache__ folders stay in the asset.
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
