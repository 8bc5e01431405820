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
    for _name, fn in functions.by_name.items():
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
        "The admin function reads, disables and deletes customers' API keys at run time; "
        "their ids do not exist at deploy time. The statement allows only API key paths "
        f"of API Gateway in this region, and only keys tagged {c.API_KEY_STAGE_TAG}=<this "
        "stage> (an aws:ResourceTag condition), so another stage's keys are out of reach.",
    )
    acknowledge(
        admin.role,
        f"AwsSolutions-IAM5[Resource::arn:{partition}:apigateway:{region}::/tags/*]",
        "Tagging an API key when creating it is authorized on API Gateway's tags path of "
        "the key's ARN, which does not exist before the key; the statement allows only "
        f"requests whose {c.API_KEY_STAGE_TAG} tag is this stage (an aws:RequestTag condition).",
    )
    acknowledge(
        admin.role,
        f"AwsSolutions-IAM5[Resource::arn:{partition}:apigateway:{region}::"
        f"/usageplans/<{_logical_id(api.usage_plan)}>/keys/*]",
        "Keys are added to and removed from this stack's default usage plan (its id is "
        "in the resource); the individual key ids are only known at run time.",
    )
    if stack.keys.topic is not None:
        acknowledge(
            functions.by_name[c.MAINTENANCE].role,
            "AwsSolutions-IAM5[Action::kms:GenerateDataKey*]",
            "Publishing a failed maintenance run to the alarm topic, which is encrypted with "
            "the stage's topic key: GenerateDataKey* (GenerateDataKey and its "
            "WithoutPlaintext form) is granted on that one key only.",
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
    if not config.resolved_waf_enabled:
        acknowledge(
            api.stage,
            "AwsSolutions-APIG3",
            "The WAF is off in this stage by its settings (wafEnabled; on by default in every "
            "stage but dev, which serves no customers). What still bounds load without it: "
            "API Gateway refuses any Authorization header that is not an Aurra key before a "
            "Lambda runs, the stage throttle and each key's usage plan cap the request rate, "
            "and reserved concurrency caps the functions that reach the database.",
        )

    # --------------------------------------------------------------- console
    if stack.console is not None:
        _acknowledge_console(stack, partition, region, account)

    # -------------------------------------------------------------- database
    if not config.db_secret_rotation_days:
        reason = (
            "Rotation is turned off for this stage by its settings (dbSecretRotationDays=0; "
            "every 30 days by default). The secret is readable only by the proxy and the "
            "functions that need it (the migrate and maintenance functions for the master "
            "user, the migrate function for the service logins)."
        )
        # the secret itself; `cluster.secret` is its attachment
        acknowledge(database.cluster.node.find_child("Secret"), "AwsSolutions-SMG4", reason)
        for user in c.DB_LOGINS:
            acknowledge(
                database.node.find_child(f"{c.DB_LOGIN_IDS[user]}Secret"), "AwsSolutions-SMG4", reason
            )
    if not config.resolved_deletion_protection:
        acknowledge(
            database.cluster,
            "AwsSolutions-RDS10",
            "Deletion protection is off in the dev stage only, so that a throwaway stack "
            "can be removed; removal still takes a final snapshot. Every other stage has "
            "it on (context deletionProtection overrides).",
        )

    # --------------------------------------------------------------- hosting
    hosting = stack.hosting
    if hosting.backup_plan is not None:
        acknowledge(
            hosting.backup_plan,
            "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
            "AWSBackupServiceRolePolicyForBackup]",
            "The role AWS Backup assumes to back the cluster up. AWS maintains this managed "
            "policy for exactly the resource types Backup protects; a hand-written copy would "
            "fall behind as Backup changes. Only backup.amazonaws.com can assume the role.",
        )
    if hosting.access_log_bucket is not None:
        acknowledge(
            hosting.access_log_bucket,
            "AwsSolutions-S1",
            "This bucket is itself a log archive (the API's access log, for billing), written "
            "only by the Firehose stream of this stack. Its own server access log would need "
            "another bucket; reads of it are auditable through CloudTrail data events.",
        )
        bucket = f"<{_logical_id(hosting.access_log_bucket)}.Arn>"
        firehose_reason = (
            "The delivery roles of the access-log Firehose stream, as CDK grants them: read "
            "and write (Firehose writes objects and cleans up failed multipart uploads) on the "
            "access-log bucket of this stack and its objects only, and encryption with the "
            "stage's logs key only. The bucket is versioned, so nothing written is lost. The "
            "wildcards are action families and the bucket's own objects, not other resources."
        )
        for rule in (
            "AwsSolutions-IAM5[Action::kms:GenerateDataKey*]",
            "AwsSolutions-IAM5[Action::kms:ReEncrypt*]",
            "AwsSolutions-IAM5[Action::s3:Abort*]",
            "AwsSolutions-IAM5[Action::s3:DeleteObject*]",
            "AwsSolutions-IAM5[Action::s3:GetBucket*]",
            "AwsSolutions-IAM5[Action::s3:GetObject*]",
            "AwsSolutions-IAM5[Action::s3:List*]",
            f"AwsSolutions-IAM5[Resource::{bucket}/*]",
        ):
            acknowledge(hosting.access_log_stream, rule, firehose_reason)

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


def _acknowledge_console(stack: AurraStack, partition: str, region: str, account: str) -> None:
    console = stack.console
    assert console is not None
    distribution = console.distribution
    acknowledge(
        distribution,
        "AwsSolutions-CFR1",
        "The console is for a tenant's own people wherever they are, and every request "
        "to it or through it to the API needs an API key; a geographic restriction would "
        "only lock customers out. Add one in the distribution when a stage must have it.",
    )
    acknowledge(
        distribution,
        "AwsSolutions-CFR2",
        "The distribution serves public static files and passes /agent/* to the REST API, "
        "where every request meets the key authorizer, the usage plan's throttle and, with "
        "wafEnabled, the API's regional web ACL. A CloudFront web ACL must live in "
        "us-east-1, outside this regional stack.",
    )
    if not stack.config.console_domain_name:
        acknowledge(
            distribution,
            "AwsSolutions-CFR4",
            "Without a custom domain CloudFront serves its own *.cloudfront.net certificate, "
            "for which it fixes the minimum TLS version itself; TLSv1.2_2021 is set and "
            "takes effect with consoleDomainName and consoleCertificateArn.",
        )
    # The function CDK's BucketDeployment brings to copy the files and invalidate the cache.
    deployment_functions = [
        child for child in stack.node.children if child.node.id.startswith("Custom::CDKBucketDeployment")
    ]
    for function in deployment_functions:
        acknowledge(
            function,
            "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
            "AWSLambdaBasicExecutionRole]",
            "CDK's BucketDeployment function (copies console/ into the bucket on deploy) writes "
            "its own logs with the AWS managed basic execution policy; it runs only during "
            "deployments.",
        )
        wildcards = [
            *(
                f"Action::s3:{action}"
                for action in ("GetBucket*", "GetObject*", "List*", "Abort*", "DeleteObject*")
            ),
            f"Resource::arn:{partition}:s3:::cdk-hnb659fds-assets-{account}-{region}/*",
            f"Resource::<{_logical_id(console.bucket)}.Arn>/*",
            "Resource::*",
        ]
        for wildcard in wildcards:
            acknowledge(
                function,
                f"AwsSolutions-IAM5[{wildcard}]",
                "CDK's BucketDeployment grants itself s3 Get*/List*/DeleteObject*/Abort* on the "
                "CDK asset bucket and on the console bucket's objects (it syncs and prunes the "
                "folder), and cloudfront:CreateInvalidation/GetInvalidation, which take no "
                "resource scope. It runs only during deployments.",
            )
        acknowledge(
            function,
            "AwsSolutions-L1",
            "The runtime of CDK's BucketDeployment function is chosen by aws-cdk-lib itself "
            "and moves forward with it; it runs only during deployments.",
        )


def _logical_id(construct) -> str:
    """The CloudFormation logical id of a construct's default resource, as
    cdk-nag prints it inside findings."""
    node = construct.node.default_child or construct
    return Stack.of(construct).get_logical_id(node)
