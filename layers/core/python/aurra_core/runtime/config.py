"""Service configuration, parsed once from the environment.

`ServiceConfig` reads its fields from the environment (`AURRA_<FIELD>`, or the field's alias,
any case; a list as JSON), its arguments over them. A plain pydantic model with that one rule,
not a settings library: pydantic-settings' import (its dotenv, command-line and secrets-file
sources, none of which Aurra uses) cost every cold start about 34 ms of CPU, and building the
config on the first request 1.7 ms more (bench/notes/cold-start.md).
"""

import json
import os
from functools import lru_cache
from typing import Any, Literal, get_origin

from pydantic import BaseModel, ConfigDict, Field, SecretStr

DEFAULT_CLASSIFIER_MODEL = "claude-haiku-4-5-20251001"
# The Claude models a key may choose (`classifier_model`) unless the deployment says otherwise
# (AURRA_CLASSIFIER_MODELS; a stage's `classifierModels` in cdk.json). The operator pays each
# call, so a key cannot pick a dearer model than the stage allows. Each has a price
# (metering/pricing.py: dollar budgets count from it) and a Bedrock id (classifiers/claude.py).
DEFAULT_CLASSIFIER_MODELS = ("claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929")
DEFAULT_EXCLUDED_CATEGORIES = ("health_medical", "legal_status")
# The server's floor: no key may act on a verdict below it.
MIN_CONFIDENCE_FLOOR = 0.85
CANDIDATE_LIMIT = 3
# Measured with `aurra eval --candidate-recall` on the development set: the highest floor that
# keeps candidate recall (MiniLM: 0.3 dropped two targets the topic and kind lists had lifted,
# at cosines of 0.26-0.27). Titan on Bedrock is unmeasured here (no AWS account): it starts
# where MiniLM measured. MPNet: 0.2 kept every target of both development sets (0.25 cut one).
CANDIDATE_FLOORS = {"local": 0.15, "minilm": 0.25, "mpnet": 0.2, "bedrock": 0.25}
ENV_PREFIX = "AURRA_"


def _from_environment(model: type[BaseModel]) -> dict[str, Any]:
    """The model's fields found in the environment, by field name."""
    environ = {name.lower(): value for name, value in os.environ.items()}
    values: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        alias = field.validation_alias
        variable = alias if isinstance(alias, str) else ENV_PREFIX + name
        raw = environ.get(variable.lower())
        if raw is not None:
            values[name] = json.loads(raw) if get_origin(field.annotation) is list else raw
    return values


