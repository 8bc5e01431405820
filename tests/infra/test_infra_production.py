"""What makes a stage production-ready, asserted on the synthesized templates: load limits
before the database, the database logins, settings that survive a bare redeploy, code that
waits for its schema, alarms that catch outages, and hosted mode."""

from __future__ import annotations

import json

import pytest
from infra_testkit import PROD_CERTIFICATE, PROD_COPY_VAULT, PROD_DOMAIN, Synth, base_context
from test_infra_template import aurra_functions, function_logical_ids, ref, statements

from infra import constants as c
from infra.components.database import PROXY_BORROW_TIMEOUT_SECONDS
from infra.config import AurraConfig


def alarms(s: Synth) -> dict[str, dict]:
    return {
        a["Properties"]["AlarmName"]: a["Properties"] for a in s.of_type("AWS::CloudWatch::Alarm").values()
    }


# ---------------------------------------------------------------- load limits
def test_stage_throttle_is_sized_to_the_database(dev: Synth, prod: Synth) -> None:
    for s, rate in ((dev, 200), (prod, 400)):  # 50 requests per second per ACU of dbMaxCapacity
        (stage,) = s.of_type("AWS::ApiGateway::Stage").values()
        (settings,) = stage["Properties"]["MethodSettings"]
        assert (settings["HttpMethod"], settings["ResourcePath"]) == ("*", "/*")
        assert settings["ThrottlingRateLimit"] == rate
        assert settings["ThrottlingBurstLimit"] == 2 * rate


def test_reserved_concurrency_on_the_functions_that_take_the_load(dev: Synth) -> None:
    reserved = {
        name: fn["Properties"].get("ReservedConcurrentExecutions")
        for name, fn in aurra_functions(dev).items()
    }
    # every function: a flood of one route never takes another's (or the database's) share
    assert reserved == {
        c.AUTHORIZER: 20,
        c.QUERY: 20,
        c.WRITE: 20,
        c.MAINTENANCE: 1,
        c.DISPATCHER: 1,
        c.SUPERSEDE: 5,
        c.SETTINGS: 5,
        c.AUDIT: 5,
        c.ERASURE: 2,
        c.MIGRATE: 1,
        c.ADMIN: 2,
        c.LEVEL2_WORKER: c.LEVEL2_MAX_CONCURRENCY + 1,
    }


def test_the_usage_plan_throttles_the_routes_that_change_things_per_key(dev: Synth, prod: Synth) -> None:
    """Within a key's own throttle, writes at half its rate, supersessions and review actions at
    a fifth, settings changes at one a second: reads keep the key's whole rate."""
    for synth, rate, burst in ((dev, 50, 100), (prod, 10, 20)):
        (plan,) = synth.of_type("AWS::ApiGateway::UsagePlan").values()
        (api_stage,) = plan["Properties"]["ApiStages"]
        throttles = api_stage["Throttle"]
        assert throttles["/agent/memories/POST"] == {"RateLimit": rate * 0.5, "BurstLimit": int(burst * 0.5)}
        for path in (
            "/agent/memories/{id}/supersede",
            "/agent/audit/{id}/revert",
            "/agent/audit/{id}/approve",
        ):
            assert throttles[f"{path}/POST"] == {"RateLimit": rate * 0.2, "BurstLimit": int(burst * 0.2)}
        assert throttles["/agent/settings/PATCH"]["RateLimit"] == 1
        assert not any(key.endswith("/GET") for key in throttles)
        assert {key.rsplit("/", 1)[0] for key in throttles} <= {path for _, path, _ in c.ROUTES}


def test_zero_means_no_reservation_for_small_accounts() -> None:
    config = AurraConfig.from_mapping({"writeConcurrency": "0", "auditConcurrency": "0"})
    assert config.reserved_concurrency[c.WRITE] == 0
    assert config.reserved_concurrency[c.AUDIT] == 0
    assert config.reserved_concurrency[c.MAINTENANCE] == 1


def test_authorizer_checks_the_key_format_before_invoking(dev: Synth) -> None:
    (authorizer,) = dev.of_type("AWS::ApiGateway::Authorizer").values()
    assert authorizer["Properties"]["IdentityValidationExpression"] == c.AUTHORIZATION_PATTERN
    assert "aurra_" in c.AUTHORIZATION_PATTERN


