"""Assertions on the synthesized CloudFormation template: what matters."""

from __future__ import annotations

import ast
import json
import re

import pytest
from aws_cdk.assertions import Annotations, Match
from infra_testkit import Synth

from infra import constants as c
from infra.application import rules_classifier_warning
from infra.components.api import GATEWAY_RESPONSES
from infra.components.migrations import migrations_fingerprint

AURRA_FUNCTION = re.compile(r"^aurra-[a-z0-9]+-[a-z0-9_]+$")


# ----------------------------------------------------------------- helpers
def ref(value) -> str | None:
    if isinstance(value, dict):
        if "Ref" in value:
            return value["Ref"]
        if "Fn::GetAtt" in value:
            return value["Fn::GetAtt"][0]
    return None


def aurra_functions(s: Synth) -> dict[str, dict]:
    """Aurra's functions by name (the provider framework's is not one)."""
    return {
        fn["Properties"]["FunctionName"].rsplit("-", 1)[1]: fn
        for fn in s.of_type("AWS::Lambda::Function").values()
        if AURRA_FUNCTION.match(str(fn["Properties"].get("FunctionName", "")))
    }


# The function CDK's BucketDeployment brings to copy the console into its bucket on deploy.
CONSOLE_DEPLOYMENT = "CustomCDKBucketDeployment"


def framework_functions(s: Synth) -> dict[str, dict]:
    """Functions that are neither Aurra's nor the console deployment's."""
    return {
        k: fn
        for k, fn in s.of_type("AWS::Lambda::Function").items()
        if not AURRA_FUNCTION.match(str(fn["Properties"].get("FunctionName", "")))
        and not k.startswith(CONSOLE_DEPLOYMENT)
    }


def function_logical_ids(s: Synth) -> dict[str, str]:
    return {
        fn["Properties"]["FunctionName"].rsplit("-", 1)[1]: logical_id
        for logical_id, fn in s.of_type("AWS::Lambda::Function").items()
        if AURRA_FUNCTION.match(str(fn["Properties"].get("FunctionName", "")))
    }


def resource_paths(s: Synth) -> dict[str, str]:
    """Logical id of each API Gateway resource -> its full path."""
    resources = s.of_type("AWS::ApiGateway::Resource")

    def path_of(logical_id: str) -> str:
        props = resources[logical_id]["Properties"]
        parent = ref(props["ParentId"])
        prefix = path_of(parent) if parent in resources else ""
        return f"{prefix}/{props['PathPart']}"

    return {logical_id: path_of(logical_id) for logical_id in resources}


def routes(s: Synth) -> dict[tuple[str, str], dict]:
    paths = resource_paths(s)
    return {
        (m["Properties"]["HttpMethod"], paths[ref(m["Properties"]["ResourceId"])]): m
        for m in s.of_type("AWS::ApiGateway::Method").values()
    }


def statements(s: Synth, role_logical_id: str) -> list[dict]:
    """Every IAM statement a role holds: inline policies and attached ones."""
    found = []
    role = s.resources[role_logical_id]["Properties"]
    for policy in role.get("Policies", []):
        found += policy["PolicyDocument"]["Statement"]
    for policy in s.of_type("AWS::IAM::Policy").values():
        if any(ref(r) == role_logical_id for r in policy["Properties"]["Roles"]):
            found += policy["Properties"]["PolicyDocument"]["Statement"]
    return found


def actions(s: Synth, role_logical_id: str) -> set[str]:
    result = set()
    for statement in statements(s, role_logical_id):
        acts = statement["Action"]
        result |= {acts} if isinstance(acts, str) else set(acts)
    return result


# ------------------------------------------------------------------- API
def test_every_route_of_the_contract_exists_and_nothing_else(dev: Synth) -> None:
    assert set(routes(dev)) == {(verb, path) for verb, path, _ in c.ROUTES}


def test_every_method_is_behind_the_authorizer_and_metered(dev: Synth) -> None:
    (authorizer_id,) = dev.of_type("AWS::ApiGateway::Authorizer")
    for (verb, path), method in routes(dev).items():
        if verb == "OPTIONS":
            continue
        props = method["Properties"]
        assert props["AuthorizationType"] == "CUSTOM", (verb, path)
        assert ref(props["AuthorizerId"]) == authorizer_id, (verb, path)
        assert props["ApiKeyRequired"] is True, (verb, path)


def test_each_route_reaches_its_function_through_a_proxy_integration(dev: Synth) -> None:
    ids = function_logical_ids(dev)
    wanted = {(verb, path): name for verb, path, name in c.ROUTES}
    for key, method in routes(dev).items():
        integration = method["Properties"]["Integration"]
        assert integration["Type"] == "AWS_PROXY"
        assert ids[wanted[key]] in json.dumps(integration["Uri"]), key


def test_path_ids_are_required_parameters_and_bodies_are_the_handlers(dev: Synth) -> None:
    (validator_id, validator), *others = dev.of_type("AWS::ApiGateway::RequestValidator").items()
    assert others == []
    # parameters checked by API Gateway; bodies by the handlers alone, which answer with the
    # API's envelope: no method has a request model for a body validator to check against
    assert validator["Properties"]["ValidateRequestParameters"] is True
    assert validator["Properties"]["ValidateRequestBody"] is False
    assert not dev.of_type("AWS::ApiGateway::Model")
    for (verb, path), method in routes(dev).items():
        params = method["Properties"].get("RequestParameters", {})
        if "{id}" in path:
            assert params == {"method.request.path.id": True}, (verb, path)
        assert ref(method["Properties"]["RequestValidatorId"]) == validator_id
        assert "RequestModels" not in method["Properties"], (verb, path)


def test_token_authorizer_on_the_bearer_header_with_a_cache(dev: Synth, prod: Synth) -> None:
    ids = function_logical_ids(dev)
    dev.assertions().has_resource_properties(
        "AWS::ApiGateway::Authorizer",
        {
            "Type": "TOKEN",
            "IdentitySource": "method.request.header.Authorization",
            "IdentityValidationExpression": c.AUTHORIZATION_PATTERN,
            "AuthorizerResultTtlInSeconds": 300,
        },
    )
    (authorizer,) = dev.of_type("AWS::ApiGateway::Authorizer").values()
    assert ids[c.AUTHORIZER] in json.dumps(authorizer["Properties"]["AuthorizerUri"])
    (prod_authorizer,) = prod.of_type("AWS::ApiGateway::Authorizer").values()
    assert prod_authorizer["Properties"]["AuthorizerResultTtlInSeconds"] == 120


