"""Every name Aurra's infrastructure uses, in one place.

Resource names derive from the stage so that several stages (dev, prod, ...)
can live in one account and region side by side. The `aurra` CLI finds a
deployed stage by these same names, so change them only together with it.
"""

from __future__ import annotations

import runpy
from pathlib import Path

# --- repository layout -------------------------------------------------------
REPO_ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS_DIR = REPO_ROOT / "functions"
LAYER_DIR = REPO_ROOT / "layers" / "core"
LAYER_PYTHON_DIR = LAYER_DIR / "python"
LAYER_REQUIREMENTS = LAYER_DIR / "requirements.txt"
# What the layer build installs: LAYER_REQUIREMENTS resolved, pinned and hashed (infra/layer_lock.py).
LAYER_LOCK = LAYER_DIR / "requirements.lock"
MIGRATIONS_DIR = LAYER_PYTHON_DIR / "aurra_core" / "storage" / "migrations"
# The web console's static files, and the security headers they are served with.
CONSOLE_DIR = REPO_ROOT / "console"
CONSOLE_SECURITY_HEADERS = CONSOLE_DIR / "security-headers.json"
CONSOLE_PATH = "/console"
# Every function folder exposes `lambda_handler` in `handler.py`.
HANDLER = "handler.lambda_handler"
# Never shipped in an asset.
ASSET_EXCLUDES = ["**/__pycache__", "**/*.pyc", "**/.pytest_cache", "**/.DS_Store"]

# --- project -----------------------------------------------------------------
PROJECT = "aurra"
STACK_PREFIX = "Aurra"
METRICS_NAMESPACE = "Aurra"
CLASSIFIER_ERRORS_METRIC = "ClassifierErrors"

# --- functions ---------------------------------------------------------------
WRITE = "write"
QUERY = "query"
SUPERSEDE = "supersede"
SETTINGS = "settings"
AUDIT = "audit"
ERASURE = "erasure"
AUTHORIZER = "authorizer"
MIGRATE = "migrate"
ADMIN = "admin"
MAINTENANCE = "maintenance"
LEVEL2_WORKER = "level2_worker"
DISPATCHER = "dispatcher"
# The one list of functions and routes is functions/__init__.py (it imports nothing): read
# by path, so the CDK app needs neither the layer nor the folder on sys.path.
_CATALOG = runpy.run_path(str(FUNCTIONS_DIR / "__init__.py"))
# Functions that serve a public route.
ROUTE_FUNCTIONS: tuple[str, ...] = _CATALOG["HTTP_FUNCTIONS"]
ALL_FUNCTIONS: tuple[str, ...] = _CATALOG["FUNCTIONS"]