def test_waf_rules_key_rate_ip_rate_body_size_and_logging(prod: Synth) -> None:
    (acl,) = prod.of_type("AWS::WAFv2::WebACL").values()
    rules = {r["Name"]: r for r in acl["Properties"]["Rules"]}
    per_key = rules[c.WAF_RULE_RATE_PER_KEY]["Statement"]["RateBasedStatement"]
    assert per_key["AggregateKeyType"] == "CUSTOM_KEYS"
    assert per_key["CustomKeys"] == [
        {"Header": {"Name": "authorization", "TextTransformations": [{"Priority": 0, "Type": "NONE"}]}}
    ]
    assert per_key["Limit"] == 10 * 300  # the usage plan's per-key rate (10/s here) over 5 minutes
    # per address: junk without a key's shape at 3000 / 5 min; well-formed keys (many agents
    # behind one NAT, each key held by its plan) only far above a plan's 50 rps
    well_formed = {
        "RegexMatchStatement": {
            "RegexString": c.AUTHORIZATION_PATTERN,
            "FieldToMatch": {"SingleHeader": {"Name": "authorization"}},
            "TextTransformations": [{"Priority": 0, "Type": "NONE"}],
        }
    }
    per_ip = rules[c.WAF_RULE_RATE_PER_IP]["Statement"]["RateBasedStatement"]
    assert per_ip == {
        "AggregateKeyType": "IP",
        "Limit": 3000,
        "ScopeDownStatement": {"NotStatement": {"Statement": well_formed}},
    }
    keyed_per_ip = rules[c.WAF_RULE_KEYED_RATE_PER_IP]["Statement"]["RateBasedStatement"]
    assert keyed_per_ip == {"AggregateKeyType": "IP", "Limit": 30_000, "ScopeDownStatement": well_formed}
    assert keyed_per_ip["Limit"] / 300 > 50  # the default plan's per-key rate
    assert len({r["Priority"] for r in rules.values()}) == len(rules)
    size = rules[c.WAF_RULE_BODY_SIZE]["Statement"]["SizeConstraintStatement"]
    assert size["ComparisonOperator"] == "GT" and size["Size"] == 64 * 1024
    assert size["FieldToMatch"] == {"Body": {"OversizeHandling": "MATCH"}}
    # blocked requests get the API's own answers: 429 rate_limited and 413 payload_too_large
    bodies = {k: json.loads(v["Content"]) for k, v in acl["Properties"]["CustomResponseBodies"].items()}
    for rule, status, code in (
        (c.WAF_RULE_RATE_PER_KEY, 429, "rate_limited"),
        (c.WAF_RULE_RATE_PER_IP, 429, "rate_limited"),
        (c.WAF_RULE_KEYED_RATE_PER_IP, 429, "rate_limited"),
        (c.WAF_RULE_BODY_SIZE, 413, "payload_too_large"),
    ):
        response = rules[rule]["Action"]["Block"]["CustomResponse"]
        assert response["ResponseCode"] == status, rule
        assert bodies[response["CustomResponseBodyKey"]]["error"]["code"] == code, rule
    assert {"Name": "Retry-After", "Value": "60"} in (
        rules[c.WAF_RULE_RATE_PER_KEY]["Action"]["Block"]["CustomResponse"]["ResponseHeaders"]
    )
    # bodies are inspected up to 64 KiB, so anything larger is "oversize" and matches
    assert acl["Properties"]["AssociationConfig"] == {
        "RequestBody": {"API_GATEWAY": {"DefaultSizeInspectionLimit": "KB_64"}}
    }
    (logging,) = prod.of_type("AWS::WAFv2::LoggingConfiguration").values()
    assert ref(logging["Properties"]["ResourceArn"]) in prod.of_type("AWS::WAFv2::WebACL")
    assert f":log-group:{c.waf_log_group_name('prod')}" in json.dumps(
        logging["Properties"]["LogDestinationConfigs"]
    )
    assert logging["Properties"]["RedactedFields"] == [
        {"SingleHeader": {"Name": "authorization"}},
        {"SingleHeader": {"Name": "cookie"}},
        {"QueryString": {}},
    ]
    names = [g["Properties"].get("LogGroupName") for g in prod.of_type("AWS::Logs::LogGroup").values()]
    assert "aws-waf-logs-aurra-prod" in names


# ------------------------------------------------------------ database logins
def test_functions_sign_in_to_the_proxy_as_their_login_with_iam(dev: Synth) -> None:
    (proxy_id,) = dev.of_type("AWS::RDS::DBProxy")
    for name, fn in aurra_functions(dev).items():
        connects = [
            s for s in statements(dev, ref(fn["Properties"]["Role"])) if s["Action"] == "rds-db:connect"
        ]
        if "db_direct" in c.CAPABILITIES[name]:
            assert not connects, name
            continue
        (connect,) = connects
        resource = json.dumps(connect["Resource"])
        assert proxy_id in resource, name
        user = c.DB_KEY_ADMIN_USER if name == c.ADMIN else c.DB_SERVICE_USER
        assert resource.endswith(f'"/{user}"]]}}'), (name, resource)