def test_the_identity_pattern_accepts_every_key_aurra_issues_and_nothing_else(new_key) -> None:
    """API Gateway checks the header against this before invoking the authorizer: every key
    aurra_core.access.keys makes passes, junk never reaches a Lambda or the database."""
    pattern = re.compile(c.AUTHORIZATION_PATTERN)
    for _ in range(20):
        _, raw = new_key()
        assert pattern.match(f"Bearer {raw}"), raw
    junk = (
        "",
        "Bearer",
        "Bearer ",
        "Basic dXNlcjpwYXNz",
        "bearer aurra_0123456789ab_" + "a" * 32,
        "Bearer a b",
        "Bearer not-a-key",
        "Bearer aurra_sk_0123456789abcdef",
        "Bearer aurra_0123456789ab_" + "a" * 31,
        "Bearer aurra_0123456789ab_" + "a" * 33,
        "Bearer aurra_0123456789AB_" + "a" * 32,
        "Bearer aurra_0123456789ab_" + "a" * 31 + "!",
        "Bearer aurra_0123456789ab_" + "a" * 32 + " x",
    )
    for header in junk:
        assert not pattern.match(header), header


def test_api_keys_come_from_the_authorizer(dev: Synth) -> None:
    dev.assertions().has_resource_properties(
        "AWS::ApiGateway::RestApi",
        {"ApiKeySourceType": "AUTHORIZER", "EndpointConfiguration": {"Types": ["REGIONAL"]}},
    )


def test_default_usage_plan_throttles_and_has_a_quota(dev: Synth, prod: Synth) -> None:
    (stage_id,) = dev.of_type("AWS::ApiGateway::Stage")
    (plan,) = dev.of_type("AWS::ApiGateway::UsagePlan").values()
    props = plan["Properties"]
    assert props["UsagePlanName"] == "aurra-dev-default"
    assert props["Throttle"] == {"RateLimit": 50, "BurstLimit": 100}
    assert props["Quota"] == {"Limit": 1_000_000, "Period": "MONTH"}
    (api_stage,) = props["ApiStages"]
    assert ref(api_stage["Stage"]) == stage_id

    (prod_plan,) = prod.of_type("AWS::ApiGateway::UsagePlan").values()
    assert prod_plan["Properties"]["Throttle"] == {"RateLimit": 10, "BurstLimit": 20}
    assert prod_plan["Properties"]["Quota"] == {"Limit": 5000, "Period": "DAY"}


def test_admin_function_knows_the_usage_plan_and_manages_only_api_keys(dev: Synth) -> None:
    (plan_id,) = dev.of_type("AWS::ApiGateway::UsagePlan")
    admin = aurra_functions(dev)[c.ADMIN]
    env = admin["Properties"]["Environment"]["Variables"]
    assert ref(env[c.ENV_USAGE_PLAN_ID]) == plan_id
    assert c.ENV_REST_API_ID in env
    role_id = ref(admin["Properties"]["Role"])
    gateway = [s for s in statements(dev, role_id) if "apigateway" in json.dumps(s["Action"])]
    by_sid = {s["Sid"]: s for s in gateway}
    assert set(by_sid) == {
        "CreateStageApiKeys",
        "TagStageApiKeysOnCreate",
        "ListApiKeys",
        "ManageStageApiKeys",
        "ManageUsagePlanKeys",
    }
    assert plan_id in json.dumps(by_sid["ManageUsagePlanKeys"]["Resource"])
    # keys are regional, shared by every stage: the admin may change only its own stage's
    tag = c.API_KEY_STAGE_TAG
    assert by_sid["CreateStageApiKeys"]["Condition"] == {"StringEquals": {f"aws:RequestTag/{tag}": "dev"}}
    assert by_sid["TagStageApiKeysOnCreate"]["Condition"] == {
        "StringEquals": {f"aws:RequestTag/{tag}": "dev"}
    }
    assert by_sid["ManageStageApiKeys"]["Condition"] == {"StringEquals": {f"aws:ResourceTag/{tag}": "dev"}}
    assert set(by_sid["ManageStageApiKeys"]["Action"]) == {
        "apigateway:GET",
        "apigateway:PATCH",
        "apigateway:DELETE",
    }
    assert by_sid["ListApiKeys"]["Action"] == "apigateway:GET"
    for statement in gateway:
        if statement["Sid"] not in ("ListApiKeys", "ManageUsagePlanKeys"):
            assert "Condition" in statement, statement["Sid"]
    # no other function may touch API Gateway
    for name, fn in aurra_functions(dev).items():
        if name != c.ADMIN:
            assert not any(a.startswith("apigateway:") for a in actions(dev, ref(fn["Properties"]["Role"])))


def test_admin_function_has_no_route(dev: Synth) -> None:
    admin_id = function_logical_ids(dev)[c.ADMIN]
    for method in dev.of_type("AWS::ApiGateway::Method").values():
        assert admin_id not in json.dumps(method["Properties"]["Integration"])
    for permission in dev.of_type("AWS::Lambda::Permission").values():
        assert ref(permission["Properties"]["FunctionName"]) != admin_id


def render_gateway_template(template: str) -> dict:
    text = template.replace("$context.error.messageString", json.dumps("Some message"))
    return json.loads(text)


