"""API: the REST API of docs/api.md on API Gateway.

- Every route sits behind the Lambda TOKEN authorizer (the `Authorization:
  Bearer <key>` header), whose answer API Gateway caches for
  `authorizerCacheTtlSeconds`. The authorizer allows the whole API, so one
  cached answer serves every route.
- Pay per call: `apiKeySource: AUTHORIZER` and `apiKeyRequired` on every
  method. The authorizer returns the customer's key id as
  `usageIdentifierKey`; API Gateway matches it to the API key of the same
  value (created by the admin function) and meters and throttles it through
  the default usage plan.
- Errors that API Gateway produces itself (no or bad key, throttling, too
  large, unknown route, timeouts) use the same error envelope as the
  handlers: {"error": {"code": ..., "message": ..., "details": []}}.
- Load limits before the database: the authorizer's identity pattern
  refuses a header that is not an Aurra key without invoking anything; a
  stage-wide throttle sized to the database (`stageThrottleRateLimit`) caps
  every key together, the usage plan each key; reserved concurrency caps the
  functions (infra/components/functions.py).
- JSON access logs with the caller's key id and tenant; execution logs at
  ERROR; X-Ray tracing.
- A WAF web ACL, on outside dev (`wafEnabled`): IP reputation, known bad
  inputs, a rate per Authorization header value (junk tokens stop here, not
  at the authorizer), a rate per IP, bodies over 64 KiB refused; its log
  (Authorization redacted) in a log group of its own.
"""

from __future__ import annotations

import json

import aws_cdk as cdk
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from aws_cdk import aws_wafv2 as wafv2
from constructs import Construct

from infra import constants as c
from infra.components.common import acknowledge, retention
from infra.components.functions import Functions
from infra.components.keys import EncryptionKeys
from infra.config import AurraConfig


def _envelope(code: str, message: str | None = None) -> str:
    """The API's error envelope as a gateway response template.

    Without a fixed message, API Gateway's own message is used
    (`$context.error.messageString` is already a quoted JSON string).
    """
    text = json.dumps(message) if message is not None else "$context.error.messageString"
    return f'{{"error": {{"code": "{code}", "message": {text}, "details": []}}}}'


# response type -> (HTTP status or None to keep API Gateway's, code, fixed message)
GATEWAY_RESPONSES: dict[str, tuple[str | None, str, str | None]] = {
    # no Authorization header, a malformed one, or the authorizer raised
    # "Unauthorized" (how the Aurra authorizer rejects a key)
    "UNAUTHORIZED": ("401", "unauthorized", "missing or invalid API key"),
    # an explicit Deny from an authorizer: a 401 as well, never a 403 (docs/api.md)
    "ACCESS_DENIED": ("401", "unauthorized", "missing or invalid API key"),
    # the key's id has no API key in the usage plan (not yet provisioned)
    "INVALID_API_KEY": ("401", "unauthorized", "API key is not enabled for this API"),
    "EXPIRED_TOKEN": ("401", "unauthorized", "missing or invalid API key"),
    "INVALID_SIGNATURE": ("401", "unauthorized", "missing or invalid API key"),
    # an unknown path or method
    "MISSING_AUTHENTICATION_TOKEN": ("404", "not_found", "no such route"),
    "RESOURCE_NOT_FOUND": ("404", "not_found", "no such route"),
    "THROTTLED": ("429", "rate_limited", "too many requests"),
    "QUOTA_EXCEEDED": ("429", "rate_limited", "usage quota exceeded"),
    "REQUEST_TOO_LARGE": ("413", "payload_too_large", "request body too large"),
    "BAD_REQUEST_BODY": ("400", "bad_request", None),
    "BAD_REQUEST_PARAMETERS": ("400", "bad_request", None),
    "UNSUPPORTED_MEDIA_TYPE": ("400", "bad_request", None),
    # the authorizer failed rather than refused (the database is unreachable, say): transient
    "AUTHORIZER_FAILURE": ("503", "unavailable", "the service is unavailable right now; retry shortly"),
    "AUTHORIZER_CONFIGURATION_ERROR": ("500", "internal", "internal error"),
    # the WAF's managed rules (IP reputation, known bad inputs); its rate and
    # size rules answer 429 and 413 themselves (custom responses, below)
    "WAF_FILTERED": ("403", "forbidden", "request blocked"),
    "DEFAULT_4XX": (None, "bad_request", None),
    "DEFAULT_5XX": (None, "internal", "internal error"),
}