def test_proxy_borrow_timeout_is_short(dev: Synth) -> None:
    (group,) = dev.of_type("AWS::RDS::DBProxyTargetGroup").values()
    timeout = group["Properties"]["ConnectionPoolConfigurationInfo"]["ConnectionBorrowTimeout"]
    assert timeout == PROXY_BORROW_TIMEOUT_SECONDS == 5
    # under every function's own timeout that goes through the proxy
    for name, fn in aurra_functions(dev).items():
        if "db_direct" not in c.CAPABILITIES[name]:
            assert fn["Properties"]["Timeout"] > timeout


def test_migrate_sets_the_login_passwords_from_their_secrets(dev: Synth) -> None:
    migrate = aurra_functions(dev)[c.MIGRATE]
    env = migrate["Properties"]["Environment"]["Variables"]
    listed = json.dumps(env[c.ENV_DB_LOGIN_SECRET_ARNS])
    attachments = [
        logical_id
        for logical_id, a in dev.of_type("AWS::SecretsManager::SecretTargetAttachment").items()
        if "Login" in ref(a["Properties"]["SecretId"])
    ]
    assert len(attachments) == len(c.DB_LOGINS)
    assert all(a in listed for a in attachments)
    # a new login secret re-runs the custom resource, so its password reaches the database
    (resource,) = dev.of_type("Custom::AurraMigrations").values()
    assert sorted(ref(a) for a in resource["Properties"]["LoginSecrets"]) == sorted(attachments)
    read = [
        s
        for s in statements(dev, ref(migrate["Properties"]["Role"]))
        if "secretsmanager:GetSecretValue" in json.dumps(s["Action"])
    ]
    for attachment in attachments:
        assert any(attachment in json.dumps(s["Resource"]) for s in read)


def test_every_database_secret_rotates_and_is_kept(dev: Synth) -> None:
    schedules = dev.of_type("AWS::SecretsManager::RotationSchedule").values()
    assert len(schedules) == 1 + len(c.DB_LOGINS)
    for schedule in schedules:
        assert schedule["Properties"]["RotationRules"]["ScheduleExpression"] == "rate(30 days)"
    secrets = {
        k: v for k, v in dev.of_type("AWS::SecretsManager::Secret").items() if "CursorSigningKey" not in k
    }
    assert len(secrets) == 1 + len(c.DB_LOGINS)
    for secret in secrets.values():
        assert secret["DeletionPolicy"] == "Retain"


def test_rotations_wait_for_the_migrations_and_never_start_on_a_deploy(dev: Synth, prod: Synth) -> None:
    """The migrations create the logins and set their passwords (reading the master's): a
    rotation must not run before them, nor in the middle of a deploy."""
    for synth in (dev, prod):
        (migrations_id,) = synth.of_type("Custom::AurraMigrations")
        schedules = synth.of_type("AWS::SecretsManager::RotationSchedule")
        assert len(schedules) == 1 + len(c.DB_LOGINS)
        for schedule in schedules.values():
            assert schedule["Properties"]["RotateImmediatelyOnUpdate"] is False
            assert migrations_id in schedule["DependsOn"]
        # the migrations wait for the cluster and its instances, not for the rotations
        depends = synth.resources[migrations_id]["DependsOn"]
        assert not set(depends) & set(schedules)
        assert {synth.resources[d]["Type"] for d in depends} >= {
            "AWS::RDS::DBCluster",
            "AWS::RDS::DBInstance",
        }


def test_rotation_can_be_turned_off() -> None:
    assert AurraConfig.from_mapping({"dbSecretRotationDays": "0"}).db_secret_rotation_days == 0
    assert AurraConfig.from_mapping({}).db_secret_rotation_days == 30


# ---------------------------------------------------- settings kept per stage
def test_cdk_json_keeps_the_prod_stage_settings() -> None:
    context = json.loads((c.REPO_ROOT / "cdk.json").read_text())["context"]
    block = context["stages"]["prod"]
    config = AurraConfig.from_mapping(base_context(stage="prod"))
    described = config.describe()
    for key, value in block.items():
        assert described[key] == value, key


