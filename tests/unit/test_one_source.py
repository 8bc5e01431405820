"""One source for each list, and a failing test for every copy that cannot read it.

- functions and routes: functions/__init__.py; read by the local gateway, the CDK app and the
  OpenAPI document (tests/unit/test_openapi_document.py compares the document's routes);
  copied by the folders themselves, pyproject.toml's package list and the infra's
  per-function settings.
- classifier and embedder choices: aurra_core.runtime.config.ServiceConfig; copied by infra/constants.py
  (the CDK app must not import the layer) and read by `aurra eval --classifier`.
- dependency pins: the Lambda layer's exact pins must satisfy pyproject.toml's ranges.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import get_args

from packaging.requirements import Requirement

import functions
from aurra_core.runtime.config import ServiceConfig
from aurra_local import cli, gateway, lambda_functions
from infra import constants as c

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _folders() -> set[str]:
    return {p.name for p in (ROOT / "functions").iterdir() if (p / "handler.py").is_file()}


def test_functions_folders_list_infra_gateway_and_packaging_agree() -> None:
    folders = _folders()
    assert set(functions.FUNCTIONS) == folders, "functions/__init__.py: FUNCTIONS against the folders"
    assert len(functions.FUNCTIONS) == len(folders)
    assert set(functions.HTTP_FUNCTIONS) <= folders
    assert set(gateway.FUNCTIONS) == folders
    assert set(lambda_functions.function_names()) == folders
    assert set(c.ALL_FUNCTIONS) == folders
    assert set(c.ROUTE_FUNCTIONS) == set(functions.HTTP_FUNCTIONS)
    assert set(c.CAPABILITIES) == folders, "infra/constants.py CAPABILITIES"
    assert set(c.SIZING) == folders, "infra/constants.py SIZING"
    packaged = {
        p.split(".", 1)[1]
        for p in PYPROJECT["tool"]["setuptools"]["packages"]
        if p.startswith("aurra_functions.")
    }
    assert packaged == folders, "pyproject.toml [tool.setuptools] packages: aurra_functions.<name>"


def test_every_function_is_a_package_with_a_lambda_handler() -> None:
    for name in _folders():
        assert (ROOT / "functions" / name / "__init__.py").is_file(), name
        assert callable(lambda_functions.load_handler(name).lambda_handler), name


def test_the_wheel_lists_every_package_of_the_tree() -> None:
    roots = {"aurra_core": ROOT / "layers/core/python/aurra_core", "aurra_local": ROOT / "aurra_local"}
    roots["aurra_functions"] = ROOT / "functions"
    found = set()
    for name, root in roots.items():
        for init in root.rglob("__init__.py"):
            if "__pycache__" not in init.parts:
                found.add(".".join([name, *init.parent.relative_to(root).parts]))
    # The console is a folder of static files, shipped as package data without an __init__.py.
    assert set(PYPROJECT["tool"]["setuptools"]["packages"]) == found | {"aurra_console"}
    assert PYPROJECT["tool"]["setuptools"]["package-dir"] == {
        **{name: str(root.relative_to(ROOT)) for name, root in roots.items()},
        "aurra_console": "console",
    }
    shipped = PYPROJECT["tool"]["setuptools"]["package-data"]["aurra_console"]
    console = {p.name for p in (ROOT / "console").iterdir() if p.is_file()}
    assert console == {p for p in console if any(Path(p).match(pattern) for pattern in shipped)}


def test_routes_of_the_gateway_and_the_infra_are_the_list() -> None:
    assert tuple(gateway.ROUTES) == functions.ROUTES
    assert tuple(c.ROUTES) == functions.ROUTES
    assert {function for _, _, function in functions.ROUTES} == set(functions.HTTP_FUNCTIONS)
    assert len(set((method, path) for method, path, _ in functions.ROUTES)) == len(functions.ROUTES)


def _choices(field: str) -> tuple[str, ...]:
    return get_args(ServiceConfig.model_fields[field].annotation)


def test_classifier_choices_of_the_layer_the_infra_and_the_cli_agree() -> None:
    assert set(c.CLASSIFIERS) == set(_choices("classifier"))
    arguments = cli.build_parser().parse_args(["eval", "--classifier", "bedrock"])
    assert arguments.classifier == "bedrock"
    assert set(cli.classifier_choices()) == set(_choices("classifier"))


def test_the_claude_models_of_the_layer_and_the_infra_are_one_table() -> None:
    """The CDK app reads the layer's table of Claude models and their inference profiles by
    path; the default model a new key starts on is the same on both sides."""
    from aurra_core.classifiers import bedrock_profiles
    from aurra_core.runtime.config import DEFAULT_CLASSIFIER_MODEL

    assert c.CLAUDE_MODELS == bedrock_profiles.CLAUDE_MODELS
    assert c.DEFAULT_CLASSIFIER_MODEL == DEFAULT_CLASSIFIER_MODEL


def test_extractor_choices_of_the_layer_and_the_infra_agree() -> None:
    extractors = {
        c for c in get_args(ServiceConfig.model_fields["extractor"].annotation) if c is not type(None)
    }
    choices = set()
    for option in extractors:
        choices |= set(get_args(option)) or {option}
    assert set(c.EXTRACTORS) == choices


def test_embedder_choices_of_the_layer_and_the_infra_agree() -> None:
    assert set(c.EMBEDDERS) | set(c.LOCAL_ONLY_EMBEDDERS) == set(_choices("embedder"))
    assert not set(c.EMBEDDERS) & set(c.LOCAL_ONLY_EMBEDDERS)


def test_the_layer_pins_satisfy_pyproject() -> None:
    ranges = {Requirement(r).name: Requirement(r) for r in PYPROJECT["project"]["dependencies"]}
    lines = (ROOT / "layers/core/requirements.txt").read_text().splitlines()
    pins = [Requirement(line) for line in (x.split("#")[0].strip() for x in lines) if line]
    assert pins
    for pin in pins:
        (spec,) = pin.specifier
        assert spec.operator == "==", f"the layer pins exactly: {pin}"
        assert pin.name in ranges, f"{pin.name} is in the layer but not in pyproject.toml's dependencies"
        assert ranges[pin.name].specifier.contains(spec.version), (
            f"the layer's {pin} is outside pyproject.toml's {ranges[pin.name]}"
        )
        assert pin.extras == ranges[pin.name].extras, pin.name
