"""Build Aurra's CDK app: configuration, the stack, and the cdk-nag checks."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks

from infra import constants as c
from infra.config import AurraConfig
from infra.edge_stack import EDGE_REGION, AurraEdgeStack
from infra.stack import AurraStack


def stack_environment(config: AurraConfig, app: cdk.App) -> cdk.Environment | None:
    """Environment-agnostic unless a lookup needs an account and region.

    The default (a new VPC) synthesizes offline with no credentials at all;
    an existing VPC (`vpcId`) is looked up, which needs both, from context
    `account`/`region` or the CLI's CDK_DEFAULT_ACCOUNT/CDK_DEFAULT_REGION.
    """
    if not config.vpc_id:
        return None
    account = app.node.try_get_context("account") or os.environ.get("CDK_DEFAULT_ACCOUNT")
    region = app.node.try_get_context("region") or os.environ.get("CDK_DEFAULT_REGION")
    if not account or not region:
        raise SystemExit(
            "vpcId needs an account and region: pass -c account=... -c region=... "
            "or run through the cdk CLI with credentials for the first lookup "
            "(the result is then cached in cdk.context.json)"
        )
    return cdk.Environment(account=str(account), region=str(region))


def rules_classifier_warning() -> str:
    return (
        f"classifier=rules: the offline rules classifier ({c.RULES_CLASSIFIER_VERSION}) measured "
        f"precision {c.RULES_HELDOUT_PRECISION:.3f} and recall {c.RULES_HELDOUT_RECALL:.3f} on "
        f"{c.RULES_HELDOUT_CASES} held-out cases written blind: it acts only on explicit change "
        "language and leaves most contradictions to a person. It is for tests and "
        "offline use; the default, classifier=bedrock (Claude Haiku 4.5 on Bedrock), keeps "
        "memories in the account and reads wording the rules have never seen."
    )


def edge_requested(app: cdk.App) -> bool:
    return str(app.node.try_get_context("edge") or "").strip().lower() in ("true", "1", "yes", "on")


def create_app(
    context: Mapping[str, Any] | None = None,
    *,
    nag: bool = True,
    outdir: str | None = None,
) -> tuple[cdk.App, Any]:
    """The app with its one stack. `nag` registers the AwsSolutions checks,
    which stop synthesis on any finding that is not acknowledged."""
    app = cdk.App(context=dict(context or {}), outdir=outdir)
    config = AurraConfig.from_context(app.node.try_get_context)
    stack: cdk.Stack
    if edge_requested(app):
        # `-c edge=true`: the stage's stack in us-east-1 alone (the console's web ACL: CloudFront
        # takes web ACLs from there only), so a plain `cdk deploy` keeps deploying one stack.
        if not config.resolved_console_waf_enabled:
            raise SystemExit(f"edge=true: stage {config.stage}'s console has no web ACL (consoleWafEnabled)")
        stack = AurraEdgeStack(
            app,
            c.edge_stack_name(config.stage),
            config=config,
            env=cdk.Environment(
                account=app.node.try_get_context("account") or os.environ.get("CDK_DEFAULT_ACCOUNT"),
                region=EDGE_REGION,
            ),
            termination_protection=config.resolved_termination_protection,
        )
    else:
        stack = AurraStack(
            app,
            c.stack_name(config.stage),
            config=config,
            env=stack_environment(config, app),
            termination_protection=config.resolved_termination_protection,
        )
        if config.classifier == "rules":
            cdk.Annotations.of(stack).add_warning_v2("aurra:rules-classifier", rules_classifier_warning())
    # RDS Proxy target groups take no tags (their schema has no Tags property).
    untaggable = ["AWS::RDS::DBProxyTargetGroup"]
    cdk.Tags.of(app).add("project", c.PROJECT, exclude_resource_types=untaggable)
    cdk.Tags.of(app).add("stage", config.stage, exclude_resource_types=untaggable)
    if nag:
        cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app, verbose=True))
    return app, stack
