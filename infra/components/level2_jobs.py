"""Asynchronous Level 2: the queue that nudges the worker, its dead-letter queue, the sweeper's
schedule and their alarms.

A write with `auto_supersede: "async"` commits its memory with a job row, then sends the job's
id to the queue (the write function may send, nothing else). The level2_worker function takes
messages in batches and reports the ones that failed (partial batch responses), so only those
come back; after `LEVEL2_MAX_RECEIVES` deliveries a message goes to the dead-letter queue, which
alarms. The message is only a nudge: every `LEVEL2_SWEEP_MINUTES` the same function, invoked by
a schedule, sends again the pending jobs nobody holds (their message was lost, or their worker
died and its lease passed). Both queues are encrypted and refuse plain HTTP.
"""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cw
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_lambda_event_sources as event_sources
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra import constants as c
from infra.components.functions import AurraFunction
from infra.components.migrations import Migrations
from infra.components.network import Network
from infra.config import AurraConfig


class Level2Jobs(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: AurraConfig,
        network: Network,
        write_function: AurraFunction,
        worker_function: AurraFunction,
        migrations: Migrations,
        alarm_topic: sns.ITopic,
    ) -> None:
        super().__init__(scope, construct_id)
        stage = config.stage
        self.dead_letters = sqs.Queue(
            self,
            "DeadLetters",
            queue_name=c.level2_dead_letter_queue_name(stage),
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            retention_period=cdk.Duration.days(14),
        )
        worker_timeout_s = c.SIZING[c.LEVEL2_WORKER][1]
        self.queue = sqs.Queue(
            self,
            "Jobs",
            queue_name=c.level2_queue_name(stage),
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
            # Lambda's advice for an event source: six times the function's timeout.
            visibility_timeout=cdk.Duration.seconds(6 * worker_timeout_s),
            retention_period=cdk.Duration.days(4),
            dead_letter_queue=sqs.DeadLetterQueue(
                queue=self.dead_letters, max_receive_count=c.LEVEL2_MAX_RECEIVES
            ),
        )
        worker = worker_function.function
        worker.add_event_source(
            event_sources.SqsEventSource(
                self.queue,
                batch_size=c.LEVEL2_BATCH_SIZE,
                report_batch_item_failures=True,
                max_concurrency=c.LEVEL2_MAX_CONCURRENCY,
            )
        )
        # The write function nudges; the worker's sweeper nudges again what was lost.
        for fn in (write_function.function, worker):
            self.queue.grant_send_messages(fn)
            fn.add_environment(c.ENV_LEVEL2_QUEUE_URL, self.queue.queue_url)
        self.sweep_rule = events.Rule(
            self,
            "Sweep",
            rule_name=c.level2_sweep_rule_name(stage),
            description=f"Aurra {stage}: Level 2 jobs whose message was lost, sent again",
            schedule=events.Schedule.rate(cdk.Duration.minutes(c.LEVEL2_SWEEP_MINUTES)),
            targets=[targets.LambdaFunction(worker, retry_attempts=2)],
        )
        # The jobs are rows of a table the migrations create.
        self.sweep_rule.node.add_dependency(migrations.resource)
        worker.node.add_dependency(migrations.resource)
        if network.has_endpoints:
            # Without NAT the functions reach SQS through an endpoint of its own.
            network.endpoints.append(
                network.vpc.add_interface_endpoint(
                    "SqsEndpoint",
                    service=ec2.InterfaceVpcEndpointAwsService.SQS,
                    subnets=network.app_subnets,
                    private_dns_enabled=True,
                    security_groups=[network.endpoint_security_group],
                    open=False,
                )
            )
        action = cw_actions.SnsAction(alarm_topic)
        self.dead_letter_alarm = cw.Alarm(
            self,
            "DeadLettersAlarm",
            alarm_name=c.alarm_name(stage, "level2-dead-letters"),
            alarm_description="Level 2 job messages failed every delivery (their jobs stay pending for the sweeper)",
            metric=self.dead_letters.metric_approximate_number_of_messages_visible(
                period=cdk.Duration.minutes(5), statistic="Maximum"
            ),
            threshold=0,
            comparison_operator=cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=1,
            treat_missing_data=cw.TreatMissingData.NOT_BREACHING,
        )
        self.backlog_alarm = cw.Alarm(
            self,
            "BacklogAlarm",
            alarm_name=c.alarm_name(stage, "level2-backlog"),
            alarm_description="Level 2 decisions are late: the oldest job message waits too long",
            metric=self.queue.metric_approximate_age_of_oldest_message(
                period=cdk.Duration.minutes(5), statistic="Maximum"
            ),
            threshold=c.LEVEL2_OLDEST_MESSAGE_ALARM_S,
            comparison_operator=cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=2,
            treat_missing_data=cw.TreatMissingData.NOT_BREACHING,
        )
        for alarm in (self.dead_letter_alarm, self.backlog_alarm):
            alarm.add_alarm_action(action)
