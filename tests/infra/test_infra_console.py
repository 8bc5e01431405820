"""The console on CloudFront: a private bucket read through origin access control, the API on
the same origin, the console's security headers, its router function, and its deployment."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from infra_testkit import PROD_DOMAIN, REPO_ROOT, Synth, synthesize
from test_infra_template import ref

from infra import constants as c

# CloudFront's managed policies (their ids are fixed by AWS).
CACHING_DISABLED = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
CACHING_OPTIMIZED = "658327ea-f89d-4fab-a63d-7e88639e58f6"
ALL_VIEWER_EXCEPT_HOST_HEADER = "b689b0a8-53d0-40ab-baf2-68738e2966ac"
CERTIFICATE = "arn:aws:acm:us-east-1:123456789012:certificate/0f0e0d0c-0b0a-4999-8888-777766665555"


def _one(synth: Synth, resource_type: str) -> tuple[str, dict]:
    found = synth.of_type(resource_type)
    assert len(found) == 1, f"{resource_type}: {list(found)}"
    return next(iter(found.items()))


def _distribution(synth: Synth) -> dict:
    return _one(synth, "AWS::CloudFront::Distribution")[1]["Properties"]["DistributionConfig"]


def _files_bucket(synth: Synth) -> str:
    return next(k for k in synth.of_type("AWS::S3::Bucket") if k.startswith("ConsoleFiles"))


@pytest.fixture(scope="module")
def custom_domain(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    return synthesize(
        tmp_path_factory.mktemp("cdk-console-domain"),
        consoleDomainName="memory.example.com",
        consoleCertificateArn=CERTIFICATE,
    )


def test_the_files_bucket_is_private_encrypted_and_logged(dev: Synth) -> None:
    bucket = dev.resources[_files_bucket(dev)]["Properties"]
    assert bucket["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    assert bucket["BucketEncryption"]["ServerSideEncryptionConfiguration"][0][
        "ServerSideEncryptionByDefault"
    ] == {"SSEAlgorithm": "AES256"}
    assert bucket["LoggingConfiguration"]["LogFilePrefix"] == "console-bucket/"
    assert "WebsiteConfiguration" not in bucket


def test_only_this_distribution_reads_the_bucket(dev: Synth) -> None:
    name = _files_bucket(dev)
    policy = next(
        r["Properties"]["PolicyDocument"]
        for r in dev.of_type("AWS::S3::BucketPolicy").values()
        if r["Properties"]["Bucket"] == {"Ref": name}
    )
    allows = [s for s in policy["Statement"] if s["Effect"] == "Allow"]
    cloudfront = [s for s in allows if s["Principal"] == {"Service": "cloudfront.amazonaws.com"}]
    assert len(cloudfront) == 1
    statement = cloudfront[0]
    assert statement["Action"] == "s3:GetObject"
    distribution_id = _one(dev, "AWS::CloudFront::Distribution")[0]
    assert distribution_id in json.dumps(statement["Condition"]["StringEquals"]["AWS:SourceArn"])
    # Nobody else but the deployment (CDK's custom resources, by their roles) is allowed anything.
    others = [s for s in allows if s is not statement]
    assert all("AWS" in s["Principal"] for s in others), others
    denies = [s for s in policy["Statement"] if s["Effect"] == "Deny"]
    assert any(s["Condition"] == {"Bool": {"aws:SecureTransport": "false"}} for s in denies)


def test_origin_access_control_signs_every_request(dev: Synth) -> None:
    oac_id, oac = _one(dev, "AWS::CloudFront::OriginAccessControl")
    config = oac["Properties"]["OriginAccessControlConfig"]
    assert config["OriginAccessControlOriginType"] == "s3"
    assert config["SigningBehavior"] == "always"
    assert config["SigningProtocol"] == "sigv4"
    assert not dev.of_type("AWS::CloudFront::CloudFrontOriginAccessIdentity")
    s3_origins = [o for o in _distribution(dev)["Origins"] if "S3OriginConfig" in o]
    assert len(s3_origins) == 1
    assert s3_origins[0]["OriginAccessControlId"] == {"Fn::GetAtt": [oac_id, "Id"]}
    assert s3_origins[0]["S3OriginConfig"] == {"OriginAccessIdentity": ""}


def test_the_api_is_on_the_same_origin_uncached_with_the_authorization_header(dev: Synth) -> None:
    config = _distribution(dev)
    [behavior] = config["CacheBehaviors"]
    assert behavior["PathPattern"] == "/agent/*"
    assert behavior["CachePolicyId"] == CACHING_DISABLED
    assert behavior["OriginRequestPolicyId"] == ALL_VIEWER_EXCEPT_HOST_HEADER
    assert behavior["ViewerProtocolPolicy"] == "https-only"
    assert set(behavior["AllowedMethods"]) == {"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"}
    # the API's answers carry HSTS on this host too (a policy of their own: the console's CSP
    # is for its pages)
    policy_id = ref(behavior["ResponseHeadersPolicyId"])
    policy = dev.resources[policy_id]["Properties"]["ResponseHeadersPolicyConfig"]
    assert policy["Name"] == c.console_api_headers_policy_name("dev")
    assert policy["SecurityHeadersConfig"] == {
        "StrictTransportSecurity": {
            "AccessControlMaxAgeSec": 365 * 24 * 3600,
            "IncludeSubdomains": True,
            "Override": True,
        }
    }
    assert policy_id != ref(config["DefaultCacheBehavior"]["ResponseHeadersPolicyId"])
    origin = next(o for o in config["Origins"] if o["Id"] == behavior["TargetOriginId"])
    rest_api = next(iter(dev.of_type("AWS::ApiGateway::RestApi")))
    assert rest_api in json.dumps(origin["DomainName"])
    assert "execute-api" in json.dumps(origin["DomainName"])
    # the stage's path, taken from the stage's own URL
    stage = next(iter(dev.of_type("AWS::ApiGateway::Stage")))
    assert origin["OriginPath"]["Fn::Join"][1][0] == "/"
    assert stage in json.dumps(origin["OriginPath"])
    custom = origin["CustomOriginConfig"]
    assert custom["OriginProtocolPolicy"] == "https-only"
    assert custom["OriginSSLProtocols"] == ["TLSv1.2"]


def test_with_a_custom_domain_the_api_behind_the_console_is_the_domain(prod: Synth) -> None:
    """With `domainName` the execute-api endpoint is disabled (it answers 403 to everything):
    the console's `/agent/*` goes to the custom domain, which maps its root to the stage, so the
    path carries no stage prefix."""
    (api,) = prod.of_type("AWS::ApiGateway::RestApi").values()
    assert api["Properties"]["DisableExecuteApiEndpoint"] is True
    config = _distribution(prod)
    [behavior] = config["CacheBehaviors"]
    assert behavior["PathPattern"] == "/agent/*"
    assert behavior["OriginRequestPolicyId"] == ALL_VIEWER_EXCEPT_HOST_HEADER
    origin = next(o for o in config["Origins"] if o["Id"] == behavior["TargetOriginId"])
    assert origin["DomainName"] == PROD_DOMAIN
    assert not origin.get("OriginPath")
    assert "execute-api" not in json.dumps(config)
    assert origin["CustomOriginConfig"]["OriginProtocolPolicy"] == "https-only"
    assert origin["CustomOriginConfig"]["OriginSSLProtocols"] == ["TLSv1.2"]
    # the domain serves the stage at its root
    (mapping,) = prod.of_type("AWS::ApiGateway::BasePathMapping").values()
    assert not mapping["Properties"].get("BasePath")
    (domain,) = prod.of_type("AWS::ApiGateway::DomainName").values()
    assert domain["Properties"]["DomainName"] == PROD_DOMAIN


def test_static_files_over_https_with_the_console_security_headers(dev: Synth) -> None:
    config = _distribution(dev)
    default = config["DefaultCacheBehavior"]
    assert default["ViewerProtocolPolicy"] == "redirect-to-https"
    assert default["CachePolicyId"] == CACHING_OPTIMIZED
    assert sorted(default["AllowedMethods"]) == ["GET", "HEAD"]
    policy_id = ref(default["ResponseHeadersPolicyId"])
    policy = dev.resources[policy_id]
    assert len(dev.of_type("AWS::CloudFront::ResponseHeadersPolicy")) == 2  # and the API's (HSTS)
    headers = json.loads((REPO_ROOT / "console" / "security-headers.json").read_text())
    config = policy["Properties"]["ResponseHeadersPolicyConfig"]
    security = config["SecurityHeadersConfig"]
    # The same policy aurra dev sends, so the browser test checks what AWS serves.
    assert security["ContentSecurityPolicy"]["ContentSecurityPolicy"] == headers["Content-Security-Policy"]
    assert "unsafe" not in headers["Content-Security-Policy"]
    assert security["FrameOptions"]["FrameOption"] == "DENY"
    assert security["ReferrerPolicy"]["ReferrerPolicy"] == "no-referrer"
    assert security["ContentTypeOptions"]["Override"] is True
    assert security["StrictTransportSecurity"]["AccessControlMaxAgeSec"] == 365 * 24 * 3600
    custom = {h["Header"]: h["Value"] for h in config["CustomHeadersConfig"]["Items"]}
    assert custom == {
        "Cross-Origin-Opener-Policy": headers["Cross-Origin-Opener-Policy"],
        "Permissions-Policy": headers["Permissions-Policy"],
    }


def test_logs_of_the_distribution_go_to_an_expiring_bucket(dev: Synth) -> None:
    logging = _distribution(dev)["Logging"]
    log_bucket = logging["Bucket"]["Fn::GetAtt"][0]
    properties = dev.resources[log_bucket]["Properties"]
    assert properties["LifecycleConfiguration"]["Rules"][0]["ExpirationInDays"] == 30
    assert properties["PublicAccessBlockConfiguration"]["BlockPublicPolicy"] is True
    assert logging["Prefix"] == "cloudfront/"


def test_the_deployment_copies_the_console_folder_and_invalidates_it(dev: Synth) -> None:
    [deployment] = [r for r in dev.resources.values() if r["Type"] == "Custom::CDKBucketDeployment"]
    properties = deployment["Properties"]
    assert properties["DestinationBucketKeyPrefix"] == "console"
    assert properties["DistributionPaths"] == ["/console/*"]
    assert properties["Prune"] is True
    # Removing the stack empties the bucket, so the bucket (DESTROY) goes with it.
    assert properties["RetainOnDelete"] is False
    assert dev.resources[_files_bucket(dev)]["DeletionPolicy"] == "Delete"
    # The asset staged for it is the console folder, without the headers file (configuration).
    staged = [p for p in dev.outdir.glob("asset.*") if (p / "index.html").is_file()]
    assert len(staged) == 1
    files = {p.name for p in staged[0].iterdir()}
    assert files == {p.name for p in (REPO_ROOT / "console").iterdir()} - {"security-headers.json"}


ROUTER_CASES = [
    ("/", {"redirect": "/console/"}),
    ("/console", {"redirect": "/console/"}),
    ("/console/", {"uri": "/console/index.html"}),
    ("/console/app.js", {"uri": "/console/app.js"}),
]


@pytest.mark.skipif(shutil.which("node") is None, reason="no Node.js to run the CloudFront Function's code")
def test_the_router_function_redirects_the_folder_and_serves_its_index(dev: Synth, tmp_path: Path) -> None:
    _, function = _one(dev, "AWS::CloudFront::Function")
    properties = function["Properties"]
    assert properties["FunctionConfig"]["Runtime"] == "cloudfront-js-2.0"
    script = tmp_path / "router.js"
    script.write_text(
        properties["FunctionCode"]
        + "\nconst out = process.argv.slice(2).map((uri) => handler({request: {uri, headers: {}}}));"
        + "\nconsole.log(JSON.stringify(out));\n"
    )
    result = subprocess.run(
        ["node", str(script), *(uri for uri, _ in ROUTER_CASES)],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    for (uri, expected), answer in zip(ROUTER_CASES, json.loads(result.stdout), strict=True):
        if "redirect" in expected:
            assert answer["statusCode"] == 301, uri
            assert answer["headers"]["location"]["value"] == expected["redirect"], uri
        else:
            assert answer["uri"] == expected["uri"], uri


def test_outputs_name_the_console_and_the_api_on_its_origin(dev: Synth) -> None:
    outputs = dev.template["Outputs"]
    assert "/console/" in json.dumps(outputs["ConsoleUrl"]["Value"])
    assert "/agent" in json.dumps(outputs["ConsoleApiUrl"]["Value"])


def test_a_custom_domain_uses_its_certificate_and_tls_1_2(custom_domain: Synth) -> None:
    from cdk_nag import AwsSolutionsChecks

    config = _distribution(custom_domain)
    assert config["Aliases"] == ["memory.example.com"]
    assert config["ViewerCertificate"] == {
        "AcmCertificateArn": CERTIFICATE,
        "MinimumProtocolVersion": "TLSv1.2_2021",
        "SslSupportMethod": "sni-only",
    }
    assert custom_domain.template["Outputs"]["ConsoleUrl"]["Value"] == "https://memory.example.com/console/"
    # With a certificate of its own, nothing is acknowledged about the viewer TLS version.
    report = AwsSolutionsChecks(custom_domain.app, verbose=True).validate_scope(custom_domain.app)
    assert [v.rule_name for v in report.violations] == []


def test_the_console_can_be_left_out(tmp_path: Path) -> None:
    synth = synthesize(tmp_path, consoleEnabled="false")
    assert synth.stack.console is None
    assert not synth.of_type("AWS::CloudFront::Distribution")
    assert not [r for r in synth.resources.values() if r["Type"] == "Custom::CDKBucketDeployment"]
    assert "ConsoleUrl" not in synth.template["Outputs"]


@pytest.mark.parametrize(
    ("context", "problem"),
    [
        ({"consoleDomainName": "memory.example.com"}, "together"),
        (
            {
                "consoleDomainName": "memory.example.com",
                "consoleCertificateArn": CERTIFICATE.replace("us-east-1", "eu-west-1"),
            },
            "us-east-1",
        ),
    ],
)
def test_a_custom_domain_needs_a_certificate_cloudfront_can_use(context: dict, problem: str) -> None:
    from infra.config import AurraConfig, ConfigError

    with pytest.raises(ConfigError, match=problem):
        AurraConfig.from_mapping(context)


# ------------------------------------------------------------ the console's web ACL
CONSOLE_ACL = (
    "arn:aws:wafv2:us-east-1:123456789012:global/webacl/aurra-prod-console/"
    "a1b2c3d4-5678-90ab-cdef-EXAMPLE11111".lower()
)


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    """`cdk deploy -c stage=prod -c edge=true`: the stage's stack in us-east-1."""
    return synthesize(tmp_path_factory.mktemp("cdk-edge"), stage="prod", edge="true")