def test_the_committed_prod_stage_alarms_reach_someone(bare_prod: Synth) -> None:
    """`cdk deploy -c stage=prod` alone subscribes cdk.json's address to the alarm topic."""
    block = json.loads((c.REPO_ROOT / "cdk.json").read_text())["context"]["stages"]["prod"]
    assert block.get("alarmEmail") or block.get("alarmEndpoint")
    (topic_id,) = bare_prod.of_type("AWS::SNS::Topic")
    subscriptions = bare_prod.of_type("AWS::SNS::Subscription").values()
    assert {(s["Properties"]["Protocol"], s["Properties"]["Endpoint"]) for s in subscriptions} == {
        ("email", block["alarmEmail"])
    }
    assert all(ref(s["Properties"]["TopicArn"]) == topic_id for s in subscriptions)


def test_a_pager_endpoint_subscribes_over_https(tmp_path) -> None:
    from infra_testkit import synthesize

    pager = "https://events.pagerduty.com/integration/0123456789abcdef/enqueue"
    synth = synthesize(tmp_path, stage="staging", alarmEndpoint=pager, consoleEnabled="false")
    (subscription,) = synth.of_type("AWS::SNS::Subscription").values()
    assert subscription["Properties"]["Protocol"] == "https"
    assert subscription["Properties"]["Endpoint"] == pager


def test_a_bare_redeploy_keeps_the_stage_settings(bare_prod: Synth) -> None:
    """`cdk deploy -c stage=prod` alone: capacity, readers, WAF, hosted mode, rotation and
    termination protection all come from cdk.json."""
    (cluster,) = bare_prod.of_type("AWS::RDS::DBCluster").values()
    assert cluster["Properties"]["ServerlessV2ScalingConfiguration"] == {"MinCapacity": 1, "MaxCapacity": 8}
    assert cluster["Properties"]["DeletionProtection"] is True
    assert "KmsKeyId" in cluster["Properties"]
    assert len(bare_prod.of_type("AWS::RDS::DBInstance")) == 2
    assert bare_prod.of_type("AWS::WAFv2::WebACL")
    assert bare_prod.of_type("AWS::Backup::BackupPlan")
    assert bare_prod.of_type("AWS::KinesisFirehose::DeliveryStream")
    assert bare_prod.stack.termination_protection is True
    retention = {
        g["Properties"].get("RetentionInDays") for g in bare_prod.of_type("AWS::Logs::LogGroup").values()
    }
    assert retention == {365}
    outputs = bare_prod.template["Outputs"]
    assert outputs["SettingDbMaxCapacity"]["Value"] == "8.0"
    assert outputs["SettingWafEnabled"]["Value"] == "true"
    assert outputs["SettingHosted"]["Value"] == "true"
    assert outputs["SettingStage"]["Value"] == "prod"


def test_a_stage_block_is_applied_and_the_command_line_wins(tmp_path) -> None:
    """Settings a team keeps for its stage (the alarm e-mail, the classifier, the NAT they
    need) survive a deploy that names only the stage; `-c` still wins for one run."""
    stages = {"team": {"alarmEmail": "oncall@example.com", "classifier": "anthropic", "dbMaxCapacity": 16}}
    kept = AurraConfig.from_mapping(base_context(stages=stages, stage="team"))
    assert kept.alarm_email == "oncall@example.com"
    assert kept.classifier == "anthropic" and kept.needs_internet
    assert kept.db_max_capacity == 16
    assert kept.resolved_stage_throttle_rate_limit == 800
    overridden = AurraConfig.from_mapping(base_context(stages=stages, stage="team", dbMaxCapacity="32"))
    assert overridden.db_max_capacity == 32
    # another stage does not see the block (and without an alarm address of its own, synth stops)
    from infra.config import ConfigError

    with pytest.raises(ConfigError, match="alarmEmail"):
        AurraConfig.from_mapping(base_context(stages=stages, stage="other"))


def test_a_misspelt_stage_setting_stops_synth() -> None:
    from infra.config import ConfigError

    with pytest.raises(ConfigError, match=r"stages\.team: unknown keys dbMaxCapacty"):
        AurraConfig.from_mapping({"stage": "team", "stages": {"team": {"dbMaxCapacty": 8}}})


def test_every_resolved_setting_is_an_output(dev: Synth) -> None:
    outputs = dev.template["Outputs"]
    for key, value in AurraConfig.from_mapping(base_context()).describe().items():
        output = outputs[f"Setting{key[0].upper()}{key[1:]}"]
        expected = "none" if value is None else value if isinstance(value, str) else json.dumps(value)
        assert output["Value"] == expected, key
    # the resolved value, not the unset default
    assert outputs["SettingWafEnabled"]["Value"] == "false"
    assert outputs["SettingStageThrottleRateLimit"]["Value"] == "200.0"


def test_termination_protection_outside_dev(dev: Synth, prod: Synth) -> None:
    assert dev.stack.termination_protection is False
    assert prod.stack.termination_protection is True


