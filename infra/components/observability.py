"""Observability: alarms, their SNS topic, and a dashboard.

Alarms (all notify the topic; `alarmEmail` and `alarmEndpoint` subscribe to it, and a stage
other than dev must have one of them), each
named `aurra-<stage>-<what>`:
- API: 5xx rate, p99 latency; spikes of 401 and 429 answers and authorizer
  failures (the authorizer failed rather than refused: the API answers 503),
  counted by metric filters on the access log.
- classifier errors: the `ClassifierErrors` metric the write function emits
  (namespace `Aurra`, dimension `service` = the write function's Powertools
  service name) when the classifier fails, times out or answers nonsense.
- every function: errors and throttles (the authorizer's errors include each
  refused key, so its threshold is the 401 spike's); the functions with
  reserved concurrency: concurrency at 80% of the reservation.
- database: capacity at dbMaxCapacity, CPU, freeable memory; RDS Proxy
  session pinning (nothing Aurra runs through the proxy should pin) and
  connection borrow latency (the step before a 5 s borrow timeout).
- WAF blocks (when the WAF is on), Bedrock throttling (when Bedrock is used).
- silence where silence means dead: the hourly maintenance function not invoked for 3 hours
  (its schedule is gone or disabled); missing data breaches.
- the console's CloudFront distribution answering 5xx (`cloudfront-5xx-rate`), in us-east-1
  only: CloudFront publishes its metrics there alone, so in another region the alarm is not
  created (a CloudFormation condition on the stack's region).
Events, sent to the topic by EventBridge rules as they happen: a database secret's rotation
failing (`rotation-failed`), and in hosted mode a backup or a copy to `backupCopyVaultArn`
failing (`backup-failed`). The maintenance schedule's failed runs reach the topic directly too
(maintenance.py).
"""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudwatch as cw
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as event_targets
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from infra import constants as c
from infra.components.api import Api
from infra.components.database import Database
from infra.components.functions import Functions
from infra.components.keys import EncryptionKeys
from infra.config import AurraConfig

PERIOD = cdk.Duration.minutes(5)
# The one region where CloudFront publishes its metrics.
CLOUDFRONT_METRICS_REGION = "us-east-1"


