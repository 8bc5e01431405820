"""Hosting: what a stage that serves customers for pay adds (hosted mode).

- An AWS Backup plan for the cluster (`backupPlan`, on with `hosted`): daily
  backups kept 35 days in a vault of the stack (kept when the stack goes),
  beside Aurora's own automated backups; with `backupCopyVaultArn`, each one
  is also copied to that vault, for instance in another account.
- The access log exported to S3 (`accessLogExport`, on with `hosted`): every
  call's record (key id, tenant, route, status, latency), through Kinesis
  Data Firehose into a bucket that is kept, blocks public access and expires
  each record after `accessLogRetentionDays`: what billing reads, whatever the
  log group's retention.
- A custom domain (`domainName` with `certificateArn`): a regional API
  Gateway domain with the TLS 1.2 policy mapped to the stage, and an alias
  record when `hostedZoneId`/`hostedZoneName` are given. The default
  execute-api endpoint is then disabled (api.py), so the domain, its TLS
  policy and the WAF are the only way in.
"""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_backup as backup
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_events as events
from aws_cdk import aws_kinesisfirehose as firehose
from aws_cdk import aws_logs as logs
from aws_cdk import aws_logs_destinations as log_destinations
from aws_cdk import aws_route53 as route53
from aws_cdk import aws_route53_targets as route53_targets
from aws_cdk import aws_s3 as s3
from constructs import Construct

from infra import constants as c
from infra.components.api import Api
from infra.components.common import retention
from infra.components.database import Database
from infra.components.keys import EncryptionKeys
from infra.config import AurraConfig

BACKUP_RETENTION = cdk.Duration.days(35)


class Hosting(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: AurraConfig,
        api: Api,
        database: Database,
        keys: EncryptionKeys,
    ) -> None:
        super().__init__(scope, construct_id)
        self.backup_plan: backup.BackupPlan | None = None
        self.backup_vault: backup.BackupVault | None = None
        self.access_log_bucket: s3.Bucket | None = None
        self.domain: apigw.DomainName | None = None
        if config.resolved_backup_plan:
            self._backups(config, database, keys)
        if config.resolved_access_log_export:
            self._access_log_export(config, api, keys)
        if config.domain_name is not None:
            self._domain(config, api)

    def _backups(self, config: AurraConfig, database: Database, keys: EncryptionKeys) -> None:
        self.backup_vault = backup.BackupVault(
            self,
            "Vault",
            backup_vault_name=c.backup_vault_name(config.stage),
            encryption_key=keys.database,
            removal_policy=cdk.RemovalPolicy.RETAIN,
        )
        copy_actions = []
        if config.backup_copy_vault_arn:
            copy_actions.append(
                backup.BackupPlanCopyActionProps(
                    destination_backup_vault=backup.BackupVault.from_backup_vault_arn(
                        self, "CopyVault", config.backup_copy_vault_arn
                    ),
                    delete_after=BACKUP_RETENTION,
                )
            )
        self.backup_plan = backup.BackupPlan(
            self,
            "Plan",
            backup_plan_name=c.backup_plan_name(config.stage),
            backup_vault=self.backup_vault,
        )
        self.backup_plan.add_rule(
            backup.BackupPlanRule(
                rule_name="Daily",
                # after Aurora's own backup window (03:00-04:00 UTC)
                schedule_expression=events.Schedule.cron(hour="5", minute="0"),
                delete_after=BACKUP_RETENTION,
                copy_actions=copy_actions or None,
            )
        )
        self.backup_plan.add_selection(
            "Cluster", resources=[backup.BackupResource.from_rds_database_cluster(database.cluster)]
        )

    def _access_log_export(self, config: AurraConfig, api: Api, keys: EncryptionKeys) -> None:
        encryption = (
            dict(encryption=s3.BucketEncryption.KMS, encryption_key=keys.logs, bucket_key_enabled=True)
            if keys.logs is not None
            else dict(encryption=s3.BucketEncryption.S3_MANAGED)
        )
        self.access_log_bucket = s3.Bucket(
            self,
            "AccessLogBucket",
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            enforce_ssl=True,
            versioned=True,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            removal_policy=cdk.RemovalPolicy.RETAIN,
            # The records expire after `accessLogRetentionDays` (billing reads them until then;
            # each names a key and a tenant, so none is kept forever); what versioning keeps of
            # an overwritten or deleted one goes after 90 days, and a delivery's unfinished
            # multipart upload after 7.
            lifecycle_rules=[
                s3.LifecycleRule(
                    expiration=cdk.Duration.days(config.access_log_retention_days),
                    noncurrent_version_expiration=cdk.Duration.days(90),
                    abort_incomplete_multipart_upload_after=cdk.Duration.days(7),
                )
            ],
            **encryption,
        )
        self.access_log_stream = firehose.DeliveryStream(
            self,
            "AccessLogStream",
            destination=firehose.S3Bucket(
                self.access_log_bucket,
                data_output_prefix="access-logs/",
                error_output_prefix="errors/",
                buffering_interval=cdk.Duration.minutes(5),
                encryption_key=keys.logs,
                # delivery errors, in a log group like every other of the stage
                logging_config=firehose.EnableLogging(
                    logs.LogGroup(
                        self,
                        "AccessLogStreamErrors",
                        retention=retention(config.log_retention_days),
                        removal_policy=cdk.RemovalPolicy.DESTROY,
                        encryption_key=keys.logs,
                    )
                ),
            ),
            encryption=(
                firehose.StreamEncryption.customer_managed_key(keys.logs)
                if keys.logs is not None
                else firehose.StreamEncryption.aws_owned_key()
            ),
        )
        logs.SubscriptionFilter(
            self,
            "AccessLogSubscription",
            log_group=api.access_logs,
            destination=log_destinations.FirehoseDestination(self.access_log_stream),
            filter_pattern=logs.FilterPattern.all_events(),
        )

    def _domain(self, config: AurraConfig, api: Api) -> None:
        assert config.domain_name is not None and config.certificate_arn is not None
        self.domain = apigw.DomainName(
            self,
            "Domain",
            domain_name=config.domain_name,
            certificate=acm.Certificate.from_certificate_arn(self, "Certificate", config.certificate_arn),
            endpoint_type=apigw.EndpointType.REGIONAL,
            security_policy=apigw.SecurityPolicy.TLS_1_2,
        )
        self.domain.add_base_path_mapping(api.rest_api, stage=api.stage)
        if config.hosted_zone_id is not None and config.hosted_zone_name is not None:
            zone = route53.HostedZone.from_hosted_zone_attributes(
                self, "Zone", hosted_zone_id=config.hosted_zone_id, zone_name=config.hosted_zone_name
            )
            route53.ARecord(
                self,
                "Alias",
                zone=zone,
                record_name=config.domain_name,
                target=route53.RecordTarget.from_alias(route53_targets.ApiGatewayDomain(self.domain)),
            )
