"""Migrations on deploy: a custom resource whose handler is the migrate function.

The resource's properties carry a fingerprint of
layers/core/python/aurra_core/storage/migrations/*.sql, the embedding dimension and
the service logins' secrets, so CloudFormation sends an Update (and the
function applies what is new, and sets the logins' passwords) exactly when a
deploy brings new or changed migrations or new login secrets. The migrate function
answers {"PhysicalResourceId": ..., "Data": {...}}; it runs the same code as
`aurra migrate`, `CREATE EXTENSION vector` included. It computes the same fingerprint over its
own migrations and does nothing for an event that carries another (a rollback sends the old
properties to the new code: applying the new migrations again would fail the rollback).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_rds as rds
from aws_cdk import custom_resources as cr
from constructs import Construct

from infra import constants as c
from infra.components.common import retention
from infra.components.database import Database
from infra.components.keys import EncryptionKeys
from infra.config import AurraConfig


def migrations_fingerprint(directory: Path = c.MIGRATIONS_DIR) -> str:
    """sha256 over the names and contents of the *.sql files, in name order.

    A missing directory has a fingerprint of its own, so adding the first
    migration changes it.
    """
    digest = hashlib.sha256()
    files = sorted(directory.glob("*.sql")) if directory.is_dir() else []
    if not files:
        digest.update(b"no migrations")
    for path in files:
        digest.update(path.name.encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


class Migrations(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: AurraConfig,
        migrate_function: lambda_.IFunction,
        database: Database,
        keys: EncryptionKeys,
    ) -> None:
        super().__init__(scope, construct_id)
        self.fingerprint = migrations_fingerprint()

        provider_logs = logs.LogGroup(
            self,
            "ProviderLogs",
            retention=retention(config.log_retention_days),
            removal_policy=cdk.RemovalPolicy.DESTROY,
            encryption_key=keys.logs,
        )
        self.provider_role = provider_role = iam.Role(
            self,
            "ProviderRole",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"Aurra {config.stage} migrations provider",
            inline_policies={
                "Logs": iam.PolicyDocument(
                    statements=[
                        iam.PolicyStatement(
                            actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                            resources=[provider_logs.log_group_arn],
                        )
                    ]
                )
            },
        )
        self.provider = cr.Provider(
            self,
            "Provider",
            on_event_handler=migrate_function,
            framework_on_event_role=provider_role,
            log_group=provider_logs,
        )
        self.resource = cdk.CustomResource(
            self,
            "Resource",
            service_token=self.provider.service_token,
            resource_type="Custom::AurraMigrations",
            properties={
                "MigrationsFingerprint": self.fingerprint,
                "EmbeddingDim": str(config.resolved_embedding_dim),
                # a new login secret (a new password) reaches the database on
                # the same deploy: the migrate function sets the passwords
                "LoginSecrets": [secret.secret_arn for secret in database.login_secrets.values()],
            },
        )
        # Migrate once the writer accepts connections: the cluster and its instances (not the
        # rest of the cluster's tree: its secret's rotation waits for the migrations).
        for child in database.cluster.node.find_all():
            if isinstance(child, rds.CfnDBCluster | rds.CfnDBInstance):
                self.resource.node.add_dependency(child)
