"""Change stream: the outbox's events out of the database, to the stage's event bus and to the
tenants' webhooks.

- the stage's custom EventBridge bus (`aurra-<stage>`), where every change event arrives with
  `source` `aurra.<stage>`, `detail-type` its type and `detail` the event as GET /agent/events
  shows it (ids only, never memory content); an archive of the bus keeps them
  `EVENT_ARCHIVE_RETENTION_DAYS` for a replay. Teams subscribe with rules of their own
  (docs/deploy.md).
- the dispatcher function (functions/dispatcher, reserved concurrency 1), started every minute
  by a rule; it drains for 40 s of each minute (aurra_core/webhooks/dispatcher.py). It
  may put events on this bus and no other. It reaches the internet only when the stage delivers
  webhooks (the `webhooks` setting: NAT, functions.py's internet security group).
- alarms to the alarm topic, and graphs on the stage's dashboard: the age of the oldest event
  not yet on the bus (the `OutboxLagSeconds` metric the dispatcher reports at the end of each
  run; no report breaches, a dispatcher that stopped is as late as one that cannot publish)
  and a failed or dropped run (its dead-letter queue holding one). Its errors and throttles
  alarm with every function's (observability.py).
"""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cw
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_lambda_destinations as destinations
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra import constants as c
from infra.components.common import acknowledge
from infra.components.functions import Functions
from infra.components.migrations import Migrations
from infra.components.observability import Observability
from infra.config import AurraConfig


class ChangeStream(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: AurraConfig,
        functions: Functions,
        migrations: Migrations,
        observability: Observability,
    ) -> None:
        super().__init__(scope, construct_id)
        stage = config.stage
        self.bus = events.EventBus(self, "Bus", event_bus_name=c.event_bus_name(stage))
        self.archive = self.bus.archive(
            "Archive",
            archive_name=c.event_archive_name(stage),
            description=f"Aurra {stage}: the change stream's events, for a replay",
            event_pattern=events.EventPattern(source=[c.event_source(stage)]),
            retention=cdk.Duration.days(c.EVENT_ARCHIVE_RETENTION_DAYS),
        )

        dispatcher = functions.by_name[c.DISPATCHER]
        self.function = dispatcher.function
        self.function.add_environment(c.ENV_EVENT_BUS_NAME, self.bus.event_bus_name)
        # events:PutEvents on this bus only
        self.bus.grant_put_events_to(dispatcher.role)

        period = cdk.Duration.minutes(c.DISPATCHER_SCHEDULE_MINUTES)
        # A run that failed, or waited past the next one's start (then the next does its work):
        # kept two weeks, and any of them alarms.
        self.dead_letters = sqs.Queue(
            self,
            "DeadLetters",
            queue_name=c.dispatcher_dlq_name(stage),
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=cdk.Duration.days(14),
        )
        acknowledge(
            self.dead_letters,
            "AwsSolutions-SQS3",
            "This queue is itself a dead-letter queue: the dispatcher's failed asynchronous "
            "invocations (a Lambda on-failure destination, which cdk-nag does not see as one).",
        )
        self.function.configure_async_invoke(
            retry_attempts=0,
            max_event_age=period,
            on_failure=destinations.SqsDestination(self.dead_letters),
        )
        self.schedule = events.Rule(
            self,
            "Schedule",
            rule_name=c.dispatcher_schedule_name(stage),
            description=f"Aurra {stage}: the change stream to the event bus and to webhooks (every minute)",
            schedule=events.Schedule.rate(period),
            targets=[targets.LambdaFunction(self.function, retry_attempts=2, max_event_age=period)],
        )
        # It reads tables the migrations create.
        self.schedule.node.add_dependency(migrations.resource)

        action = cw_actions.SnsAction(observability.topic)
        self.lag_metric = cw.Metric(
            namespace=c.METRICS_NAMESPACE,
            metric_name=c.OUTBOX_LAG_METRIC,
            dimensions_map={"service": c.service_name(stage, c.DISPATCHER)},
            period=cdk.Duration.minutes(1),
            statistic="Maximum",
        )
        self.lag_alarm = cw.Alarm(
            self,
            "LagAlarm",
            alarm_name=c.alarm_name(stage, "outbox-lag"),
            alarm_description=(
                f"Change events waited more than {c.OUTBOX_LAG_ALARM_SECONDS} s for the event bus in "
                "3 of 5 minutes, or the dispatcher reported nothing: it stopped, fails (its log "
                "group), or the bus refuses events."
            ),
            metric=self.lag_metric,
            threshold=c.OUTBOX_LAG_ALARM_SECONDS,
            comparison_operator=cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=5,
            datapoints_to_alarm=3,
            treat_missing_data=cw.TreatMissingData.BREACHING,
        )
        self.dead_letter_alarm = cw.Alarm(
            self,
            "DeadLetterAlarm",
            alarm_name=c.alarm_name(stage, "dispatcher-failed-runs"),
            alarm_description=(
                "A dispatcher run failed or was dropped (its dead-letter queue "
                f"{c.dispatcher_dlq_name(stage)} has the invocation); the next run goes on."
            ),
            metric=self.dead_letters.metric_approximate_number_of_messages_visible(
                period=cdk.Duration.minutes(5), statistic="Maximum"
            ),
            threshold=1,
            comparison_operator=cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            evaluation_periods=1,
            treat_missing_data=cw.TreatMissingData.NOT_BREACHING,
        )
        for alarm in (self.lag_alarm, self.dead_letter_alarm):
            alarm.add_alarm_action(action)
        observability.dashboard.add_widgets(
            cw.GraphWidget(
                title="Change stream: oldest event not on the bus (s)", left=[self.lag_metric], width=12
            ),
            cw.GraphWidget(
                title="Dispatcher runs",
                left=[
                    self.function.metric_invocations(period=cdk.Duration.minutes(5), statistic="Sum"),
                    self.function.metric_errors(period=cdk.Duration.minutes(5), statistic="Sum"),
                ],
                width=12,
            ),
        )