def test_gateway_errors_use_the_api_error_envelope(dev: Synth) -> None:
    responses = {
        r["Properties"]["ResponseType"]: r["Properties"]
        for r in dev.of_type("AWS::ApiGateway::GatewayResponse").values()
    }
    assert set(responses) == set(GATEWAY_RESPONSES)
    api_codes = {
        "bad_request",
        "unauthorized",
        "not_found",
        "conflict",
        "payload_too_large",
        "validation_error",
        "rate_limited",
        "internal",
        "unavailable",  # 503, as the handlers answer when the database is unreachable
        "forbidden",  # 403, the WAF's managed rules (deployed stages with the WAF)
    }
    for response_type, props in responses.items():
        headers = props["ResponseParameters"]
        assert headers["gatewayresponse.header.X-Content-Type-Options"] == "'nosniff'", response_type
        assert headers["gatewayresponse.header.Cache-Control"] == "'no-store'", response_type
        body = render_gateway_template(props["ResponseTemplates"]["application/json"])
        assert set(body) == {"error"}
        assert set(body["error"]) == {"code", "message", "details"}, response_type
        assert body["error"]["details"] == [], response_type
        assert body["error"]["code"] in api_codes
        assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    expected = {
        "UNAUTHORIZED": ("401", "unauthorized"),
        "ACCESS_DENIED": ("401", "unauthorized"),
        "THROTTLED": ("429", "rate_limited"),
        "QUOTA_EXCEEDED": ("429", "rate_limited"),
        "REQUEST_TOO_LARGE": ("413", "payload_too_large"),
        "MISSING_AUTHENTICATION_TOKEN": ("404", "not_found"),
        "DEFAULT_5XX": (None, "internal"),
        "AUTHORIZER_FAILURE": ("503", "unavailable"),
        "WAF_FILTERED": ("403", "forbidden"),
    }
    for response_type, (status, code) in expected.items():
        props = responses[response_type]
        assert props.get("StatusCode") == status, response_type
        body = render_gateway_template(props["ResponseTemplates"]["application/json"])
        assert body["error"]["code"] == code, response_type
    # An authorizer that failed (the database is down) rather than refused: retry shortly.
    assert (
        responses["AUTHORIZER_FAILURE"]["ResponseParameters"]["gatewayresponse.header.Retry-After"] == "'2'"
    )


def test_stage_has_json_access_logs_tracing_and_execution_logs(dev: Synth) -> None:
    (stage,) = dev.of_type("AWS::ApiGateway::Stage").values()
    props = stage["Properties"]
    assert props["StageName"] == "dev"
    assert props["TracingEnabled"] is True
    log_format = json.loads(props["AccessLogSetting"]["Format"])
    assert {"requestId", "status", "apiKeyId", "tenantId", "latencyMs"} <= set(log_format)
    destination = json.dumps(props["AccessLogSetting"]["DestinationArn"])
    assert any(group in destination for group in dev.of_type("AWS::Logs::LogGroup"))
    (settings,) = props["MethodSettings"]
    assert settings["LoggingLevel"] == "ERROR"
    assert settings["DataTraceEnabled"] is False


def test_waf_is_on_outside_dev(dev: Synth, prod: Synth) -> None:
    assert not dev.of_type("AWS::WAFv2::WebACL")
    (acl,) = prod.of_type("AWS::WAFv2::WebACL").values()
    assert acl["Properties"]["Scope"] == "REGIONAL"
    assert len(prod.of_type("AWS::WAFv2::WebACLAssociation")) == 1


# -------------------------------------------------------------- database
def test_database_is_encrypted_backed_up_and_pgvector_capable(dev: Synth) -> None:
    (cluster,) = dev.of_type("AWS::RDS::DBCluster").values()
    props = cluster["Properties"]
    assert props["Engine"] == "aurora-postgresql"
    major, minor = (int(x) for x in props["EngineVersion"].split(".")[:2])
    assert (major, minor) >= (16, 8), "pgvector 0.8 (iterative scans) needs 16.8+"
    assert props["StorageEncrypted"] is True
    assert props["BackupRetentionPeriod"] >= 7
    assert props["EnableIAMDatabaseAuthentication"] is True
    assert props["EnableCloudwatchLogsExports"] == ["postgresql"]
    assert props["ServerlessV2ScalingConfiguration"] == {"MinCapacity": 0.5, "MaxCapacity": 4}
    assert props["DatabaseName"] == c.DB_NAME
    assert cluster["DeletionPolicy"] == "Snapshot"


def test_database_is_not_public(dev: Synth) -> None:
    instances = dev.of_type("AWS::RDS::DBInstance")
    assert instances
    for instance in instances.values():
        assert instance["Properties"]["PubliclyAccessible"] is False
    # its subnets have no route to an internet gateway
    (subnet_group,) = dev.of_type("AWS::RDS::DBSubnetGroup").values()
    db_subnets = {ref(s) for s in subnet_group["Properties"]["SubnetIds"]}
    assert db_subnets and all("dataSubnet" in s for s in db_subnets)
    assert not dev.of_type("AWS::EC2::InternetGateway")
    # nothing reaches it but the proxy and the functions doing DDL (one group)
    (cluster,) = dev.of_type("AWS::RDS::DBCluster").values()
    (cluster_sg,) = [ref(g) for g in cluster["Properties"]["VpcSecurityGroupIds"]]
    sources = set()
    for rule in dev.of_type("AWS::EC2::SecurityGroupIngress").values():
        if ref(rule["Properties"]["GroupId"]) == cluster_sg:
            assert "CidrIp" not in rule["Properties"]
            sources.add(ref(rule["Properties"]["SourceSecurityGroupId"]))
    (proxy,) = dev.of_type("AWS::RDS::DBProxy").values()
    (proxy_sg,) = [ref(g) for g in proxy["Properties"]["VpcSecurityGroupIds"]]
    direct_sgs = {
        ref(g)
        for name, fn in aurra_functions(dev).items()
        if "db_direct" in c.CAPABILITIES[name]
        for g in fn["Properties"]["VpcConfig"]["SecurityGroupIds"]
    }
    assert len(direct_sgs) == 1
    # and the secret rotation functions, which sign in to change passwords (one group)
    rotation_sgs = {g for g in dev.of_type("AWS::EC2::SecurityGroup") if "RotationSecurityGroup" in g}
    assert len(rotation_sgs) == 1
    assert sources == {proxy_sg} | direct_sgs | rotation_sgs
    assert "SecurityGroupIngress" not in dev.resources[cluster_sg]["Properties"]


def test_deletion_protection_outside_dev_only(dev: Synth, prod: Synth) -> None:
    (dev_cluster,) = dev.of_type("AWS::RDS::DBCluster").values()
    (prod_cluster,) = prod.of_type("AWS::RDS::DBCluster").values()
    assert dev_cluster["Properties"]["DeletionProtection"] is False
    assert prod_cluster["Properties"]["DeletionProtection"] is True
    # and production gets a reader in a second AZ
    assert len(dev.of_type("AWS::RDS::DBInstance")) == 1
    assert len(prod.of_type("AWS::RDS::DBInstance")) == 2


