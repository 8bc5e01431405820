"""Domain and API models. The API shapes here are the contract docs/api.md describes."""

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal, get_args
from uuid import UUID

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    Strict,
    StrictBool,
    StrictInt,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from aurra_core.request_json import check_metadata
from aurra_core.runtime.config import (
    DEFAULT_CLASSIFIER_MODEL,
    DEFAULT_EXCLUDED_CATEGORIES,
    MIN_CONFIDENCE_FLOOR,
    get_config,
)

TOPIC_PATTERN = r"^[a-z0-9_]{1,64}$"
MAX_CONTENT_CHARS = 4000
MAX_MESSAGES = 50
MAX_MESSAGE_CHARS = 8000
MAX_METADATA_BYTES = 8 * 1024
MAX_EXCLUDED_CATEGORIES = 50
# A limit beyond any day's possible calls is no limit: refuse it rather than overflow a counter.
MAX_DAILY_MODEL_CALLS = 1_000_000_000
# Dollars a day: far beyond any key's spend, and within the counter's precision.
MAX_DAILY_MODEL_COST_USD = 1_000_000
NULLABLE_SETTINGS = (
    "proposal_min_confidence",
    "daily_model_calls_limit",
    "daily_model_cost_limit_usd",
    "history_retention_days",
    "memory_retention_days",
)
# A retention period beyond a century is no period: refuse it rather than overflow a date.
MAX_RETENTION_DAYS = 36_500
DEFAULT_PROPOSAL_MIN_CONFIDENCE = 0.5
# What a write carrying credentials gets: redacted to [REDACTED:<kind>], or refused (422).
SecretsMode = Literal["redact", "refuse"]
# When Level 2 decides: while the write waits (sync), or after it has answered (async: a job).
AutoSupersedeMode = Literal["sync", "async"]
# A write's `auto_supersede`: true, false, or "async" (Level 2 asked for, decided after the write).
AutoSupersede = StrictBool | Literal["async"]


# The topic a fact takes when its write gives none
DEFAULT_TOPIC = "general"


class Model(BaseModel):
    """The base of every model here: its validator and serializer are built on first use, not
    at import. Each function uses a few of these models; building all of them at import cost
    every cold start 10-15 ms of CPU (bench/notes/cold-start.md, "Cold start")."""

    model_config = ConfigDict(defer_build=True)

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        # Powertools' router formats a debug line of the handler's arguments at every request,
        # whatever the log level: a batch's hundred facts, each written out, were 4% of a batch
        # write's CPU (and the facts' content has no place in a log line). A list of models is
        # shown by its length.
        for name, value in super().__repr_args__():
            if isinstance(value, list) and value and isinstance(value[0], BaseModel):
                yield name, _Listed(len(value), type(value[0]).__name__)
            else:
                yield name, value


@dataclass(frozen=True)
class _Listed:
    count: int
    kind: str

    def __repr__(self) -> str:
        return f"<{self.count} {self.kind}>"


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for argument in get_args(annotation):
        yield from _models_in(argument)


def build_models(*annotations: Any) -> None:
    """Build the deferred models that `annotations` name, and the models their fields name,
    each after the models it holds.

    A validator of a type that holds a model not yet built (a route's body or response
    adapter, a union of two results) generates that model's schema inline and keeps it to
    itself, and so does every model that holds it, until the model's own first use generates
    it once more: a write's first request generated its result models' schemas three times
    over. Once a model is built, every schema that holds it reuses its schema."""
    seen: set[type[BaseModel]] = set()

    def build(model: type[BaseModel]) -> None:
        if model in seen:
            return
        seen.add(model)
        for field in model.model_fields.values():
            for held in _models_in(field.annotation):
                build(held)
        if not model.__pydantic_complete__:
            model.model_rebuild()

    for annotation in annotations:
        for model in _models_in(annotation):
            build(model)


def format_timestamp(value: datetime) -> str:
    """RFC 3339 in UTC with a Z, full microsecond precision so it round-trips into `known_at`."""
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


Timestamp = Annotated[datetime, PlainSerializer(format_timestamp, return_type=str, when_used="json")]

_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$")


def _rfc3339_text(value: Any) -> Any:
    """Only RFC 3339 text is a timestamp here: no epoch numbers, no bare dates."""
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not _RFC3339.match(value.strip()):
        raise ValueError("must be an RFC 3339 timestamp with a zone, like 2026-04-01T00:00:00Z")
    return value


def _within_utc_years(value: datetime) -> datetime:
    """An offset can carry 0001-01-01 before year 1 (or 9999-12-31 past 9999) in UTC, where
    no timestamp of the service (nor of PostgreSQL's output) can go."""
    try:
        value.astimezone(UTC)
    except OverflowError:
        raise ValueError("must fall within the years 1 to 9999 in UTC") from None
    return value