def test_the_edge_stack_holds_a_cloudfront_web_acl_in_us_east_1(edge: Synth, prod: Synth) -> None:
    assert edge.stack.stack_name == "Aurra-prod-edge" and edge.stack.region == "us-east-1"
    (acl,) = edge.of_type("AWS::WAFv2::WebACL").values()
    props = acl["Properties"]
    assert props["Scope"] == "CLOUDFRONT" and props["Name"] == "aurra-prod-console"
    assert props["AssociationConfig"] == {
        "RequestBody": {"CLOUDFRONT": {"DefaultSizeInspectionLimit": "KB_64"}}
    }
    # the API's own rules, the same answers
    (api_acl,) = prod.of_type("AWS::WAFv2::WebACL").values()
    assert [r["Name"] for r in props["Rules"]] == [r["Name"] for r in api_acl["Properties"]["Rules"]]
    assert props["CustomResponseBodies"] == api_acl["Properties"]["CustomResponseBodies"]
    (logging,) = edge.of_type("AWS::WAFv2::LoggingConfiguration").values()
    # the console's searches are query strings: its log redacts them as the API's does
    (api_logging,) = prod.of_type("AWS::WAFv2::LoggingConfiguration").values()
    assert (
        logging["Properties"]["RedactedFields"]
        == api_logging["Properties"]["RedactedFields"]
        == [
            {"SingleHeader": {"Name": "authorization"}},
            {"SingleHeader": {"Name": "cookie"}},
            {"QueryString": {}},
        ]
    )
    assert "aws-waf-logs-aurra-prod-console" in json.dumps(logging["Properties"]["LogDestinationConfigs"])
    assert "ConsoleWebAclArn" in edge.template["Outputs"]
    # nothing else lives there
    assert {r["Type"] for r in edge.resources.values()} == {
        "AWS::WAFv2::WebACL",
        "AWS::WAFv2::LoggingConfiguration",
        "AWS::Logs::LogGroup",
    }