# ------------------------------------------------------------- deploy order
def test_code_that_reads_the_schema_waits_for_the_migrations(dev: Synth) -> None:
    (migrations_id,) = dev.of_type("Custom::AurraMigrations")
    ids = function_logical_ids(dev)
    for name in (*c.ROUTE_FUNCTIONS, c.AUTHORIZER, c.ADMIN):
        assert migrations_id in dev.resources[ids[name]].get("DependsOn", []), name
    (deployment,) = dev.of_type("AWS::ApiGateway::Deployment").values()
    assert migrations_id in deployment["DependsOn"]
    # the migrate function itself does not wait for its own resource
    assert migrations_id not in dev.resources[ids[c.MIGRATE]].get("DependsOn", [])


# ------------------------------------------------------------------- alarms
def test_the_alarm_list(dev: Synth, prod: Synth) -> None:
    names = set(alarms(dev))
    for name in c.ALL_FUNCTIONS:
        assert {f"aurra-dev-{name}-errors", f"aurra-dev-{name}-throttles"} <= names, name
    for name in (c.AUTHORIZER, c.QUERY, c.WRITE):
        assert f"aurra-dev-{name}-concurrency" in names
    assert {
        "aurra-dev-api-5xx-rate",
        "aurra-dev-api-latency-p99",
        "aurra-dev-classifier-errors",
        "aurra-dev-api-401-spike",
        "aurra-dev-api-429-spike",
        "aurra-dev-authorizer-failures",
        "aurra-dev-db-capacity-at-max",
        "aurra-dev-db-cpu",
        "aurra-dev-db-memory",
        "aurra-dev-proxy-pinning",
        "aurra-dev-proxy-borrow-latency",
        "aurra-dev-bedrock-throttles",  # the dev stage embeds with Bedrock
    } <= names
    assert "aurra-dev-waf-blocks" not in names  # no WAF in dev
    prod_names = set(alarms(prod))
    assert "aurra-prod-waf-blocks" in prod_names
    assert "aurra-prod-bedrock-throttles" not in prod_names  # no Bedrock there
    for props in [*alarms(dev).values(), *alarms(prod).values()]:
        assert props["AlarmActions"], props["AlarmName"]


def test_alarm_metrics(dev: Synth) -> None:
    by_name = alarms(dev)
    capacity = by_name["aurra-dev-db-capacity-at-max"]
    assert capacity["MetricName"] == "ServerlessDatabaseCapacity" and capacity["Threshold"] == 4
    pinning = by_name["aurra-dev-proxy-pinning"]
    assert pinning["MetricName"] == "DatabaseConnectionsCurrentlySessionPinned"
    (proxy_id,) = dev.of_type("AWS::RDS::DBProxy")
    (dimension,) = pinning["Dimensions"]
    assert dimension["Name"] == "ProxyName" and ref(dimension["Value"]) == proxy_id
    assert by_name["aurra-dev-proxy-borrow-latency"]["MetricName"] == "DatabaseConnectionsBorrowLatency"
    concurrency = by_name["aurra-dev-write-concurrency"]
    assert concurrency["MetricName"] == "ConcurrentExecutions" and concurrency["Threshold"] == 16
    assert by_name["aurra-dev-migrate-errors"]["MetricName"] == "Errors"
    assert by_name["aurra-dev-maintenance-throttles"]["MetricName"] == "Throttles"
    assert by_name["aurra-dev-bedrock-throttles"]["Namespace"] == "AWS/Bedrock"


def access_log_group(s: Synth) -> str:
    (stage,) = s.of_type("AWS::ApiGateway::Stage").values()
    destination = json.dumps(stage["Properties"]["AccessLogSetting"]["DestinationArn"])
    (group,) = [g for g in s.of_type("AWS::Logs::LogGroup") if g in destination]
    return group


def test_access_log_metric_filters_count_401_429_and_authorizer_failures(dev: Synth) -> None:
    access_log = access_log_group(dev)
    filters = {
        f["Properties"]["MetricTransformations"][0]["MetricName"]: f["Properties"]
        for f in dev.of_type("AWS::Logs::MetricFilter").values()
    }
    assert filters["aurra-dev-api-401"]["FilterPattern"] == '{ $.status = "401" }'
    assert filters["aurra-dev-api-429"]["FilterPattern"] == '{ $.status = "429" }'
    failures = filters["aurra-dev-authorizer-failures"]["FilterPattern"]
    assert "AUTHORIZER_FAILURE" in failures and "AUTHORIZER_CONFIGURATION_ERROR" in failures
    for props in filters.values():
        assert ref(props["LogGroupName"]) == access_log
    for what in ("api-401", "api-429", "authorizer-failures"):
        alarm = alarms(dev)[f"aurra-dev-{what}{'-spike' if what.startswith('api') else ''}"]
        (metric,) = alarm["Metrics"]
        assert metric["MetricStat"]["Metric"] == {"MetricName": f"aurra-dev-{what}", "Namespace": "Aurra"}