# What each function may do; infra/components/functions.py turns these into
# IAM statements and security-group rules, nothing more.
#   db          reach the RDS Proxy and sign in as aurra_service (IAM)
#   db_keys     reach the RDS Proxy and sign in as aurra_keyadmin (IAM)
#   db_direct   read the master secret and reach the cluster itself (DDL)
#   db_logins   read the service logins' secrets (to set their passwords)
#   flags       read the Level 2 SSM parameter
#   classifier  call the configured model classifier and extractor (Anthropic, Bedrock
#               or an OpenAI-compatible endpoint)
#   classifier_only  call the configured classifier's provider, not the extractor's
#   embedder    call the configured embedder (Bedrock)
#   api_keys    manage API Gateway API keys of the default usage plan
#   cursors     read the secret that signs pagination cursors
#   webhooks    reach the internet (through NAT, when the stage has a way out): webhook URLs
CAPABILITIES = {
    WRITE: frozenset({"db", "flags", "classifier", "embedder"}),
    QUERY: frozenset({"db", "embedder", "cursors"}),
    SUPERSEDE: frozenset({"db", "embedder"}),
    SETTINGS: frozenset({"db"}),
    AUDIT: frozenset({"db", "cursors"}),
    # Erasure runs in the database (aurra_erase): no model, no embedder, no cursor.
    ERASURE: frozenset({"db"}),
    AUTHORIZER: frozenset({"db"}),
    MIGRATE: frozenset({"db_direct", "db_logins"}),
    ADMIN: frozenset({"db_keys", "api_keys"}),
    # CREATE INDEX CONCURRENTLY: DDL on the writer, a session-level advisory lock
    MAINTENANCE: frozenset({"db_direct"}),
    # Asynchronous Level 2: the job's fact is embedded already; the worker classifies it.
    LEVEL2_WORKER: frozenset({"db", "flags", "classifier_only"}),
    # Reads every tenant's outbox as the owner (as maintenance does); its bus is granted by
    # infra/components/change_stream.py.
    DISPATCHER: frozenset({"db_direct", "webhooks"}),
}
# (memory MB, timeout s). API Gateway's integration timeout is 29 s.
SIZING = {
    WRITE: (1024, 25),
    QUERY: (512, 15),
    SUPERSEDE: (512, 15),
    SETTINGS: (512, 10),
    AUDIT: (512, 10),
    # Under API Gateway's 29 s: an erasure starts no batch (1,000 memories) after 18 s and
    # answers 202; the same request again, or the hourly maintenance run, continues it.
    ERASURE: (512, 25),
    AUTHORIZER: (512, 10),
    MIGRATE: (512, 300),
    ADMIN: (512, 30),
    # Lambda's maximum: building a large tenant's HNSW index takes minutes.
    MAINTENANCE: (512, 900),
    # A batch of up to LEVEL2_BATCH_SIZE jobs, each one classifier call (~4 s at most).
    LEVEL2_WORKER: (1024, 60),
    # Started every minute, it drains for 40 s (aurra_core/webhooks/dispatcher.py, RUN_FOR_S).
    DISPATCHER: (256, 60),
}
# How often the maintenance function runs (an EventBridge schedule).
MAINTENANCE_SCHEDULE_MINUTES = 60
# The change stream: the dispatcher starts every minute and drains until its timeout; the
# age of the oldest event not yet on the bus that alarms (a dispatcher that stopped, a bus that
# refuses events), and how long the bus's archive keeps events for a replay.
DISPATCHER_SCHEDULE_MINUTES = 1
OUTBOX_LAG_METRIC = "OutboxLagSeconds"
OUTBOX_LAG_ALARM_SECONDS = 300
EVENT_ARCHIVE_RETENTION_DAYS = 30

# Asynchronous Level 2 (infra/components/level2_jobs.py): messages a worker invocation takes
# at once; deliveries before a message goes to the dead-letter queue; how often the sweeper
# looks for jobs whose message was lost; the age of the oldest message that alarms.
LEVEL2_BATCH_SIZE = 10
LEVEL2_MAX_RECEIVES = 5
LEVEL2_SWEEP_MINUTES = 5
LEVEL2_OLDEST_MESSAGE_ALARM_S = 600
# Worker invocations at once (each holds a database connection through the proxy).
LEVEL2_MAX_CONCURRENCY = 5

# --- HTTP routes (docs/api.md): (method, path, function), from functions/__init__.py ---
API_ROOT = "agent"
ROUTES: tuple[tuple[str, str, str], ...] = _CATALOG["ROUTES"]
AUTHORIZATION_HEADER = "Authorization"
# Per-key throttles of the routes that change things, as shares of the key's rate and burst
# (the usage plan's own throttle, `throttleRateLimit`, holds every route together): a write
# embeds and may call a model; supersessions and the review actions are a person's pace; a
# settings change is an audit event each. Reads have only the key's own throttle.
METHOD_THROTTLE_SHARES: dict[tuple[str, str], float] = {
    ("POST", "/agent/memories"): 0.5,
    ("POST", "/agent/memories/{id}/supersede"): 0.2,
    ("POST", "/agent/audit/{id}/revert"): 0.2,
    ("POST", "/agent/audit/{id}/approve"): 0.2,
    ("POST", "/agent/audit/{id}/dismiss"): 0.2,
    ("PATCH", "/agent/settings"): 0.02,
}
# The tag every customer API key carries (the admin function sets it): the
# admin role may only read, change or delete keys of its own stage.
API_KEY_STAGE_TAG = "aurra-stage"
# Checked by API Gateway before the authorizer runs: a header that is not
# `Bearer ` and a key of Aurra's shape (`aurra_<12 hex>_<32 url-safe>`, as
# aurra_core.access.keys makes them) is a 401 without a Lambda invocation or a
# database lookup.
AUTHORIZATION_PATTERN = r"^Bearer aurra_[0-9a-f]{12}_[A-Za-z0-9_-]{32}$"
# WAF rules Aurra writes (alarms and tests name them)
WAF_RULE_RATE_PER_KEY = "RateLimitPerAuthorizationHeader"
WAF_RULE_RATE_PER_IP = "RateLimitPerIp"
WAF_RULE_KEYED_RATE_PER_IP = "RateLimitKeyedPerIp"
WAF_RULE_BODY_SIZE = "BodyOver64KiB"
# Larger request bodies are refused by the WAF (the API's own limit is 64 KiB).
MAX_BODY_BYTES = 64 * 1024