class Observability(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: AurraConfig,
        api: Api,
        functions: Functions,
        database: Database,
        keys: EncryptionKeys,
    ) -> None:
        super().__init__(scope, construct_id)
        stage = api.stage
        self.event_rules: dict[str, events.Rule] = {}

        self.topic = sns.Topic(
            self,
            "AlarmTopic",
            display_name=f"Aurra {config.stage} alarms",
            enforce_ssl=True,
            master_key=keys.topic,
        )
        if config.alarm_email:
            self.topic.add_subscription(subscriptions.EmailSubscription(config.alarm_email))
        if config.alarm_endpoint:
            # a pager's SNS integration (PagerDuty, Opsgenie, ...): it confirms the subscription
            self.topic.add_subscription(subscriptions.UrlSubscription(config.alarm_endpoint))
        action = cw_actions.SnsAction(self.topic)

        requests = stage.metric_count(period=PERIOD, statistic="Sum", label="requests")
        server_errors = stage.metric_server_error(period=PERIOD, statistic="Sum", label="5xx")
        client_errors = stage.metric_client_error(period=PERIOD, statistic="Sum", label="4xx")
        error_rate = cw.MathExpression(
            expression="IF(requests > 0, 100 * errors / requests, 0)",
            using_metrics={"requests": requests, "errors": server_errors},
            period=PERIOD,
            label="5xx rate (%)",
        )
        latency_p99 = stage.metric_latency(period=PERIOD, statistic="p99", label="latency p99")
        latency_p50 = stage.metric_latency(period=PERIOD, statistic="p50", label="latency p50")
        self.classifier_errors = cw.Metric(
            namespace=c.METRICS_NAMESPACE,
            metric_name=c.CLASSIFIER_ERRORS_METRIC,
            dimensions_map={"service": c.service_name(config.stage, c.WRITE)},
            period=PERIOD,
            statistic="Sum",
            label="classifier errors",
        )

        self.error_rate_alarm = cw.Alarm(
            self,
            "ServerErrorRateAlarm",
            alarm_name=c.alarm_name(config.stage, "api-5xx-rate"),
            alarm_description=(
                f"More than {config.error_rate_threshold_percent}% of Aurra API requests "
                "answered 5xx in 2 of the last 3 five-minute periods."
            ),
            metric=error_rate,
            threshold=config.error_rate_threshold_percent,
            comparison_operator=cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=3,
            datapoints_to_alarm=2,
            treat_missing_data=cw.TreatMissingData.NOT_BREACHING,
        )
        self.latency_alarm = cw.Alarm(
            self,
            "LatencyP99Alarm",
            alarm_name=c.alarm_name(config.stage, "api-latency-p99"),
            alarm_description=(
                f"Aurra API p99 latency above {config.latency_p99_threshold_ms} ms "
                "in 3 consecutive five-minute periods."
            ),
            metric=latency_p99,
            threshold=config.latency_p99_threshold_ms,
            comparison_operator=cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=3,
            treat_missing_data=cw.TreatMissingData.NOT_BREACHING,
        )
        self.classifier_alarm = cw.Alarm(
            self,
            "ClassifierErrorsAlarm",
            alarm_name=c.alarm_name(config.stage, "classifier-errors"),
            alarm_description=(
                f"At least {config.classifier_errors_threshold} classifier errors in five "
                "minutes: writes are saved, but automatic supersession is not running."
            ),
            metric=self.classifier_errors,
            threshold=config.classifier_errors_threshold,
            comparison_operator=cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            evaluation_periods=1,
            treat_missing_data=cw.TreatMissingData.NOT_BREACHING,
        )
        self.alarms = [self.error_rate_alarm, self.latency_alarm, self.classifier_alarm]
        self._access_log_alarms(config, api)
        self._function_alarms(config, functions)
        self._database_alarms(config, database)
        self._edge_alarms(config, api)
        self._silence_alarms(config, functions)
        self._rotation_events(config, database)
        for alarm in self.alarms:
            alarm.add_alarm_action(action)
            alarm.add_ok_action(action)

        # ------------------------------------------------------------ dashboard
        fns = [functions.by_name[name].function for name in c.ALL_FUNCTIONS]
        cluster = database.cluster
        self.dashboard = cw.Dashboard(
            self,
            "Dashboard",
            dashboard_name=c.dashboard_name(config.stage),
            default_interval=cdk.Duration.hours(3),
        )
        self.dashboard.add_widgets(
            cw.AlarmStatusWidget(title="Alarms", alarms=self.alarms, width=24, height=3),
        )
        self.dashboard.add_widgets(
            cw.GraphWidget(
                title="API requests", left=[requests], right=[client_errors, server_errors], width=8
            ),
            cw.GraphWidget(title="API 5xx rate (%)", left=[error_rate], width=8),
            cw.GraphWidget(title="API latency (ms)", left=[latency_p50, latency_p99], width=8),
        )
        self.dashboard.add_widgets(
            cw.GraphWidget(
                title="Function errors",
                left=[
                    f.metric_errors(period=PERIOD, label=n) for f, n in zip(fns, c.ALL_FUNCTIONS, strict=True)
                ],
                width=8,
            ),
            cw.GraphWidget(
                title="Function duration p99 (ms)",
                left=[
                    f.metric_duration(period=PERIOD, statistic="p99", label=n)
                    for f, n in zip(fns, c.ALL_FUNCTIONS, strict=True)
                ],
                width=8,
            ),
            cw.GraphWidget(
                title="Function throttles",
                left=[
                    f.metric_throttles(period=PERIOD, label=n)
                    for f, n in zip(fns, c.ALL_FUNCTIONS, strict=True)
                ],
                width=8,
            ),
        )
        self.dashboard.add_widgets(
            cw.GraphWidget(title="Classifier errors", left=[self.classifier_errors], width=8),
            cw.GraphWidget(
                title="Aurora capacity (ACU)",
                left=[cluster.metric_serverless_database_capacity(period=PERIOD, statistic="Maximum")],
                width=8,
            ),
            cw.GraphWidget(
                title="Database connections",
                left=[
                    cluster.metric_database_connections(period=PERIOD, statistic="Maximum", label="cluster"),
                    cw.Metric(
                        namespace="AWS/RDS",
                        metric_name="ClientConnections",
                        dimensions_map={"ProxyName": database.proxy.db_proxy_name},
                        period=PERIOD,
                        statistic="Maximum",
                        label="proxy clients",
                    ),
                ],
                width=8,
            ),
        )

    # ----------------------------------------------------------------- events
    def _event_rule(
        self, config: AurraConfig, what: str, description: str, pattern: events.EventPattern
    ) -> None:
        """Send matching events to the alarm topic, as they happen."""
        construct_id = "".join(part.capitalize() for part in what.split("-")) + "Rule"
        rule = events.Rule(
            self,
            construct_id,
            rule_name=c.event_rule_name(config.stage, what),
            description=f"Aurra {config.stage}: {description}",
            event_pattern=pattern,
        )
        rule.add_target(event_targets.SnsTopic(self.topic))
        self.event_rules[what] = rule

    def _rotation_events(self, config: AurraConfig, database: Database) -> None:
        if not config.db_secret_rotation_days:
            return
        secrets = [database.secret.secret_arn, *(s.secret_arn for s in database.login_secrets.values())]
        self._event_rule(
            config,
            "rotation-failed",
            "a database secret's rotation failed (the secret keeps its current password; the next "
            "scheduled rotation tries again)",
            events.EventPattern(
                source=["aws.secretsmanager"],
                detail_type=["AWS Service Event via CloudTrail"],
                detail={"eventName": ["RotationFailed"], "additionalEventData": {"SecretId": secrets}},
            ),
        )

    def watch_backups(self, config: AurraConfig, vault_name: str) -> None:
        """Failed backups of the stage's vault, and failed copies to `backupCopyVaultArn`."""
        failed = ["FAILED", "ABORTED", "EXPIRED"]
        self._event_rule(
            config,
            "backup-failed",
            "a backup of the database failed",
            events.EventPattern(
                source=["aws.backup"],
                detail_type=["Backup Job State Change"],
                detail={"state": failed, "backupVaultName": [vault_name]},
            ),
        )
        if config.backup_copy_vault_arn:
            self._event_rule(
                config,
                "backup-copy-failed",
                "a copy of a backup to the copy vault failed",
                events.EventPattern(
                    source=["aws.backup"],
                    detail_type=["Copy Job State Change"],
                    detail={"state": failed, "destinationBackupVaultArn": [config.backup_copy_vault_arn]},
                ),
            )

    def watch_console(self, config: AurraConfig, distribution: cloudfront.IDistribution) -> None:
        """The console's distribution answering 5xx (its API behavior included): CloudFront's
        metrics exist in us-east-1 alone, so the alarm is made only in a stack there."""
        stack = cdk.Stack.of(self)
        if not cdk.Token.is_unresolved(stack.region) and stack.region != CLOUDFRONT_METRICS_REGION:
            return
        alarm = cw.Alarm(
            self,
            "Cloudfront5xxRateAlarm",
            alarm_name=c.alarm_name(config.stage, "cloudfront-5xx-rate"),
            alarm_description=(
                "More than 5% of the console's CloudFront requests (its files and the API behind "
                "it) answered 5xx in 2 of the last 3 five-minute periods."
            ),
            metric=cw.Metric(
                namespace="AWS/CloudFront",
                metric_name="5xxErrorRate",
                dimensions_map={"DistributionId": distribution.distribution_id, "Region": "Global"},
                period=PERIOD,
                statistic="Average",
            ),
            threshold=5,
            comparison_operator=cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=3,
            datapoints_to_alarm=2,
            treat_missing_data=cw.TreatMissingData.NOT_BREACHING,
        )
        action = cw_actions.SnsAction(self.topic)
        alarm.add_alarm_action(action)
        alarm.add_ok_action(action)
        if cdk.Token.is_unresolved(stack.region):
            in_us_east_1 = cdk.CfnCondition(
                self,
                "InCloudFrontMetricsRegion",
                expression=cdk.Fn.condition_equals(cdk.Aws.REGION, CLOUDFRONT_METRICS_REGION),
            )
            cfn_alarm = alarm.node.default_child
            assert isinstance(cfn_alarm, cdk.CfnResource)
            cfn_alarm.cfn_options.condition = in_us_east_1
        self.console_alarm = alarm

    # ----------------------------------------------------------------- alarms
    def _alarm(
        self,
        config: AurraConfig,
        what: str,
        metric: cw.IMetric,
        threshold: float,
        description: str,
        *,
        evaluation_periods: int = 1,
        datapoints_to_alarm: int | None = None,
        comparison: cw.ComparisonOperator = cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        missing: cw.TreatMissingData = cw.TreatMissingData.NOT_BREACHING,
    ) -> cw.Alarm:
        construct_id = "".join(part.capitalize() for part in what.split("-")) + "Alarm"
        alarm = cw.Alarm(
            self,
            construct_id,
            alarm_name=c.alarm_name(config.stage, what),
            alarm_description=description,
            metric=metric,
            threshold=threshold,
            comparison_operator=comparison,
            evaluation_periods=evaluation_periods,
            datapoints_to_alarm=datapoints_to_alarm,
            treat_missing_data=missing,
        )
        self.alarms.append(alarm)
        return alarm

    def _silence_alarms(self, config: AurraConfig, functions: Functions) -> None:
        """Where no data means something stopped: missing data breaches."""
        maintenance = functions.by_name[c.MAINTENANCE].function
        self._alarm(
            config,
            "maintenance-silent",
            maintenance.metric_invocations(period=cdk.Duration.hours(3), statistic="Sum"),
            1,
            "The maintenance function, scheduled every hour, was not invoked for 3 hours: its "
            "schedule is disabled or gone, and large tenants' indexes are no longer kept.",
            comparison=cw.ComparisonOperator.LESS_THAN_THRESHOLD,
            missing=cw.TreatMissingData.BREACHING,
        )

    def _access_log_alarms(self, config: AurraConfig, api: Api) -> None:
        def counted(what: str, pattern: logs.IFilterPattern) -> cw.Metric:
            metric_filter = logs.MetricFilter(
                self,
                "".join(part.capitalize() for part in what.split("-")) + "Filter",
                log_group=api.access_logs,
                metric_namespace=c.METRICS_NAMESPACE,
                metric_name=c.access_log_metric_name(config.stage, what),
                filter_pattern=pattern,
                metric_value="1",
            )
            return metric_filter.metric(period=PERIOD, statistic="Sum", label=what)

        self.unauthorized = counted("api-401", logs.FilterPattern.string_value("$.status", "=", "401"))
        self.throttled = counted("api-429", logs.FilterPattern.string_value("$.status", "=", "429"))
        self.authorizer_failures = counted(
            "authorizer-failures",
            logs.FilterPattern.any(
                logs.FilterPattern.string_value("$.errorType", "=", "AUTHORIZER_FAILURE"),
                logs.FilterPattern.string_value("$.errorType", "=", "AUTHORIZER_CONFIGURATION_ERROR"),
            ),
        )
        self._alarm(
            config,
            "api-401-spike",
            self.unauthorized,
            config.unauthorized_alarm_threshold,
            f"At least {config.unauthorized_alarm_threshold} requests answered 401 in five minutes: "
            "a client with a revoked or wrong key, or someone trying keys.",
        )
        self._alarm(
            config,
            "api-429-spike",
            self.throttled,
            config.throttled_alarm_threshold,
            f"At least {config.throttled_alarm_threshold} requests answered 429 in five minutes: keys "
            "past their usage plan, or the stage past its throttle (then every tenant feels it).",
        )
        self._alarm(
            config,
            "authorizer-failures",
            self.authorizer_failures,
            5,
            "The authorizer failed (not refused) at least 5 times in 2 of 3 five-minute periods: "
            "callers get 503; the database or the proxy is likely unreachable.",
            evaluation_periods=3,
            datapoints_to_alarm=2,
        )

    def _function_alarms(self, config: AurraConfig, functions: Functions) -> None:
        for name in c.ALL_FUNCTIONS:
            fn = functions.by_name[name]
            # Handlers answer errors with the envelope; an Errors count is a
            # crash or a timeout. The authorizer's include every refused key.
            threshold = config.unauthorized_alarm_threshold if name == c.AUTHORIZER else 1
            self._alarm(
                config,
                f"{name}-errors",
                fn.function.metric_errors(period=PERIOD, statistic="Sum"),
                threshold,
                f"The {name} function failed (an exception or a timeout) at least {threshold} "
                "time(s) in five minutes; its log group has the details.",
            )
            self._alarm(
                config,
                f"{name}-throttles",
                fn.function.metric_throttles(period=PERIOD, statistic="Sum"),
                1,
                f"The {name} function was throttled: its reserved concurrency or the account's "
                "is used up (callers of the API get 502/503, asynchronous runs wait).",
            )
            if fn.reserved_concurrency and fn.reserved_concurrency > 1:
                near = max(1, int(fn.reserved_concurrency * 0.8))
                self._alarm(
                    config,
                    f"{name}-concurrency",
                    cw.Metric(
                        namespace="AWS/Lambda",
                        metric_name="ConcurrentExecutions",
                        dimensions_map={"FunctionName": fn.function.function_name},
                        period=cdk.Duration.minutes(1),
                        statistic="Maximum",
                    ),
                    near,
                    f"The {name} function ran {near} or more at once (of {fn.reserved_concurrency} "
                    "reserved) in 3 of 5 minutes: raise the reservation, or find the load.",
                    evaluation_periods=5,
                    datapoints_to_alarm=3,
                )

    def _database_alarms(self, config: AurraConfig, database: Database) -> None:
        cluster = database.cluster
        self._alarm(
            config,
            "db-capacity-at-max",
            cluster.metric_serverless_database_capacity(period=PERIOD, statistic="Maximum"),
            config.db_max_capacity,
            f"Aurora ran at its maximum of {config.db_max_capacity} ACU for 15 minutes: "
            "raise dbMaxCapacity (and the stage throttle with it) or find the load.",
            evaluation_periods=3,
        )
        self._alarm(
            config,
            "db-cpu",
            cluster.metric_cpu_utilization(period=PERIOD, statistic="Average"),
            80,
            "Aurora CPU at 80% or more for 15 minutes.",
            evaluation_periods=3,
        )
        # Serverless v2 gives about 2 GiB per ACU; less than a tenth of the
        # maximum free means the buffer cache is being squeezed.
        low_memory = int(config.db_max_capacity * 2 * 1024**3 * 0.1)
        self._alarm(
            config,
            "db-memory",
            cluster.metric_freeable_memory(period=PERIOD, statistic="Minimum"),
            low_memory,
            f"Aurora freeable memory under {low_memory // 1024**2} MiB for 15 minutes: the "
            "working set and the HNSW index no longer fit (docs/deploy.md, index sizing).",
            evaluation_periods=3,
            comparison=cw.ComparisonOperator.LESS_THAN_THRESHOLD,
        )
        proxy = {"ProxyName": database.proxy.db_proxy_name}
        self._alarm(
            config,
            "proxy-pinning",
            cw.Metric(
                namespace="AWS/RDS",
                metric_name="DatabaseConnectionsCurrentlySessionPinned",
                dimensions_map=proxy,
                period=PERIOD,
                statistic="Maximum",
            ),
            1,
            "RDS Proxy kept database connections pinned to clients for 15 minutes: something "
            "set session state through the proxy, and connections stop being shared.",
            evaluation_periods=3,
        )
        self._alarm(
            config,
            "proxy-borrow-latency",
            cw.Metric(
                namespace="AWS/RDS",
                metric_name="DatabaseConnectionsBorrowLatency",
                dimensions_map=proxy,
                period=PERIOD,
                statistic="p90",
            ),
            1_000_000,
            "Getting a database connection from RDS Proxy took over 1 s (p90, microseconds) in 2 "
            "of 3 five-minute periods: the pool is exhausted; requests time out at 5 s with 503.",
            evaluation_periods=3,
            datapoints_to_alarm=2,
        )

    def _edge_alarms(self, config: AurraConfig, api: Api) -> None:
        stack = cdk.Stack.of(self)
        if api.web_acl is not None:
            self._alarm(
                config,
                "waf-blocks",
                cw.Metric(
                    namespace="AWS/WAFV2",
                    metric_name="BlockedRequests",
                    dimensions_map={
                        "WebACL": c.web_acl_name(config.stage),
                        "Region": stack.region,
                        "Rule": "ALL",
                    },
                    period=PERIOD,
                    statistic="Sum",
                ),
                config.unauthorized_alarm_threshold,
                f"The WAF blocked at least {config.unauthorized_alarm_threshold} requests in five "
                "minutes (its log names the rule and the source).",
            )
        if config.uses_bedrock:
            self._alarm(
                config,
                "bedrock-throttles",
                cw.Metric(
                    namespace="AWS/Bedrock",
                    metric_name="InvocationThrottles",
                    period=PERIOD,
                    statistic="Sum",
                ),
                10,
                "Bedrock throttled at least 10 model calls in five minutes (account-wide): "
                "embeddings fail their writes and classifier calls fall back; request a quota increase.",
            )