class ServiceConfig(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_by_name=True, validate_by_alias=True)

    def __init__(self, **values: Any) -> None:
        super().__init__(**{**_from_environment(type(self)), **values})

    stage: str = "local"
    # Webhooks to http:// URLs and to private, loopback or link-local addresses: `aurra dev`
    # turns it on (a receiver on your machine); never a deployed stage.
    webhooks_allow_private: bool = False
    # Webhook retries: exponential from this first delay (with jitter), for this long, then
    # dead-lettered. Short in tests.
    webhook_retry_base_s: float = Field(default=30.0, gt=0)
    webhook_retry_for_s: float = Field(default=86_400.0, gt=0)
    webhook_timeout_s: float = Field(default=5.0, gt=0, le=30)
    # `aurra dev` delivers webhooks from a thread unless this is off (tests that share one
    # database between servers keep one worker).
    webhook_worker: bool = True
    # Asynchronous Level 2 (level2_jobs/): `aurra dev` decides jobs from a thread unless this is
    # off, as for webhooks; at most this many at once (each mostly waits for its model call).
    level2_worker: bool = True
    level2_worker_concurrency: int = Field(default=4, ge=1, le=64)
    # A claimed job is another worker's to claim again once this long has passed (its worker
    # died); longer than a decision can take (a classifier call is at most ~classifier_timeout_s).
    level2_lease_s: float = Field(default=60.0, gt=0, le=3600)
    # A job whose decision failed this many times (its worker raised, or died) is completed
    # with the outcome `failed` rather than retried for ever; its memory stays as written.
    level2_max_attempts: int = Field(default=5, ge=1, le=100)
    # The sweeper takes up pending jobs this old that nobody holds: their nudge was lost.
    level2_sweep_after_s: float = Field(default=30.0, ge=0, le=86_400)
    # In AWS: the queue whose messages nudge the Level 2 worker (the write function sends each
    # job's id after its commit). Unset: no queue (`aurra dev` wakes its thread instead).
    level2_queue_url: str | None = None
    # In AWS: the maintenance function, which POST /agent/imports/index invokes to build a
    # tenant's own index after a large import. Unset: none (`aurra dev` runs the job in a thread
    # of its own; elsewhere the scheduled run builds it).
    maintenance_function_name: str | None = None
    # Whether this deployment delivers webhooks at all: a stage without a way to the internet
    # (its `webhooks` setting off: no NAT) refuses to set them (a 422), rather than take
    # endpoints it could never reach.
    webhooks_enabled: bool = True
    # The stage's EventBridge bus, which the dispatcher publishes the change stream to (unset:
    # no bus, as under `aurra dev`).
    event_bus_name: str | None = None
    # Local and tests: a libpq URL. In AWS: the RDS secret plus the proxy host.
    database_url: str | None = None
    db_secret_arn: str | None = None
    db_host: str | None = None
    db_name: str | None = None
    db_pool_max: int = Field(default=4, ge=1, le=64)
    db_connect_timeout_s: int = Field(default=5, ge=1, le=60)
    db_port: int = 5432
    # In AWS: the login to sign in to RDS Proxy as, with an IAM token (db.py).
    db_user: str | None = None
    # TLS toward the proxy or the cluster; the CA file defaults to the bundle in storage/certs/.
    db_sslmode: Literal["verify-full", "verify-ca", "require"] = "verify-full"
    db_sslrootcert: str | None = None
    # The migrate function sets these logins' passwords from their secrets (a JSON list).
    db_login_secret_arns: list[str] = Field(default_factory=list)
    # Lambda's own variables: the region IAM tokens are signed for, and the function role's
    # credentials that sign them (rds_auth_token.py; without them, boto3 finds its own).
    aws_region: str | None = Field(default=None, validation_alias="AWS_REGION")
    aws_access_key_id: str | None = Field(default=None, validation_alias="AWS_ACCESS_KEY_ID")
    aws_secret_access_key: SecretStr | None = Field(default=None, validation_alias="AWS_SECRET_ACCESS_KEY")
    aws_session_token: SecretStr | None = Field(default=None, validation_alias="AWS_SESSION_TOKEN")
    # Index builds stop short of the maintenance function's timeout (0: no limit).
    maintenance_statement_timeout_s: int = Field(default=0, ge=0, le=900)
    # After erasures, the maintenance job rebuilds the full-text indexes (REINDEX CONCURRENTLY:
    # VACUUM leaves an erased memory's word stems in their entry trees) at most this often.
    erasure_reindex_interval_h: float = Field(default=24.0, ge=0, le=24 * 30)

    classifier: Literal["rules", "anthropic", "bedrock", "openai"] = "rules"
    # The Claude models a key's `classifier_model` may name (the first is the default of new
    # keys when DEFAULT_CLASSIFIER_MODEL is not among them); others are refused with a 422.
    classifier_models: list[str] = Field(
        default_factory=lambda: list(DEFAULT_CLASSIFIER_MODELS), min_length=1
    )
    # The daily_model_calls_limit a new key starts with (None: no limit); a stage's
    # `dailyModelCallsLimit`.
    default_daily_model_calls_limit: int | None = Field(default=None, ge=0, le=1_000_000_000)
    classifier_timeout_s: float = Field(default=4.0, gt=0, le=30)
    # The rules classifier's work in this many worker processes, for a server that takes many
    # writes at once on several cores (`aurra dev`); 0: in the request's own thread, as in AWS,
    # where each request has a function instance of its own.
    classifier_processes: int = Field(default=0, ge=0, le=64)
    anthropic_secret_arn: str | None = None

    # Turns a messages write into facts; unset, the same provider as the classifier.
    extractor: Literal["rules", "anthropic", "bedrock", "openai"] | None = None
    # Per read; an extraction writes up to 50 facts, so it gets longer than a classification.
    extractor_timeout_s: float = Field(default=6.0, gt=0, le=30)
    # A messages write starts a fact's classification only while it can end within this many
    # seconds of the request's start (the write function runs for at most 25 s in AWS).
    messages_write_deadline_s: float = Field(default=22.0, gt=0, le=900)

    # Any OpenAI-compatible Chat Completions endpoint with tool calling (classifier and
    # extractor "openai"). The key: AURRA_OPENAI_API_KEY locally, a secret in AWS.
    openai_base_url: str | None = None
    openai_model: str | None = None
    openai_api_key: str | None = None
    openai_secret_arn: str | None = None

    embedder: Literal["local", "bedrock", "minilm", "mpnet"] = "local"
    embedding_dim: int = Field(default=384, ge=8, le=4096)
    # Cosine similarity below which a memory is not worth asking the classifier about. Each
    # embedder has its own scale; None takes the measured default for the embedder in use.
    candidate_min_similarity: float | None = Field(default=None, ge=0.0, le=1.0)

    flag_source: Literal["env", "ssm"] = "env"
    level2_enabled: bool = False
    level2_parameter: str | None = None
    flag_cache_s: int = Field(default=30, ge=0, le=3600)

    max_body_bytes: int = 64 * 1024

    # The key that signs pagination cursors (cursors.py): locally the value, in AWS a secret.
    cursor_secret: SecretStr | None = None
    cursor_secret_arn: str | None = None

    # At most this many of the largest tenants get their own HNSW index (tenant_indexes.py).
    tenant_index_limit: int = Field(default=100, ge=0, le=1000)
    # How the tenants' own HNSW indexes (half precision, tenant_indexes.py) are built: the
    # graph's links per node and the candidate list while building. m 24 / ef_construction 160
    # (bench/notes/tenant-indexes.md, "Own indexes at m 24 / ef_construction 160"), against the m 32 / 128 it
    # replaced, in every store of --full with own indexes (the 1M stores in two runs) on the
    # same machine: builds 5-38% faster and a graph of 1,736 bytes a row instead of 1,992,
    # recall@3 at each index's calibrated ef_search within the spread of m 32's, and Level 2
    # writes as fast or faster (10 tenants of 100,000: 15.5-16.3 ms p50 / 27-29 ms p99 against
    # 17-23 / 37-59). At full precision
    # m 16 had reached 0.972-0.985 at 1M. The maintenance job replaces an index built with other
    # values, one a run (tenant_indexes.py).
    tenant_index_m: int = Field(default=24, ge=4, le=100)
    tenant_index_ef_construction: int = Field(default=160, ge=16, le=1000)
    # The candidate list of each insert into those indexes once built (pgvector reads it from
    # the index's reloptions at every insert; tenant_indexes.py), set by the maintenance job on
    # every own index, built or existing. 128 (the build's value when measured, with m 32; the
    # m 24 / 160 runs inserted with it too): lowering it to 96, 64, 48 or 32 saved
    # no measurable insert time or server CPU at 100k and 300k (bench/notes/tenant-indexes.md, 2 loaded cores)
    # and recall@3 near fresh rows fell from 0.993 to 0.985 at 32 (100k).
    tenant_index_insert_ef_construction: int = Field(default=128, ge=4, le=1000)
    # At most this much memory (MB) for one build of those indexes: each build gets what its
    # graph needs (tenant_indexes.build_memory_kb: ~1.7 GB for 1M memories of 384 dimensions at
    # m 24, 2.1 GB with the margin), reserved on the database server while it runs (the job
    # builds one at a time). A graph larger than this goes on building on disk: 100,000
    # memories took 1,152 s in 24 MB against 134 s in memory (bench/notes/tenant-indexes.md), and a tenant of
    # 1M would outlast the maintenance function. 4096 holds a tenant of ~1.7M such memories;
    # lower it on an instance with less than ~16 GB.
    tenant_index_build_memory_mb: int = Field(default=4096, ge=1, le=64 * 1024)
    # The candidate search's HNSW candidate list (hnsw.ef_search) where no calibrated one
    # applies: the shared index, and an own index until the maintenance job has calibrated it
    # (each own index gets its own, the lowest with recall@3 >= 0.995 on its tenant's memories:
    # tenant_indexes.calibrate); and the most any own index is walked with (a calibration only
    # lowers it: tenant_indexes.route). 150: the lowest measured with recall@3 >= 0.99 and a margin in
    # tenants of 10,000 and 100,000 (200 queries a store: 0.995-1.000 at 150 and 200;
    # 0.992-0.998 at 100; 0.988-0.992 at 60: bench/notes/tenant-indexes.md), so an uncalibrated index errs
    # towards recall; a tenant of 1M, at 1.000 from 40, gets its lower value once calibrated.
    candidate_ef_search: int = Field(default=150, ge=10, le=1000)

    # The admin function meters each new key through this usage plan (AWS only).
    usage_plan_id: str | None = None

    @property
    def candidate_floor(self) -> float:
        if self.candidate_min_similarity is not None:
            return self.candidate_min_similarity
        return CANDIDATE_FLOORS[self.embedder]

    @property
    def default_classifier_model(self) -> str:
        """The model a new key starts with: Aurra's default when the deployment allows it."""
        models = self.classifier_models
        return DEFAULT_CLASSIFIER_MODEL if DEFAULT_CLASSIFIER_MODEL in models else models[0]

    def allowed_model(self, model: str) -> str:
        """`model` when the deployment allows it, else its default: a key's setting made before
        the allow-list, or under a wider one, never reaches a model the stage does not allow."""
        return model if model in self.classifier_models else self.default_classifier_model

    @property
    def resolved_extractor(self) -> str:
        return self.extractor or self.classifier

    @property
    def level2_parameter_name(self) -> str:
        return self.level2_parameter or f"/aurra/{self.stage}/level2_enabled"


@lru_cache(maxsize=1)
def get_config() -> ServiceConfig:
    return ServiceConfig()


def reset_config() -> None:
    """Forget the cached config (tests and the local CLI change the environment)."""
    get_config.cache_clear()