# --- database ----------------------------------------------------------------
DB_NAME = "aurra"
DB_ADMIN_USER = "aurra_admin"
# The service's logins (created by migration 0005), reached through RDS Proxy
# with IAM authentication; the master user is for schema changes only.
DB_SERVICE_USER = "aurra_service"
DB_KEY_ADMIN_USER = "aurra_keyadmin"
DB_LOGINS = (DB_SERVICE_USER, DB_KEY_ADMIN_USER)
# construct ids of their secrets and rotations
DB_LOGIN_IDS = {DB_SERVICE_USER: "ServiceLogin", DB_KEY_ADMIN_USER: "KeyAdminLogin"}
DB_PORT = 5432

# --- models --------------------------------------------------------------------
TITAN_EMBED_V2 = "amazon.titan-embed-text-v2:0"
TITAN_EMBED_V2_DIMENSIONS = (256, 512, 1024)
LOCAL_EMBEDDING_DIM = 384
# The layer's choices (aurra_core.runtime.config.ServiceConfig) a deployment may make; the
# test_one_source drift test holds them to the layer's. The MiniLM embedder is local only: its
# weights and tokenizer are not in the Lambda layer.
CLASSIFIERS = ("rules", "anthropic", "bedrock", "openai")
# Extractors come from the same providers (and default to the classifier's).
EXTRACTORS = CLASSIFIERS
# The offline rules classifier as last measured by `aurra eval` on the held-out set written
# blind (evals/frozen.jsonl): precision and recall of `contradicts` acted on at 0.85. Synth
# quotes them when a deployment chooses `classifier=rules`; a test keeps them equal to the
# measured figures.
RULES_CLASSIFIER_VERSION = "aurra-rules-v39"
RULES_HELDOUT_PRECISION = 0.983
RULES_HELDOUT_RECALL = 0.574
RULES_HELDOUT_CASES = 265
EMBEDDERS = ("local", "bedrock")
# Claude's default for new keys (aurra_core.runtime.config.DEFAULT_CLASSIFIER_MODEL).
DEFAULT_CLASSIFIER_MODEL = "claude-haiku-4-5-20251001"
# The Claude models and their Bedrock inference profiles: the layer's one table, read by path
# like the function catalog (stdlib only).
_BEDROCK_PROFILES = runpy.run_path(
    str(LAYER_PYTHON_DIR / "aurra_core" / "classifiers" / "bedrock_profiles.py"), run_name="bedrock_profiles"
)
CLAUDE_MODELS: dict[str, tuple[str, tuple[str, ...]]] = _BEDROCK_PROFILES["CLAUDE_MODELS"]
BEDROCK_CLAUDE_REGIONS: tuple[str, ...] = _BEDROCK_PROFILES["REGIONS"]
bedrock_profile_prefix = _BEDROCK_PROFILES["profile_prefix"]
bedrock_foundation_model_regions = _BEDROCK_PROFILES["foundation_model_regions"]
LOCAL_ONLY_EMBEDDERS = ("minilm", "mpnet")

