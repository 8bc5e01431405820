"""The change stream's infrastructure (infra/components/change_stream.py): the stage's bus and
its archive, the dispatcher on a one-minute schedule with reserved concurrency 1, allowed to put
events on that bus and nowhere else, its lag and failure alarms, and its way to the internet
only where the stage delivers webhooks."""

from __future__ import annotations

import json

from infra_testkit import Synth
from test_infra_production import alarms
from test_infra_template import aurra_functions, function_logical_ids, ref, statements

from infra import constants as c
from infra.config import AurraConfig


def actions_of(statement: dict) -> list[str]:
    action = statement["Action"]
    return [action] if isinstance(action, str) else action


def the_bus(s: Synth) -> str:
    (bus_id,) = s.of_type("AWS::Events::EventBus")
    return bus_id


def test_the_stage_has_its_bus_and_an_archive_of_its_events(dev: Synth, prod: Synth) -> None:
    for synth, stage in ((dev, "dev"), (prod, "prod")):
        bus_id = the_bus(synth)
        assert synth.resources[bus_id]["Properties"]["Name"] == c.event_bus_name(stage)
        (archive,) = synth.of_type("AWS::Events::Archive").values()
        props = archive["Properties"]
        assert props["ArchiveName"] == c.event_archive_name(stage)
        assert props["RetentionDays"] == c.EVENT_ARCHIVE_RETENTION_DAYS
        assert props["EventPattern"] == {"source": [f"aurra.{stage}"]}
        assert ref(props["SourceArn"]) == bus_id
        outputs = synth.template["Outputs"]
        assert ref(outputs["EventBusName"]["Value"]) == bus_id
        assert ref(outputs["EventBusArn"]["Value"]) == bus_id


def test_the_dispatcher_runs_every_minute_one_at_a_time_after_the_migrations(dev: Synth) -> None:
    dispatcher = aurra_functions(dev)[c.DISPATCHER]["Properties"]
    assert dispatcher["ReservedConcurrentExecutions"] == 1
    assert dispatcher["Timeout"] == c.SIZING[c.DISPATCHER][1]
    assert ref(dispatcher["Environment"]["Variables"][c.ENV_EVENT_BUS_NAME]) == the_bus(dev)
    dispatcher_id = function_logical_ids(dev)[c.DISPATCHER]
    rules = {r["Properties"]["Name"]: (k, r) for k, r in dev.of_type("AWS::Events::Rule").items()}
    rule_id, rule = rules[c.dispatcher_schedule_name("dev")]
    assert rule["Properties"]["ScheduleExpression"] == "rate(1 minute)"
    (target,) = rule["Properties"]["Targets"]
    assert ref(target["Arn"]) == dispatcher_id
    (migrations_id,) = dev.of_type("Custom::AurraMigrations")
    assert migrations_id in dev.resources[rule_id]["DependsOn"]
    # a failed or stale invocation is not retried (the next minute's run does its work): it is
    # kept in an encrypted dead-letter queue
    (invoke_config,) = [
        v["Properties"]
        for v in dev.of_type("AWS::Lambda::EventInvokeConfig").values()
        if ref(v["Properties"]["FunctionName"]) == dispatcher_id
    ]
    assert invoke_config["MaximumRetryAttempts"] == 0 and invoke_config["MaximumEventAgeInSeconds"] == 60
    queue_id = ref(invoke_config["DestinationConfig"]["OnFailure"]["Destination"])
    queue = dev.resources[queue_id]["Properties"]
    assert queue["QueueName"] == c.dispatcher_dlq_name("dev") and queue["SqsManagedSseEnabled"] is True


def test_the_dispatcher_may_put_events_on_its_bus_and_no_other(dev: Synth) -> None:
    role_id = ref(aurra_functions(dev)[c.DISPATCHER]["Properties"]["Role"])
    granted = statements(dev, role_id)
    events_statements = [s for s in granted if any(a.startswith("events:") for a in actions_of(s))]
    assert events_statements, granted
    for statement in events_statements:
        assert statement["Action"] == "events:PutEvents" and statement["Effect"] == "Allow"
        assert ref(statement["Resource"]) == the_bus(dev)
    # and no other function may
    for name, fn in aurra_functions(dev).items():
        if name != c.DISPATCHER:
            assert "events:" not in json.dumps(statements(dev, ref(fn["Properties"]["Role"]))), name