def test_proxy_requires_tls_and_iam_and_holds_only_the_service_logins(dev: Synth) -> None:
    (proxy,) = dev.of_type("AWS::RDS::DBProxy").values()
    props = proxy["Properties"]
    assert props["EngineFamily"] == "POSTGRESQL"
    assert props["RequireTLS"] is True
    users = set()
    for auth in props["Auth"]:
        assert auth["AuthScheme"] == "SECRETS"
        assert auth["IAMAuth"] == "REQUIRED"
        attachment = dev.resources[ref(auth["SecretArn"])]
        assert attachment["Type"] == "AWS::SecretsManager::SecretTargetAttachment"
        secret = dev.resources[ref(attachment["Properties"]["SecretId"])]
        template = json.loads(secret["Properties"]["GenerateSecretString"]["SecretStringTemplate"])
        users.add(template["username"])
    # the master user is not reachable through the proxy at all
    assert users == set(c.DB_LOGINS)


# ------------------------------------------------------------- functions
def test_every_aurra_function_exists_once(dev: Synth) -> None:
    assert set(aurra_functions(dev)) == set(c.ALL_FUNCTIONS)


def test_every_function_is_in_the_vpc_and_carries_the_layer(dev: Synth) -> None:
    (layer_id,) = (k for k in dev.of_type("AWS::Lambda::LayerVersion") if not k.startswith("ConsoleDeploy"))
    app_subnets = {k for k in dev.of_type("AWS::EC2::Subnet") if "appSubnet" in k}
    for name, fn in aurra_functions(dev).items():
        props = fn["Properties"]
        assert [ref(layer) for layer in props["Layers"]] == [layer_id], name
        vpc = props["VpcConfig"]
        assert {ref(s) for s in vpc["SubnetIds"]} == app_subnets, name
        assert vpc["SecurityGroupIds"], name
    # The only other functions are the custom resource provider framework's, which answers
    # CloudFormation through a pre-signed S3 URL and so stays outside the isolated VPC (it
    # only invokes the migrate function), and the console deployment's (S3 and CloudFront).
    others = list(framework_functions(dev).values())
    assert len(others) == 1
    assert others[0]["Properties"]["Runtime"].startswith("nodejs")
    deployment = [k for k in dev.of_type("AWS::Lambda::Function") if k.startswith(CONSOLE_DEPLOYMENT)]
    assert len(deployment) == 1


def test_functions_runtime_logging_tracing_and_code(dev: Synth) -> None:
    log_groups = dev.of_type("AWS::Logs::LogGroup")
    for name, fn in aurra_functions(dev).items():
        props = fn["Properties"]
        assert props["Handler"] == "handler.lambda_handler"
        assert props["Runtime"] == "python3.13"
        assert props["Architectures"] == ["arm64"]
        assert props["TracingConfig"] == {"Mode": "Active"}
        logging = props["LoggingConfig"]
        assert logging["LogFormat"] == "JSON"
        group = log_groups[ref(logging["LogGroup"])]["Properties"]
        assert group["LogGroupName"] == f"/aws/lambda/aurra-dev-{name}"
        assert group["RetentionInDays"] == 30


def test_functions_get_the_layer_settings(dev: Synth) -> None:
    required = {
        c.ENV_STAGE: "dev",
        c.ENV_DB_NAME: "aurra",
        c.ENV_CLASSIFIER: "bedrock",
        c.ENV_EMBEDDER: "bedrock",
        c.ENV_EMBEDDING_DIM: "1024",
        c.ENV_FLAG_SOURCE: "ssm",
        c.ENV_LEVEL2_PARAMETER: "/aurra/dev/level2_enabled",
        c.ENV_METRICS_NAMESPACE: "Aurra",
        c.ENV_LOG_LEVEL: "INFO",
        "OPENBLAS_NUM_THREADS": "1",
        "PYDANTIC_DISABLE_PLUGINS": "__all__",
    }
    (proxy_id,) = dev.of_type("AWS::RDS::DBProxy")
    (cluster_id,) = dev.of_type("AWS::RDS::DBCluster")
    (master_attachment,) = [
        logical_id
        for logical_id, a in dev.of_type("AWS::SecretsManager::SecretTargetAttachment").items()
        if "Cluster" in ref(a["Properties"]["SecretId"])
    ]
    for name, fn in aurra_functions(dev).items():
        env = fn["Properties"]["Environment"]["Variables"]
        for key, value in required.items():
            assert env[key] == value, (name, key)
        assert env[c.ENV_SERVICE_NAME] == f"aurra-dev-{name}"
        assert c.ENV_ANTHROPIC_SECRET_ARN not in env
        if "db_direct" in c.CAPABILITIES[name]:
            # the writer endpoint for DDL (migrations, index builds), as the master user
            assert ref(env[c.ENV_DB_HOST]) == cluster_id, name
            assert ref(env[c.ENV_DB_SECRET_ARN]) == master_attachment, name
            assert c.ENV_DB_USER not in env
        else:
            # the proxy, as a service login with IAM: no secret, no password
            assert ref(env[c.ENV_DB_HOST]) == proxy_id, name
            expected = c.DB_KEY_ADMIN_USER if name == c.ADMIN else c.DB_SERVICE_USER
            assert env[c.ENV_DB_USER] == expected, name
            assert c.ENV_DB_SECRET_ARN not in env, name


def database_secrets(synth: Synth) -> dict:
    """The database's secret: every Secrets Manager secret but the cursor signing key."""
    return {
        k: v for k, v in synth.of_type("AWS::SecretsManager::Secret").items() if "CursorSigningKey" not in k
    }