# --- environment variables read by the layer's settings ------------------------
ENV_STAGE = "AURRA_STAGE"
ENV_DB_SECRET_ARN = "AURRA_DB_SECRET_ARN"
ENV_DB_HOST = "AURRA_DB_HOST"
ENV_DB_NAME = "AURRA_DB_NAME"
ENV_DB_USER = "AURRA_DB_USER"
ENV_DB_LOGIN_SECRET_ARNS = "AURRA_DB_LOGIN_SECRET_ARNS"
ENV_MAINTENANCE_STATEMENT_TIMEOUT = "AURRA_MAINTENANCE_STATEMENT_TIMEOUT_S"
ENV_CLASSIFIER = "AURRA_CLASSIFIER"
ENV_CLASSIFIER_MODELS = "AURRA_CLASSIFIER_MODELS"
ENV_DEFAULT_DAILY_MODEL_CALLS_LIMIT = "AURRA_DEFAULT_DAILY_MODEL_CALLS_LIMIT"
ENV_EMBEDDER = "AURRA_EMBEDDER"
ENV_EMBEDDING_DIM = "AURRA_EMBEDDING_DIM"
ENV_BEDROCK_EMBEDDING_MODEL = "AURRA_BEDROCK_EMBEDDING_MODEL_ID"
ENV_FLAG_SOURCE = "AURRA_FLAG_SOURCE"
ENV_LEVEL2_PARAMETER = "AURRA_LEVEL2_PARAMETER"
ENV_ANTHROPIC_SECRET_ARN = "AURRA_ANTHROPIC_SECRET_ARN"
ENV_CURSOR_SECRET_ARN = "AURRA_CURSOR_SECRET_ARN"
ENV_EXTRACTOR = "AURRA_EXTRACTOR"
ENV_OPENAI_BASE_URL = "AURRA_OPENAI_BASE_URL"
ENV_OPENAI_MODEL = "AURRA_OPENAI_MODEL"
ENV_OPENAI_SECRET_ARN = "AURRA_OPENAI_SECRET_ARN"
ENV_USAGE_PLAN_ID = "AURRA_USAGE_PLAN_ID"
ENV_REST_API_ID = "AURRA_REST_API_ID"
ENV_LEVEL2_QUEUE_URL = "AURRA_LEVEL2_QUEUE_URL"
# The maintenance function the write function invokes for a large import's own index.
ENV_MAINTENANCE_FUNCTION_NAME = "AURRA_MAINTENANCE_FUNCTION_NAME"
ENV_EVENT_BUS_NAME = "AURRA_EVENT_BUS_NAME"
ENV_WEBHOOKS_ENABLED = "AURRA_WEBHOOKS_ENABLED"
ENV_SERVICE_NAME = "POWERTOOLS_SERVICE_NAME"
ENV_METRICS_NAMESPACE = "POWERTOOLS_METRICS_NAMESPACE"
ENV_LOG_LEVEL = "POWERTOOLS_LOG_LEVEL"
# numpy's OpenBLAS starts a worker thread per core it sees when numpy is imported, and each
# spins for a while: about 50 ms of CPU in a cold start, taken from a function's fraction of a
# vCPU. The functions' vector math is one vector at a time (an embedding's norm, a Titan
# response), which no BLAS thread speeds up.
ENV_BLAS_THREADS = "OPENBLAS_NUM_THREADS"
BLAS_THREADS = "1"
# pydantic looks for plugins in every installed distribution's entry points when it builds its
# first model, at import; the layer installs none. Off: 13.7 M fewer instructions (~2.5 ms)
# in write's import (bench/notes/cold-start.md, "Cold start: Python 3.13 and no plugin scan").
ENV_PYDANTIC_PLUGINS = "PYDANTIC_DISABLE_PLUGINS"
PYDANTIC_PLUGINS_OFF = "__all__"


# --- names derived from the stage ----------------------------------------------
def stack_name(stage: str) -> str:
    return f"{STACK_PREFIX}-{stage}"


def resource_prefix(stage: str) -> str:
    return f"{PROJECT}-{stage}"


def function_name(stage: str, function: str) -> str:
    return f"{PROJECT}-{stage}-{function}"


