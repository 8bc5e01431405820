"""cdk-nag's AwsSolutions rules and cfn-lint on the synthesized app."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from cdk_nag import AwsSolutionsChecks
from infra_testkit import REPO_ROOT, Synth, base_context


def unacknowledged(app) -> list[str]:
    report = AwsSolutionsChecks(app, verbose=True).validate_scope(app)
    return [
        f"{v.rule_name} ({v.severity}) at {r.construct_path}: {v.description}"
        for v in report.violations
        for r in v.violating_resources
    ]


def test_awssolutions_has_no_unacknowledged_findings_in_dev(dev: Synth) -> None:
    assert unacknowledged(dev.app) == []


def test_awssolutions_has_no_unacknowledged_findings_in_prod(prod: Synth) -> None:
    assert unacknowledged(prod.app) == []


@pytest.mark.parametrize(
    "overrides",
    [
        {"classifier": "bedrock", "embedder": "bedrock", "embeddingDim": "512"},
        {"dbSecretRotationDays": "30", "architecture": "x86_64", "apiGatewayCloudWatchRole": "false"},
    ],
    ids=["bedrock-classifier", "rotation-x86"],
)
def test_awssolutions_has_no_unacknowledged_findings_in_other_configurations(overrides) -> None:
    # The construct tree is enough for cdk-nag: no synthesis needed.
    from infra.application import create_app

    app, _ = create_app(base_context(**overrides), nag=False)
    assert unacknowledged(app) == []


def test_every_acknowledgment_has_a_reason(dev: Synth) -> None:
    from aws_cdk import Validations

    key = Validations.ACKNOWLEDGED_RULES_METADATA_KEY
    seen = 0
    for construct in dev.app.node.find_all():
        for entry in construct.node.metadata:
            if entry.type == key:
                for rule, reason in entry.data.items():
                    seen += 1
                    assert isinstance(reason, str) and len(reason) > 40, rule
    assert seen > 0


def lint(template: dict) -> list:
    from cfnlint.api import lint as cfn_lint

    return cfn_lint(json.dumps(template), regions=["us-east-1"])


def test_cfn_lint_reports_no_errors(dev: Synth) -> None:
    errors = [m for m in lint(dev.template) if m.rule.id.startswith("E")]
    assert errors == [], "\n".join(str(m) for m in errors)


def test_cfn_lint_reports_no_errors_for_prod(prod: Synth) -> None:
    errors = [m for m in lint(prod.template) if m.rule.id.startswith("E")]
    assert errors == [], "\n".join(str(m) for m in errors)


def test_app_entry_point_synthesizes_with_the_checks(tmp_path) -> None:
    """`python infra/app.py`, as cdk.json runs it: the AwsSolutions checks are
    registered there and would fail the synthesis on any finding."""
    context = base_context()
    env = dict(
        os.environ,
        CDK_OUTDIR=str(tmp_path),
        CDK_CONTEXT_JSON=json.dumps(context),
    )
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "infra" / "app.py")],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    template = json.loads((tmp_path / "Aurra-dev.template.json").read_text())
    assert "AWS::RDS::DBCluster" in {r["Type"] for r in template["Resources"].values()}
    report = json.loads((tmp_path / "validation-report.json").read_text())
    assert all(p.get("conclusion") != "failure" for p in report.get("pluginReports", []))


def test_awssolutions_and_cfn_lint_with_an_existing_vpc(existing: Synth) -> None:
    assert unacknowledged(existing.app) == []
    errors = [m for m in lint(existing.template) if m.rule.id.startswith("E")]
    assert errors == [], "\n".join(str(m) for m in errors)