def test_cursors_are_signed_with_a_generated_secret_only_the_paginating_functions_read(dev: Synth) -> None:
    (secret_id,) = [k for k in dev.of_type("AWS::SecretsManager::Secret") if "CursorSigningKey" in k]
    secret = dev.resources[secret_id]["Properties"]
    assert secret["Name"] == "aurra/dev/cursor-signing-key"
    assert "GenerateSecretString" in secret and "SecretString" not in secret
    fns = aurra_functions(dev)
    given = {
        name
        for name, fn in fns.items()
        if c.ENV_CURSOR_SECRET_ARN in fn["Properties"]["Environment"]["Variables"]
    }
    assert given == {c.QUERY, c.AUDIT}
    for name in given:
        assert ref(fns[name]["Properties"]["Environment"]["Variables"][c.ENV_CURSOR_SECRET_ARN]) == secret_id
    readers = {
        name
        for name, fn in fns.items()
        if any(
            secret_id in json.dumps(s.get("Resource")) for s in statements(dev, ref(fn["Properties"]["Role"]))
        )
    }
    assert readers == {c.QUERY, c.AUDIT}


def test_each_function_has_its_own_role_without_managed_policies(dev: Synth) -> None:
    roles = [ref(fn["Properties"]["Role"]) for fn in aurra_functions(dev).values()]
    assert len(set(roles)) == len(roles)
    for logical_id, role in dev.of_type("AWS::IAM::Role").items():
        if logical_id.startswith(CONSOLE_DEPLOYMENT):
            # CDK's own deployment function, run at deploy time only (infra/nag.py says why)
            continue
        assert "ManagedPolicyArns" not in role["Properties"] or all(
            "AmazonAPIGatewayPushToCloudWatchLogs" in json.dumps(arn)
            for arn in role["Properties"]["ManagedPolicyArns"]
        )


def test_least_privilege_by_function(dev: Synth) -> None:
    by_name = {name: ref(fn["Properties"]["Role"]) for name, fn in aurra_functions(dev).items()}
    granted = {name: actions(dev, role) for name, role in by_name.items()}
    # the master secret (and the logins' secrets) only where the schema is changed or every
    # tenant's rows are read (the dispatcher's outbox); the paginating functions read the
    # cursor signing key and no other secret
    readers = {n for n, a in granted.items() if "secretsmanager:GetSecretValue" in a}
    assert readers == {c.MIGRATE, c.MAINTENANCE, c.DISPATCHER, c.QUERY, c.AUDIT}
    for name in (c.QUERY, c.AUDIT):
        reads = [
            s
            for s in statements(dev, by_name[name])
            if "secretsmanager:GetSecretValue" in json.dumps(s["Action"])
        ]
        assert reads and all("CursorSigningKey" in json.dumps(s["Resource"]) for s in reads), name
    assert {n for n, a in granted.items() if "rds-db:connect" in a} == (
        set(c.ROUTE_FUNCTIONS) | {c.AUTHORIZER, c.ADMIN, c.LEVEL2_WORKER}
    )
    # only the functions that run Level 2 read its flag: the write function and the Level 2 worker
    assert {n for n, a in granted.items() if "ssm:GetParameter" in a} == {c.WRITE, c.LEVEL2_WORKER}
    # only the embedding functions call Bedrock's Titan; Claude only the write function and the
    # Level 2 worker (which classifies what a write stored)
    bedrock = {n for n, a in granted.items() if "bedrock:InvokeModel" in a}
    assert bedrock == {c.WRITE, c.QUERY, c.SUPERSEDE, c.LEVEL2_WORKER}
    for name in bedrock:
        invoke = [s for s in statements(dev, by_name[name]) if s["Action"] == "bedrock:InvokeModel"]
        resources = [json.dumps(resolve(dev, s["Resource"], "us-east-1")) for s in invoke]
        assert all(c.TITAN_EMBED_V2 in r or "anthropic.claude" in r for r in resources), name
        assert any("anthropic.claude" in r for r in resources) == (name in (c.WRITE, c.LEVEL2_WORKER)), name
        assert not any("*" in r for r in resources), name
    for name, acts in granted.items():
        assert not any(a.endswith(":*") or a == "*" for a in acts), (name, acts)


def test_functions_know_the_models_a_key_may_choose_and_new_keys_budget(dev: Synth, bare_prod: Synth) -> None:
    """The settings route refuses any other model (422); new keys start with the stage's limit."""
    block = json.loads((c.REPO_ROOT / "cdk.json").read_text())["context"]["stages"]["prod"]
    for synth, models, limit in (
        (dev, ["claude-haiku-4-5-20251001"], "5000"),
        (bare_prod, block["classifierModels"], str(block["dailyModelCallsLimit"])),
    ):
        for name, fn in aurra_functions(synth).items():
            env = fn["Properties"]["Environment"]["Variables"]
            assert json.loads(env[c.ENV_CLASSIFIER_MODELS]) == models, name
            assert env[c.ENV_DEFAULT_DAILY_MODEL_CALLS_LIMIT] == limit, name


def test_claude_on_bedrock_is_the_default_classifier(dev: Synth) -> None:
    for name, fn in aurra_functions(dev).items():
        assert fn["Properties"]["Environment"]["Variables"][c.ENV_CLASSIFIER] == "bedrock", name
    warnings = Annotations.from_stack(dev.stack).find_warning("*", Match.any_value())
    assert not [w for w in warnings if "classifier=rules" in json.dumps(w.entry.data)]


def test_choosing_the_rules_classifier_warns_with_its_held_out_precision(offline_rules: Synth) -> None:
    (warning,) = [
        w
        for w in Annotations.from_stack(offline_rules.stack).find_warning("*", Match.any_value())
        if "classifier=rules" in json.dumps(w.entry.data)
    ]
    text = str(warning.entry.data)
    assert f"precision {c.RULES_HELDOUT_PRECISION:.3f}" in text and c.RULES_CLASSIFIER_VERSION in text
    assert f"recall {c.RULES_HELDOUT_RECALL:.3f}" in text
    assert rules_classifier_warning() in text
    for fn in aurra_functions(offline_rules).values():
        assert fn["Properties"]["Environment"]["Variables"][c.ENV_CLASSIFIER] == "rules"
    # no model at all: nothing may invoke Bedrock, and there is no endpoint for it
    assert "bedrock:InvokeModel" not in json.dumps(offline_rules.template)
    for endpoint in offline_rules.of_type("AWS::EC2::VPCEndpoint").values():
        assert "bedrock" not in json.dumps(endpoint["Properties"]["ServiceName"])