ACCESS_LOG_FIELDS = {
    "requestId": "$context.requestId",
    "extendedRequestId": "$context.extendedRequestId",
    "requestTime": "$context.requestTimeEpoch",
    "ip": "$context.identity.sourceIp",
    "userAgent": "$context.identity.userAgent",
    "method": "$context.httpMethod",
    "resource": "$context.resourcePath",
    "path": "$context.path",
    "protocol": "$context.protocol",
    "status": "$context.status",
    "responseLength": "$context.responseLength",
    "latencyMs": "$context.responseLatency",
    "integrationLatencyMs": "$context.integrationLatency",
    "integrationStatus": "$context.integrationStatus",
    "apiKeyId": "$context.identity.apiKeyId",
    "tenantId": "$context.authorizer.tenant_id",
    "aurraKeyId": "$context.authorizer.api_key_id",
    "authorizerStatus": "$context.authorizer.status",
    "authorizerLatencyMs": "$context.authorizer.latency",
    "error": "$context.error.message",
    "errorType": "$context.error.responseType",
    "xrayTraceId": "$context.xrayTraceId",
}


# What a web ACL's log never holds: API keys and session cookies, and query strings (a search's
# text is a memory's words, and an erasure cannot reach a log; docs/privacy.md).
WAF_REDACTED_HEADERS = (c.AUTHORIZATION_HEADER.lower(), "cookie")


def log_web_acl(
    scope: Construct,
    acl: wafv2.CfnWebACL,
    *,
    config: AurraConfig,
    log_group_name: str,
    encryption_key: kms.IKey | None,
    ids: tuple[str, str],
) -> logs.LogGroup:
    """The web ACL's log group and its logging configuration, redacting WAF_REDACTED_HEADERS and
    the query string: the API's web ACL and the console's (console_firewall.py) alike."""
    log_group_id, logging_id = ids
    log_group = logs.LogGroup(
        scope,
        log_group_id,
        # WAF writes only to log groups named aws-waf-logs-*, in the web ACL's region.
        log_group_name=log_group_name,
        retention=retention(config.log_retention_days),
        removal_policy=cdk.RemovalPolicy.DESTROY,
        encryption_key=encryption_key,
    )
    logging = wafv2.CfnLoggingConfiguration(
        scope,
        logging_id,
        resource_arn=acl.attr_arn,
        # the ARN without the trailing ":*" of LogGroup.log_group_arn
        log_destination_configs=[
            cdk.Stack.of(scope).format_arn(
                service="logs",
                resource="log-group",
                resource_name=log_group_name,
                arn_format=cdk.ArnFormat.COLON_RESOURCE_NAME,
            )
        ],
        redacted_fields=[
            *(
                wafv2.CfnLoggingConfiguration.FieldToMatchProperty(single_header={"Name": header})
                for header in WAF_REDACTED_HEADERS
            ),
            wafv2.CfnLoggingConfiguration.FieldToMatchProperty(query_string={}),
        ],
    )
    logging.node.add_dependency(log_group)
    return log_group


