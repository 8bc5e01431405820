"""Encryption keys: customer-managed KMS keys, one per kind of data (hosted mode).

With `customerManagedKeys` (on with `hosted`), the cluster's storage and
Performance Insights, the secrets, every log group and the alarm topic are
encrypted with keys of this stack, which rotate yearly and are kept when the
stack is deleted (a key scheduled for deletion would make the final snapshot
and the retained secrets unreadable). Without it, each service's AWS managed
key is used and every attribute here is None.

The cluster's key is fixed when the cluster is created: turning this on for a
stage that already has a cluster replaces it (and fails while deletion
protection is on), so choose at the first deploy.
"""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from constructs import Construct

from infra import constants as c
from infra.config import AurraConfig


class EncryptionKeys(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, config: AurraConfig) -> None:
        super().__init__(scope, construct_id)
        self.database: kms.Key | None = None
        self.secrets: kms.Key | None = None
        self.logs: kms.Key | None = None
        self.topic: kms.Key | None = None
        if not config.resolved_customer_managed_keys:
            return
        stack = cdk.Stack.of(self)

        def key(name: str, what: str) -> kms.Key:
            return kms.Key(
                self,
                name,
                alias=f"alias/{c.resource_prefix(config.stage)}/{name.lower()}",
                description=f"Aurra {config.stage}: {what}",
                enable_key_rotation=True,
                removal_policy=cdk.RemovalPolicy.RETAIN,
            )

        self.database = key("Database", "Aurora storage, Performance Insights and backups")
        self.secrets = key("Secrets", "the database and model provider secrets")
        self.logs = key("Logs", "every log group of the stage")
        self.topic = key("Topic", "the alarm topic")

        # A copy of each backup to another account's vault: the recovery points are encrypted
        # with the database key, so that account must be able to use it to copy them (AWS
        # Backup then re-encrypts each copy with the destination vault's own key). Its use is
        # limited to AWS services acting for it (grants for AWS resources only).
        if config.backup_copy_vault_arn and config.resolved_backup_plan:
            copy_account = config.backup_copy_vault_arn.split(":")[4]
            destination = iam.AccountPrincipal(copy_account)
            self.database.add_to_resource_policy(
                iam.PolicyStatement(
                    sid="BackupCopyAccountUse",
                    principals=[destination],
                    actions=[
                        "kms:Decrypt",
                        "kms:DescribeKey",
                        "kms:Encrypt",
                        "kms:GenerateDataKey*",
                        "kms:ReEncrypt*",
                    ],
                    resources=["*"],
                )
            )
            self.database.add_to_resource_policy(
                iam.PolicyStatement(
                    sid="BackupCopyAccountGrants",
                    principals=[destination],
                    actions=["kms:CreateGrant"],
                    resources=["*"],
                    conditions={"Bool": {"kms:GrantIsForAWSResource": "true"}},
                )
            )

        # CloudWatch Logs encrypts with the key only for this account's log
        # groups (the encryption context names the log group).
        self.logs.add_to_resource_policy(
            iam.PolicyStatement(
                sid="CloudWatchLogs",
                principals=[iam.ServicePrincipal(f"logs.{stack.region}.amazonaws.com")],
                actions=[
                    "kms:Encrypt*",
                    "kms:Decrypt*",
                    "kms:ReEncrypt*",
                    "kms:GenerateDataKey*",
                    "kms:Describe*",
                ],
                resources=["*"],
                conditions={
                    "ArnLike": {
                        "kms:EncryptionContext:aws:logs:arn": (
                            f"arn:{stack.partition}:logs:{stack.region}:{stack.account}:log-group:*"
                        )
                    }
                },
            )
        )
        # EventBridge sends failed rotations, backups and copies to the encrypted topic.
        self.topic.add_to_resource_policy(
            iam.PolicyStatement(
                sid="EventBridgeRules",
                principals=[iam.ServicePrincipal("events.amazonaws.com")],
                actions=["kms:Decrypt", "kms:GenerateDataKey*"],
                resources=["*"],
                conditions={"StringEquals": {"aws:SourceAccount": stack.account}},
            )
        )
        # CloudWatch alarms publish to the encrypted topic.
        self.topic.add_to_resource_policy(
            iam.PolicyStatement(
                sid="CloudWatchAlarms",
                principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
                actions=["kms:Decrypt", "kms:GenerateDataKey*"],
                resources=["*"],
                conditions={"StringEquals": {"aws:SourceAccount": stack.account}},
            )
        )
