"""The layer: how it is built, and (marked layer_build) one real build.

The real build goes through CDK's asset bundling exactly as `cdk synth` does
(the ILocalBundling callback over jsii), for the Lambda platform rather than
this machine's, then checks the wheels' platform tags, the architecture of
every shared object, what was left out, the bytecode, and the unzipped size.

The bytecode tests need an interpreter of the runtime's default version
(3.13): the running one, python3.13 on the PATH, or pyenv's; without one
they skip, saying so.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from infra import constants as c
from infra.components.layer import (
    LAMBDA_LAYER_SITE,
    RUNTIME_PROVIDED,
    _prune_runtime_provided,
    bytecode_python,
    compile_bytecode,
    missing_bytecode_warning,
    pip_arguments,
    pip_platforms,
    store_regex_programs,
)
from infra.config import ARCHITECTURES, PYTHON_VERSIONS, AurraConfig, ConfigError

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
    assert "--require-hashes" in args  # the lock, every wheel's hash checked
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


def test_the_lock_pins_and_hashes_every_requirement_at_its_pinned_version() -> None:
    """The layer installs requirements.lock (with --require-hashes): every pin of
    requirements.txt is in it at the same version, and every line of it carries hashes."""
    locked: dict[str, tuple[str, int]] = {}
    for entry in c.LAYER_LOCK.read_text().replace("\\\n", " ").splitlines():
        if not entry.strip() or entry.startswith("#"):
            continue
        requirement, *hashes = entry.split()
        name, version = requirement.split("==")
        assert all(h.startswith("--hash=sha256:") and len(h) == len("--hash=sha256:") + 64 for h in hashes)
        locked[name] = (version, len(hashes))
    for line in c.LAYER_REQUIREMENTS.read_text().splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        name, version = re.split(r"==", line)
        name = re.sub(r"\[.*\]", "", name).lower()
        assert locked[name][0] == version, name
    # what the pins pull in is locked too, and a compiled package has a wheel per platform
    assert {"pydantic-core", "psycopg-binary", "typing-extensions"} <= set(locked)
    for compiled in ("numpy", "psycopg-binary", "pydantic-core"):
        assert locked[compiled][1] == len(ARCHITECTURES) * len(PYTHON_VERSIONS), compiled


def test_the_lock_is_what_its_generator_writes(tmp_path: Path) -> None:
    from infra.layer_lock import HEADER, lock_text

    one = tmp_path / "a-1.0-py3-none-any.whl"
    one.write_bytes(b"one")
    two = tmp_path / "Some_Package-2.0-cp313-cp313-manylinux_2_28_aarch64.whl"
    two.write_bytes(b"two")
    three = tmp_path / "Some_Package-2.0-cp312-cp312-manylinux_2_28_x86_64.whl"
    three.write_bytes(b"three")
    text = lock_text([one, two, three])
    assert text.startswith(HEADER) and c.LAYER_LOCK.read_text().startswith(HEADER)
    assert "a==1.0 \\\n    --hash=sha256:" in text
    assert text.count("--hash=sha256:") == 3 and "some-package==2.0" in text
    (tmp_path / "Some_Package-2.1-py3-none-any.whl").write_bytes(b"other")
    with pytest.raises(ValueError, match="different versions"):
        lock_text(list(tmp_path.glob("*.whl")))


# ------------------------------------------------------------ bytecode
RUNNING_VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"


def fake_python(directory: Path, name: str, cache_tag: str | None) -> Path:
    """An executable that answers the cache-tag probe as an interpreter of `cache_tag` would,
    or fails as a pyenv shim of a version not selected does (None)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    body = f"echo {cache_tag}" if cache_tag else "echo 'pyenv: not selected' >&2; exit 127"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def test_the_layer_python_context_value_comes_first(tmp_path: Path) -> None:
    explicit = fake_python(tmp_path / "x", "py", "cpython-312")
    on_path = fake_python(tmp_path / "bin", "python3.12", "cpython-312")
    assert bytecode_python("3.12", explicit=str(explicit), search_path=str(on_path.parent)) == str(explicit)