def test_no_bedrock_unless_selected(prod: Synth) -> None:
    text = json.dumps(prod.template["Resources"])
    assert "bedrock" not in text
    for endpoint in prod.of_type("AWS::EC2::VPCEndpoint").values():
        assert "bedrock" not in json.dumps(endpoint["Properties"]["ServiceName"])


def test_anthropic_classifier_gets_a_secret_and_a_way_out(prod: Synth) -> None:
    (secret_id,) = [k for k in prod.of_type("AWS::SecretsManager::Secret") if "Anthropic" in k]
    secret = prod.resources[secret_id]["Properties"]
    assert secret["Name"] == "aurra/prod/anthropic-api-key"
    assert "GenerateSecretString" in secret and "SecretString" not in secret
    fns = aurra_functions(prod)
    for _name, fn in fns.items():
        assert ref(fn["Properties"]["Environment"]["Variables"][c.ENV_ANTHROPIC_SECRET_ARN]) == secret_id
    readers = {
        name
        for name, fn in fns.items()
        if any(
            secret_id in json.dumps(s.get("Resource"))
            for s in statements(prod, ref(fn["Properties"]["Role"]))
        )
    }
    assert readers == {c.WRITE, c.LEVEL2_WORKER}
    # the Anthropic API is on the internet: NAT for the app subnets, one gateway per AZ outside dev
    assert len(prod.of_type("AWS::EC2::NatGateway")) == 2
    assert len(prod.of_type("AWS::EC2::InternetGateway")) == 1
    # only the function that calls the model provider may leave the VPC (and the one that
    # delivers webhooks); the others reach AWS
    # services through the endpoints
    cidr = next(iter(prod.of_type("AWS::EC2::VPC").values()))["Properties"]["CidrBlock"]
    groups = prod.of_type("AWS::EC2::SecurityGroup")

    def open_to_the_internet(group_id: str) -> bool:
        egress = groups[group_id]["Properties"].get("SecurityGroupEgress", [])
        return any(rule.get("CidrIp") == "0.0.0.0/0" for rule in egress)

    for name, fn in fns.items():
        ids = [ref(g) for g in fn["Properties"]["VpcConfig"]["SecurityGroupIds"]]
        # and the Level 2 worker (its classifier is outside AWS in prod) and the dispatcher, which
        # delivers webhooks (on outside dev)
        expected = name in (c.WRITE, c.LEVEL2_WORKER, c.DISPATCHER)
        assert any(open_to_the_internet(g) for g in ids) == expected, name
    internet = [g for g in groups if open_to_the_internet(g)]
    assert len(internet) == 1
    assert [r["FromPort"] for r in groups[internet[0]]["Properties"]["SecurityGroupEgress"]] == [443]
    for group_id, group in groups.items():
        for rule in group["Properties"].get("SecurityGroupEgress", []):
            if rule.get("FromPort") == 443 and group_id not in internet:
                assert rule.get("CidrIp") in (cidr, None), (group_id, rule)


# ------------------------------------------------------------ network
def test_new_vpc_is_isolated_with_endpoints(dev: Synth) -> None:
    assert not dev.of_type("AWS::EC2::NatGateway")
    services = {
        json.dumps(e["Properties"]["ServiceName"]).split(".")[-1].strip('"]}')
        for e in dev.of_type("AWS::EC2::VPCEndpoint").values()
    }
    # no CloudWatch Logs endpoint (Lambda ships the functions' logs itself); EventBridge for the
    # dispatcher's PutEvents, SQS for asynchronous Level 2's queue
    assert services == {"secretsmanager", "ssm", "events", "xray", "apigateway", "bedrock-runtime", "sqs"}
    assert len(dev.of_type("AWS::EC2::FlowLog")) == 1


def test_functions_reach_only_the_proxy_and_https(dev: Synth) -> None:
    for logical_id, group in dev.of_type("AWS::EC2::SecurityGroup").items():
        for rule in group["Properties"].get("SecurityGroupEgress", []):
            assert rule.get("CidrIp") != "0.0.0.0/0" or rule.get("FromPort") == 443, logical_id
        for rule in group["Properties"].get("SecurityGroupIngress", []):
            assert rule.get("CidrIp") != "0.0.0.0/0", logical_id


# ------------------------------------------------------- flags, migrations
def test_level2_flag_is_created_false(dev: Synth) -> None:
    dev.assertions().has_resource_properties(
        "AWS::SSM::Parameter",
        {
            "Name": "/aurra/dev/level2_enabled",
            "Type": "String",
            "Value": "false",
            "AllowedPattern": "^(true|false)$",
        },
    )


def test_migrations_run_on_deploy_with_the_fingerprint(dev: Synth) -> None:
    (resource,) = dev.of_type("Custom::AurraMigrations").values()
    props = resource["Properties"]
    assert props["MigrationsFingerprint"] == dev.stack.migrations.fingerprint
    assert len(props["MigrationsFingerprint"]) == 64
    assert props["EmbeddingDim"] == "1024"
    # the provider's handler is the migrate function
    migrate_id = function_logical_ids(dev)[c.MIGRATE]
    framework = list(framework_functions(dev).values())
    assert migrate_id in json.dumps(framework[0]["Properties"]["Environment"])
    assert any("DatabaseCluster" in d for d in resource.get("DependsOn", []))


def test_maintenance_runs_on_a_schedule_after_the_migrations(dev: Synth) -> None:
    maintenance_id = function_logical_ids(dev)[c.MAINTENANCE]
    (rule,) = [
        r
        for r in dev.of_type("AWS::Events::Rule").values()
        if r["Properties"]["Name"] == "aurra-dev-maintenance"
    ]
    props = rule["Properties"]
    assert props["ScheduleExpression"] == "rate(1 hour)"  # how CDK renders 60 minutes
    assert props["State"] == "ENABLED"
    assert "HNSW" in props["Description"]
    (target,) = props["Targets"]
    assert ref(target["Arn"]) == maintenance_id
    assert target["RetryPolicy"]["MaximumEventAgeInSeconds"] == c.MAINTENANCE_SCHEDULE_MINUTES * 60
    # EventBridge may invoke the function, and only from this rule
    (permission,) = [
        p["Properties"]
        for p in dev.of_type("AWS::Lambda::Permission").values()
        if ref(p["Properties"]["FunctionName"]) == maintenance_id
    ]
    assert permission["Principal"] == "events.amazonaws.com"
    assert ref(permission["SourceArn"]) in dev.of_type("AWS::Events::Rule")
    # a failed run waits for the next one rather than being retried
    (invoke_config,) = [
        v
        for v in dev.of_type("AWS::Lambda::EventInvokeConfig").values()
        if ref(v["Properties"]["FunctionName"]) == maintenance_id
    ]
    assert invoke_config["Properties"]["MaximumRetryAttempts"] == 0
    (migrations_id,) = dev.of_type("Custom::AurraMigrations")
    assert migrations_id in rule.get("DependsOn", [])


