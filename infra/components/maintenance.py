"""Maintenance: the maintenance function on a schedule.

Every `MAINTENANCE_SCHEDULE_MINUTES` an EventBridge rule invokes it (the event
carries nothing it needs); it keeps large tenants' own HNSW indexes in line
with their sizes (aurra_core.storage.tenant_indexes). The write function may invoke it too,
asynchronously and for the indexes alone, when a large import asks for its tenant's own index
(POST /agent/imports/index). A run that fails is not retried:
the next scheduled run does the same work, from where the database stands.
A failed run is not silent either: Lambda sends it to the alarm topic (an
on-failure destination), and its errors alarm too (observability.py).
"""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_destinations as destinations
from aws_cdk import aws_sns as sns
from constructs import Construct

from infra import constants as c
from infra.components.migrations import Migrations
from infra.config import AurraConfig


class Maintenance(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: AurraConfig,
        maintenance_function: lambda_.IFunction,
        write_function: lambda_.Function,
        migrations: Migrations,
        alarm_topic: sns.ITopic,
    ) -> None:
        super().__init__(scope, construct_id)
        period = cdk.Duration.minutes(c.MAINTENANCE_SCHEDULE_MINUTES)
        # An invocation still waiting when the next one is due is stale. A
        # failed run (or one dropped as stale) goes to the alarm topic.
        maintenance_function.configure_async_invoke(
            retry_attempts=0,
            max_event_age=period,
            on_failure=destinations.SnsDestination(alarm_topic),
        )
        self.rule = events.Rule(
            self,
            "Schedule",
            rule_name=c.maintenance_rule_name(config.stage),
            description=(
                f"Aurra {config.stage}: keeps large tenants' own HNSW indexes "
                f"(every {c.MAINTENANCE_SCHEDULE_MINUTES} minutes)"
            ),
            schedule=events.Schedule.rate(period),
            targets=[
                # Retries here cover delivery only (Lambda throttling the
                # asynchronous invoke), not a failed run.
                targets.LambdaFunction(maintenance_function, retry_attempts=2, max_event_age=period)
            ],
        )
        # A large import asks for its own index now, not at the next scheduled run: the
        # function itself, not its versions and aliases (`grant_invoke` adds `:*`).
        write_function.add_to_role_policy(
            iam.PolicyStatement(
                actions=["lambda:InvokeFunction"], resources=[maintenance_function.function_arn]
            )
        )
        write_function.add_environment(c.ENV_MAINTENANCE_FUNCTION_NAME, maintenance_function.function_name)
        # The indexes are on tables the migrations create.
        self.rule.node.add_dependency(migrations.resource)