def web_acl(
    scope: Construct, construct_id: str, *, config: AurraConfig, name: str, kind: str
) -> wafv2.CfnWebACL:
    """A web ACL of Aurra's rules, answering with the API's own envelopes: `kind` REGIONAL (the
    API's stage) or CLOUDFRONT (the console's distribution, in us-east-1: console_waf.py)."""
    prefix = name

    def visibility(name: str) -> wafv2.CfnWebACL.VisibilityConfigProperty:
        return wafv2.CfnWebACL.VisibilityConfigProperty(
            cloud_watch_metrics_enabled=True,
            metric_name=f"{prefix}-{name}",
            sampled_requests_enabled=True,
        )

    def managed(name: str, priority: int) -> wafv2.CfnWebACL.RuleProperty:
        return wafv2.CfnWebACL.RuleProperty(
            name=name,
            priority=priority,
            override_action=wafv2.CfnWebACL.OverrideActionProperty(none={}),
            statement=wafv2.CfnWebACL.StatementProperty(
                managed_rule_group_statement=wafv2.CfnWebACL.ManagedRuleGroupStatementProperty(
                    vendor_name="AWS", name=name
                )
            ),
            visibility_config=visibility(name),
        )

    def block(
        name: str,
        priority: int,
        statement: wafv2.CfnWebACL.StatementProperty,
        status: int,
        body: str,
        headers: dict[str, str] | None = None,
    ) -> wafv2.CfnWebACL.RuleProperty:
        """A blocking rule that answers with the API's own status and envelope."""
        return wafv2.CfnWebACL.RuleProperty(
            name=name,
            priority=priority,
            action=wafv2.CfnWebACL.RuleActionProperty(
                block=wafv2.CfnWebACL.BlockActionProperty(
                    custom_response=wafv2.CfnWebACL.CustomResponseProperty(
                        response_code=status,
                        custom_response_body_key=body,
                        # as on the handlers' and the gateway's own answers
                        response_headers=[
                            wafv2.CfnWebACL.CustomHTTPHeaderProperty(name=k, value=v)
                            for k, v in {
                                "X-Content-Type-Options": "nosniff",
                                "Cache-Control": "no-store",
                                **(headers or {}),
                            }.items()
                        ],
                    )
                )
            ),
            statement=statement,
            visibility_config=visibility(name),
        )

    bodies = {
        "rate_limited": _envelope("rate_limited", "too many requests"),
        "payload_too_large": _envelope("payload_too_large", "request body too large"),
    }
    retry = {"Retry-After": "60"}

    # An Authorization header of an Aurra key's shape (the authorizer's identity pattern).
    well_formed_key = wafv2.CfnWebACL.StatementProperty(
        regex_match_statement=wafv2.CfnWebACL.RegexMatchStatementProperty(
            regex_string=c.AUTHORIZATION_PATTERN,
            field_to_match=wafv2.CfnWebACL.FieldToMatchProperty(
                single_header={"Name": c.AUTHORIZATION_HEADER.lower()}
            ),
            text_transformations=[wafv2.CfnWebACL.TextTransformationProperty(priority=0, type="NONE")],
        )
    )

    # Rule groups that never look at body size: memory writes carry up to
    # 4000 characters plus 8 KiB of metadata.
    rules = [
        managed("AWSManagedRulesAmazonIpReputationList", 0),
        managed("AWSManagedRulesKnownBadInputsRuleSet", 1),
        # A junk token repeated, or one key far past its usage plan:
        # blocked before the authorizer and its database lookup.
        block(
            c.WAF_RULE_RATE_PER_KEY,
            2,
            wafv2.CfnWebACL.StatementProperty(
                rate_based_statement=wafv2.CfnWebACL.RateBasedStatementProperty(
                    limit=config.resolved_waf_key_rate_limit,
                    aggregate_key_type="CUSTOM_KEYS",
                    custom_keys=[
                        wafv2.CfnWebACL.RateBasedStatementCustomKeyProperty(
                            header=wafv2.CfnWebACL.RateLimitHeaderProperty(
                                name=c.AUTHORIZATION_HEADER.lower(),
                                text_transformations=[
                                    wafv2.CfnWebACL.TextTransformationProperty(priority=0, type="NONE")
                                ],
                            )
                        )
                    ],
                )
            ),
            429,
            "rate_limited",
            retry,
        ),
        # Junk that changes on every request (no key, or not a key's shape): per source
        # address. Requests carrying a well-formed key are left to the per-key rule and the
        # usage plan, so many agents behind one NAT are never held below their plans.
        block(
            c.WAF_RULE_RATE_PER_IP,
            3,
            wafv2.CfnWebACL.StatementProperty(
                rate_based_statement=wafv2.CfnWebACL.RateBasedStatementProperty(
                    limit=config.waf_rate_limit,
                    aggregate_key_type="IP",
                    scope_down_statement=wafv2.CfnWebACL.StatementProperty(
                        not_statement=wafv2.CfnWebACL.NotStatementProperty(statement=well_formed_key)
                    ),
                )
            ),
            429,
            "rate_limited",
            retry,
        ),
        # Well-formed keys that change on every request, from one address: far above what
        # any plan's keys behind one NAT send together.
        block(
            c.WAF_RULE_KEYED_RATE_PER_IP,
            5,
            wafv2.CfnWebACL.StatementProperty(
                rate_based_statement=wafv2.CfnWebACL.RateBasedStatementProperty(
                    limit=config.waf_keyed_rate_limit,
                    aggregate_key_type="IP",
                    scope_down_statement=well_formed_key,
                )
            ),
            429,
            "rate_limited",
            retry,
        ),
        # The WAF inspects the first 64 KiB of a body (see association
        # config); anything beyond is "oversize", which matches.
        block(
            c.WAF_RULE_BODY_SIZE,
            4,
            wafv2.CfnWebACL.StatementProperty(
                size_constraint_statement=wafv2.CfnWebACL.SizeConstraintStatementProperty(
                    comparison_operator="GT",
                    size=c.MAX_BODY_BYTES,
                    field_to_match=wafv2.CfnWebACL.FieldToMatchProperty(
                        body=wafv2.CfnWebACL.BodyProperty(oversize_handling="MATCH")
                    ),
                    text_transformations=[
                        wafv2.CfnWebACL.TextTransformationProperty(priority=0, type="NONE")
                    ],
                )
            ),
            413,
            "payload_too_large",
        ),
    ]
    return wafv2.CfnWebACL(
        scope,
        construct_id,
        name=name,
        scope=kind,
        default_action=wafv2.CfnWebACL.DefaultActionProperty(allow={}),
        rules=rules,
        visibility_config=visibility("WebAcl"),
        custom_response_bodies={
            key: wafv2.CfnWebACL.CustomResponseBodyProperty(content=text, content_type="APPLICATION_JSON")
            for key, text in bodies.items()
        },
        association_config=wafv2.CfnWebACL.AssociationConfigProperty(
            request_body={
                "API_GATEWAY" if kind == "REGIONAL" else "CLOUDFRONT": (
                    wafv2.CfnWebACL.RequestBodyAssociatedResourceTypeConfigProperty(
                        default_size_inspection_limit="KB_64"
                    )
                )
            }
        ),
    )