# A timestamp the caller sends: RFC 3339 with a zone; a missing zone is a 422.
InputTimestamp = Annotated[AwareDatetime, BeforeValidator(_rfc3339_text), AfterValidator(_within_utc_years)]
# Request fields take JSON's own types only: `true` is not a number, "0.9" is not a number,
# and 12 is not a string.
Text = Annotated[str, Strict()]
Topic = Annotated[str, Strict(), StringConstraints(pattern=TOPIC_PATTERN)]
Confidence = Annotated[float, Strict(), Field(allow_inf_nan=False)]
Metadata = Annotated[dict[str, Any], Strict()]
SCOPE_PATTERN = r"^[A-Za-z0-9._:@-]{1,128}$"
# An end user or an agent inside a tenant (the scope automatic supersession compares within).
ScopeId = Annotated[str, Strict(), StringConstraints(pattern=SCOPE_PATTERN)]
# A conversation's id: the client's (a messages write's `conversation_id`), else one Aurra made.
ConversationId = Annotated[str, Strict(), StringConstraints(pattern=SCOPE_PATTERN)]
MAX_SOURCE_TEXT = 128
MAX_SOURCE_URI = 2048
# The quoted span of a conversation a fact came from: longer is a message, not a quote.
MAX_QUOTE_CHARS = 1000
# A source's type or id (a content write's `source`): 1..128 characters.
SourceText = Annotated[str, Strict(), Field(min_length=1, max_length=MAX_SOURCE_TEXT)]
# An absolute URI (RFC 3986: a scheme, a colon, the rest) without whitespace or control characters.
_ABSOLUTE_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s\x00-\x1f\x7f]+$")


class Verdict(StrEnum):
    CONTRADICTS = "contradicts"
    SUPPLEMENTS = "supplements"
    DUPLICATE = "duplicate"
    NEW_FACT = "new_fact"


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"


class SkippedReason(StrEnum):
    LEVEL_2_DISABLED_BY_ENV = "level_2_disabled_by_env"
    AUTO_SUPERSEDE_OFF = "auto_supersede_off"
    EXCLUDED_CATEGORY = "excluded_category"
    NO_CANDIDATES = "no_candidates"
    CLASSIFIER_ERROR = "classifier_error"
    BUDGET_EXHAUSTED = "budget_exhausted"


class NotActedReason(StrEnum):
    """Why a decision was not acted on (null when it was)."""

    BELOW_MIN_CONFIDENCE = "below_min_confidence"
    NOT_CONTRADICTS = "not_contradicts"
    REVERTED_BEFORE = "reverted_before"
    LATER_FACT_EXISTS = "later_fact_exists"
    # The candidate stopped being current while the classifier was answering.
    CANDIDATE_CHANGED = "candidate_changed"
    # Asynchronous Level 2 found a duplicate of a memory the write had already stored: both stay.
    ALREADY_STORED = "already_stored"


class AuditType(StrEnum):
    AUTO_SUPERSEDE = "auto_supersede"
    MANUAL_SUPERSEDE = "manual_supersede"
    DUPLICATE_REJECTED = "duplicate_rejected"
    REVERT = "revert"
    SETTINGS_UPDATED = "settings_updated"
    SUPERSESSION_PROPOSED = "supersession_proposed"
    PROPOSAL_APPROVED = "proposal_approved"
    PROPOSAL_DISMISSED = "proposal_dismissed"
    ERASURE = "erasure"
    # An asynchronous decision that acted on nothing (asynchronous Level 2).
    AUTO_SUPERSEDE_COMPLETED = "auto_supersede_completed"
    # A current memory that rested on a value just superseded, queued for review (never acted on).
    DEPENDENCY_PROPOSED = "dependency_proposed"


# A memory's status: superseded by another memory, expired (its own `valid_to` has passed,
# without a successor), or current.
MemoryStatus = Literal["current", "superseded", "expired"]


class ProposalStatus(StrEnum):
    OPEN = "open"
    APPROVED = "approved"
    DISMISSED = "dismissed"


@dataclass(frozen=True)
class Scope:
    """Whose memory this is inside the tenant. Absent (None) is a value of its own: automatic
    supersession compares a write only with memories of exactly the same scope."""

    user_id: str | None = None
    agent_id: str | None = None


UNSCOPED = Scope()


# ---------------------------------------------------------------- requests


def _storable_text(value: str, what: str) -> str:
    """PostgreSQL text and jsonb hold UTF-8 without NUL: refuse lone surrogates and NUL early."""
    if "\x00" in value:
        raise ValueError(f"{what} must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{what} must be valid Unicode (no unpaired surrogates)") from None
    return value


def _validate_metadata(value: dict[str, Any]) -> dict[str, Any]:
    check_metadata(value)
    if len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()) > MAX_METADATA_BYTES:
        raise ValueError(f"metadata must be at most {MAX_METADATA_BYTES} bytes as JSON")
    return value


