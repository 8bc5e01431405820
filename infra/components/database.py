"""Database: Aurora PostgreSQL Serverless v2 with pgvector, behind RDS Proxy.

- Engine: Aurora PostgreSQL 16.8, which ships pgvector 0.8 (HNSW and the
  iterative index scans that keep filtered recall); the migrations create the
  extension.
- Encrypted storage, automated backups, deletion protection outside dev,
  TLS required (`rds.force_ssl`), PostgreSQL logs exported to CloudWatch.
- Credentials: the master user's RDS-generated secret, read only by the
  migrate and maintenance functions (schema changes, index builds); and one
  secret per service login (`aurra_service` for the API functions and the
  authorizer, `aurra_keyadmin` for the admin function), created by the
  migrations with no ownership and no way past row-level security, their
  passwords set by the migrate function. All rotate every
  `dbSecretRotationDays` (single-user rotation), and are kept, like the final
  snapshot, when the stack is deleted.
- RDS Proxy (TLS required, IAM authentication required) in front, so bursts
  of Lambda containers share a small pool of database connections. It holds
  the service logins' secrets; functions sign in with an IAM token for their
  login (`grant_connect`), never a password. A borrow timeout of 5 s (under
  every API function's timeout) turns a saturated pool into a quick 503.
- Only the proxy and the migrate and maintenance functions reach the cluster;
  only the API, authorizer and admin functions reach the proxy (security
  groups).
"""

from __future__ import annotations

from typing import cast

import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_logs as logs
from aws_cdk import aws_rds as rds
from aws_cdk import aws_sam as sam
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from infra import constants as c
from infra.components.common import retention
from infra.components.keys import EncryptionKeys
from infra.components.network import Network
from infra.config import AurraConfig

# RDS Proxy hands a client a database connection within this, or the client
# gets an error it turns into a 503 (API functions time out after 10-25 s).
PROXY_BORROW_TIMEOUT_SECONDS = 5

ENGINE_VERSION = rds.AuroraPostgresEngineVersion.VER_16_8


