"""cdk-nag (AwsSolutions) acknowledgments, each with its reason.

The AwsSolutions pack runs on every synth (see infra/application.py) and
stops it on any finding not acknowledged here. Each acknowledgment sits on
the narrowest construct it concerns, and only in the configurations where the
finding arises (for example deletion protection, which is off in dev only).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aws_cdk import Stack, Token

from infra import constants as c
from infra.components.common import acknowledge

if TYPE_CHECKING:
    from infra.stack import AurraStack


def acknowledge_findings(stack: AurraStack) -> None:
    config = stack.config
    # how cdk-nag prints ARNs: pseudo parameters in an environment-agnostic
    # stack, literal values when the stack has an account and region
    partition, region, account = (
        f"<{name}>" if Token.is_unresolved(value) else value
        for name, value in (
            ("AWS::Partition", stack.partition),
            ("AWS::Region", stack.region),
            ("AWS::AccountId", stack.account),
        )
    )
    functions = stack.functions
    api = stack.api
    database = stack.database

    # ------------------------------------------------------------ functions
    for name, fn in functions.by_name.items():
        acknowledge(
            fn,
            "AwsSolutions-IAM5[Resource::*]",
            "Two statements need Resource '*': attaching the function to the VPC "
            "(ec2:CreateNetworkInterface, DescribeNetworkInterfaces, DescribeSubnets, "
            "DeleteNetworkInterface, Assign/UnassignPrivateIpAddresses; EC2 offers no "
            "resource scope for network interfaces that do not exist yet) and sending "
            "X-Ray traces (xray:PutTraceSegments, PutTelemetryRecords have no resource "
            "type). Everything else the role may do is scoped to named resources.",
        )
        acknowledge(
            fn.function,
            "AwsSolutions-L1",
            f"Pinned to python{config.python_version} on purpose: the layer's compiled "
            "wheels (psycopg-binary, numpy, pydantic-core) are built for exactly this "
            "interpreter. Moving to a newer runtime is a deliberate context change "
            "(pythonVersion), made once the service's tests pass on it, and it rebuilds "
            "the layer to match.",
        )

    admin = functions.by_name[c.ADMIN]
    acknowledge(
        admin.role,
        f"AwsSolutions-IAM5[Resource::arn:{partition}:apigateway:{region}::/apikeys/*]",
        "The admin function creates, reads, disables and deletes customers' API keys at "
        "run time; their ids do not exist at deploy time. The statement allows only the "
        "API key paths of API Gateway, in this region.",
    )
    acknowledge(
        admin.role,
        f"AwsSolutions-IAM5[Resource::arn:{partition}:apigateway:{region}::"
        f"/usageplans/<{_logical_id(api.usage_plan)}>/keys/*]",
        "Keys are added to and removed from this stack's default usage plan (its id is "
        "in the resource); the individual key ids are only known at run time.",
    )
    if "bedrock" in config.model_providers:
        write_role = functions.by_name[c.WRITE].role
        acknowledge(
            write_role,
            f"AwsSolutions-IAM5[Resource::arn:{partition}:bedrock:*::foundation-model/anthropic.claude-*]",
            "The Claude model is a per-key setting (classifier_model), so the write "
            "function may invoke any Claude model; cross-region inference routes to "
            "the model in other regions, hence the region wildcard. Only InvokeModel "
            "is allowed, and only on Anthropic models.",
        )
        acknowledge(
            write_role,
            f"AwsSolutions-IAM5[Resource::arn:{partition}:bedrock:*:{account}:"
            "inference-profile/*anthropic.claude-*]",
            "Newer Claude models are invoked through this account's cross-region "
            "inference profiles (us., eu., apac., global. prefixes); the profile follows "
            "the per-key model setting. Only InvokeModel, only Claude profiles.",
        )

    migrations = stack.migrations
    acknowledge(
        migrations.provider_role,
        f"AwsSolutions-IAM5[Resource::<{_logical_id(functions[c.MIGRATE])}.Arn>:*]",
        "The custom resource provider framework may invoke the migrate function and its "
        "versions (ARN:*); the grant is limited to that one function.",
    )

    # ------------------------------------------------------------------- API
    acknowledge(
        api.rest_api,
        "AwsSolutions-COG4",
        "Aurra's callers are AI agents holding API keys, not users of a Cognito user "
        "pool: every method is behind the Lambda TOKEN authorizer that resolves the key "
        "to its tenant, and requires an API key for metering.",
    )
    if config.api_gateway_cloudwatch_role:
        acknowledge(
            api.rest_api,
            # AWS managed policy ARNs always carry the partition pseudo parameter
            "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
            "AmazonAPIGatewayPushToCloudWatchLogs]",
            "The account-level role API Gateway assumes to write execution logs "
            "(needed for the stage's CloudWatch logging). The service creates its own "
            "log groups per API and stage, which this AWS managed policy exists for.",
        )
    if not config.waf_enabled:
        acknowledge(
            api.stage,
            "AwsSolutions-APIG3",
            "WAF is opt-in (context wafEnabled=true): every request already needs a "
            "valid key, passes the authorizer's format check, and is throttled and "
            "metered per key by the usage plan. Turn the web ACL on for public stages "
            "that face abusive traffic.",
        )

    # -------------------------------------------------------------- database
    if not config.db_secret_rotation_days:
        acknowledge(
            # the secret itself; `cluster.secret` is its attachment
            database.cluster.node.find_child("Secret"),
            "AwsSolutions-SMG4",
            "Rotation is opt-in (context dbSecretRotationDays): function containers keep "
            "their database credentials for their lifetime, so rotation is turned on once "
            "the deployment accepts the short window of reconnects it causes. The secret "
            "is only readable by the functions' roles and the proxy.",
        )
    if not config.resolved_deletion_protection:
        acknowledge(
            database.cluster,
            "AwsSolutions-RDS10",
            "Deletion protection is off in the dev stage only, so that a throwaway stack "
            "can be removed; removal still takes a final snapshot. Every other stage has "
            "it on (context deletionProtection overrides).",
        )

    # ---------------------------------------------------------------- secrets
    acknowledge(
        stack.flags.cursor_secret,
        "AwsSolutions-SMG4",
        "The cursor signing key protects nothing stored: it only makes pagination cursors "
        "unforgeable. A new value (put-secret-value) invalidates the cursors clients hold, "
        "which start again from page one; no rotation function is needed for that.",
    )
    if stack.flags.anthropic_secret is not None:
        acknowledge(
            stack.flags.anthropic_secret,
            "AwsSolutions-SMG4",
            "An Anthropic API key is issued and revoked in the Anthropic console; Secrets "
            "Manager cannot rotate it. The team replaces the value when it rotates the "
            "key there.",
        )
    if stack.flags.openai_secret is not None:
        acknowledge(
            stack.flags.openai_secret,
            "AwsSolutions-SMG4",
            "The key of an OpenAI-compatible endpoint is issued and revoked by that "
            "endpoint's provider; Secrets Manager cannot rotate it. The team replaces the "
            "value when it rotates the key there.",
        )


def _logical_id(construct) -> str:
    """The CloudFormation logical id of a construct's default resource, as
    cdk-nag prints it inside findings."""
    node = construct.node.default_child or construct
    return Stack.of(construct).get_logical_id(node)
