"""Deployment settings, read once from CDK context.

Every value has a default, so `cdk synth` needs no context at all. A stage's
own settings live in `cdk.json`, under `context.stages.<stage>`, so that a
later `cdk deploy -c stage=prod` deploys exactly what the first one did; a
`-c key=value` on the command line wins over them for that one run.
Precedence: `-c` (or a top-level context key) > the stage's block in
`cdk.json` > the defaults below. Values given with `-c` arrive as strings;
they are parsed and validated here, and a bad value stops synth with a
message that names the context key. The resolved settings are stack outputs
(`Setting...`), so what a deployed stage runs with can be read back.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from infra import constants as c

# CloudWatch Logs accepts only these retention periods (days).
LOG_RETENTION_DAYS = (
    1,
    3,
    5,
    7,
    14,
    30,
    60,
    90,
    120,
    150,
    180,
    365,
    400,
    545,
    731,
    1096,
    1827,
    2192,
    2557,
    2922,
    3288,
    3653,
)
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
QUOTA_PERIODS = ("DAY", "WEEK", "MONTH")
ARCHITECTURES = ("arm64", "x86_64")
PYTHON_VERSIONS = ("3.12", "3.13")


class ConfigError(ValueError):
    """A context value is missing its form or out of range."""


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off"):
        return False
    raise ValueError(f"not a boolean: {value!r}")


def _optional_str(value: Any) -> str | None:
    text = str(value).strip()
    return text or None


def _str_list(value: Any) -> tuple[str, ...]:
    """A list in cdk.json, or comma-separated on the command line."""
    items = value if isinstance(value, list | tuple) else str(value).split(",")
    return tuple(str(item).strip() for item in items if str(item).strip())


def _optional_int(value: Any) -> int | None:
    """An integer, or none (`null` in cdk.json, `none` on the command line)."""
    if value is None or str(value).strip().lower() in ("none", "null", ""):
        return None
    if isinstance(value, bool):
        raise ValueError(f"not an integer: {value!r}")
    return int(value)


# context key -> (field name, parser)
_KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "stage": ("stage", str),
    "architecture": ("architecture", str),
    "pythonVersion": ("python_version", str),
    "layerPython": ("layer_python", _optional_str),
    "vpcId": ("vpc_id", _optional_str),
    "vpcCidr": ("vpc_cidr", str),
    "maxAzs": ("max_azs", int),
    "natGateways": ("nat_gateways", int),
    "createVpcEndpoints": ("create_vpc_endpoints", _bool),
    "dbMinCapacity": ("db_min_capacity", float),
    "dbMaxCapacity": ("db_max_capacity", float),
    "dbReaders": ("db_readers", int),
    "dbBackupRetentionDays": ("db_backup_retention_days", int),
    "deletionProtection": ("deletion_protection", _bool),
    "dbSecretRotationDays": ("db_secret_rotation_days", int),
    "classifier": ("classifier", str),
    "classifierModels": ("classifier_models", _str_list),
    "dailyModelCallsLimit": ("daily_model_calls_limit", _optional_int),
    "extractor": ("extractor", _optional_str),
    "openaiBaseUrl": ("openai_base_url", _optional_str),
    "openaiModel": ("openai_model", _optional_str),
    "embedder": ("embedder", str),
    "embeddingDim": ("embedding_dim", int),
    "bedrockEmbeddingModelId": ("bedrock_embedding_model_id", str),
    "authorizerCacheTtlSeconds": ("authorizer_cache_ttl_seconds", int),
    "throttleRateLimit": ("throttle_rate_limit", float),
    "throttleBurstLimit": ("throttle_burst_limit", int),
    "quotaLimit": ("quota_limit", int),
    "quotaPeriod": ("quota_period", str),
    "logRetentionDays": ("log_retention_days", int),
    "logLevel": ("log_level", str),
    "alarmEmail": ("alarm_email", _optional_str),
    "alarmEndpoint": ("alarm_endpoint", _optional_str),
    "latencyP99ThresholdMs": ("latency_p99_threshold_ms", int),
    "errorRateThresholdPercent": ("error_rate_threshold_percent", float),
    "classifierErrorsThreshold": ("classifier_errors_threshold", int),
    "wafEnabled": ("waf_enabled", _bool),
    "wafRateLimit": ("waf_rate_limit", int),
    "wafKeyRateLimit": ("waf_key_rate_limit", int),
    "wafKeyedRateLimit": ("waf_keyed_rate_limit", int),
    "apiGatewayCloudWatchRole": ("api_gateway_cloudwatch_role", _bool),
    "stageThrottleRateLimit": ("stage_throttle_rate_limit", float),
    "stageThrottleBurstLimit": ("stage_throttle_burst_limit", int),
    "authorizerConcurrency": ("authorizer_concurrency", int),
    "queryConcurrency": ("query_concurrency", int),
    "writeConcurrency": ("write_concurrency", int),
    "supersedeConcurrency": ("supersede_concurrency", int),
    "settingsConcurrency": ("settings_concurrency", int),
    "auditConcurrency": ("audit_concurrency", int),
    "adminConcurrency": ("admin_concurrency", int),
    "erasureConcurrency": ("erasure_concurrency", int),
    "terminationProtection": ("termination_protection", _bool),
    "unauthorizedAlarmThreshold": ("unauthorized_alarm_threshold", int),
    "throttledAlarmThreshold": ("throttled_alarm_threshold", int),
    "hosted": ("hosted", _bool),
    "customerManagedKeys": ("customer_managed_keys", _bool),
    "backupPlan": ("backup_plan", _bool),
    "backupCopyVaultArn": ("backup_copy_vault_arn", _optional_str),
    "accessLogExport": ("access_log_export", _bool),
    "accessLogRetentionDays": ("access_log_retention_days", int),
    "domainName": ("domain_name", _optional_str),
    "certificateArn": ("certificate_arn", _optional_str),
    "hostedZoneId": ("hosted_zone_id", _optional_str),
    "hostedZoneName": ("hosted_zone_name", _optional_str),
    "consoleEnabled": ("console_enabled", _bool),
    "consoleDomainName": ("console_domain_name", _optional_str),
    "consoleCertificateArn": ("console_certificate_arn", _optional_str),
    "consoleWafEnabled": ("console_waf_enabled", _bool),
    "consoleWebAclArn": ("console_web_acl_arn", _optional_str),
    "webhooks": ("webhooks", _bool),
}
# The context key holding each stage's own settings (a mapping of stage name
# to a mapping of the keys above).
STAGES_KEY = "stages"
CONTEXT_KEYS = tuple(_KEYS)
# Settings of the machine that runs synth, not of the stage: no stack output (a path on one
# machine would change the template from machine to machine).
BUILD_MACHINE_KEYS = frozenset({"layerPython"})


@dataclass(frozen=True)
class AurraConfig:
    """One stage's settings. Field defaults are the documented defaults."""

    stage: str = "dev"
    # Lambda architecture; the layer's wheels are built for the same one.
    architecture: str = "arm64"
    # 3.13: write's import from the same layer takes 2.6% fewer instructions than on 3.12, 5-10%
    # less CPU in interleaved runs (dataclasses are built with one compile each;
    # bench/notes/cold-start.md, "Cold start: Python 3.13 and no plugin scan").
    python_version: str = "3.13"
    # The interpreter (path or command) that compiles the layer's bytecode: of python_version,
    # since Lambda's runtime reads only its own version's .pyc. None: the one running synth,
    # or python<version> on the PATH (infra/components/layer.py, bytecode_python).
    layer_python: str | None = None

    # network: a new VPC, or an existing one by id (needs an account/region
    # environment and a context lookup, cached in cdk.context.json)
    vpc_id: str | None = None
    vpc_cidr: str = "10.40.0.0/16"
    max_azs: int = 2
    # NAT gateways, only created when functions need the internet (the anthropic classifier
    # calls the Anthropic API). None: 1 in dev, one per AZ elsewhere (a gateway lives in one
    # AZ: with one, that AZ's outage takes every model call with it).
    nat_gateways: int | None = None
    # None: yes for a new VPC, no for an existing one
    create_vpc_endpoints: bool | None = None

    # database (Aurora Serverless v2 capacity units; 0 lets it pause)
    db_min_capacity: float = 0.5
    db_max_capacity: float = 4.0
    # None: 0 readers in dev, 1 elsewhere
    db_readers: int | None = None
    db_backup_retention_days: int = 7
    # None: off in dev, on elsewhere
    deletion_protection: bool | None = None
    # 0: no automatic rotation of the database secrets (the master user's and
    # the service logins'); the functions sign in to the proxy with IAM, so
    # rotation never touches a running function's credentials.
    db_secret_rotation_days: int = 30

    # models: Claude Haiku 4.5 on Bedrock by default (the memories stay in the
    # account); `rules` only when asked for, and synth then warns of its precision
    classifier: str = "bedrock"
    # The Claude models a key may choose (`classifier_model`): the operator pays every call, so
    # a key never picks a dearer model than the stage allows. The first is new keys' default
    # unless Claude Haiku 4.5 is listed. Each must be in the layer's table of Claude models
    # (aurra_core/classifiers/bedrock_profiles.py), which the write role's grant follows.
    classifier_models: tuple[str, ...] = (c.DEFAULT_CLASSIFIER_MODEL,)
    # The daily_model_calls_limit every new key starts with (None: no limit). At Claude Haiku
    # 4.5's prices a call costs $0.0008 with the prompt cache warm, $0.0067 cold (docs/deploy.md),
    # so 5,000 calls is at most about $34 a key a day.
    daily_model_calls_limit: int | None = 5000
    # Turns messages writes into facts; None: the classifier's provider.
    extractor: str | None = None
    # The OpenAI-compatible endpoint of the openai classifier or extractor (None: OpenAI's
    # API) and its model; its key goes in the stack's Secrets Manager secret.
    openai_base_url: str | None = None
    openai_model: str | None = None
    embedder: str = "bedrock"
    # None: 1024 with Titan V2 (bedrock), 384 with the local embedder
    embedding_dim: int | None = None
    bedrock_embedding_model_id: str = c.TITAN_EMBED_V2

    # API
    authorizer_cache_ttl_seconds: int = 300
    throttle_rate_limit: float = 50.0
    throttle_burst_limit: int = 100
    quota_limit: int = 1_000_000
    quota_period: str = "MONTH"
    # The whole stage, every key together. None: 50 requests per second per
    # ACU of dbMaxCapacity (200 at the default 4), what one ACU serves of
    # Aurra's mix measured in bench/, with room; the burst twice the rate.
    stage_throttle_rate_limit: float | None = None
    stage_throttle_burst_limit: int | None = None
    # Reserved concurrency of every function (0: none, for accounts whose concurrency quota
    # cannot spare it): a ceiling on what a flood of one route takes from the others and from
    # the database, and a floor no other function can take away. Migrate and maintenance
    # always 1 (one run at a time).
    authorizer_concurrency: int = 20
    query_concurrency: int = 20
    write_concurrency: int = 20
    supersede_concurrency: int = 5
    settings_concurrency: int = 5
    audit_concurrency: int = 5
    admin_concurrency: int = 2
    erasure_concurrency: int = 2
    # None: off in dev, on elsewhere
    waf_enabled: bool | None = None
    # requests per 5 minutes from one IP address without a well-formed key, when the WAF is on
    waf_rate_limit: int = 3000
    # requests per 5 minutes from one IP address with well-formed keys (100 a second: two keys
    # at the default plan's full rate behind one NAT)
    waf_keyed_rate_limit: int = 30_000
    # requests per 5 minutes carrying one Authorization header value. None:
    # the usage plan's per-key rate over 5 minutes, so the WAF never blocks a
    # key the plan would serve, while a junk token repeated stops here
    # instead of reaching the authorizer and the database.
    waf_key_rate_limit: int | None = None
    # API Gateway's account-level CloudWatch role (one per account and
    # region); turn off when another stack already manages it.
    api_gateway_cloudwatch_role: bool = True

    # the web console on CloudFront, with the API on the same origin; a custom domain needs
    # an ACM certificate for it in us-east-1 (CloudFront's region)
    console_enabled: bool = True
    console_domain_name: str | None = None
    console_certificate_arn: str | None = None
    # None: as the API's WAF. The console's CLOUDFRONT-scope web ACL lives in us-east-1, in the
    # stage's edge stack (infra/edge_stack.py); the distribution takes it by its ARN, the edge
    # stack's output, kept here.
    console_waf_enabled: bool | None = None
    console_web_acl_arn: str | None = None

    # observability
    log_retention_days: int = 30
    log_level: str = "INFO"
    # Who the alarm topic reaches: an e-mail address, and/or an HTTPS endpoint (a pager's SNS
    # integration URL). A stage other than dev needs one of them: synth refuses it without.
    alarm_email: str | None = None
    alarm_endpoint: str | None = None
    latency_p99_threshold_ms: int = 3000
    error_rate_threshold_percent: float = 1.0
    classifier_errors_threshold: int = 5
    # 401 and 429 answers per 5 minutes that page someone
    unauthorized_alarm_threshold: int = 500
    throttled_alarm_threshold: int = 500

    # None: off in dev, on elsewhere
    termination_protection: bool | None = None

    # Webhook delivery (the `webhooks` setting of keys): the dispatcher reaches the internet,
    # so the app subnets get NAT, as for a model provider outside AWS. None: off in dev (no
    # NAT; setting a webhook is then a 422 and the change stream is read from GET
    # /agent/events or the event bus), on elsewhere. The event bus is there either way.
    webhooks: bool | None = None

    # hosted mode: the defaults of the four settings after it
    hosted: bool = False
    # None: as `hosted`. Customer-managed KMS keys for the cluster, the
    # secrets, the log groups and the alarm topic (chosen at the first deploy:
    # changing the cluster's key replaces the cluster).
    customer_managed_keys: bool | None = None
    # None: as `hosted`. An AWS Backup plan for the cluster.
    backup_plan: bool | None = None
    # a backup vault (possibly in another account) that each backup is copied to
    backup_copy_vault_arn: str | None = None
    # None: as `hosted`. The access log (one record per call, with key and
    # tenant) copied to an S3 bucket that is kept, for billing.
    access_log_export: bool | None = None
    # How long the exported records are kept (S3 expires them after): a year of billing and
    # a month to settle a dispute. Each record names a key and a tenant, so none stays forever.
    access_log_retention_days: int = 400
    # A custom domain for the API (with an ACM certificate in the region);
    # the default execute-api endpoint is then disabled.
    domain_name: str | None = None
    certificate_arn: str | None = None
    # with both, an alias record for the domain in that Route 53 zone
    hosted_zone_id: str | None = None
    hosted_zone_name: str | None = None

    # ------------------------------------------------------------------ derived
    @property
    def is_dev(self) -> bool:
        return self.stage == "dev"

    @property
    def resolved_deletion_protection(self) -> bool:
        if self.deletion_protection is None:
            return not self.is_dev
        return self.deletion_protection

    @property
    def resolved_db_readers(self) -> int:
        if self.db_readers is None:
            return 0 if self.is_dev else 1
        return self.db_readers

    @property
    def resolved_embedding_dim(self) -> int:
        if self.embedding_dim is not None:
            return self.embedding_dim
        return 1024 if self.embedder == "bedrock" else c.LOCAL_EMBEDDING_DIM

    @property
    def resolved_extractor(self) -> str:
        return self.extractor or self.classifier

    @property
    def model_providers(self) -> frozenset[str]:
        """Who the write function calls for classification and extraction."""
        return frozenset({self.classifier, self.resolved_extractor})

    @property
    def resolved_nat_gateways(self) -> int:
        if self.nat_gateways is None:
            return 1 if self.is_dev else self.max_azs
        return self.nat_gateways

    @property
    def resolved_waf_enabled(self) -> bool:
        return (not self.is_dev) if self.waf_enabled is None else self.waf_enabled

    @property
    def resolved_console_waf_enabled(self) -> bool:
        if not self.console_enabled:
            return False
        return self.resolved_waf_enabled if self.console_waf_enabled is None else self.console_waf_enabled

    @property
    def resolved_waf_key_rate_limit(self) -> int:
        if self.waf_key_rate_limit is not None:
            return self.waf_key_rate_limit
        return max(100, int(self.throttle_rate_limit * 300))

    @property
    def resolved_stage_throttle_rate_limit(self) -> float:
        if self.stage_throttle_rate_limit is not None:
            return self.stage_throttle_rate_limit
        return 50.0 * self.db_max_capacity

    @property
    def resolved_stage_throttle_burst_limit(self) -> int:
        if self.stage_throttle_burst_limit is not None:
            return self.stage_throttle_burst_limit
        return int(2 * self.resolved_stage_throttle_rate_limit)

    @property
    def reserved_concurrency(self) -> dict[str, int]:
        """Reserved concurrency by function name; 0 means none."""
        return {
            c.AUTHORIZER: self.authorizer_concurrency,
            c.QUERY: self.query_concurrency,
            c.WRITE: self.write_concurrency,
            c.SUPERSEDE: self.supersede_concurrency,
            c.SETTINGS: self.settings_concurrency,
            c.AUDIT: self.audit_concurrency,
            c.ADMIN: self.admin_concurrency,
            c.ERASURE: self.erasure_concurrency,
            # one run at a time anyway (an advisory lock); never more containers
            c.MIGRATE: 1,
            c.MAINTENANCE: 1,
            # the queue's own ceiling on its invocations, and one for the sweeper's schedule
            c.LEVEL2_WORKER: c.LEVEL2_MAX_CONCURRENCY + 1,
            # one reader of the outbox: a late invocation waits its turn, or is dropped
            c.DISPATCHER: 1,
        }

    @property
    def resolved_termination_protection(self) -> bool:
        if self.termination_protection is None:
            return not self.is_dev
        return self.termination_protection

    @property
    def resolved_customer_managed_keys(self) -> bool:
        return self.hosted if self.customer_managed_keys is None else self.customer_managed_keys

    @property
    def resolved_backup_plan(self) -> bool:
        return self.hosted if self.backup_plan is None else self.backup_plan

    @property
    def resolved_access_log_export(self) -> bool:
        return self.hosted if self.access_log_export is None else self.access_log_export

    @property
    def uses_bedrock(self) -> bool:
        return "bedrock" in self.model_providers or self.embedder == "bedrock"

    @property
    def resolved_webhooks(self) -> bool:
        return (not self.is_dev) if self.webhooks is None else self.webhooks

    @property
    def models_need_internet(self) -> bool:
        """The classifier or the extractor is outside AWS (the Anthropic API, an OpenAI-compatible
        one)."""
        return bool(self.model_providers & {"anthropic", "openai"})

    @property
    def needs_internet(self) -> bool:
        """Functions call a service outside AWS: a model provider, the tenants' webhooks."""
        return self.models_need_internet or self.resolved_webhooks

    @property
    def resolved_create_vpc_endpoints(self) -> bool:
        if self.create_vpc_endpoints is None:
            return self.vpc_id is None
        return self.create_vpc_endpoints

    # -------------------------------------------------------------- building
    @classmethod
    def from_context(cls, get: Callable[[str], Any]) -> AurraConfig:
        """Build from a context getter such as `app.node.try_get_context`:
        a key given directly wins over the stage's block under `stages`."""
        stage_settings = _stage_settings(get)
        values: dict[str, Any] = {}
        for key, (name, parse) in _KEYS.items():
            raw = get(key)
            if raw is None:
                raw = stage_settings.get(key)
            if raw is None:
                continue
            try:
                values[name] = parse(raw)
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"context {key}={raw!r}: {exc}") from exc
        config = cls(**values)
        config.validate()
        return config

    @classmethod
    def from_mapping(cls, context: Mapping[str, Any]) -> AurraConfig:
        return cls.from_context(context.get)

    def validate(self) -> None:
        def fail(key: str, problem: str) -> None:
            value = getattr(self, _KEYS[key][0])
            raise ConfigError(f"context {key}={value!r}: {problem}")

        if not re.fullmatch(r"[a-z][a-z0-9]{0,11}", self.stage):
            fail("stage", "use 1-12 lowercase letters or digits, starting with a letter")
        if self.architecture not in ARCHITECTURES:
            fail("architecture", f"one of {', '.join(ARCHITECTURES)}")
        if self.python_version not in PYTHON_VERSIONS:
            fail("pythonVersion", f"one of {', '.join(PYTHON_VERSIONS)}")
        if self.vpc_id is not None and not re.fullmatch(r"vpc-[0-9a-f]{8,17}", self.vpc_id):
            fail("vpcId", "an id such as vpc-0123456789abcdef0")
        try:
            network = ipaddress.IPv4Network(self.vpc_cidr)
        except ValueError as exc:
            fail("vpcCidr", str(exc))
        else:
            if not 16 <= network.prefixlen <= 20:
                fail("vpcCidr", "a /16 to /20 IPv4 network (the app subnets are /22)")
        if bool(self.console_domain_name) != bool(self.console_certificate_arn):
            fail("consoleDomainName", "give consoleDomainName and consoleCertificateArn together")
        if self.console_certificate_arn and not re.fullmatch(
            r"arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate/[0-9a-f-]+", self.console_certificate_arn
        ):
            fail("consoleCertificateArn", "an ACM certificate ARN in us-east-1 (CloudFront's region)")
        if self.console_web_acl_arn is not None and not re.fullmatch(
            r"arn:aws[a-z-]*:wafv2:us-east-1:\d{12}:global/webacl/[\w-]+/[\w-]+", self.console_web_acl_arn
        ):
            fail(
                "consoleWebAclArn",
                "the ARN of a CLOUDFRONT-scope web ACL (us-east-1), the edge stack's output",
            )
        if not 1 <= self.max_azs <= 6:
            fail("maxAzs", "between 1 and 6")
        if self.needs_internet and self.vpc_id is None and self.resolved_nat_gateways < 1:
            fail(
                "natGateways",
                "the anthropic and openai models, and webhooks, need at least one NAT gateway",
            )
        if not 0 <= self.db_min_capacity <= self.db_max_capacity <= 256:
            fail("dbMinCapacity", "0 <= dbMinCapacity <= dbMaxCapacity <= 256")
        for key in ("dbMinCapacity", "dbMaxCapacity"):
            if (getattr(self, _KEYS[key][0]) * 2) % 1:
                fail(key, "a multiple of 0.5")
        if self.db_max_capacity < 1:
            fail("dbMaxCapacity", "at least 1")
        if not 0 <= self.resolved_db_readers <= 15:
            fail("dbReaders", "between 0 and 15")
        if not 1 <= self.db_backup_retention_days <= 35:
            fail("dbBackupRetentionDays", "between 1 and 35")
        if self.db_secret_rotation_days and not 1 <= self.db_secret_rotation_days <= 365:
            fail("dbSecretRotationDays", "0 (off) or between 1 and 365")
        if self.classifier not in c.CLASSIFIERS:
            fail("classifier", f"one of {', '.join(c.CLASSIFIERS)}")
        if not self.classifier_models:
            fail("classifierModels", "at least one Claude model id")
        unknown = [m for m in self.classifier_models if m not in c.CLAUDE_MODELS]
        if unknown:
            fail(
                "classifierModels",
                f"{', '.join(unknown)} not among the Claude models Aurra knows ({', '.join(c.CLAUDE_MODELS)})",
            )
        if (
            self.daily_model_calls_limit is not None
            and not 0 <= self.daily_model_calls_limit <= 1_000_000_000
        ):
            fail("dailyModelCallsLimit", "none, or an integer from 0 to 1,000,000,000")
        if self.extractor is not None and self.extractor not in c.EXTRACTORS:
            fail("extractor", f"one of {', '.join(c.EXTRACTORS)}")
        if self.openai_base_url is not None and not re.fullmatch(
            r"https?://[^\s/]+(/\S*)?", self.openai_base_url
        ):
            fail("openaiBaseUrl", "an http(s) URL such as https://api.openai.com/v1")
        if self.openai_model is not None and not re.fullmatch(r"[\w.:/@-]{1,200}", self.openai_model):
            fail("openaiModel", "a model id such as gpt-4o-mini")
        if self.embedder not in c.EMBEDDERS:
            fail("embedder", f"one of {', '.join(c.EMBEDDERS)}")
        if (
            self.embedder == "bedrock"
            and self.bedrock_embedding_model_id == c.TITAN_EMBED_V2
            and self.resolved_embedding_dim not in c.TITAN_EMBED_V2_DIMENSIONS
        ):
            fail("embeddingDim", f"Titan Text Embeddings V2 gives {c.TITAN_EMBED_V2_DIMENSIONS}")
        if not 1 <= self.resolved_embedding_dim <= 2000:
            fail("embeddingDim", "between 1 and 2000 (the HNSW index limit)")
        if not 0 <= self.authorizer_cache_ttl_seconds <= 3600:
            fail("authorizerCacheTtlSeconds", "between 0 and 3600")
        if self.throttle_rate_limit <= 0 or self.throttle_burst_limit < 1:
            fail("throttleRateLimit", "positive rate and burst")
        if self.quota_limit < 1:
            fail("quotaLimit", "at least 1")
        if self.quota_period not in QUOTA_PERIODS:
            fail("quotaPeriod", f"one of {', '.join(QUOTA_PERIODS)}")
        if not 1 <= self.access_log_retention_days <= 3650:
            fail("accessLogRetentionDays", "between 1 and 3650")
        if self.log_retention_days not in LOG_RETENTION_DAYS:
            fail("logRetentionDays", f"one of {LOG_RETENTION_DAYS}")
        if self.log_level not in LOG_LEVELS:
            fail("logLevel", f"one of {', '.join(LOG_LEVELS)}")
        if self.alarm_email is not None and not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", self.alarm_email):
            fail("alarmEmail", "an e-mail address")
        if self.alarm_endpoint is not None and not re.fullmatch(
            r"https://[^\s/]+(/\S*)?", self.alarm_endpoint
        ):
            fail("alarmEndpoint", "an https:// URL (a pager's SNS integration endpoint)")
        if not self.is_dev and self.alarm_email is None and self.alarm_endpoint is None:
            fail(
                "alarmEmail",
                f"stage {self.stage!r} needs alarmEmail or alarmEndpoint in its block of cdk.json: "
                "without one its alarms reach nobody",
            )
        if self.latency_p99_threshold_ms < 1:
            fail("latencyP99ThresholdMs", "positive")
        if not 0 < self.error_rate_threshold_percent <= 100:
            fail("errorRateThresholdPercent", "between 0 and 100")
        if self.classifier_errors_threshold < 1:
            fail("classifierErrorsThreshold", "at least 1")
        if not 100 <= self.waf_rate_limit <= 2_000_000_000:
            fail("wafRateLimit", "at least 100")
        if not 100 <= self.waf_keyed_rate_limit <= 2_000_000_000:
            fail("wafKeyedRateLimit", "at least 100")
        if not 100 <= self.resolved_waf_key_rate_limit <= 2_000_000_000:
            fail("wafKeyRateLimit", "at least 100")
        if self.resolved_stage_throttle_rate_limit <= 0:
            fail("stageThrottleRateLimit", "positive")
        if self.resolved_stage_throttle_burst_limit < 1:
            fail("stageThrottleBurstLimit", "at least 1")
        if self.resolved_stage_throttle_rate_limit < self.throttle_rate_limit:
            fail("stageThrottleRateLimit", "at least the per-key throttleRateLimit")
        for key in (
            "authorizerConcurrency",
            "queryConcurrency",
            "writeConcurrency",
            "supersedeConcurrency",
            "settingsConcurrency",
            "auditConcurrency",
            "adminConcurrency",
        ):
            if not 0 <= getattr(self, _KEYS[key][0]) <= 1000:
                fail(key, "between 0 (no reservation) and 1000")
        for key in ("unauthorizedAlarmThreshold", "throttledAlarmThreshold"):
            if getattr(self, _KEYS[key][0]) < 1:
                fail(key, "at least 1")
        if self.backup_copy_vault_arn is not None:
            if not self.resolved_backup_plan:
                fail("backupCopyVaultArn", "needs backupPlan (or hosted)")
            if not re.fullmatch(
                r"arn:aws[a-z-]*:backup:[a-z0-9-]+:\d{12}:backup-vault:[\w.-]+", self.backup_copy_vault_arn
            ):
                fail("backupCopyVaultArn", "a backup vault ARN")
        if (self.domain_name is None) != (self.certificate_arn is None):
            fail("domainName", "domainName and certificateArn go together")
        if self.domain_name is not None and not re.fullmatch(
            r"(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}", self.domain_name
        ):
            fail("domainName", "a lowercase DNS name such as api.example.com")
        if self.certificate_arn is not None and not re.fullmatch(
            r"arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate/[0-9a-f-]+", self.certificate_arn
        ):
            fail("certificateArn", "an ACM certificate ARN in the stack's region")
        if (self.hosted_zone_id is None) != (self.hosted_zone_name is None):
            fail("hostedZoneId", "hostedZoneId and hostedZoneName go together")
        if self.hosted_zone_id is not None and self.domain_name is None:
            fail("hostedZoneId", "needs domainName")

    def describe(self) -> dict[str, Any]:
        """The settings as context keys, each resolved (a None default shows
        what it resolves to), for the stack outputs and docs."""
        by_field = {name: key for key, (name, _) in _KEYS.items()}
        described = {}
        for f in fields(self):
            if by_field[f.name] in BUILD_MACHINE_KEYS:
                continue
            value = getattr(self, f.name)
            resolved = getattr(self, f"resolved_{f.name}", value)
            described[by_field[f.name]] = list(resolved) if isinstance(resolved, tuple) else resolved
        return described


def _stage_settings(get: Callable[[str], Any]) -> Mapping[str, Any]:
    """The block of `stages` for the stage being deployed (empty if none)."""
    stages = get(STAGES_KEY)
    if stages is None:
        return {}
    if not isinstance(stages, Mapping):
        raise ConfigError(f"context {STAGES_KEY}: a mapping of stage name to settings")
    stage = get("stage") or AurraConfig.stage
    block = stages.get(str(stage)) or {}
    if not isinstance(block, Mapping):
        raise ConfigError(f"context {STAGES_KEY}.{stage}: a mapping of context keys to values")
    unknown = sorted(set(block) - set(_KEYS) | ({"stage"} & set(block)))
    if unknown:
        raise ConfigError(f"context {STAGES_KEY}.{stage}: unknown keys {', '.join(unknown)}")
    return block