def test_a_late_or_failing_dispatcher_alarms(dev: Synth, prod: Synth) -> None:
    for synth, stage in ((dev, "dev"), (prod, "prod")):
        by_name = alarms(synth)
        (topic_id,) = synth.of_type("AWS::SNS::Topic")
        lag = by_name[c.alarm_name(stage, "outbox-lag")]
        assert lag["Namespace"] == c.METRICS_NAMESPACE and lag["MetricName"] == c.OUTBOX_LAG_METRIC
        assert lag["Dimensions"] == [{"Name": "service", "Value": c.service_name(stage, c.DISPATCHER)}]
        assert lag["Threshold"] == c.OUTBOX_LAG_ALARM_SECONDS and lag["Statistic"] == "Maximum"
        # a dispatcher that reports nothing has stopped: as late as one that cannot publish
        assert lag["TreatMissingData"] == "breaching"
        failed = by_name[c.alarm_name(stage, "dispatcher-failed-runs")]
        assert failed["MetricName"] == "ApproximateNumberOfMessagesVisible"
        for alarm in (lag, failed, by_name[c.alarm_name(stage, "dispatcher-errors")]):
            assert [ref(a) for a in alarm["AlarmActions"]] == [topic_id]


def security_groups_of(s: Synth, name: str) -> set[str]:
    fn = aurra_functions(s)[name]["Properties"]
    return {ref(g) for g in fn["VpcConfig"]["SecurityGroupIds"]}


def internet_group(s: Synth) -> str | None:
    found = [
        k
        for k, g in s.of_type("AWS::EC2::SecurityGroup").items()
        if any(e.get("CidrIp") == "0.0.0.0/0" for e in g["Properties"].get("SecurityGroupEgress", []))
        and "model provider" in g["Properties"]["GroupDescription"]
    ]
    return found[0] if found else None


def test_the_dispatcher_reaches_the_internet_only_where_the_stage_delivers_webhooks(
    dev: Synth, bare_prod: Synth
) -> None:
    # dev: no webhooks, so no NAT and no way out; setting a webhook is refused there
    assert not dev.of_type("AWS::EC2::NatGateway") and internet_group(dev) is None
    variables = aurra_functions(dev)[c.SETTINGS]["Properties"]["Environment"]["Variables"]
    assert variables[c.ENV_WEBHOOKS_ENABLED] == "false"
    # another stage: webhooks, hence NAT, with the Bedrock classifier too; the dispatcher joins
    # the functions with a way out, the others that call no one outside AWS do not
    assert bare_prod.of_type("AWS::EC2::NatGateway")
    group = internet_group(bare_prod)
    assert group is not None and group in security_groups_of(bare_prod, c.DISPATCHER)
    # (the write function calls Claude on Bedrock, inside AWS: no way out for it either)
    for name in (c.WRITE, c.QUERY, c.SETTINGS, c.AUTHORIZER, c.MAINTENANCE, c.MIGRATE):
        assert group not in security_groups_of(bare_prod, name), name
    for name in (c.DISPATCHER, c.SETTINGS):
        variables = aurra_functions(bare_prod)[name]["Properties"]["Environment"]["Variables"]
        assert variables[c.ENV_WEBHOOKS_ENABLED] == "true"


def test_webhooks_are_a_stage_setting_that_brings_nat() -> None:
    assert not AurraConfig.from_mapping({}).resolved_webhooks
    prod = AurraConfig.from_mapping({"stage": "prod", "alarmEmail": "ops@example.com"})
    assert prod.resolved_webhooks and prod.needs_internet and prod.resolved_nat_gateways == 2
    quiet = AurraConfig.from_mapping({"stage": "prod", "alarmEmail": "ops@example.com", "webhooks": "false"})
    assert not quiet.needs_internet
    assert AurraConfig.from_mapping({"webhooks": "true"}).needs_internet


def test_the_dashboard_shows_the_lag_and_the_runs(dev: Synth) -> None:
    (dashboard,) = dev.of_type("AWS::CloudWatch::Dashboard").values()
    body = json.dumps(dashboard["Properties"]["DashboardBody"])
    assert c.OUTBOX_LAG_METRIC in body and "oldest event not on the bus" in body


def test_no_deployed_function_may_reach_private_webhook_addresses(dev: Synth, bare_prod: Synth) -> None:
    """`aurra dev` alone turns on webhooks to http:// and private addresses; no function of a
    stage is given the switch, so each refuses them (aurra_core/webhooks/delivery.py)."""
    for synth in (dev, bare_prod):
        for name, fn in aurra_functions(synth).items():
            variables = fn["Properties"]["Environment"]["Variables"]
            assert not any("ALLOW_PRIVATE" in v for v in variables), name
