"""docs/deploy.md says what cdk.json and the CDK app take: its `stages` example is cdk.json's own
block, every setting it shows is one the app reads (a misspelt key in the doc would be copied
into someone's cdk.json and stop their synth), and its settings table lists every setting."""

from __future__ import annotations

import json
import re

from infra_testkit import REPO_ROOT

from infra.config import CONTEXT_KEYS, AurraConfig

DEPLOY_DOC = (REPO_ROOT / "docs" / "deploy.md").read_text()
CDK_JSON = json.loads((REPO_ROOT / "cdk.json").read_text())
# Context the app reads besides the stage's settings (infra/application.py).
APP_CONTEXT = {"account", "region", "edge"}


def json_blocks() -> list[str]:
    return re.findall(r"^```json\n(.*?)^```", DEPLOY_DOC, flags=re.S | re.M)


def test_the_stages_example_is_cdk_json_s() -> None:
    (example,) = [json.loads("{" + block + "}") for block in json_blocks() if '"stages"' in block]
    assert example["stages"] == CDK_JSON["context"]["stages"]
    for stage, block in example["stages"].items():
        assert set(block) <= set(CONTEXT_KEYS), stage
        AurraConfig.from_mapping({"stage": stage, **block})  # valid as written


def test_every_context_value_on_a_command_line_is_one_the_app_reads() -> None:
    given = set(re.findall(r"-c ([A-Za-z0-9]+)=", DEPLOY_DOC)) - {"key"}  # `-c key=value`, the form
    assert given and given <= set(CONTEXT_KEYS) | APP_CONTEXT, given - set(CONTEXT_KEYS) - APP_CONTEXT
    cdk_json_keys = set(
        re.findall(r'"([A-Za-z0-9]+)":', " ".join(re.findall(r"cdk\.json[^\n]*", DEPLOY_DOC)))
    )
    assert cdk_json_keys - {"stages", "prod", "dev"} <= set(CONTEXT_KEYS)


def test_the_settings_table_lists_every_setting() -> None:
    documented = set(re.findall(r"^\| `([A-Za-z0-9]+)`", DEPLOY_DOC, flags=re.M))
    documented |= {
        name
        for row in re.findall(r"^\| (`[A-Za-z0-9]+`(?:[ ,/]+`[A-Za-z0-9]+`)+) \|", DEPLOY_DOC, flags=re.M)
        for name in re.findall(r"`([A-Za-z0-9]+)`", row)
    }
    assert set(CONTEXT_KEYS) - {"stage"} <= documented, set(CONTEXT_KEYS) - {"stage"} - documented