def service_name(stage: str, function: str) -> str:
    """Powertools service name: the `service` dimension of every metric."""
    return f"{PROJECT}-{stage}-{function}"


def function_log_group_name(stage: str, function: str) -> str:
    return f"/aws/lambda/{function_name(stage, function)}"


def level2_parameter_name(stage: str) -> str:
    return f"/{PROJECT}/{stage}/level2_enabled"


def anthropic_secret_name(stage: str) -> str:
    return f"{PROJECT}/{stage}/anthropic-api-key"


def cursor_secret_name(stage: str) -> str:
    return f"{PROJECT}/{stage}/cursor-signing-key"


def openai_secret_name(stage: str) -> str:
    return f"{PROJECT}/{stage}/openai-api-key"


def cluster_identifier(stage: str) -> str:
    return f"{PROJECT}-{stage}"


def cluster_log_group_name(stage: str) -> str:
    return f"/aws/rds/cluster/{cluster_identifier(stage)}/postgresql"


def proxy_name(stage: str) -> str:
    return f"{PROJECT}-{stage}"


def api_name(stage: str) -> str:
    return f"{PROJECT}-{stage}"


def usage_plan_name(stage: str) -> str:
    return f"{PROJECT}-{stage}-default"


def maintenance_rule_name(stage: str) -> str:
    return f"{PROJECT}-{stage}-{MAINTENANCE}"


def level2_queue_name(stage: str) -> str:
    return f"{PROJECT}-{stage}-level2-jobs"


def level2_dead_letter_queue_name(stage: str) -> str:
    return f"{PROJECT}-{stage}-level2-jobs-dead"


def level2_sweep_rule_name(stage: str) -> str:
    return f"{PROJECT}-{stage}-level2-sweep"


def event_bus_name(stage: str) -> str:
    return f"{PROJECT}-{stage}"


def event_source(stage: str) -> str:
    """The `source` of the change stream's events on the bus (aurra_core.webhooks.event_bus)."""
    return f"{PROJECT}.{stage}"


def event_archive_name(stage: str) -> str:
    return f"{PROJECT}-{stage}-events"


def dispatcher_schedule_name(stage: str) -> str:
    return f"{PROJECT}-{stage}-dispatcher"


def dispatcher_dlq_name(stage: str) -> str:
    return f"{PROJECT}-{stage}-dispatcher-failed"


def event_rule_name(stage: str, what: str) -> str:
    """An EventBridge rule that sends an event (a failed rotation, backup or copy) to the alarm topic."""
    return f"{PROJECT}-{stage}-{what}"


def web_acl_name(stage: str) -> str:
    return f"{PROJECT}-{stage}"


def waf_log_group_name(stage: str) -> str:
    return f"aws-waf-logs-{PROJECT}-{stage}"


def edge_stack_name(stage: str) -> str:
    """The stage's stack in us-east-1 (the console's CloudFront web ACL)."""
    return f"{STACK_PREFIX}-{stage}-edge"


def console_web_acl_name(stage: str) -> str:
    return f"{PROJECT}-{stage}-console"


def console_waf_log_group_name(stage: str) -> str:
    return f"aws-waf-logs-{PROJECT}-{stage}-console"


def backup_vault_name(stage: str) -> str:
    return f"{PROJECT}-{stage}"


def backup_plan_name(stage: str) -> str:
    return f"{PROJECT}-{stage}"


def console_headers_policy_name(stage: str) -> str:
    return f"{PROJECT}-{stage}-console-headers"


def console_api_headers_policy_name(stage: str) -> str:
    return f"{PROJECT}-{stage}-console-api-headers"


def console_router_name(stage: str) -> str:
    return f"{PROJECT}-{stage}-console-router"


def dashboard_name(stage: str) -> str:
    return f"{PROJECT}-{stage}"


def alarm_name(stage: str, what: str) -> str:
    return f"{PROJECT}-{stage}-{what}"


def access_log_metric_name(stage: str, what: str) -> str:
    """A metric counted from the API's access log (namespace METRICS_NAMESPACE)."""
    return f"{PROJECT}-{stage}-{what}"