class Api(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: AurraConfig,
        functions: Functions,
        keys: EncryptionKeys,
    ) -> None:
        super().__init__(scope, construct_id)
        self.logs_key = keys.logs
        self.access_logs = logs.LogGroup(
            self,
            "AccessLogs",
            retention=retention(config.log_retention_days),
            removal_policy=cdk.RemovalPolicy.DESTROY,
            encryption_key=keys.logs,
        )
        self.rest_api = apigw.RestApi(
            self,
            "RestApi",
            rest_api_name=c.api_name(config.stage),
            description=f"Aurra memory API ({config.stage})",
            endpoint_types=[apigw.EndpointType.REGIONAL],
            api_key_source_type=apigw.ApiKeySourceType.AUTHORIZER,
            # with a custom domain (hosting.py), the only way in is through it
            disable_execute_api_endpoint=config.domain_name is not None,
            cloud_watch_role=config.api_gateway_cloudwatch_role,
            deploy_options=apigw.StageOptions(
                stage_name=config.stage,
                tracing_enabled=True,
                access_log_destination=apigw.LogGroupLogDestination(self.access_logs),
                access_log_format=apigw.AccessLogFormat.custom(json.dumps(ACCESS_LOG_FIELDS)),
                logging_level=apigw.MethodLoggingLevel.ERROR,
                data_trace_enabled=False,
                metrics_enabled=False,
                # every key together, so the stage never asks more of the
                # database than it serves (the usage plan limits each key)
                throttling_rate_limit=config.resolved_stage_throttle_rate_limit,
                throttling_burst_limit=config.resolved_stage_throttle_burst_limit,
            ),
        )
        self.stage = self.rest_api.deployment_stage

        self.authorizer = apigw.TokenAuthorizer(
            self,
            "Authorizer",
            authorizer_name=f"{c.api_name(config.stage)}-api-key",
            handler=functions[c.AUTHORIZER],
            identity_source=apigw.IdentitySource.header(c.AUTHORIZATION_HEADER),
            validation_regex=c.AUTHORIZATION_PATTERN,
            results_cache_ttl=cdk.Duration.seconds(config.authorizer_cache_ttl_seconds),
        )
        # Path parameters are declared required and checked by API Gateway. Bodies are not:
        # body validation needs a request model per method, a second copy of the handlers'
        # pydantic models that would answer API Gateway's 400 instead of the API's envelope
        # with `details` (docs/api.md); the handlers own every 400/422. Turned on without a
        # model it checked nothing while reading as if it did.
        self.validator = self.rest_api.add_request_validator(
            "RequestValidator",
            request_validator_name="aurra-requests",
            validate_request_parameters=True,
            validate_request_body=False,
        )
        acknowledge(
            self.rest_api,
            "AwsSolutions-APIG2",
            "Path parameters are validated by API Gateway; every body is validated by its "
            "handler's pydantic model, which answers 400/422 with the API's error envelope and "
            "per-field details. A body validator without request models would check nothing.",
        )

        integrations = {
            name: apigw.LambdaIntegration(functions[name], proxy=True, allow_test_invoke=False)
            for name in c.ROUTE_FUNCTIONS
        }
        self.methods: dict[tuple[str, str], apigw.Method] = {}
        for verb, path, name in c.ROUTES:
            resource = self.rest_api.root.resource_for_path(path)
            request_parameters = {
                f"method.request.path.{part[1:-1]}": True for part in path.split("/") if part.startswith("{")
            }
            self.methods[(verb, path)] = resource.add_method(
                verb,
                integrations[name],
                authorizer=self.authorizer,
                authorization_type=apigw.AuthorizationType.CUSTOM,
                api_key_required=True,
                request_validator=self.validator,
                request_parameters=request_parameters or None,
            )

        for response_type, (status, code, message) in GATEWAY_RESPONSES.items():
            # As on the handlers' answers (aurra_core.api.handlers.RESPONSE_HEADERS).
            headers = {
                "Content-Type": "'application/json'",
                "X-Content-Type-Options": "'nosniff'",
                "Cache-Control": "'no-store'",
            }
            if code == "unauthorized":
                headers["WWW-Authenticate"] = "'Bearer'"
            if code == "unavailable":
                headers["Retry-After"] = "'2'"
            self.rest_api.add_gateway_response(
                f"{response_type.title().replace('_', '')}Response",
                type=getattr(apigw.ResponseType, response_type.replace("XX", "_XX")),
                status_code=status,
                response_headers=headers,
                templates={"application/json": _envelope(code, message)},
            )

        self.usage_plan = self.rest_api.add_usage_plan(
            "DefaultUsagePlan",
            name=c.usage_plan_name(config.stage),
            description=(f"Aurra {config.stage}: the default plan every customer API key joins"),
            throttle=apigw.ThrottleSettings(
                rate_limit=config.throttle_rate_limit,
                burst_limit=config.throttle_burst_limit,
            ),
            quota=apigw.QuotaSettings(
                limit=config.quota_limit,
                period=getattr(apigw.Period, config.quota_period),
            ),
        )
        self.usage_plan.add_api_stage(
            stage=self.stage,
            throttle=[
                apigw.ThrottlingPerMethod(
                    method=self.methods[route],
                    throttle=apigw.ThrottleSettings(
                        rate_limit=max(1.0, round(config.throttle_rate_limit * share, 2)),
                        burst_limit=max(1, int(config.throttle_burst_limit * share)),
                    ),
                )
                for route, share in c.METHOD_THROTTLE_SHARES.items()
            ],
        )

        self.web_acl: wafv2.CfnWebACL | None = None
        self.waf_logs: logs.LogGroup | None = None
        if config.resolved_waf_enabled:
            self._add_waf(config)

    # ------------------------------------------------------------------ WAF
    def _add_waf(self, config: AurraConfig) -> None:
        self.web_acl = web_acl(
            self, "WebAcl", config=config, name=c.web_acl_name(config.stage), kind="REGIONAL"
        )
        wafv2.CfnWebACLAssociation(
            self,
            "WebAclAssociation",
            resource_arn=self.stage.stage_arn,
            web_acl_arn=self.web_acl.attr_arn,
        )
        self.waf_logs = log_web_acl(
            self,
            self.web_acl,
            config=config,
            log_group_name=c.waf_log_group_name(config.stage),
            encryption_key=self.logs_key,
            ids=("WafLogs", "WafLogging"),
        )