class Database(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: AurraConfig,
        network: Network,
        keys: EncryptionKeys,
    ) -> None:
        super().__init__(scope, construct_id)
        vpc = network.vpc
        engine = rds.DatabaseClusterEngine.aurora_postgres(version=ENGINE_VERSION)

        # Its description predates the maintenance function, which reaches the
        # cluster too; changing it would replace the group under a live cluster.
        self.cluster_security_group = ec2.SecurityGroup(
            self,
            "ClusterSecurityGroup",
            vpc=vpc,
            description="Aurra Aurora cluster: PostgreSQL from the proxy and the migrate function only",
            allow_all_outbound=False,
        )
        self.proxy_security_group = ec2.SecurityGroup(
            self,
            "ProxySecurityGroup",
            vpc=vpc,
            description="Aurra RDS Proxy: PostgreSQL from the functions, to the cluster",
            allow_all_outbound=False,
        )
        # The proxy -> cluster rules are added by add_proxy below.

        # Created before the cluster so that its retention applies from the
        # first line RDS exports (and no log-retention Lambda is needed).
        self.log_group = logs.LogGroup(
            self,
            "PostgresLogs",
            log_group_name=c.cluster_log_group_name(config.stage),
            retention=retention(config.log_retention_days),
            removal_policy=cdk.RemovalPolicy.DESTROY,
            encryption_key=keys.logs,
        )
        parameters = rds.ParameterGroup(
            self,
            "ClusterParameters",
            engine=engine,
            # No statement logging: bind parameters would put memory contents
            # in the logs. Slow queries show in Performance Insights instead.
            description=f"Aurra {config.stage}: TLS only",
            parameters={"rds.force_ssl": "1"},
        )

        instance_props = dict(
            publicly_accessible=False,
            enable_performance_insights=True,
            performance_insight_encryption_key=keys.database,
            auto_minor_version_upgrade=True,
        )
        self.cluster = rds.DatabaseCluster(
            self,
            "Cluster",
            engine=engine,
            cluster_identifier=c.cluster_identifier(config.stage),
            # No fixed secret name: a deleted secret keeps its name reserved for
            # its recovery window, which would block re-creating the stage.
            credentials=rds.Credentials.from_generated_secret(c.DB_ADMIN_USER, encryption_key=keys.secrets),
            default_database_name=c.DB_NAME,
            port=c.DB_PORT,
            writer=rds.ClusterInstance.serverless_v2("Writer", **instance_props),
            readers=[
                rds.ClusterInstance.serverless_v2(f"Reader{i + 1}", scale_with_writer=True, **instance_props)
                for i in range(config.resolved_db_readers)
            ],
            serverless_v2_min_capacity=config.db_min_capacity,
            serverless_v2_max_capacity=config.db_max_capacity,
            vpc=vpc,
            vpc_subnets=network.data_subnets,
            security_groups=[self.cluster_security_group],
            parameter_group=parameters,
            storage_encrypted=True,
            storage_encryption_key=keys.database,
            iam_authentication=True,
            deletion_protection=config.resolved_deletion_protection,
            backup=rds.BackupProps(
                retention=cdk.Duration.days(config.db_backup_retention_days),
                preferred_window="03:00-04:00",
            ),
            preferred_maintenance_window="Sun:04:30-Sun:05:30",
            cloudwatch_logs_exports=["postgresql"],
            copy_tags_to_snapshot=True,
            removal_policy=cdk.RemovalPolicy.SNAPSHOT,
        )
        self.cluster.node.add_dependency(self.log_group)
        assert self.cluster.secret is not None
        self.secret = self.cluster.secret
        # Kept like the final snapshot: restoring it needs the master password.
        self.cluster.node.find_child("Secret").apply_removal_policy(cdk.RemovalPolicy.RETAIN)

        # The service logins: their secrets, attached to the cluster (host,
        # port, engine) so single-user rotation can sign in and change them.
        self.login_secrets: dict[str, secretsmanager.ISecret] = {}
        for user in c.DB_LOGINS:
            secret = rds.DatabaseSecret(
                self,
                f"{c.DB_LOGIN_IDS[user]}Secret",
                username=user,
                encryption_key=keys.secrets,
                # what the proxy and rotation read; no character that needs quoting
                exclude_characters=" %+~`#$&*()|[]{}:;<>?!'/@\"\\",
            )
            secret.apply_removal_policy(cdk.RemovalPolicy.RETAIN)
            self.login_secrets[user] = secret.attach(self.cluster)

        rotation = (
            cdk.Duration.days(config.db_secret_rotation_days) if config.db_secret_rotation_days else None
        )
        self.rotations: list[secretsmanager.SecretRotation] = []
        if rotation is not None:
            # One group for the rotation functions: PostgreSQL to the cluster
            # (added by the rotations below) and HTTPS to Secrets Manager.
            self.rotation_security_group = ec2.SecurityGroup(
                self,
                "RotationSecurityGroup",
                vpc=vpc,
                description="Aurra secret rotation: PostgreSQL to the cluster, HTTPS to Secrets Manager",
                allow_all_outbound=False,
            )
            # Secrets Manager through its endpoint when there is one (NAT or not)
            https_peer = ec2.Peer.ipv4(network.cidr) if network.has_endpoints else ec2.Peer.any_ipv4()
            self.rotation_security_group.add_egress_rule(
                https_peer, ec2.Port.tcp(443), "HTTPS to Secrets Manager"
            )
            # The migrate and maintenance functions read the master secret
            # afresh on every run; the API functions never hold a password.
            self.cluster.add_rotation_single_user(
                automatically_after=rotation,
                vpc_subnets=network.app_subnets,
                security_group=self.rotation_security_group,
            )
            for user, secret in self.login_secrets.items():
                self.rotations.append(
                    secretsmanager.SecretRotation(
                        self,
                        f"{c.DB_LOGIN_IDS[user]}Rotation",
                        application=secretsmanager.SecretRotationApplication.POSTGRES_ROTATION_SINGLE_USER,
                        secret=secret,
                        target=self.cluster,
                        vpc=vpc,
                        vpc_subnets=network.app_subnets,
                        security_group=self.rotation_security_group,
                        automatically_after=rotation,
                    )
                )
            self._rotation_log_groups(config, keys)

        self.proxy = self.cluster.add_proxy(
            "Proxy",
            db_proxy_name=c.proxy_name(config.stage),
            secrets=list(self.login_secrets.values()),
            vpc=vpc,
            vpc_subnets=network.data_subnets,
            security_groups=[self.proxy_security_group],
            require_tls=True,
            iam_auth=True,
            debug_logging=False,
            idle_client_timeout=cdk.Duration.minutes(30),
            max_connections_percent=90,
            max_idle_connections_percent=50,
            borrow_timeout=cdk.Duration.seconds(PROXY_BORROW_TIMEOUT_SECONDS),
        )

    def rotation_schedules(self) -> list[secretsmanager.CfnRotationSchedule]:
        """Every database secret's rotation schedule (the master's and the logins')."""
        return [
            child for child in self.node.find_all() if isinstance(child, secretsmanager.CfnRotationSchedule)
        ]

    def _rotation_log_groups(self, config: AurraConfig, keys: EncryptionKeys) -> None:
        """The rotation functions' log groups, made before them (each function, from the
        Serverless Application Repository, is named by its application's `functionName`): the
        stage's retention and logs key, where Lambda would make a group kept forever, in clear."""
        for app in self.node.find_all():
            if not isinstance(app, sam.CfnApplication):
                continue
            name = cdk.Stack.of(self).resolve(app.parameters)["functionName"]  # a literal
            group = logs.LogGroup(
                cast("Construct", app.node.scope),
                "Logs",
                log_group_name=f"/aws/lambda/{name}",
                retention=retention(config.log_retention_days),
                removal_policy=cdk.RemovalPolicy.DESTROY,
                encryption_key=keys.logs,
            )
            app.node.add_dependency(group)

    def order_rotations_after(self, migrations: Construct) -> None:
        """Rotations start only once the deploy's migrations have run (they create the logins
        and set their passwords, reading the master's), and never on a deploy itself: the first
        rotation comes `dbSecretRotationDays` after the schedule is made, never in the middle of
        the migrations. (CloudFormation's default rotates a secret at once whenever its schedule
        is created or changed.)"""
        for schedule in self.rotation_schedules():
            schedule.add_property_override("RotateImmediatelyOnUpdate", False)
            schedule.node.add_dependency(migrations)

    def allow_proxy_from(self, security_group: ec2.ISecurityGroup, description: str) -> None:
        port = ec2.Port.tcp(c.DB_PORT)
        self.proxy_security_group.add_ingress_rule(security_group, port, description)
        security_group.add_egress_rule(self.proxy_security_group, port, "PostgreSQL to the RDS Proxy")

    def allow_cluster_from(self, security_group: ec2.ISecurityGroup, description: str) -> None:
        port = ec2.Port.tcp(c.DB_PORT)
        self.cluster_security_group.add_ingress_rule(security_group, port, description)
        security_group.add_egress_rule(self.cluster_security_group, port, "PostgreSQL to the cluster")
