"""Console: the web console on CloudFront, with the API on the same origin.

- The static files (the repository's `console/` folder) live in a private S3 bucket that only
  this distribution can read, through origin access control; the bucket blocks all public
  access and refuses plain HTTP.
- `/agent/*` goes to the REST API's stage (through its custom domain when it has one: the
  execute-api endpoint is then disabled), uncached, with every viewer header but Host (so the
  `Authorization` header reaches the authorizer). The console calls the API on its own origin,
  exactly as under `aurra dev`: no CORS, no API URL to configure, `connect-src 'self'`.
- The console's responses carry the same security headers as `aurra dev` sends
  (`console/security-headers.json`: a strict CSP with no inline script or style), plus HSTS.
- A CloudFront Function sends `/` and `/console` to `/console/` and serves `index.html` for
  the folder, since S3 behind origin access control has no index documents.
- Access logs of the distribution and of the bucket go to a log bucket that expires them.
"""

from __future__ import annotations

import json

import aws_cdk as cdk
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_deployment as s3deploy
from constructs import Construct

from infra import constants as c
from infra.components.api import Api
from infra.components.common import retention
from infra.components.keys import EncryptionKeys
from infra.config import AurraConfig

# Viewer requests of the static behavior: the folder URL and its index document.
_ROUTER = """function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri === "/" || uri === "%(prefix)s") {
    return {statusCode: 301, statusDescription: "Moved Permanently",
            headers: {location: {value: "%(prefix)s/"}, "cache-control": {value: "max-age=3600"}}};
  }
  if (uri.endsWith("/")) {
    request.uri = uri + "index.html";
  }
  return request;
}"""


def api_origin(config: AurraConfig, api: Api) -> cloudfront.IOrigin:
    """Where CloudFront sends `/agent/*`: the stage's execute-api URL, or the API's custom
    domain when it has one (`domainName`), since the execute-api endpoint is then disabled and
    answers 403 to everything. The domain maps its root to the stage (hosting.py), so the
    path is the viewer's, with no stage prefix; Host becomes the domain, which API Gateway
    routes on."""
    if config.domain_name is None:
        return origins.RestApiOrigin(api.rest_api)
    return origins.HttpOrigin(
        config.domain_name,
        protocol_policy=cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
        origin_ssl_protocols=[cloudfront.OriginSslPolicy.TLS_V1_2],
    )


def security_headers() -> dict[str, str]:
    """The console's own security headers, shared with `aurra dev`."""
    return dict(json.loads(c.CONSOLE_SECURITY_HEADERS.read_text()))


