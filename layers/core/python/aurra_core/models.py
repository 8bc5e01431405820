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
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from aurra_core.request_json import check_metadata
from aurra_core.runtime.config import (
    DEFAULT_CLASSIFIER_MODEL,
    DEFAULT_EXCLUDED_CATEGORIES,
    MIN_CONFIDENCE_FLOOR,
)

TOPIC_PATTERN = r"^[a-z0-9_]{1,64}$"
MAX_CONTENT_CHARS = 4000
MAX_MESSAGES = 50
MAX_MESSAGE_CHARS = 8000
MAX_METADATA_BYTES = 8 * 1024
MAX_EXCLUDED_CATEGORIES = 50
# A limit beyond any day's possible calls is no limit: refuse it rather than overflow a counter.
MAX_DAILY_MODEL_CALLS = 1_000_000_000
NULLABLE_SETTINGS = ("proposal_min_confidence", "daily_model_calls_limit")
DEFAULT_PROPOSAL_MIN_CONFIDENCE = 0.5


class Model(BaseModel):
    """The base of every model here: its validator and serializer are built on first use, not
    at import. Each function uses a few of these models; building all of them at import cost
    every cold start 10-15 ms of CPU (bench/notes/cold-start.md, "Cold start")."""

    model_config = ConfigDict(defer_build=True)


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


class AuditType(StrEnum):
    AUTO_SUPERSEDE = "auto_supersede"
    MANUAL_SUPERSEDE = "manual_supersede"
    DUPLICATE_REJECTED = "duplicate_rejected"
    REVERT = "revert"
    SETTINGS_UPDATED = "settings_updated"
    SUPERSESSION_PROPOSED = "supersession_proposed"
    PROPOSAL_APPROVED = "proposal_approved"
    PROPOSAL_DISMISSED = "proposal_dismissed"
    # A current memory that rested on a value just superseded, queued for review (never acted on).
    DEPENDENCY_PROPOSED = "dependency_proposed"


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
    topic: Topic = "general"
    valid_from: InputTimestamp | None = None
    metadata: Metadata = Field(default_factory=dict)

    _content = field_validator("content")(_validate_content)
    _metadata = field_validator("metadata")(_validate_metadata)


class WriteRequest(NewMemory):
    """One fact to write (the `content` form of POST /memories)."""

    auto_supersede: StrictBool | None = None
    user_id: ScopeId | None = None
    agent_id: ScopeId | None = None

    @property
    def scope(self) -> Scope:
        return Scope(self.user_id, self.agent_id)


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
    auto_supersede: StrictBool | None = None
    user_id: ScopeId | None = None
    agent_id: ScopeId | None = None

    _metadata = field_validator("metadata")(_validate_metadata)

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
    auto_supersede: StrictBool | None = None
    user_id: ScopeId | None = None
    agent_id: ScopeId | None = None

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
            topic=self.topic or "general",
            valid_from=self.valid_from,
            metadata=self.metadata or {},
        )


class SettingsPatch(Model):
    model_config = ConfigDict(extra="forbid")

    auto_supersede_default: StrictBool | None = None
    excluded_categories: list[Topic] | None = Field(default=None, max_length=MAX_EXCLUDED_CATEGORIES)
    min_confidence: Confidence | None = None
    classifier_model: Text | None = None
    # For these two, null is a value (no proposals; no limit): sent null differs from absent.
    proposal_min_confidence: Confidence | None = Field(default=None, ge=0.0, lt=1.0)
    daily_model_calls_limit: StrictInt | None = Field(default=None, ge=0, le=MAX_DAILY_MODEL_CALLS)

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
        return value

    @field_validator("excluded_categories")
    @classmethod
    def _dedupe(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else list(dict.fromkeys(value))


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
    # Proposals only: `status=open` with `type=supersession_proposed` is the review queue.
    status: ProposalStatus | None = None
    since: InputTimestamp | None = None
    until: InputTimestamp | None = None
    limit: int = Field(default=50, ge=1, le=100)
    cursor: str | None = Field(default=None, min_length=1, max_length=2048)


# ---------------------------------------------------------------- records and responses


class KeySettings(Model):
    auto_supersede_default: bool = False
    excluded_categories: list[str] = Field(default_factory=lambda: list(DEFAULT_EXCLUDED_CATEGORIES))
    min_confidence: float = MIN_CONFIDENCE_FLOOR
    classifier_model: str = DEFAULT_CLASSIFIER_MODEL
    proposal_min_confidence: float | None = DEFAULT_PROPOSAL_MIN_CONFIDENCE
    daily_model_calls_limit: int | None = None


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
    status: Literal["current", "superseded"]
    user_id: str | None = None
    agent_id: str | None = None
    # The audit event that superseded this memory; null while current.
    superseded_event_id: UUID | None = None
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
    status: Literal["current", "superseded"]
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


class WriteResult(Model):
    created: bool
    memory: Memory
    auto_supersede: AutoSupersedeResult
    duplicate_of: UUID | None = Field(default=None, exclude_if=lambda v: v is None)


class ExtractionReport(Model):
    """How the facts of a messages write were found."""

    extractor: str
    model: str
    facts_found: int
    prompt_version: str
    # The extraction call's receipt (the same shape as auto_supersede.usage).
    usage: Usage | None = None


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


class Caller(Model):
    """Who is calling: what the authorizer put in the request context."""

    tenant_id: UUID
    api_key_id: UUID


RevertResult.model_rebuild()