def test_a_failed_maintenance_run_reaches_the_alarm_topic(dev: Synth) -> None:
    (topic_id,) = dev.of_type("AWS::SNS::Topic")
    maintenance_id = function_logical_ids(dev)[c.MAINTENANCE]
    (invoke_config,) = [
        v
        for v in dev.of_type("AWS::Lambda::EventInvokeConfig").values()
        if ref(v["Properties"]["FunctionName"]) == maintenance_id
    ]
    assert ref(invoke_config["Properties"]["DestinationConfig"]["OnFailure"]["Destination"]) == topic_id
    maintenance = aurra_functions(dev)[c.MAINTENANCE]["Properties"]
    assert any(
        s["Action"] == "sns:Publish" and ref(s["Resource"]) == topic_id
        for s in statements(dev, ref(maintenance["Role"]))
    )


def test_index_builds_stop_before_the_maintenance_function_does(dev: Synth) -> None:
    maintenance = aurra_functions(dev)[c.MAINTENANCE]["Properties"]
    timeout = int(maintenance["Environment"]["Variables"][c.ENV_MAINTENANCE_STATEMENT_TIMEOUT])
    assert 0 < timeout < maintenance["Timeout"]


# --------------------------------------------------------------- hosted mode
def test_customer_managed_keys_in_hosted_mode_only(dev: Synth, prod: Synth) -> None:
    assert not dev.of_type("AWS::KMS::Key")
    keys = prod.of_type("AWS::KMS::Key")
    assert len(keys) == 4
    for key in keys.values():
        assert key["Properties"]["EnableKeyRotation"] is True
        assert key["DeletionPolicy"] == "Retain"
    (cluster,) = prod.of_type("AWS::RDS::DBCluster").values()
    assert ref(cluster["Properties"]["KmsKeyId"]) in keys
    for secret in prod.of_type("AWS::SecretsManager::Secret").values():
        assert ref(secret["Properties"]["KmsKeyId"]) in keys
    for group in prod.of_type("AWS::Logs::LogGroup").values():
        assert ref(group["Properties"]["KmsKeyId"]) in keys, group["Properties"].get("LogGroupName")
    (topic,) = prod.of_type("AWS::SNS::Topic").values()
    assert ref(topic["Properties"]["KmsMasterKeyId"]) in keys
    for instance in prod.of_type("AWS::RDS::DBInstance").values():
        assert ref(instance["Properties"]["PerformanceInsightsKMSKeyId"]) in keys


def test_backup_plan_with_a_cross_account_copy(prod: Synth) -> None:
    (plan,) = prod.of_type("AWS::Backup::BackupPlan").values()
    (rule,) = plan["Properties"]["BackupPlan"]["BackupPlanRule"]
    assert rule["Lifecycle"] == {"DeleteAfterDays": 35}
    assert rule["CopyActions"] == [
        {"DestinationBackupVaultArn": PROD_COPY_VAULT, "Lifecycle": {"DeleteAfterDays": 35}}
    ]
    (vault,) = prod.of_type("AWS::Backup::BackupVault").values()
    assert vault["DeletionPolicy"] == "Retain"
    (selection,) = prod.of_type("AWS::Backup::BackupSelection").values()
    (cluster_id,) = prod.of_type("AWS::RDS::DBCluster")
    assert cluster_id in json.dumps(selection["Properties"]["BackupSelection"]["Resources"])


def test_the_copy_accounts_may_use_the_database_key_to_copy_backups(prod: Synth) -> None:
    """Recovery points are encrypted with the stage's database key: a vault in another account
    can copy them only if that key's policy lets its account use the key."""
    copy_account = PROD_COPY_VAULT.split(":")[4]
    (cluster,) = prod.of_type("AWS::RDS::DBCluster").values()
    key = prod.resources[ref(cluster["Properties"]["KmsKeyId"])]
    by_sid = {st.get("Sid"): st for st in key["Properties"]["KeyPolicy"]["Statement"]}
    use, grants = by_sid["BackupCopyAccountUse"], by_sid["BackupCopyAccountGrants"]
    for statement in (use, grants):
        assert f":iam::{copy_account}:root" in json.dumps(statement["Principal"])
        assert statement["Effect"] == "Allow"
    assert set(use["Action"]) == {
        "kms:Decrypt",
        "kms:DescribeKey",
        "kms:Encrypt",
        "kms:GenerateDataKey*",
        "kms:ReEncrypt*",
    }
    assert grants["Action"] == "kms:CreateGrant"
    assert grants["Condition"] == {"Bool": {"kms:GrantIsForAWSResource": "true"}}
    # the other keys are not shared with it
    for logical_id, other in prod.of_type("AWS::KMS::Key").items():
        if logical_id != ref(cluster["Properties"]["KmsKeyId"]):
            assert copy_account not in json.dumps(other["Properties"]["KeyPolicy"])