def _validate_content(value: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError("content must not be empty")
    if len(value) > MAX_CONTENT_CHARS:
        raise ValueError(f"content must be at most {MAX_CONTENT_CHARS} characters")
    return _storable_text(value, "content")


# Documented bounds; the validator below trims first and then enforces the same limits.
Content = Annotated[str, Strict(), Field(min_length=1, max_length=MAX_CONTENT_CHARS, pattern=r"\S")]


class NewMemory(Model):
    """The fact part of a write: shared by POST /memories and the content form of supersede."""

    model_config = ConfigDict(extra="forbid")

    content: Content
    topic: Topic = DEFAULT_TOPIC
    valid_from: InputTimestamp | None = None
    metadata: Metadata = Field(default_factory=dict)

    _content = field_validator("content")(_validate_content)
    _metadata = field_validator("metadata")(_validate_metadata)


def _validate_source_text(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return _storable_text(value, "source")


def _validate_uri(value: str | None) -> str | None:
    if value is not None and not _ABSOLUTE_URI.match(value):
        raise ValueError("uri must be an absolute URI (a scheme such as https: and the rest, no spaces)")
    return value


class SourceRequest(Model):
    """Where a content write's fact came from: the caller's own names for it."""

    model_config = ConfigDict(extra="forbid")

    type: SourceText
    id: SourceText
    uri: Annotated[str, Strict(), Field(min_length=3, max_length=MAX_SOURCE_URI)] | None = None

    _type = field_validator("type")(_validate_source_text)
    _id = field_validator("id")(_validate_source_text)
    _uri = field_validator("uri")(_validate_uri)


def _check_expiry(valid_from: datetime | None, valid_to: datetime | None) -> None:
    if valid_from is not None and valid_to is not None and valid_to <= valid_from:
        raise PydanticCustomError(
            "expiry", "valid_to must be later than valid_from", {"fields": ["valid_to", "valid_from"]}
        )


def _check_messages_expiry(messages: list["Message"], valid_to: datetime | None) -> None:
    for index, message in enumerate(messages):
        if valid_to is not None and message.created_at is not None and valid_to <= message.created_at:
            raise PydanticCustomError(
                "expiry",
                "valid_to must be later than every message's created_at (messages[{index}])",
                {"index": index},
            )


class WriteRequest(NewMemory):
    """One fact to write (the `content` form of POST /memories)."""

    auto_supersede: AutoSupersede | None = None
    user_id: ScopeId | None = None
    agent_id: ScopeId | None = None
    # When the fact stops being true by itself (an expiry); later than valid_from.
    valid_to: InputTimestamp | None = None
    source: SourceRequest | None = None

    @model_validator(mode="after")
    def _expiry(self) -> "WriteRequest":
        _check_expiry(self.valid_from, self.valid_to)
        return self

    @property
    def scope(self) -> Scope:
        return Scope(self.user_id, self.agent_id)


MAX_BATCH_FACTS = 100


class BatchFact(NewMemory):
    """One fact of POST /agent/memories/batch: everything a content write takes but Level 2,
    which is asked for once, for the whole batch (`BatchWriteRequest.auto_supersede`)."""

    user_id: ScopeId | None = None
    agent_id: ScopeId | None = None
    valid_to: InputTimestamp | None = None
    source: SourceRequest | None = None

    @field_validator("valid_to")
    @classmethod
    def _expiry(cls, value: datetime | None, info: ValidationInfo) -> datetime | None:
        # A field's check, so that a 422 names the fact's field: facts[3].valid_to.
        valid_from = info.data.get("valid_from")
        if valid_from is not None and value is not None and value <= valid_from:
            raise ValueError("valid_to must be later than valid_from")
        return value

    @property
    def scope(self) -> Scope:
        return Scope(self.user_id, self.agent_id)


class BatchWriteRequest(Model):
    """The body of POST /agent/memories/batch: 1..100 facts stored as one unit."""

    model_config = ConfigDict(extra="forbid")

    facts: Annotated[list[BatchFact], Field(min_length=1, max_length=MAX_BATCH_FACTS)]
    auto_supersede: AutoSupersede | None = None


def _validate_message_content(value: str) -> str:
    if not value.strip():
        raise ValueError("content must not be empty")
    return _storable_text(value, "content")


class Message(Model):
    """One turn of a conversation. Its content is untrusted data, never an instruction."""

    model_config = ConfigDict(extra="forbid")

    role: Role
    content: Annotated[str, Strict(), Field(min_length=1, max_length=MAX_MESSAGE_CHARS)]
    created_at: InputTimestamp | None = None

    _content = field_validator("content")(_validate_message_content)


Messages = Annotated[list[Message], Field(min_length=1, max_length=MAX_MESSAGES)]


class MessagesWriteRequest(Model):
    """A conversation to extract facts from (the `messages` form of POST /memories). `topic`,
    when given, stands for every fact; otherwise each fact gets the extractor's topic, checked
    by the deterministic topic gate."""

    model_config = ConfigDict(extra="forbid")

    messages: Messages
    topic: Topic | None = None
    valid_from: InputTimestamp | None = None
    metadata: Metadata = Field(default_factory=dict)
    auto_supersede: AutoSupersede | None = None
    user_id: ScopeId | None = None
    agent_id: ScopeId | None = None
    valid_to: InputTimestamp | None = None
    # The client's id of the conversation; absent, the write generates one.
    conversation_id: ConversationId | None = None

    _metadata = field_validator("metadata")(_validate_metadata)

    @model_validator(mode="after")
    def _expiry(self) -> "MessagesWriteRequest":
        _check_expiry(self.valid_from, self.valid_to)
        _check_messages_expiry(self.messages, self.valid_to)
        return self

    @property
    def scope(self) -> Scope:
        return Scope(self.user_id, self.agent_id)


class WriteBody(Model):
    """The body of POST /agent/memories: exactly one of `content` (one fact) and `messages` (a
    conversation to extract facts from)."""

    model_config = ConfigDict(extra="forbid")

    content: Content | None = None
    messages: Messages | None = None
    topic: Topic | None = None
    valid_from: InputTimestamp | None = None
    metadata: Metadata = Field(default_factory=dict)
    auto_supersede: AutoSupersede | None = None
    user_id: ScopeId | None = None
    agent_id: ScopeId | None = None
    valid_to: InputTimestamp | None = None
    # A content write's source; a messages write's conversation (each only in its own form).
    source: SourceRequest | None = None
    conversation_id: ConversationId | None = None

    _metadata = field_validator("metadata")(_validate_metadata)

    @field_validator("content")
    @classmethod
    def _content(cls, value: str | None) -> str | None:
        return None if value is None else _validate_content(value)

    @model_validator(mode="after")
    def _one_form(self) -> "WriteBody":
        if (self.content is None) == (self.messages is None):
            raise PydanticCustomError(
                "one_of", "give exactly one of content and messages", {"fields": ["content", "messages"]}
            )
        if self.messages is not None and self.source is not None:
            raise PydanticCustomError(
                "form",
                "source is for a content write; a messages write names its conversation_id",
                {"fields": ["source"]},
            )
        if self.content is not None and self.conversation_id is not None:
            raise PydanticCustomError(
                "form",
                "conversation_id is for a messages write; a content write names its source",
                {"fields": ["conversation_id"]},
            )
        _check_expiry(self.valid_from, self.valid_to)
        _check_messages_expiry(self.messages or [], self.valid_to)
        return self

    def request(self) -> WriteRequest | MessagesWriteRequest:
        fields = self.model_dump(exclude_none=True)
        if self.messages is not None:
            return MessagesWriteRequest.model_validate(fields)
        return WriteRequest.model_validate(fields)


class SupersedeRequest(Model):
    """Either a new fact (content, topic, valid_from, metadata) or a link to an existing memory."""

    model_config = ConfigDict(extra="forbid")

    content: Content | None = None
    topic: Topic | None = None
    valid_from: InputTimestamp | None = None
    metadata: Metadata | None = None
    superseded_by: UUID | None = None

    _metadata = field_validator("metadata")(lambda v: v if v is None else _validate_metadata(v))

    @field_validator("content")
    @classmethod
    def _content(cls, value: str | None) -> str | None:
        return None if value is None else _validate_content(value)

    def as_new_memory(self) -> NewMemory:
        return NewMemory(
            content=self.content or "",
            topic=self.topic or DEFAULT_TOPIC,
            valid_from=self.valid_from,
            metadata=self.metadata or {},
        )


class EventType(StrEnum):
    """The change stream's event types (GET /agent/events, webhooks)."""

    MEMORY_CREATED = "memory.created"
    MEMORY_SUPERSEDED = "memory.superseded"
    MEMORY_REVERTED = "memory.reverted"
    PROPOSAL_CREATED = "proposal.created"
    PROPOSAL_RESOLVED = "proposal.resolved"
    AUTO_SUPERSEDE_COMPLETED = "auto_supersede.completed"
    BUDGET_EXHAUSTED = "budget.exhausted"
    ERASURE_COMPLETED = "erasure.completed"


class Level2JobMessage(Model):
    """A queue message that nudges the Level 2 worker: the job and its tenant (ids only)."""

    model_config = ConfigDict(extra="forbid")

    job_id: UUID
    tenant_id: UUID


MAX_WEBHOOKS = 5
WEBHOOK_SECRET_PREFIX = "whsec_"


def is_public_address(address: str) -> bool:
    """Whether a webhook may be sent to `address` (an IP address, a zone allowed) in a deployed
    stage: a global unicast address, and for IPv6 one that carries no IPv4 address that is not
    (NAT64, 6to4, Teredo, IPv4-mapped or -compatible): a NAT64 gateway or a tunnel would carry
    the request on to that address, the cloud's metadata service or a private network."""
    import ipaddress

    ip = ipaddress.ip_address(address.split("%")[0])
    if not ip.is_global or ip.is_multicast:
        return False
    if isinstance(ip, ipaddress.IPv4Address):
        return True
    if ip in ipaddress.ip_network("64:ff9b:1::/48"):  # NAT64 for local use (RFC 8215)
        return False
    embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
    if embedded is None and (ip in ipaddress.ip_network("64:ff9b::/96") or int(ip) >> 32 == 0):
        embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)  # NAT64 (RFC 6052), IPv4-compatible
    return embedded is None or is_public_address(str(embedded))


def _validate_webhook_url(value: str) -> str:
    from urllib.parse import urlsplit

    if not get_config().webhooks_enabled:
        raise ValueError(
            "this deployment does not deliver webhooks (its stage has no way to the internet); "
            "read GET /agent/events, or ask the operator for the stage's event bus"
        )
    # Whitespace and control characters (a NUL, CR LF) are no part of a URL: stored, they would
    # only fail every delivery, or carry a header of their own into the request line.
    if any(ord(char) <= 0x20 or 0x7F <= ord(char) <= 0x9F for char in value):
        raise ValueError("url must not contain whitespace or control characters")
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        raise ValueError("url must be an absolute http(s) URL") from None
    if parts.scheme not in ("https", "http") or not parts.hostname or port == 0:
        raise ValueError("url must be an absolute https URL")
    if parts.username or parts.password:
        raise ValueError("url must not carry credentials")
    if not get_config().webhooks_allow_private:
        if parts.scheme != "https":
            raise ValueError("url must be https")
        if port not in (None, 443):
            # a deployed stage's way out is HTTPS on 443 only (its security group)
            raise ValueError("url must use https's port, 443")
        host = parts.hostname.rstrip(".").lower()
        if host == "localhost" or host.endswith(".localhost"):
            raise ValueError("url must not name a private, loopback or link-local address")
        try:
            public = is_public_address(host)
        except ValueError:  # a name: its addresses are checked when a delivery resolves it
            public = True
        if not public:
            raise ValueError("url must not name a private, loopback or link-local address")
    return value


def _validate_webhook_secret(value: str | None) -> str | None:
    import base64
    import binascii

    if value is None:
        return None
    if not value.startswith(WEBHOOK_SECRET_PREFIX):
        raise ValueError(f"secret must start with {WEBHOOK_SECRET_PREFIX}")
    try:
        raw = base64.b64decode(value.removeprefix(WEBHOOK_SECRET_PREFIX), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("secret must be whsec_ then base64") from None
    if not 24 <= len(raw) <= 64:
        raise ValueError("secret must hold 24 to 64 bytes (base64 after whsec_)")
    return value


class WebhookConfig(Model):
    """One webhook as a PATCH sets it. `secret` may be left out for a URL the key already has
    (it keeps its secret); it is never read back."""

    model_config = ConfigDict(extra="forbid")

    url: Annotated[str, Strict(), Field(min_length=1, max_length=2048)]
    events: Annotated[list[EventType], Field(min_length=1, max_length=len(EventType))]
    secret: Annotated[str, Strict(), Field(max_length=200)] | None = None

    _url = field_validator("url")(_validate_webhook_url)
    _secret = field_validator("secret")(_validate_webhook_secret)

    @field_validator("events")
    @classmethod
    def _dedupe_events(cls, value: list[EventType]) -> list[EventType]:
        return list(dict.fromkeys(value))


class WebhookView(Model):
    """One webhook as settings read it: the secret only as `secret_set`."""

    url: str
    events: list[EventType]
    secret_set: bool = True


class SettingsPatch(Model):
    model_config = ConfigDict(extra="forbid")

    auto_supersede_default: StrictBool | None = None
    excluded_categories: list[Topic] | None = Field(default=None, max_length=MAX_EXCLUDED_CATEGORIES)
    min_confidence: Confidence | None = None
    classifier_model: Text | None = None
    # For these two, null is a value (no proposals; no limit): sent null differs from absent.
    proposal_min_confidence: Confidence | None = Field(default=None, ge=0.0, lt=1.0)
    daily_model_calls_limit: StrictInt | None = Field(default=None, ge=0, le=MAX_DAILY_MODEL_CALLS)
    secrets: SecretsMode | None = None
    auto_supersede_mode: AutoSupersedeMode | None = None
    daily_model_cost_limit_usd: Confidence | None = Field(default=None, ge=0, le=MAX_DAILY_MODEL_COST_USD)
    history_retention_days: StrictInt | None = Field(default=None, ge=1, le=MAX_RETENTION_DAYS)
    memory_retention_days: StrictInt | None = Field(default=None, ge=1, le=MAX_RETENTION_DAYS)
    # The whole list (at most 5), replacing the key's webhooks; [] removes them all.
    webhooks: list[WebhookConfig] | None = Field(default=None, max_length=MAX_WEBHOOKS)

    def changes(self) -> dict[str, Any]:
        """The fields this patch sets: those given non-null, and the nullable ones given at all."""
        given = self.model_dump(exclude_none=True)
        for name in NULLABLE_SETTINGS:
            if name in self.model_fields_set:
                given[name] = getattr(self, name)
        return given

    @field_validator("min_confidence")
    @classmethod
    def _min_confidence(cls, value: float | None) -> float | None:
        if value is None:
            return None
        if value < MIN_CONFIDENCE_FLOOR:
            raise ValueError(f"min_confidence must be >= {MIN_CONFIDENCE_FLOOR}")
        if value > 1.0:
            raise ValueError("min_confidence must be <= 1.0")
        return value

    @field_validator("classifier_model")
    @classmethod
    def _classifier_model(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if (
            not value.startswith("claude-")
            or len(value) > 100
            or not value.replace("-", "").replace(".", "").replace("@", "").isalnum()
        ):
            raise ValueError("classifier_model must be an Anthropic model id (claude-...)")
        allowed = get_config().classifier_models
        if value not in allowed:
            # the operator pays every call: only the models the deployment allows
            raise ValueError(
                f"classifier_model must be one of this deployment's models: {', '.join(allowed)}"
            )
        return value

    @field_validator("excluded_categories")
    @classmethod
    def _dedupe(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else list(dict.fromkeys(value))


# What an erasure may select by: exactly one of these (`agent_id` only beside `user_id`).
ERASURE_SELECTORS = ("memory_id", "user_id", "conversation_id", "source_id", "tenant")


class ErasureRequest(Model):
    """The body of POST /agent/erasures: exactly one selector. `memory_id` erases the memory's
    whole lineage; `user_id` (with `agent_id`, that agent's memories of the user only) every
    memory of the scope; `conversation_id` and `source_id` every memory of that source;
    `tenant: true` every memory of the tenant."""

    model_config = ConfigDict(extra="forbid")

    memory_id: UUID | None = None
    user_id: ScopeId | None = None
    agent_id: ScopeId | None = None
    conversation_id: ConversationId | None = None
    source_id: SourceText | None = None
    tenant: StrictBool | None = Field(default=None, description="true (only): every memory of the tenant")

    _source_id = field_validator("source_id")(lambda v: v if v is None else _validate_source_text(v))

    @model_validator(mode="after")
    def _one_selector(self) -> "ErasureRequest":
        if self.tenant is False:
            raise PydanticCustomError("selector", "tenant selects only as true", {"fields": ["tenant"]})
        given = [name for name in ERASURE_SELECTORS if getattr(self, name) is not None]
        if len(given) != 1:
            raise PydanticCustomError(
                "selector",
                "give exactly one selector: memory_id, user_id (with agent_id or not), conversation_id, "
                "source_id or tenant: true",
                {"fields": list(ERASURE_SELECTORS)},
            )
        if self.agent_id is not None and self.user_id is None:
            raise PydanticCustomError(
                "selector", "agent_id selects only beside user_id", {"fields": ["agent_id", "user_id"]}
            )
        return self

    def selector(self) -> dict[str, Any]:
        """The selector as the receipt names it: the fields given, nothing else."""
        return self.model_dump(mode="json", exclude_none=True)


# ---------------------------------------------------------------- query parameters


class MemoryListQuery(Model):
    model_config = ConfigDict(extra="forbid")

    q: str | None = Field(
        default=None,
        min_length=1,
        max_length=4000,
        description=(
            "Search text. The results are ranked by reciprocal rank fusion of similarity (embedding), "
            "shared words (English full text) and the kinds of things the text names (editor: Emacs, "
            "Vim...), each result with `score` and `relevance`; a search ranks at most the 200 best "
            "memories of the filters."
        ),
    )
    topic: Topic | None = None
    user_id: ScopeId | None = None
    agent_id: ScopeId | None = None
    conversation_id: ConversationId | None = None
    source_id: SourceText | None = None
    as_of: InputTimestamp | None = None
    known_at: InputTimestamp | None = None
    include_superseded: bool = False
    possibly_stale: bool = Field(
        default=False,
        description=(
            "Also say of each memory whether it may be stale: `possibly_stale` is true while an open "
            "`dependency_proposed` event names it (a value it rested on was superseded)."
        ),
    )
    limit: int = Field(default=20, ge=1, le=100)
    cursor: str | None = Field(default=None, min_length=1, max_length=2048)

    @field_validator("q")
    @classmethod
    def _searchable(cls, value: str | None) -> str | None:
        # The search text reaches PostgreSQL (its words are matched by full text).
        return None if value is None else _storable_text(value, "q")


class PointInTime(Model):
    model_config = ConfigDict(extra="forbid")

    as_of: InputTimestamp | None = None
    known_at: InputTimestamp | None = None


class AuditListQuery(Model):
    model_config = ConfigDict(extra="forbid")

    memory_id: UUID | None = None
    type: AuditType | None = None
    user_id: ScopeId | None = None
    conversation_id: ConversationId | None = None
    source_id: SourceText | None = None
    # Proposals only: `status=open` with `type=supersession_proposed` is the review queue.
    status: ProposalStatus | None = None
    since: InputTimestamp | None = None
    until: InputTimestamp | None = None
    limit: int = Field(default=50, ge=1, le=100)
    cursor: str | None = Field(default=None, min_length=1, max_length=2048)


EXPORT_PAGE_RECORDS = 5000


class ExportQuery(Model):
    model_config = ConfigDict(extra="forbid")

    user_id: ScopeId | None = None
    limit: int = Field(
        default=EXPORT_PAGE_RECORDS,
        ge=1,
        le=EXPORT_PAGE_RECORDS,
        description="Records (lines before the `end` line) per response, at most; a response also stops near 4 MiB.",
    )
    cursor: str | None = Field(default=None, min_length=1, max_length=2048)


# ---------------------------------------------------------------- records and responses


class KeySettings(Model):
    auto_supersede_default: bool = False
    excluded_categories: list[str] = Field(default_factory=lambda: list(DEFAULT_EXCLUDED_CATEGORIES))
    min_confidence: float = MIN_CONFIDENCE_FLOOR
    classifier_model: str = DEFAULT_CLASSIFIER_MODEL
    proposal_min_confidence: float | None = DEFAULT_PROPOSAL_MIN_CONFIDENCE
    daily_model_calls_limit: int | None = None
    secrets: SecretsMode = "redact"
    daily_model_cost_limit_usd: float | None = None
    # "async": Level 2, when it runs, decides after the write has answered (a job).
    auto_supersede_mode: AutoSupersedeMode = "sync"
    # Null: kept until erased. The maintenance job erases memories no longer current for longer
    # (history) and memories recorded longer ago (memory), per tenant: the shortest of its keys'.
    history_retention_days: int | None = None
    memory_retention_days: int | None = None

    webhooks: list[WebhookView] = Field(default_factory=list)


class Source(Model):
    """Where a memory came from: a conversation (the messages write that extracted it: the
    conversation's id, the 0-based indexes of the messages it came from, the quoted span) or
    what a content write named (`type`, `id`, `uri`)."""

    type: str
    id: str | None = None
    conversation_id: str | None = None
    message_indexes: list[int] | None = None
    quote: str | None = None
    uri: str | None = None


class Memory(Model):
    id: UUID
    content: str
    topic: str
    metadata: dict[str, Any]
    valid_from: Timestamp
    valid_to: Timestamp | None
    superseded_by: UUID | None
    supersedes: UUID | None
    recorded_at: Timestamp
    status: MemoryStatus
    user_id: str | None = None
    agent_id: str | None = None
    # The audit event that superseded this memory; null while current.
    superseded_event_id: UUID | None = None
    source: Source | None = None
    possibly_stale: bool | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description=(
            "Only when the read asked `possibly_stale=true`: whether an open `dependency_proposed` "
            "event names this memory (a value it rested on was superseded)."
        ),
    )
    score: float | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="Search only: cosine similarity of the memory to the query, -1..1, higher is closer.",
    )
    relevance: float | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description=(
            "Search only: the fused score the results are ordered by, the sum over the rankings the "
            "memory is in (similarity, shared words, kinds) of weight / (60 + rank); comparable within "
            "one search."
        ),
    )


class MemoryVersion(Model):
    """One recorded state of a memory's validity, with the transaction time it was believed."""

    valid_from: Timestamp
    valid_to: Timestamp | None
    superseded_by: UUID | None
    supersedes: UUID | None
    status: MemoryStatus
    recorded_at: Timestamp
    recorded_to: Timestamp | None


class Decision(Model):
    candidate_id: UUID
    classifier: Verdict
    confidence: float
    reason: str
    model: str
    not_acted_reason: NotActedReason | None = None


class Usage(Model):
    """The receipt of the model calls a write made: tokens as the provider reported them (null
    when it did not say), the measured latency, and the cost at the model's published price
    (null for a model without a known price; 0 for the offline classifier)."""

    model_calls: int
    input_tokens: int | None
    output_tokens: int | None
    # Input tokens read from and written to the provider's prompt cache, counted apart from
    # input_tokens and billed at their own prices; null when the provider said nothing.
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    latency_ms: int
    cost_usd: float | None


class SupersessionOutcome(Model):
    superseded_id: UUID
    classifier: Verdict
    confidence: float
    reason: str
    model: str
    audit_event_id: UUID


class AutoSupersedeResult(Model):
    ran: bool = False
    skipped_reason: SkippedReason | None = None
    candidates_examined: int = 0
    decision: Decision | None = None
    supersession: SupersessionOutcome | None = None
    # Set when a below-threshold contradiction was queued for review instead of acted on.
    proposal: SupersessionOutcome | None = None
    usage: Usage | None = None
    # Asynchronous Level 2: "pending" and the job that will decide (its decision arrives as an
    # audit event and a change-stream event); absent when Level 2 decided with the write.
    status: Literal["pending"] | None = Field(default=None, exclude_if=lambda v: v is None)
    job_id: UUID | None = Field(default=None, exclude_if=lambda v: v is None)


class WriteResult(Model):
    created: bool
    memory: Memory
    auto_supersede: AutoSupersedeResult
    duplicate_of: UUID | None = Field(default=None, exclude_if=lambda v: v is None)


class BatchWriteResult(Model):
    """The answer to a batch write: one write result per fact, in the request's order."""

    results: list[WriteResult]


# Where a tenant's new rows are indexed for the candidate search (GET/POST /agent/imports/index):
# "shared", the shared HNSW index; "deferred", no index yet, its rows read exactly until its own
# is built; "building", its own index is being built; "own", its own index.
IndexingState = Literal["shared", "deferred", "building", "own"]


class ImportAnnouncement(Model):
    """The body of POST /agent/imports: an import of `facts` facts is about to start."""

    model_config = ConfigDict(extra="forbid")

    facts: StrictInt = Field(ge=1, le=100_000_000, description="How many facts the import will write.")
    auto_supersede: StrictBool = Field(
        default=False,
        description="Whether the import's batches ask for Level 2: its candidate search reads a scope of "
        "more than 2,000 memories through an index, so the shared one keeps the import's rows unless "
        "`largest_scope` shows every scope stays at or under that.",
    )
    largest_scope: StrictInt | None = Field(
        default=None,
        ge=1,
        le=100_000_000,
        description="The most facts the import writes to any one scope (user and agent); at most `facts`.",
    )

    @model_validator(mode="after")
    def _scope_within_import(self) -> "ImportAnnouncement":
        if self.largest_scope is not None and self.largest_scope > self.facts:
            raise PydanticCustomError(
                "largest_scope", "largest_scope cannot exceed facts", {"fields": ["largest_scope"]}
            )
        return self


class ImportIndexing(Model):
    """Where the tenant's new memories are indexed, and why."""

    indexing: IndexingState
    reason: str


class ExtractionReport(Model):
    """How the facts of a messages write were found."""

    extractor: str
    model: str
    facts_found: int
    prompt_version: str
    # The extraction call's receipt (the same shape as auto_supersede.usage).
    usage: Usage | None = None
    # Facts found beyond the cap of 50 a request, not stored (0 when none).
    facts_dropped: int = 0
    # The conversation the facts came from: the request's, else the one the write generated.
    conversation_id: str | None = None


class MessagesWriteResult(Model):
    """The answer to a messages write: one write result per fact, in the conversation's order."""

    facts: list[WriteResult]
    extraction: ExtractionReport


class SupersedeResult(Model):
    memory: Memory
    superseded: Memory


class History(Model):
    memory_id: UUID
    chain: list[Memory]
    versions: list[MemoryVersion]


class AuditEvent(Model):
    id: UUID
    type: AuditType
    created_at: Timestamp
    api_key_id: UUID | None
    memory_id: UUID | None
    superseded_id: UUID | None
    classifier: Verdict | None
    confidence: float | None
    reason: str | None
    model: str | None
    candidates_examined: int | None
    details: dict[str, Any]
    # Proposals only (supersession_proposed): derived from later events, never stored.
    status: ProposalStatus | None = Field(default=None, exclude_if=lambda v: v is None)


class RevertResult(Model):
    event: AuditEvent
    restored: Memory


class ErasureCounts(Model):
    """The records an erasure touched, by kind."""

    memories: int = Field(description="memories erased whole (every version of each)")
    versions: int = Field(description="memory versions replaced by a content-free tombstone")
    audit_events: int = Field(description="audit events about them, other than proposals, made content-free")
    proposals: int = Field(description="review-queue proposals about them made content-free")
    idempotency_records: int = Field(
        description="Idempotency-Key records whose stored response named them, deleted"
    )


class ErasureReceipt(Model):
    """What an erasure selected, when it ran and what it touched."""

    id: UUID
    selector: dict[str, Any]
    created_at: Timestamp
    counts: ErasureCounts
    status: Literal["completed", "running"] = Field(
        default="completed",
        description="completed; or running: a large erasure between its batches (counts so far), "
        "which a retry of the same selector or the maintenance job completes",
    )


class ApproveResult(Model):
    event: AuditEvent
    memory: Memory
    superseded: Memory


class DismissResult(Model):
    event: AuditEvent


class MemoryPage(Model):
    memories: list[Memory]
    next_cursor: str | None


class AuditPage(Model):
    events: list[AuditEvent]
    next_cursor: str | None


MAX_EVENTS_PAGE = 500


class EventListQuery(Model):
    model_config = ConfigDict(extra="forbid")

    after: str | None = Field(default=None, min_length=1, max_length=2048)
    limit: int = Field(default=100, ge=1, le=MAX_EVENTS_PAGE)
    # Comma-separated EventType values; absent: every type.
    types: str | None = Field(default=None, min_length=1, max_length=512)


class ChangeEvent(Model):
    """One change, as the change stream and webhooks carry it: ids only, never content."""

    id: UUID
    type: EventType
    created_at: Timestamp
    user_id: str | None
    agent_id: str | None
    memory_id: UUID | None
    data: dict[str, Any]


DeliveryStatus = Literal["pending", "delivered", "dead"]


class DeliveryListQuery(Model):
    model_config = ConfigDict(extra="forbid")

    status: DeliveryStatus | None = None
    limit: int = Field(default=50, ge=1, le=100)
    cursor: str | None = Field(default=None, min_length=1, max_length=2048)


class WebhookDelivery(Model):
    """One event's delivery to one webhook: ids, status and the last attempt, never a body."""

    id: UUID
    event_id: UUID
    event_type: EventType
    memory_id: UUID | None
    url: str
    status: DeliveryStatus
    attempts: int
    created_at: Timestamp
    next_attempt_at: Timestamp | None
    last_attempt_at: Timestamp | None
    last_status: int | None
    last_error: str | None
    delivered_at: Timestamp | None


class DeliveryPage(Model):
    deliveries: list[WebhookDelivery]
    next_cursor: str | None


# A job not yet decided is `pending`, or `running` while a worker's lease on it holds; `done`
# once its decision is recorded. A list filters on `pending` (both) or `done`.
JobStatus = Literal["pending", "running", "done"]


class JobListQuery(Model):
    model_config = ConfigDict(extra="forbid")

    status: Literal["pending", "done"] | None = None
    memory_id: UUID | None = None
    user_id: ScopeId | None = None
    limit: int = Field(default=50, ge=1, le=100)
    cursor: str | None = Field(default=None, min_length=1, max_length=2048)


class Level2Job(Model):
    """One asynchronous Level 2 decision, waiting or made: ids and outcome, never content."""

    id: UUID
    memory_id: UUID
    # The scope of the job's memory (an erased memory's, from what its erasure left).
    user_id: str | None
    agent_id: str | None
    status: JobStatus
    attempts: int
    created_at: Timestamp
    completed_at: Timestamp | None
    # superseded, proposed, not_acted, candidate_changed, memory_changed, failed, or a
    # skipped_reason; null until done.
    outcome: str | None
    audit_event_id: UUID | None


class JobPage(Model):
    jobs: list[Level2Job]
    next_cursor: str | None


class EventPage(Model):
    events: list[ChangeEvent]
    # Always present: the position after this page, to poll from (the stream has no end).
    next_cursor: str


class Caller(Model):
    """Who is calling: what the authorizer put in the request context."""

    tenant_id: UUID
    api_key_id: UUID


RevertResult.model_rebuild()