def test_the_edge_stack_passes_the_checks(edge: Synth) -> None:
    from cfnlint.api import lint
    from test_infra_checks import unacknowledged

    assert unacknowledged(edge.app) == []
    errors = [m for m in lint(json.dumps(edge.template), regions=["us-east-1"]) if m.rule.id.startswith("E")]
    assert errors == [], "\n".join(str(m) for m in errors)


def test_the_distribution_takes_the_web_acl_from_the_stage_settings(tmp_path: Path, bare_prod: Synth) -> None:
    from aws_cdk.assertions import Annotations, Match

    # not yet deployed: served without one, and synth says what to do
    assert "WebACLId" not in _distribution(bare_prod)
    warnings = Annotations.from_stack(bare_prod.stack).find_warning("*", Match.any_value())
    assert any("Aurra-prod-edge" in json.dumps(w.entry.data) for w in warnings)
    with_acl = synthesize(tmp_path, stage="prod", consoleWebAclArn=CONSOLE_ACL)
    assert _distribution(with_acl)["WebACLId"] == CONSOLE_ACL
    assert not [
        w
        for w in Annotations.from_stack(with_acl.stack).find_warning("*", Match.any_value())
        if "Aurra-prod-edge" in json.dumps(w.entry.data)
    ]


def test_dev_has_no_console_web_acl_unless_asked(dev: Synth) -> None:
    from infra.config import AurraConfig, ConfigError

    assert "WebACLId" not in _distribution(dev)
    with pytest.raises(SystemExit, match="no web ACL"):
        synthesize(Path("/nonexistent-never-written"), edge="true")
    assert AurraConfig.from_mapping({"consoleWafEnabled": "true"}).resolved_console_waf_enabled
    assert not AurraConfig.from_mapping(
        {"consoleEnabled": "false", "wafEnabled": "true"}
    ).resolved_console_waf_enabled
    with pytest.raises(ConfigError, match="context consoleWebAclArn="):
        AurraConfig.from_mapping(
            {"consoleWebAclArn": "arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/x/1"}
        )
