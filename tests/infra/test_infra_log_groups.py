"""Every log the stack makes is the stage's: each function's log group (Aurra's own, the
provider framework's, the console's bucket deployment, the secret rotations' from the Serverless
Application Repository) is a resource of the stack, with the stage's retention and, with
customer-managed keys, the stage's logs key; none is left for Lambda to make on first use, kept
forever and in clear."""

from __future__ import annotations

from infra_testkit import Synth
from test_infra_template import ref


def test_every_log_group_has_the_stages_retention_and_key(dev: Synth, prod: Synth) -> None:
    for synth, days, keyed in ((dev, 30, False), (prod, 365, True)):
        groups = synth.of_type("AWS::Logs::LogGroup")
        assert groups
        for logical_id, group in groups.items():
            props = group["Properties"]
            assert props["RetentionInDays"] == days, logical_id
            assert ("KmsKeyId" in props) == keyed, logical_id


def test_every_function_logs_to_a_group_of_the_stack(dev: Synth, prod: Synth) -> None:
    for synth in (dev, prod):
        groups = synth.of_type("AWS::Logs::LogGroup")
        named = {g["Properties"].get("LogGroupName") for g in groups.values()}
        for logical_id, fn in synth.of_type("AWS::Lambda::Function").items():
            props = fn["Properties"]
            logging = props.get("LoggingConfig", {})
            # either sent to a group of the stack, or named so that its default group is one
            assert ref(logging.get("LogGroup")) in groups or (
                f"/aws/lambda/{props.get('FunctionName')}" in named
            ), logical_id
        rotations = synth.of_type("AWS::Serverless::Application")
        assert rotations
        for logical_id, app in rotations.items():
            name = f"/aws/lambda/{app['Properties']['Parameters']['functionName']}"
            (group_id,) = [k for k, g in groups.items() if g["Properties"].get("LogGroupName") == name]
            assert group_id in app["DependsOn"], logical_id  # made before the function can log