@pytest.mark.parametrize(
    ("tag", "problem"), [("cpython-313", "it reports cpython-313"), (None, "it does not run")]
)
def test_a_layer_python_of_another_version_stops_synth(tmp_path: Path, tag: str | None, problem: str) -> None:
    explicit = fake_python(tmp_path, "py", tag)
    with pytest.raises(ConfigError, match=rf"context layerPython=.*Python 3\.12 .*{problem}"):
        bytecode_python("3.12", explicit=str(explicit))
    with pytest.raises(ConfigError, match="does not run"):
        bytecode_python("3.12", explicit=str(tmp_path / "absent"))


def test_the_running_interpreter_serves_when_its_version_matches(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert bytecode_python(RUNNING_VERSION, search_path=str(empty)) == sys.executable
    other = fake_python(tmp_path / "o", "python", "cpython-313")
    assert bytecode_python("3.13", running=str(other), search_path=str(empty)) == str(other)


def test_python_on_the_path_serves_when_it_runs_and_matches(tmp_path: Path) -> None:
    running = fake_python(tmp_path / "r", "python", "cpython-311")
    good = fake_python(tmp_path / "good", "python3.12", "cpython-312")
    assert bytecode_python("3.12", running=str(running), search_path=str(good.parent)) == str(good)
    shim = fake_python(tmp_path / "shim", "python3.12", None)
    assert bytecode_python("3.12", running=str(running), search_path=str(shim.parent)) is None
    wrong = fake_python(tmp_path / "wrong", "python3.12", "cpython-313")
    assert bytecode_python("3.12", running=str(running), search_path=str(wrong.parent)) is None


def test_without_an_interpreter_synth_warns_once_and_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import aws_cdk as cdk
    from aws_cdk.assertions import Annotations, Match

    from infra.components.layer import CoreLayer

    # A runtime version the running interpreter is not, and nothing on the PATH (the jsii
    # runtime, started by the import above, keeps its own).
    version = next(v for v in PYTHON_VERSIONS if v != RUNNING_VERSION)
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    app = cdk.App(outdir=str(tmp_path / "cdk.out"), context={"aws:cdk:bundling-stacks": []})
    stack = cdk.Stack(app, "LayerOnly")
    CoreLayer(stack, "CoreLayer", config=AurraConfig(python_version=version))
    app.synth()
    warnings = Annotations.from_stack(stack).find_warning("*", Match.string_like_regexp("layer"))
    assert len(warnings) == 1
    text = str(warnings[0].entry.data)
    assert missing_bytecode_warning(version) in text
    assert "-c layerPython=" in text and "every cold start" in text


def test_layer_python_belongs_to_the_machine_not_the_stage() -> None:
    config = AurraConfig.from_mapping({"layerPython": "/usr/bin/python3.12"})
    assert config.layer_python == "/usr/bin/python3.12"
    assert "layerPython" not in config.describe()


def _python(version: str) -> str | None:
    found = bytecode_python(version)
    if found:
        return found
    pyenv = sorted(Path.home().glob(f".pyenv/versions/{version}.*/bin/python{version}"))
    return str(pyenv[-1]) if pyenv else None


RUNTIME_VERSION = AurraConfig().python_version
TAG = "cpython-" + RUNTIME_VERSION.replace(".", "")


@pytest.fixture(scope="module")
def runtime_python() -> str:
    found = _python(RUNTIME_VERSION)
    if found is None:
        pytest.skip(
            f"no Python {RUNTIME_VERSION} interpreter on this machine (the layer's bytecode needs one)"
        )
    return found


# Run by the interpreter under test: imports the modules named and prints those it had to
# compile from source (no usable .pyc) under the site given.
IMPORT_COUNTING_COMPILES = textwrap.dedent(
    """
    import importlib, json, sys
    import importlib._bootstrap_external as external
    compiled = []
    source_to_code = external.SourceLoader.source_to_code
    def counted(self, data, path, *args, **kwargs):
        compiled.append(path)
        return source_to_code(self, data, path, *args, **kwargs)
    external.SourceLoader.source_to_code = counted
    site, names = sys.argv[1], sys.argv[2:]
    loaded = [importlib.import_module(name) for name in names]
    print(json.dumps({
        "compiled": sorted(p for p in compiled if p.startswith(site)),
        "cached": [m.__cached__ for m in loaded],
    }))
    """
)
# aurra_core modules that import with the standard library alone (the interpreter under test
# has none of the layer's dependencies).
STDLIB_ONLY_MODULES = [
    "aurra_core",
    "aurra_core.errors",
    "aurra_core.runtime.invocation",
    "aurra_core.request_json",
    "aurra_core.text_analysis.sensitive_topics",
    "aurra_core.text_analysis.credentials",
]


def import_counting_compiles(python: str, site: Path, env: dict[str, str] | None = None) -> dict:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    environment.update(PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1", **(env or {}))
    done = subprocess.run(
        [python, "-c", IMPORT_COUNTING_COMPILES, str(site), *STDLIB_ONLY_MODULES],
        capture_output=True,
        text=True,
        env=environment,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_compiled_domain_package_imports_without_compiling(tmp_path: Path, runtime_python: str) -> None:
    site = tmp_path / "python"
    shutil.copytree(c.LAYER_PYTHON_DIR, site, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    compile_bytecode(site, runtime_python)

    sources = [p for p in site.rglob("*.py")]
    assert sources
    for source in sources:
        pyc = source.parent / "__pycache__" / f"{source.stem}.{TAG}.pyc"
        assert pyc.is_file(), source
        header = pyc.read_bytes()[:16]
        # PEP 552: flags 0b01, a hash-based .pyc whose source is never checked
        assert int.from_bytes(header[4:8], "little") == 0b01, pyc
    # recorded under the path Lambda mounts the layer at, not the build's
    config_pyc = (site / "aurra_core" / "runtime" / "__pycache__" / f"config.{TAG}.pyc").read_bytes()
    assert f"{LAMBDA_LAYER_SITE}/aurra_core/runtime/config.py".encode() in config_pyc
    assert str(site).encode() not in config_pyc

    # Sources dated as a zip may date them (the asset's, or Lambda's copy to /opt): the
    # bytecode still serves, nothing is compiled (read-only /opt could not keep a new .pyc).
    for source in sources:
        os.utime(source, (315532800, 315532800))
    used = import_counting_compiles(runtime_python, site)
    assert used["compiled"] == []
    for cached in used["cached"]:
        assert cached.endswith(f".{TAG}.pyc") and Path(cached).is_file(), cached

    # The same imports without the bytecode (Python looks in an empty cache prefix instead)
    # compile every one of those modules: the check above would see a missing .pyc.
    prefix = tmp_path / "no-bytecode"
    prefix.mkdir()
    without = import_counting_compiles(runtime_python, site, {"PYTHONPYCACHEPREFIX": str(prefix)})
    assert len(without["compiled"]) >= len(STDLIB_ONLY_MODULES)


# Run by the runtime's interpreter (no dependencies): loads the built layer's regex_programs.py as
# Lambda's import would find it, compiles every expression from the stored programs alone, and
# compares each with what its own `re` compiles, on the texts given.
STORED_PROGRAMS_MATCH = textwrap.dedent(
    """
    import importlib.util, json, re, sys
    with open(sys.argv[2], encoding="utf-8") as given:
        checked = json.load(given)
    path, expressions, texts = sys.argv[1], checked["expressions"], checked["texts"]
    spec = importlib.util.spec_from_file_location("regex_programs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    def untranslatable(pattern):
        raise AssertionError("not in the store: " + pattern[:60])
    module.translate = untranslatable
    differ = []
    for expression in expressions:
        stored, expected = module.compile(expression), re.compile(expression)
        if (stored.flags, stored.groups, dict(stored.groupindex)) != (
            expected.flags, expected.groups, dict(expected.groupindex)
        ) or any(
            [(m.span(), m.groups()) for m in stored.finditer(t)]
            != [(m.span(), m.groups()) for m in expected.finditer(t)]
            for t in texts
        ):
            differ.append(expression[:60])
    print(json.dumps({"compiled": len(expressions), "differ": differ, "path": str(module.programs_path())}))
    """
)


def test_the_layer_stores_the_rules_and_text_expressions_for_its_interpreter(
    tmp_path: Path, runtime_python: str
) -> None:
    from aurra_core.classifiers import rules  # noqa: F401
    from aurra_core.text_analysis import (  # noqa: F401 (records every expression)
        credentials,
        regex_programs,
        sensitive_topics,
        text,
    )

    site = tmp_path / "python"
    shutil.copytree(c.LAYER_PYTHON_DIR, site, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.sre"))
    compile_bytecode(site, runtime_python)
    stored = store_regex_programs(site, runtime_python)
    assert stored == site / "aurra_core" / "text_analysis" / "__pycache__" / f"regex_programs.{TAG}.sre"
    assert stored.is_file()

    expressions = regex_programs.recorded()
    texts = [
        "user switched from vim to emacs last year_2024",
        "the user is thinking about moving to berlin , not anymore in london",
        "user 's sister now works at acme as a senior engineer since date_3_4",
        "my password is Orchid-7731, card 4539 1488 0343 6467, postgres://app:Xk29sLq@db/app",
    ]
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    # in a file, not the command line: the expressions outgrow what one argument may hold
    checked = tmp_path / "checked.json"
    checked.write_text(json.dumps({"expressions": expressions, "texts": texts}), encoding="utf-8")
    done = subprocess.run(
        [
            runtime_python,
            "-I",
            "-c",
            STORED_PROGRAMS_MATCH,
            str(site / "aurra_core" / "text_analysis" / "regex_programs.py"),
            str(checked),
        ],
        capture_output=True,
        text=True,
        env=environment,
        check=True,
    )
    result = json.loads(done.stdout)
    assert result == {"compiled": len(expressions), "differ": [], "path": str(stored)}
    assert len(expressions) > 140


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

    # The machine's interpreter of the runtime's version, when it has one, compiles the bytecode.
    config = AurraConfig(layer_python=_python(RUNTIME_VERSION))
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
            assert (site / "aurra_core" / "storage" / "migrations" / sql.name).is_file()
    # the CA bundle `verify-full` checks the database endpoints against
    bundle = site / "aurra_core" / "storage" / "certs" / "aws-rds-ca-bundle.pem"
    assert bundle.read_text().count("BEGIN CERTIFICATE") >= 90
    for name in RUNTIME_PROVIDED:
        assert not (site / name).exists(), name

    # bytecode for the runtime's Python beside every module (ASSET_EXCLUDES filters the
    # source hash, not the bundled output), or none at all without its interpreter
    tag = "cpython-" + config.python_version.replace(".", "")
    compiled = {p.parent.parent / (p.name.split(".")[0] + ".py") for p in site.rglob("__pycache__/*.pyc")}
    if config.layer_python:
        missing = [str(p.relative_to(site)) for p in site.rglob("*.py") if p not in compiled]
        assert missing == []
        assert {p.name.split(".")[1] for p in site.rglob("*.pyc")} == {tag}
    else:
        assert compiled == set()

    # size: layer plus the largest function must fit Lambda's unzipped limit
    layer_bytes = tree_size(layer_root)
    largest_function = max(tree_size(c.FUNCTIONS_DIR / name) for name in c.ALL_FUNCTIONS)
    total = layer_bytes + largest_function
    print(
        f"\nlayer unzipped: {layer_bytes / 2**20:.1f} MiB; with the largest function: {total / 2**20:.1f} MiB"
    )
    assert total < LAMBDA_UNZIPPED_LIMIT
