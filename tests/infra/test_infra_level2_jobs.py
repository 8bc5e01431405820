"""Asynchronous Level 2's infrastructure: the encrypted job queue with its dead-letter queue,
the worker it feeds in batches with partial failures, the sweeper's schedule, the alarms, and
who may send (the write function and the worker's sweeper) and nothing more; and the routes
that read the jobs (GET /agent/jobs[/{id}]), served by the audit function."""

from __future__ import annotations

from infra_testkit import Synth
from test_infra_template import aurra_functions, function_logical_ids, ref, routes, statements

from infra import constants as c


def queues(s: Synth) -> dict[str, dict]:
    return {
        q["Properties"]["QueueName"]: (k, q["Properties"]) for k, q in s.of_type("AWS::SQS::Queue").items()
    }


def test_the_job_queue_is_encrypted_has_a_dead_letter_queue_and_refuses_plain_http(dev: Synth) -> None:
    found = queues(dev)
    jobs_id, jobs = found[c.level2_queue_name("dev")]
    dead_id, dead = found[c.level2_dead_letter_queue_name("dev")]
    for props in (jobs, dead):
        assert props["SqsManagedSseEnabled"] is True
    assert ref(jobs["RedrivePolicy"]["deadLetterTargetArn"]) == dead_id
    assert jobs["RedrivePolicy"]["maxReceiveCount"] == c.LEVEL2_MAX_RECEIVES
    assert jobs["VisibilityTimeout"] == 6 * c.SIZING[c.LEVEL2_WORKER][1]
    policies = [p["Properties"] for p in dev.of_type("AWS::SQS::QueuePolicy").values()]
    guarded = {
        ref(q)
        for p in policies
        for q in p["Queues"]
        if any(
            st["Effect"] == "Deny" and st["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
            for st in p["PolicyDocument"]["Statement"]
        )
    }
    assert {jobs_id, dead_id} <= guarded


def test_the_worker_takes_batches_with_partial_failures_and_the_sweeper_runs_on_a_schedule(
    dev: Synth,
) -> None:
    worker_id = function_logical_ids(dev)[c.LEVEL2_WORKER]
    jobs_id, _ = queues(dev)[c.level2_queue_name("dev")]
    (mapping,) = [
        m["Properties"]
        for m in dev.of_type("AWS::Lambda::EventSourceMapping").values()
        if ref(m["Properties"]["FunctionName"]) == worker_id
    ]
    assert ref(mapping["EventSourceArn"]) == jobs_id
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert mapping["BatchSize"] == c.LEVEL2_BATCH_SIZE
    assert mapping["ScalingConfig"]["MaximumConcurrency"] == c.LEVEL2_MAX_CONCURRENCY
    (rule,) = [
        r
        for r in dev.of_type("AWS::Events::Rule").values()
        if r["Properties"].get("Name") == c.level2_sweep_rule_name("dev")
    ]
    assert rule["Properties"]["ScheduleExpression"] == f"rate({c.LEVEL2_SWEEP_MINUTES} minutes)"
    assert ref(rule["Properties"]["Targets"][0]["Arn"]) == worker_id
    (migrations_id,) = dev.of_type("Custom::AurraMigrations")
    assert migrations_id in rule.get("DependsOn", [])


def test_only_the_write_function_and_the_worker_may_send_and_only_the_worker_receives(dev: Synth) -> None:
    functions = aurra_functions(dev)
    jobs_id, _ = queues(dev)[c.level2_queue_name("dev")]
    url = {"Ref": jobs_id}
    for name, fn in functions.items():
        role_id = ref(fn["Properties"]["Role"])
        on_jobs = set()
        for st in statements(dev, role_id):
            acted = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
            if any(a.startswith("sqs:") for a in acted):
                assert st["Resource"] != "*", (name, st)
                if ref(st["Resource"]) == jobs_id:
                    on_jobs.update(acted)
        # (the dispatcher may send to its own dead-letter queue, never to the jobs')
        sends = "sqs:SendMessage" in on_jobs
        assert sends == (name in (c.WRITE, c.LEVEL2_WORKER)), name
        assert ("sqs:ReceiveMessage" in on_jobs) == (name == c.LEVEL2_WORKER), name
        environment = fn["Properties"]["Environment"]["Variables"]
        assert (environment.get(c.ENV_LEVEL2_QUEUE_URL) == url) == sends, name
    worker = functions[c.LEVEL2_WORKER]["Properties"]
    assert [worker["MemorySize"], worker["Timeout"]] == list(c.SIZING[c.LEVEL2_WORKER])
    # It classifies; it never embeds, reaches the cluster itself or reads the cursor secret.
    assert c.CAPABILITIES[c.LEVEL2_WORKER] == {"db", "flags", "classifier_only"}


def test_dead_letters_and_a_backlog_alarm(dev: Synth) -> None:
    alarms = {
        a["Properties"]["AlarmName"]: a["Properties"] for a in dev.of_type("AWS::CloudWatch::Alarm").values()
    }
    dead = alarms[c.alarm_name("dev", "level2-dead-letters")]
    assert dead["MetricName"] == "ApproximateNumberOfMessagesVisible" and dead["Threshold"] == 0
    backlog = alarms[c.alarm_name("dev", "level2-backlog")]
    assert backlog["MetricName"] == "ApproximateAgeOfOldestMessage"
    assert backlog["Threshold"] == c.LEVEL2_OLDEST_MESSAGE_ALARM_S
    for alarm in (dead, backlog):
        assert alarm["AlarmActions"], "an alarm nobody hears"


def test_without_nat_the_functions_reach_sqs_through_an_endpoint(dev: Synth, prod: Synth) -> None:
    for s in (dev, prod):
        endpoints = [e["Properties"] for e in s.of_type("AWS::EC2::VPCEndpoint").values()]
        services = [str(e["ServiceName"]) for e in endpoints]
        has_sqs = any("sqs" in name for name in services)
        assert has_sqs == bool(endpoints and any("secretsmanager" in name for name in services)), services


def test_the_jobs_are_read_by_the_audit_function_behind_the_authorizer(dev: Synth) -> None:
    ids = function_logical_ids(dev)
    found = routes(dev)
    for path in ("/agent/jobs", "/agent/jobs/{id}"):
        props = found[("GET", path)]["Properties"]
        assert ids[c.AUDIT] in str(props["Integration"]["Uri"]), path
        assert (props["AuthorizationType"], props["ApiKeyRequired"]) == ("CUSTOM", True), path
    assert found[("GET", "/agent/jobs/{id}")]["Properties"]["RequestParameters"] == {
        "method.request.path.id": True
    }
    # Reading jobs is a database read with signed cursors: the audit function has no queue right.
    assert c.CAPABILITIES[c.AUDIT] == {"db", "cursors"}
    role_id = ref(aurra_functions(dev)[c.AUDIT]["Properties"]["Role"])
    for st in statements(dev, role_id):
        acted = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
        assert not any(a.startswith("sqs:") for a in acted), st
