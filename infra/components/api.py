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
  handlers: {"error": {"code": ..., "message": ...}}.
- JSON access logs with the caller's key id and tenant; execution logs at
  ERROR; X-Ray tracing. An optional WAF web ACL (`wafEnabled`).
"""

from __future__ import annotations

import json

import aws_cdk as cdk
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_logs as logs
from aws_cdk import aws_wafv2 as wafv2
from constructs import Construct

from infra import constants as c
from infra.components.common import retention
from infra.components.functions import Functions
from infra.config import AurraConfig


def _envelope(code: str, message: str | None = None) -> str:
    """The API's error envelope as a gateway response template.

    Without a fixed message, API Gateway's own message is used
    (`$context.error.messageString` is already a quoted JSON string).
    """
    text = json.dumps(message) if message is not None else "$context.error.messageString"
    return '{"error": {"code": "%s", "message": %s}}' % (code, text)


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


class Api(Construct):
    def __init__(
        self, scope: Construct, construct_id: str, *, config: AurraConfig, functions: Functions
    ) -> None:
        super().__init__(scope, construct_id)
        self.access_logs = logs.LogGroup(
            self,
            "AccessLogs",
            retention=retention(config.log_retention_days),
            removal_policy=cdk.RemovalPolicy.DESTROY,
        )
        self.rest_api = apigw.RestApi(
            self,
            "RestApi",
            rest_api_name=c.api_name(config.stage),
            description=f"Aurra memory API ({config.stage})",
            endpoint_types=[apigw.EndpointType.REGIONAL],
            api_key_source_type=apigw.ApiKeySourceType.AUTHORIZER,
            cloud_watch_role=config.api_gateway_cloudwatch_role,
            deploy_options=apigw.StageOptions(
                stage_name=config.stage,
                tracing_enabled=True,
                access_log_destination=apigw.LogGroupLogDestination(self.access_logs),
                access_log_format=apigw.AccessLogFormat.custom(json.dumps(ACCESS_LOG_FIELDS)),
                logging_level=apigw.MethodLoggingLevel.ERROR,
                data_trace_enabled=False,
                metrics_enabled=False,
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
        # Path parameters are declared required and checked by API Gateway.
        # Body validation is on as well, but no method declares a request
        # model, so bodies reach the handlers, which own the API's 400/422
        # answers (with `details`).
        self.validator = self.rest_api.add_request_validator(
            "RequestValidator",
            request_validator_name="aurra-requests",
            validate_request_parameters=True,
            validate_request_body=True,
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
            # As on the handlers' answers (aurra_core.api.RESPONSE_HEADERS).
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
        self.usage_plan.add_api_stage(stage=self.stage)

        self.web_acl: wafv2.CfnWebACL | None = None
        if config.waf_enabled:
            self._add_waf(config)

    # ------------------------------------------------------------------ WAF
    def _add_waf(self, config: AurraConfig) -> None:
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
                visibility_config=_visibility(name),
            )

        def _visibility(name: str) -> wafv2.CfnWebACL.VisibilityConfigProperty:
            return wafv2.CfnWebACL.VisibilityConfigProperty(
                cloud_watch_metrics_enabled=True,
                metric_name=f"{c.api_name(config.stage)}-{name}",
                sampled_requests_enabled=True,
            )

        # Rule groups that never look at body size: memory writes carry up to
        # 4000 characters plus 8 KiB of metadata.
        rules = [
            managed("AWSManagedRulesAmazonIpReputationList", 0),
            managed("AWSManagedRulesKnownBadInputsRuleSet", 1),
            wafv2.CfnWebACL.RuleProperty(
                name="RateLimitPerIp",
                priority=2,
                action=wafv2.CfnWebACL.RuleActionProperty(block={}),
                statement=wafv2.CfnWebACL.StatementProperty(
                    rate_based_statement=wafv2.CfnWebACL.RateBasedStatementProperty(
                        limit=config.waf_rate_limit, aggregate_key_type="IP"
                    )
                ),
                visibility_config=_visibility("RateLimitPerIp"),
            ),
        ]
        self.web_acl = wafv2.CfnWebACL(
            self,
            "WebAcl",
            scope="REGIONAL",
            default_action=wafv2.CfnWebACL.DefaultActionProperty(allow={}),
            rules=rules,
            visibility_config=_visibility("WebAcl"),
        )
        wafv2.CfnWebACLAssociation(
            self,
            "WebAclAssociation",
            resource_arn=self.stage.stage_arn,
            web_acl_arn=self.web_acl.attr_arn,
        )