def test_only_the_write_function_may_start_the_maintenance_function(dev: Synth) -> None:
    """A large import asks for its tenant's own index now (POST /agent/imports/index): the
    write function invokes the maintenance function, which no other function may."""
    functions = aurra_functions(dev)
    maintenance_id = function_logical_ids(dev)[c.MAINTENANCE]
    for name, fn in functions.items():
        invokes = False
        for st in statements(dev, ref(fn["Properties"]["Role"])):
            acted = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
            if "lambda:InvokeFunction" in acted:
                resources = st["Resource"] if isinstance(st["Resource"], list) else [st["Resource"]]
                assert "*" not in resources, (name, st)
                invokes = invokes or maintenance_id in json.dumps(resources)
        assert invokes == (name == c.WRITE), name
        environment = fn["Properties"].get("Environment", {}).get("Variables", {})
        named = environment.get(c.ENV_MAINTENANCE_FUNCTION_NAME)
        assert (named == {"Ref": maintenance_id}) == (name == c.WRITE), (name, named)


def test_maintenance_builds_indexes_on_the_writer_like_migrate(dev: Synth) -> None:
    fns = aurra_functions(dev)
    maintenance, migrate = fns[c.MAINTENANCE]["Properties"], fns[c.MIGRATE]["Properties"]
    assert maintenance["Timeout"] == 900
    assert maintenance["VpcConfig"]["SecurityGroupIds"] == migrate["VpcConfig"]["SecurityGroupIds"]
    (cluster_id,) = dev.of_type("AWS::RDS::DBCluster")
    assert ref(maintenance["Environment"]["Variables"][c.ENV_DB_HOST]) == cluster_id
    # no route: the schedule and the write function invoke it
    maintenance_id = function_logical_ids(dev)[c.MAINTENANCE]
    for method in dev.of_type("AWS::ApiGateway::Method").values():
        assert maintenance_id not in json.dumps(method["Properties"]["Integration"])


def test_the_migrate_function_computes_the_same_fingerprint(dev: Synth) -> None:
    """The function acts only on an event whose fingerprint is its code's own (a rollback's is
    not): both sides must compute it alike."""
    from aurra_core.storage.migrate import migrations_fingerprint as layer_fingerprint

    (resource,) = dev.of_type("Custom::AurraMigrations").values()
    assert resource["Properties"]["MigrationsFingerprint"] == layer_fingerprint() == migrations_fingerprint()


def test_migrations_fingerprint_follows_the_sql_files(tmp_path) -> None:
    missing = migrations_fingerprint(tmp_path / "nope")
    empty = tmp_path / "migrations"
    empty.mkdir()
    assert migrations_fingerprint(empty) == missing
    (empty / "0001_init.sql").write_text("CREATE EXTENSION IF NOT EXISTS vector;\n")
    first = migrations_fingerprint(empty)
    assert first != missing
    (empty / "notes.txt").write_text("ignored")
    assert migrations_fingerprint(empty) == first
    (empty / "0002_more.sql").write_text("SELECT 1;\n")
    second = migrations_fingerprint(empty)
    assert second != first
    (empty / "0002_more.sql").write_text("SELECT 2;\n")
    assert migrations_fingerprint(empty) != second


# ---------------------------------------------------------- observability
def test_alarms_on_errors_latency_and_classifier(dev: Synth) -> None:
    alarms = {
        a["Properties"]["AlarmName"]: a["Properties"] for a in dev.of_type("AWS::CloudWatch::Alarm").values()
    }
    assert {
        "aurra-dev-api-5xx-rate",
        "aurra-dev-api-latency-p99",
        "aurra-dev-classifier-errors",
    } <= set(alarms)
    (classifier,) = alarms["aurra-dev-classifier-errors"]["Metrics"]
    metric = classifier["MetricStat"]["Metric"]
    assert metric["Namespace"] == "Aurra"
    assert metric["MetricName"] == "ClassifierErrors"
    assert metric["Dimensions"] == [{"Name": "service", "Value": "aurra-dev-write"}]
    (latency,) = alarms["aurra-dev-api-latency-p99"]["Metrics"]
    assert latency["MetricStat"]["Stat"] == "p99"
    assert latency["MetricStat"]["Metric"]["MetricName"] == "Latency"
    rate = [m for m in alarms["aurra-dev-api-5xx-rate"]["Metrics"] if m.get("ReturnData", True)]
    assert len(rate) == 1 and "errors / requests" in rate[0]["Expression"]
    for props in alarms.values():
        # silence is a failure only where it means something stopped
        missing = "breaching" if props["AlarmName"].endswith(("-silent", "-outbox-lag")) else "notBreaching"
        assert props["AlarmActions"] and props["TreatMissingData"] == missing, props["AlarmName"]
    assert len(dev.of_type("AWS::CloudWatch::Dashboard")) == 1


def test_alarm_topic_enforces_tls_and_subscribes_on_request(dev: Synth, prod: Synth) -> None:
    assert len(dev.of_type("AWS::SNS::TopicPolicy")) == 1
    assert not dev.of_type("AWS::SNS::Subscription")
    (subscription,) = prod.of_type("AWS::SNS::Subscription").values()
    assert subscription["Properties"]["Endpoint"] == "ops@example.com"


def test_outputs_name_what_operators_need(dev: Synth) -> None:
    assert {
        "ApiUrl",
        "UsagePlanId",
        "AdminFunctionName",
        "MaintenanceFunctionName",
        "Level2Parameter",
    } <= set(dev.template["Outputs"])