def test_failed_rotations_backups_and_copies_reach_the_alarm_topic(dev: Synth, prod: Synth) -> None:
    for synth, stage in ((dev, "dev"), (prod, "prod")):
        (topic_id,) = synth.of_type("AWS::SNS::Topic")
        rules = {
            r["Properties"]["Name"]: r["Properties"] for r in synth.of_type("AWS::Events::Rule").values()
        }
        rotation = rules[f"aurra-{stage}-rotation-failed"]
        pattern = rotation["EventPattern"]
        assert pattern["source"] == ["aws.secretsmanager"]
        assert pattern["detail"]["eventName"] == ["RotationFailed"]
        secrets = json.dumps(pattern["detail"]["additionalEventData"]["SecretId"])
        for logical_id in synth.of_type("AWS::SecretsManager::SecretTargetAttachment"):
            assert logical_id in secrets
        for props in [
            r
            for name, r in rules.items()
            if not name.endswith(("-maintenance", "-level2-sweep", "-dispatcher"))
        ]:
            (target,) = props["Targets"]
            assert ref(target["Arn"]) == topic_id
        (policy,) = synth.of_type("AWS::SNS::TopicPolicy").values()
        assert "events.amazonaws.com" in json.dumps(policy["Properties"]["PolicyDocument"])
    assert "aurra-dev-backup-failed" not in {
        r["Properties"]["Name"] for r in dev.of_type("AWS::Events::Rule").values()
    }
    rules = {r["Properties"]["Name"]: r["Properties"] for r in prod.of_type("AWS::Events::Rule").values()}
    backup = rules["aurra-prod-backup-failed"]["EventPattern"]
    assert backup["source"] == ["aws.backup"] and backup["detail-type"] == ["Backup Job State Change"]
    assert backup["detail"] == {"state": ["FAILED", "ABORTED", "EXPIRED"], "backupVaultName": ["aurra-prod"]}
    copy = rules["aurra-prod-backup-copy-failed"]["EventPattern"]
    assert copy["detail-type"] == ["Copy Job State Change"]
    assert copy["detail"]["destinationBackupVaultArn"] == [PROD_COPY_VAULT]
    # the encrypted topic (hosted mode) lets EventBridge publish
    (topic,) = prod.of_type("AWS::SNS::Topic").values()
    topic_key = prod.resources[ref(topic["Properties"]["KmsMasterKeyId"])]
    assert "events.amazonaws.com" in json.dumps(topic_key["Properties"]["KeyPolicy"])


def test_silence_alarms_where_silence_means_dead(dev: Synth) -> None:
    silent = alarms(dev)["aurra-dev-maintenance-silent"]
    assert silent["TreatMissingData"] == "breaching"
    assert silent["MetricName"] == "Invocations" and silent["Period"] == 3 * 3600
    assert silent["ComparisonOperator"] == "LessThanThreshold" and silent["Threshold"] == 1


def test_the_console_5xx_alarm_exists_where_cloudfront_publishes_its_metrics(
    dev: Synth, existing: Synth
) -> None:
    """CloudFront's metrics are in us-east-1 alone: the dev stack names no region, so the alarm
    is conditional on it; the existing-VPC stage is in eu-west-1, so there is none."""
    ((logical_id, alarm),) = [
        (k, a)
        for k, a in dev.of_type("AWS::CloudWatch::Alarm").items()
        if a["Properties"]["AlarmName"] == "aurra-dev-cloudfront-5xx-rate"
    ]
    props = alarm["Properties"]
    assert props["Namespace"] == "AWS/CloudFront" and props["MetricName"] == "5xxErrorRate"
    (distribution_id,) = dev.of_type("AWS::CloudFront::Distribution")
    assert {d["Name"]: d["Value"] for d in props["Dimensions"]} == {
        "DistributionId": {"Ref": distribution_id},
        "Region": "Global",
    }
    condition = dev.template["Conditions"][alarm["Condition"]]
    assert condition == {"Fn::Equals": [{"Ref": "AWS::Region"}, "us-east-1"]}
    assert props["AlarmActions"]
    # nothing else refers to it (a reference to a resource that may not exist fails the deploy)
    others = {k: v for k, v in dev.resources.items() if k != logical_id}
    assert logical_id not in json.dumps(others)
    assert "aurra-shared-cloudfront-5xx-rate" not in alarms(existing)


