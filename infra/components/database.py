"""Database: Aurora PostgreSQL Serverless v2 with pgvector, behind RDS Proxy.

- Engine: Aurora PostgreSQL 16.8, which ships pgvector 0.8 (HNSW and the
  iterative index scans that keep filtered recall); the migrations create the
  extension.
- Encrypted storage, automated backups, deletion protection outside dev,
  TLS required (`rds.force_ssl`), PostgreSQL logs exported to CloudWatch.
- Credentials: an RDS-generated secret in Secrets Manager (host, port,
  username, password, dbname, engine).
- RDS Proxy (TLS required) in front, so bursts of Lambda containers share a
  small pool of database connections. Functions authenticate to the proxy with
  the secret's user and password; IAM database authentication is enabled on
  the cluster too, for operators.
- Only the proxy and the migrate and maintenance functions reach the cluster;
  only the API, authorizer and admin functions reach the proxy (security
  groups).
"""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_logs as logs
from aws_cdk import aws_rds as rds
from constructs import Construct

from infra import constants as c
from infra.components.common import retention
from infra.components.network import Network
from infra.config import AurraConfig

ENGINE_VERSION = rds.AuroraPostgresEngineVersion.VER_16_8


class Database(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, config: AurraConfig, network: Network) -> None:
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
            auto_minor_version_upgrade=True,
        )
        self.cluster = rds.DatabaseCluster(
            self,
            "Cluster",
            engine=engine,
            cluster_identifier=c.cluster_identifier(config.stage),
            # No fixed secret name: a deleted secret keeps its name reserved for
            # its recovery window, which would block re-creating the stage.
            credentials=rds.Credentials.from_generated_secret(c.DB_ADMIN_USER),
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

        if config.db_secret_rotation_days:
            # Off by default: functions keep their connection settings for the
            # life of a container, so turn this on only once the layer re-reads
            # the secret when authentication fails.
            self.cluster.add_rotation_single_user(
                automatically_after=cdk.Duration.days(config.db_secret_rotation_days),
                vpc_subnets=network.app_subnets,
            )

        self.proxy = self.cluster.add_proxy(
            "Proxy",
            db_proxy_name=c.proxy_name(config.stage),
            secrets=[self.secret],
            vpc=vpc,
            vpc_subnets=network.data_subnets,
            security_groups=[self.proxy_security_group],
            require_tls=True,
            iam_auth=False,
            debug_logging=False,
            idle_client_timeout=cdk.Duration.minutes(30),
            max_connections_percent=90,
            max_idle_connections_percent=50,
            borrow_timeout=cdk.Duration.seconds(30),
        )

    def allow_proxy_from(self, security_group: ec2.ISecurityGroup, description: str) -> None:
        port = ec2.Port.tcp(c.DB_PORT)
        self.proxy_security_group.add_ingress_rule(security_group, port, description)
        security_group.add_egress_rule(self.proxy_security_group, port, "PostgreSQL to the RDS Proxy")

    def allow_cluster_from(self, security_group: ec2.ISecurityGroup, description: str) -> None:
        port = ec2.Port.tcp(c.DB_PORT)
        self.cluster_security_group.add_ingress_rule(security_group, port, description)
        security_group.add_egress_rule(self.cluster_security_group, port, "PostgreSQL to the cluster")