class Console(Construct):
    def __init__(
        self, scope: Construct, construct_id: str, *, config: AurraConfig, api: Api, keys: EncryptionKeys
    ) -> None:
        super().__init__(scope, construct_id)
        self.log_bucket = s3.Bucket(
            self,
            "Logs",
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,
            # CloudFront standard logs are written with an ACL granted to the log delivery account.
            object_ownership=s3.ObjectOwnership.OBJECT_WRITER,
            lifecycle_rules=[s3.LifecycleRule(expiration=cdk.Duration.days(config.log_retention_days))],
            removal_policy=cdk.RemovalPolicy.RETAIN,
        )
        self.bucket = s3.Bucket(
            self,
            "Files",
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            server_access_logs_bucket=self.log_bucket,
            server_access_logs_prefix="console-bucket/",
            # only a copy of the repository's console/ folder, rebuilt by every deploy (and
            # emptied by the deployment when the stack goes, so the bucket can go too)
            removal_policy=cdk.RemovalPolicy.DESTROY,
        )

        headers = security_headers()
        self.headers_policy = cloudfront.ResponseHeadersPolicy(
            self,
            "SecurityHeaders",
            response_headers_policy_name=c.console_headers_policy_name(config.stage),
            comment="Aurra console: strict CSP (no inline script or style), HSTS, no framing",
            security_headers_behavior=cloudfront.ResponseSecurityHeadersBehavior(
                content_security_policy=cloudfront.ResponseHeadersContentSecurityPolicy(
                    content_security_policy=headers.pop("Content-Security-Policy"), override=True
                ),
                content_type_options=cloudfront.ResponseHeadersContentTypeOptions(override=True),
                frame_options=cloudfront.ResponseHeadersFrameOptions(
                    frame_option=cloudfront.HeadersFrameOption.DENY, override=True
                ),
                referrer_policy=cloudfront.ResponseHeadersReferrerPolicy(
                    referrer_policy=cloudfront.HeadersReferrerPolicy.NO_REFERRER, override=True
                ),
                strict_transport_security=cloudfront.ResponseHeadersStrictTransportSecurity(
                    access_control_max_age=cdk.Duration.days(365), include_subdomains=True, override=True
                ),
            ),
            custom_headers_behavior=cloudfront.ResponseCustomHeadersBehavior(
                custom_headers=[
                    cloudfront.ResponseCustomHeader(header=name, value=value, override=True)
                    for name, value in headers.items()
                    if name not in ("X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy")
                ]
            ),
        )
        # The API's answers through the console's origin: HSTS as well (the API sets its own
        # other headers; its custom domain's TLS policy does not reach this host).
        self.api_headers_policy = cloudfront.ResponseHeadersPolicy(
            self,
            "ApiSecurityHeaders",
            response_headers_policy_name=c.console_api_headers_policy_name(config.stage),
            comment="Aurra API on the console's origin: HSTS",
            security_headers_behavior=cloudfront.ResponseSecurityHeadersBehavior(
                strict_transport_security=cloudfront.ResponseHeadersStrictTransportSecurity(
                    access_control_max_age=cdk.Duration.days(365), include_subdomains=True, override=True
                ),
            ),
        )
        self.router = cloudfront.Function(
            self,
            "Router",
            function_name=c.console_router_name(config.stage),
            comment="Aurra console: the folder URL and its index document",
            runtime=cloudfront.FunctionRuntime.JS_2_0,
            code=cloudfront.FunctionCode.from_inline(_ROUTER % {"prefix": c.CONSOLE_PATH}),
        )
        self.distribution = cloudfront.Distribution(
            self,
            "Distribution",
            comment=f"Aurra console and API ({config.stage})",
            default_behavior=cloudfront.BehaviorOptions(
                origin=origins.S3BucketOrigin.with_origin_access_control(self.bucket),
                viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
                allowed_methods=cloudfront.AllowedMethods.ALLOW_GET_HEAD,
                cache_policy=cloudfront.CachePolicy.CACHING_OPTIMIZED,
                response_headers_policy=self.headers_policy,
                function_associations=[
                    cloudfront.FunctionAssociation(
                        function=self.router, event_type=cloudfront.FunctionEventType.VIEWER_REQUEST
                    )
                ],
            ),
            additional_behaviors={
                f"/{c.API_ROOT}/*": cloudfront.BehaviorOptions(
                    origin=api_origin(config, api),
                    viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
                    allowed_methods=cloudfront.AllowedMethods.ALLOW_ALL,
                    # Uncached, so CloudFront may forward Authorization with every other viewer
                    # header but Host (API Gateway routes on its own host name).
                    cache_policy=cloudfront.CachePolicy.CACHING_DISABLED,
                    origin_request_policy=cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
                    response_headers_policy=self.api_headers_policy,
                )
            },
            domain_names=[config.console_domain_name] if config.console_domain_name else None,
            certificate=acm.Certificate.from_certificate_arn(
                self, "Certificate", config.console_certificate_arn
            )
            if config.console_certificate_arn
            else None,
            # the CLOUDFRONT-scope web ACL of the stage's edge stack (console_firewall.py)
            web_acl_id=config.console_web_acl_arn if config.resolved_console_waf_enabled else None,
            http_version=cloudfront.HttpVersion.HTTP2_AND_3,
            minimum_protocol_version=cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
            price_class=cloudfront.PriceClass.PRICE_CLASS_100,
            enable_logging=True,
            log_bucket=self.log_bucket,
            log_file_prefix="cloudfront/",
        )
        self.deployment = s3deploy.BucketDeployment(
            self,
            "Deploy",
            sources=[s3deploy.Source.asset(str(c.CONSOLE_DIR), exclude=[c.CONSOLE_SECURITY_HEADERS.name])],
            destination_bucket=self.bucket,
            destination_key_prefix=c.CONSOLE_PATH.lstrip("/"),
            # a deploy replaces the console everywhere at once
            distribution=self.distribution,
            distribution_paths=[f"{c.CONSOLE_PATH}/*"],
            prune=True,
            retain_on_delete=False,
            memory_limit=256,
            # its function's log group: the stage's retention and logs key, not one Lambda
            # would make, kept forever and in clear
            log_group=logs.LogGroup(
                self,
                "DeployLogs",
                retention=retention(config.log_retention_days),
                removal_policy=cdk.RemovalPolicy.DESTROY,
                encryption_key=keys.logs,
            ),
        )

        self.domain_name = config.console_domain_name or self.distribution.distribution_domain_name
        if config.resolved_console_waf_enabled and config.console_web_acl_arn is None:
            cdk.Annotations.of(self).add_warning_v2(
                "aurra:console-web-acl",
                f"the console is served without a web ACL: deploy {c.edge_stack_name(config.stage)} "
                f"(us-east-1) and write its ConsoleWebAclArn output into the {config.stage} block of "
                "cdk.json as consoleWebAclArn (docs/deploy.md, 'The console's web ACL')",
            )

    @property
    def url(self) -> str:
        return f"https://{self.domain_name}{c.CONSOLE_PATH}/"