def test_custom_domain_with_tls_1_2_and_no_default_endpoint(dev: Synth, prod: Synth) -> None:
    (domain,) = prod.of_type("AWS::ApiGateway::DomainName").values()
    assert domain["Properties"]["DomainName"] == PROD_DOMAIN
    assert domain["Properties"]["SecurityPolicy"] == "TLS_1_2"
    assert domain["Properties"]["RegionalCertificateArn"] == PROD_CERTIFICATE
    (api,) = prod.of_type("AWS::ApiGateway::RestApi").values()
    assert api["Properties"]["DisableExecuteApiEndpoint"] is True
    (mapping,) = prod.of_type("AWS::ApiGateway::BasePathMapping").values()
    (stage_id,) = prod.of_type("AWS::ApiGateway::Stage")
    assert ref(mapping["Properties"]["Stage"]) == stage_id
    (record,) = prod.of_type("AWS::Route53::RecordSet").values()
    assert record["Properties"]["Name"] == f"{PROD_DOMAIN}."
    assert prod.template["Outputs"]["ApiDomainUrl"]["Value"] == f"https://{PROD_DOMAIN}/agent"
    # without a domain the default endpoint stays
    assert not dev.of_type("AWS::ApiGateway::DomainName")
    (dev_api,) = dev.of_type("AWS::ApiGateway::RestApi").values()
    assert not dev_api["Properties"].get("DisableExecuteApiEndpoint")


def test_access_log_exported_to_a_kept_bucket(prod: Synth) -> None:
    # (the console's buckets are tested in test_infra_console.py)
    ((bucket_id, bucket),) = (
        (k, b) for k, b in prod.of_type("AWS::S3::Bucket").items() if not k.startswith("Console")
    )
    assert bucket["DeletionPolicy"] == "Retain"
    props = bucket["Properties"]
    assert props["VersioningConfiguration"] == {"Status": "Enabled"}
    assert props["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    # the records expire after accessLogRetentionDays (400 by default); what versioning keeps
    # of an overwritten one after 90 days, and unfinished uploads after 7
    (rule,) = props["LifecycleConfiguration"]["Rules"]
    assert rule["ExpirationInDays"] == 400 and rule["Status"] == "Enabled"
    assert rule["NoncurrentVersionExpiration"] == {"NoncurrentDays": 90}
    assert rule["AbortIncompleteMultipartUpload"] == {"DaysAfterInitiation": 7}
    (stream,) = prod.of_type("AWS::KinesisFirehose::DeliveryStream").values()
    assert bucket_id in json.dumps(stream["Properties"]["ExtendedS3DestinationConfiguration"]["BucketARN"])
    (subscription,) = prod.of_type("AWS::Logs::SubscriptionFilter").values()
    assert ref(subscription["Properties"]["LogGroupName"]) == access_log_group(prod)
    assert prod.template["Outputs"]["AccessLogBucket"]


@pytest.mark.parametrize(
    "context, key",
    [
        ({"domainName": PROD_DOMAIN}, "domainName"),
        ({"domainName": "API.Example.com", "certificateArn": PROD_CERTIFICATE}, "domainName"),
        ({"domainName": PROD_DOMAIN, "certificateArn": "arn:aws:iam::1:x"}, "certificateArn"),
        ({"hostedZoneId": "Z1"}, "hostedZoneId"),
        ({"backupCopyVaultArn": PROD_COPY_VAULT}, "backupCopyVaultArn"),
        ({"hosted": "true", "backupCopyVaultArn": "vault"}, "backupCopyVaultArn"),
        ({"writeConcurrency": "-1"}, "writeConcurrency"),
        ({"stageThrottleRateLimit": "10"}, "stageThrottleRateLimit"),  # under the per-key rate
    ],
)
def test_bad_hosting_and_limit_settings_name_their_key(context, key) -> None:
    from infra.config import ConfigError

    with pytest.raises(ConfigError, match=f"context {key}="):
        AurraConfig.from_mapping(context)


def test_the_admin_function_tags_keys_as_its_policy_expects() -> None:
    from aurra_core.access import admin

    assert admin.API_KEY_STAGE_TAG == c.API_KEY_STAGE_TAG
