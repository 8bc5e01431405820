"""Observability: alarms, their SNS topic, and a dashboard.

Alarms (all notify the topic; subscribe an address with `alarmEmail`):
- 5xx rate: the share of API requests answered 5xx, over 5 minutes.
- latency p99: API Gateway's end-to-end latency, over 5 minutes.
- classifier errors: the `ClassifierErrors` metric the write function emits
  (namespace `Aurra`, dimension `service` = the write function's Powertools
  service name) when the classifier fails, times out or answers nonsense.
"""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cw
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from infra import constants as c
from infra.components.api import Api
from infra.components.database import Database
from infra.components.functions import Functions
from infra.config import AurraConfig

PERIOD = cdk.Duration.minutes(5)


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
    ) -> None:
        super().__init__(scope, construct_id)
        stage = api.stage

        self.topic = sns.Topic(
            self,
            "AlarmTopic",
            display_name=f"Aurra {config.stage} alarms",
            enforce_ssl=True,
        )
        if config.alarm_email:
            self.topic.add_subscription(subscriptions.EmailSubscription(config.alarm_email))
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
                left=[f.metric_errors(period=PERIOD, label=n) for f, n in zip(fns, c.ALL_FUNCTIONS)],
                width=8,
            ),
            cw.GraphWidget(
                title="Function duration p99 (ms)",
                left=[
                    f.metric_duration(period=PERIOD, statistic="p99", label=n)
                    for f, n in zip(fns, c.ALL_FUNCTIONS)
                ],
                width=8,
            ),
            cw.GraphWidget(
                title="Function throttles",
                left=[f.metric_throttles(period=PERIOD, label=n) for f, n in zip(fns, c.ALL_FUNCTIONS)],
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
