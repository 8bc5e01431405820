"""Asynchronous Level 2 as it runs in AWS, AWS through moto: the write function's nudge to the
queue after its commit, the level2_worker function on an SQS batch (partial batch failures),
and its sweeper sending again the jobs whose message was lost. The database is real."""

from __future__ import annotations

import json
import uuid

import boto3
import pytest
from moto import mock_aws

from aurra_core import service
from aurra_core.models import PointInTime, WriteRequest
from aurra_core.storage.db import get_database
from aurra_local import lambda_functions
from aurra_local.gateway import LambdaContext


@pytest.fixture
def queue(configure, monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with mock_aws():
        url = boto3.client("sqs").create_queue(QueueName="aurra-test-level2-jobs")["QueueUrl"]
        configure(AURRA_LEVEL2_ENABLED="true", AURRA_LEVEL2_QUEUE_URL=url, AURRA_LEVEL2_SWEEP_AFTER_S="0")
        yield url


def received(url: str) -> list[dict]:
    """Every message waiting in the queue (each then hidden for its visibility timeout)."""
    sqs, found = boto3.client("sqs"), []
    while batch := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0).get(
        "Messages"
    ):
        found += batch
    return found


def sqs_event(*bodies: str) -> dict:
    return {
        "Records": [
            {
                "messageId": str(uuid.uuid4()),
                "receiptHandle": "handle",
                "body": body,
                "attributes": {"ApproximateReceiveCount": "1"},
                "messageAttributes": {},
                "md5OfBody": "",
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:aurra-test-level2-jobs",
                "awsRegion": "us-east-1",
            }
            for body in bodies
        ]
    }


def test_the_write_nudges_the_queue_after_its_commit_and_the_worker_decides(queue, new_key):
    caller, _ = new_key()
    _, vim = service.write_memory(caller, WriteRequest(content="dave uses Vim", user_id="dave"))
    assert received(queue) == []  # a write without a job sends nothing
    _, emacs = service.write_memory(
        caller, WriteRequest(content="dave switched to Emacs", user_id="dave", auto_supersede="async")
    )
    (message,) = received(queue)
    body = json.loads(message["Body"])
    assert body == {"job_id": str(emacs.auto_supersede.job_id), "tenant_id": str(caller.tenant_id)}

    handler = lambda_functions.load_handler("level2_worker")
    # One good message, one that names nothing, one that is no job message at all.
    event = sqs_event(
        message["Body"], json.dumps({"job_id": str(uuid.uuid4()), "tenant_id": str(caller.tenant_id)}), "{}"
    )
    answer = handler.lambda_handler(event, LambdaContext(function_name="level2_worker", aws_request_id="r1"))
    assert answer == {"batchItemFailures": [{"itemIdentifier": event["Records"][2]["messageId"]}]}
    old = service.get_memory(caller, vim.memory.id, PointInTime())
    assert old.status == "superseded" and old.superseded_by == emacs.memory.id


def test_the_sweeper_sends_again_a_job_whose_message_was_lost(queue, new_key):
    caller, _ = new_key()
    from aurra_core.storage import level2_jobs

    _, written = service.write_memory(caller, WriteRequest(content="erin uses Vim", user_id="erin"))
    with get_database().transaction() as conn:  # a job whose nudge never left
        job_id = level2_jobs.insert_job(
            conn,
            tenant_id=caller.tenant_id,
            api_key_id=caller.api_key_id,
            memory_id=written.memory.id,
            written_at=written.memory.recorded_at,
            provenance={},
        )
    handler = lambda_functions.load_handler("level2_worker")
    scheduled = {"detail-type": "Scheduled Event", "source": "aws.events", "detail": {}}
    answer = handler.lambda_handler(
        scheduled, LambdaContext(function_name="level2_worker", aws_request_id="r2")
    )
    assert answer["nudged"] >= 1
    bodies = [json.loads(m["Body"]) for m in received(queue)]
    assert {"job_id": str(job_id), "tenant_id": str(caller.tenant_id)} in bodies