@pytest.mark.parametrize("name", c.ALL_FUNCTIONS)
def test_function_folder_has_a_handler(name: str) -> None:
    handler = c.FUNCTIONS_DIR / name / "handler.py"
    assert handler.is_file()
    # Read, not imported: infra imports nothing from the functions or the layer.
    tree = ast.parse(handler.read_text())
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)} | {
        t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)
    }
    assert "lambda_handler" in defined


def resolve(s: Synth, value, region: str, account: str = "123456789012"):
    """A template value as CloudFormation would evaluate it in `region` (the intrinsics the
    stack uses in IAM resources: Ref of pseudo parameters, Fn::Join, Fn::Split, Fn::FindInMap)."""
    if isinstance(value, list):
        return [resolve(s, v, region, account) for v in value]
    if not isinstance(value, dict):
        return value
    if "Ref" in value:
        return {"AWS::Region": region, "AWS::Partition": "aws", "AWS::AccountId": account}[value["Ref"]]
    if "Fn::Join" in value:
        separator, parts = value["Fn::Join"]
        return separator.join(str(resolve(s, p, region, account)) for p in parts)
    if "Fn::Split" in value:
        separator, source = value["Fn::Split"]
        return resolve(s, source, region, account).split(separator)
    if "Fn::FindInMap" in value:
        name, first, second = (resolve(s, v, region, account) for v in value["Fn::FindInMap"])
        return s.template["Mappings"][name][first][second]
    return {k: resolve(s, v, region, account) for k, v in value.items()}


def claude_grant(s: Synth, region: str) -> tuple[set[str], list[tuple[list[str], list[str]]]]:
    """The write role's Claude statements evaluated in `region`: the profiles it may invoke, and
    each statement on foundation models with the profiles its condition requires."""
    write = aurra_functions(s)[c.WRITE]
    found = [
        resolve(s, st, region)
        for st in statements(s, ref(write["Properties"]["Role"]))
        if st.get("Sid", "").startswith("InvokeClaude")
    ]
    profiles = {
        r
        for st in found
        if "Condition" not in st
        for r in ([st["Resource"]] if isinstance(st["Resource"], str) else st["Resource"])
    }
    through = [
        (st["Resource"], st["Condition"]["StringEquals"]["bedrock:InferenceProfileArn"])
        for st in found
        if "Condition" in st
    ]
    return profiles, through


@pytest.mark.parametrize(
    ("region", "profile", "destinations"),
    [
        ("us-east-1", "us", {"us-east-1", "us-east-2", "us-west-1", "us-west-2"}),
        (
            "eu-west-1",
            "eu",
            {
                "eu-central-1",
                "eu-central-2",
                "eu-north-1",
                "eu-south-1",
                "eu-south-2",
                "eu-west-1",
                "eu-west-2",
                "eu-west-3",
            },
        ),
        ("ap-southeast-1", "global", {"ap-southeast-1", ""}),
    ],
)
def test_the_write_role_invokes_exactly_the_regions_inference_profile(
    dev: Synth, region: str, profile: str, destinations: set[str]
) -> None:
    """The dev stack names no region: a mapping by region gives the profile of the region's
    geography (global where the model offers no other there), and the model in that profile's
    destination regions, only through that profile."""
    model = "anthropic.claude-haiku-4-5-20251001-v1:0"
    profile_arn = f"arn:aws:bedrock:{region}:123456789012:inference-profile/{profile}.{model}"
    profiles, through = claude_grant(dev, region)
    assert profiles == {profile_arn}
    ((resources, condition),) = through
    assert condition == profile_arn
    assert {r.split(":")[3] for r in resources} == destinations
    assert all(
        r.startswith("arn:aws:bedrock:") and r.endswith(f"::foundation-model/{model}") for r in resources
    )
    # the layer calls the same profile from that region
    from aurra_core.classifiers.claude import bedrock_model_id

    assert bedrock_model_id("claude-haiku-4-5-20251001", region) == f"{profile}.{model}"


def test_each_allowed_model_gets_its_profile_and_a_stack_with_a_region_needs_no_mapping(
    existing: Synth,
) -> None:
    """The existing-VPC stage names its region (eu-west-1): the grant is written out, no mapping."""
    assert not [m for m in existing.template.get("Mappings", {}) if "ClaudeProfiles" in m]
    profiles, through = claude_grant(existing, "eu-west-1")
    assert profiles == {
        "arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-haiku-4-5-20251001-v1:0"
    }
    assert [condition for _, condition in through] == sorted(profiles)


def test_a_model_no_profile_serves_in_the_stacks_region_stops_synth(tmp_path) -> None:
    from infra_testkit import existing_vpc_lookup, synthesize

    with pytest.raises(
        ValueError, match="no Bedrock inference profile serves claude-opus-4-1-20250805 from eu-west-1"
    ):
        synthesize(
            tmp_path,
            stage="shared",
            alarmEmail="oncall@example.com",
            vpcId="vpc-0123456789abcdef0",
            account="123456789012",
            region="eu-west-1",
            classifierModels="claude-haiku-4-5-20251001,claude-opus-4-1-20250805",
            **existing_vpc_lookup("123456789012", "eu-west-1"),
        )


# ------------------------------------------------------------ existing VPC
def test_existing_vpc_is_used_as_is(existing: Synth) -> None:
    assert not existing.of_type("AWS::EC2::VPC")
    assert not existing.of_type("AWS::EC2::VPCEndpoint")
    (subnet_group,) = existing.of_type("AWS::RDS::DBSubnetGroup").values()
    assert subnet_group["Properties"]["SubnetIds"] == [f"subnet-{3:017x}", f"subnet-{4:017x}"]
    for name, fn in aurra_functions(existing).items():
        assert fn["Properties"]["VpcConfig"]["SubnetIds"] == [f"subnet-{1:017x}", f"subnet-{2:017x}"], name


def test_bedrock_classifier_may_invoke_claude_from_write_and_the_level2_worker_only(existing: Synth) -> None:
    for name, fn in aurra_functions(existing).items():
        claude = [
            s
            for s in statements(existing, ref(fn["Properties"]["Role"]))
            if "anthropic.claude" in json.dumps(s.get("Resource"))
        ]
        if name in (c.WRITE, c.LEVEL2_WORKER):
            assert claude and all(s["Action"] == "bedrock:InvokeModel" for s in claude)
        else:
            assert not claude, name
