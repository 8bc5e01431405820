"""Typed results of the Aurra API.

The models are lenient readers of the server's JSON: unknown fields are ignored
(so additive API changes never break an installed SDK), enumerated values such
as a memory's `status` or `classifier` are plain strings (a new value must not
break an old client either), and timestamps become timezone-aware datetimes.
A proposal's `status` is the exception: its three values are all there can be
(open until an approval or a dismissal resolves it), so it is typed
(`ProposalStatus`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

__all__ = [
    "ApproveResult",
    "AuditEvent",
    "AuditPage",
    "AurraModel",
    "AutoSupersedeResult",
    "Decision",
    "DismissResult",
    "ErasureCounts",
    "ErasureReceipt",
    "Extraction",
    "HistoryResult",
    "Memory",
    "MemoryPage",
    "MemoryVersion",
    "MessagesWriteResult",
    "ProposalStatus",
    "RevertResult",
    "SettingsResult",
    "Source",
    "SupersedeResult",
    "Supersession",
    "Usage",
    "WriteResult",
]

# The status of a `supersession_proposed` event, derived by the server from later events.
ProposalStatus = Literal["open", "approved", "dismissed"]
# A write's `auto_supersede`: True, False, or "async" (Level 2 asked for, decided after the write
# has answered; the decision arrives as an audit event and a change-stream event).
AutoSupersede = bool | Literal["async"]


def _aware(value: datetime) -> datetime:
    """Make every timestamp aware, with a standard-library tzinfo (its repr reads well)."""
    offset = value.utcoffset()
    if offset is None:
        # The API always sends a zone; should one ever be missing, UTC is what the service means.
        offset = timedelta(0)
    tz = UTC if offset == timedelta(0) else timezone(offset)
    return value.replace(tzinfo=tz)


Timestamp = Annotated[datetime, AfterValidator(_aware)]


class AurraModel(BaseModel):
    """Base of every result model.

    Its repr (and str) shows required fields always and leaves out optional
    fields that still hold their default, so a result prints only what carries
    information: `AutoSupersedeResult(ran=False, skipped_reason='level_2_disabled_by_env')`.
    """

    model_config = ConfigDict(extra="ignore")

    def __repr_args__(self) -> Any:
        for name, field in type(self).model_fields.items():
            if not field.repr:
                continue
            value = getattr(self, name)
            if not field.is_required() and value == field.get_default(call_default_factory=True):
                continue
            yield name, value

    def __str__(self) -> str:
        # print(result) should read exactly like the repr, not pydantic's space-separated form.
        return repr(self)


class Webhook(AurraModel):
    """One of the key's webhooks, as settings read it back: the secret is write-only."""

    url: str
    events: list[str]
    secret_set: bool = True


class SettingsResult(AurraModel):
    """The settings of the API key in use (GET/PATCH /agent/settings)."""

    auto_supersede_default: bool
    excluded_categories: list[str]
    min_confidence: float
    classifier_model: str
    # Below min_confidence, a contradiction at or above this is proposed for review (None: never).
    proposal_min_confidence: float | None = 0.5
    # Model calls the key may make per UTC day (None: no limit).
    daily_model_calls_limit: int | None = None
    # What a write carrying credentials gets: "redact" (each replaced by [REDACTED:<kind>]
    # before anything is stored or sent to a model) or "refuse" (a ValidationError whose code
    # is "sensitive_content"; nothing stored).
    secrets: str = "redact"
    # What the key's model calls may cost per UTC day, in US dollars (None: no limit).
    daily_model_cost_limit_usd: float | None = None
    # How long what is no longer current, and any memory at all, is kept (None: for ever).
    history_retention_days: int | None = None
    memory_retention_days: int | None = None
    # When an opted-in Level 2 decides: "sync" (while the write waits) or "async" (after it).
    auto_supersede_mode: str = "sync"
    # Where the change stream is pushed (docs/api.md, "Webhooks").
    webhooks: list[Webhook] = Field(default_factory=list)


class Decision(AurraModel):
    """The strongest verdict the classifier returned, acted on or not.

    `not_acted_reason` is None when the service acted on it, else why not:
    `below_min_confidence`, `not_contradicts`, `reverted_before` (a revert
    sticks), `later_fact_exists` or `candidate_changed`.
    """

    candidate_id: str
    classifier: str
    confidence: float
    reason: str | None = None
    model: str | None = None
    not_acted_reason: str | None = None


class Usage(AurraModel):
    """The receipt of a write's model calls: tokens as the provider reported them (None when it
    did not say), measured latency, and the cost at the model's published price (None for a
    model without a known price; 0 for the offline classifier)."""

    model_calls: int
    input_tokens: int | None = None
    output_tokens: int | None = None
    # Read from and written to the provider's prompt cache, apart from input_tokens.
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    latency_ms: int
    cost_usd: float | None = None


class Supersession(AurraModel):
    """What the service did: the old memory it superseded, and why."""

    superseded_id: str
    classifier: str
    confidence: float
    reason: str | None = None
    model: str | None = None
    audit_event_id: str | None = None


class AutoSupersedeResult(AurraModel):
    """How automatic supersession went for one write.

    `skipped_reason` is None when the classifier answered, else one of
    `level_2_disabled_by_env`, `auto_supersede_off`, `excluded_category`,
    `no_candidates`, `classifier_error`, `budget_exhausted`. `proposal` is set
    when a contradiction below the key's `min_confidence` was queued for review
    (its `audit_event_id` is the proposal to approve or dismiss); `usage` is the
    receipt of the classifier call, when one was made. A write with
    `auto_supersede="async"` answers before the decision: `ran` False, `status`
    "pending" and the `job_id` whose decision arrives later (GET /agent/events:
    `memory.superseded`, `proposal.created` or `auto_supersede.completed`).
    """

    ran: bool
    skipped_reason: str | None = None
    candidates_examined: int = 0
    decision: Decision | None = None
    supersession: Supersession | None = None
    proposal: Supersession | None = None
    # Asynchronous Level 2 (auto_supersede="async"): "pending" and the job that will decide.
    status: str | None = None
    job_id: str | None = None
    usage: Usage | None = None


class Source(AurraModel):
    """Where a memory came from: a conversation (`type` "conversation", its `conversation_id`,
    the 0-based `message_indexes` of the messages the fact came from and the `quote`d span)
    or what a content write named (`type`, `id`, `uri`)."""

    type: str
    id: str | None = None
    conversation_id: str | None = None
    message_indexes: list[int] | None = None
    quote: str | None = None
    uri: str | None = None


class Memory(AurraModel):
    """One fact, with its valid time (`valid_from`/`valid_to`) and transaction time (`recorded_at`).

    `user_id` and `agent_id` are the scope it was written in (None when the write gave none).
    On search results only: `score`, the cosine similarity to the query, and `relevance`, the
    fused score (meaning, shared words and kinds) the results are ordered by. `superseded_event_id` is
    the audit event that superseded it (None while current). `status` is `current`,
    `superseded` or `expired` (its own `valid_to` has passed); `source` says where it came
    from (None when its write named nothing).
    """

    id: str
    content: str
    topic: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    valid_from: Timestamp
    valid_to: Timestamp | None = None
    superseded_by: str | None = None
    supersedes: str | None = None
    recorded_at: Timestamp
    status: str
    user_id: str | None = None
    agent_id: str | None = None
    superseded_event_id: str | None = None
    source: Source | None = None
    score: float | None = None
    relevance: float | None = None


class MemoryVersion(AurraModel):
    """One recorded state of a memory's validity, and when the service recorded it."""

    recorded_at: Timestamp
    recorded_to: Timestamp | None = None
    valid_from: Timestamp | None = None
    valid_to: Timestamp | None = None
    superseded_by: str | None = None
    supersedes: str | None = None
    status: str | None = None


class WriteResult(AurraModel):
    """The answer to `memories.add`.

    `created` is False when the fact was a duplicate: then nothing was written,
    `memory` is the existing memory and `duplicate_of` its id.
    """

    created: bool
    memory: Memory
    auto_supersede: AutoSupersedeResult
    duplicate_of: str | None = None


class Extraction(AurraModel):
    """How the facts of a messages write were found: the extractor (`rules`, `anthropic`,
    `bedrock`, `openai`), the model that answered, how many facts, and the prompt's version.
    `facts_dropped` counts the facts found beyond the cap of 50 a request, not stored (0 from
    servers that do not send it)."""

    extractor: str
    model: str
    facts_found: int
    prompt_version: str
    # The extraction call's receipt.
    usage: Usage | None = None
    facts_dropped: int = 0
    # The conversation the facts came from: the one given, or the one the service generated.
    conversation_id: str | None = None


class MessagesWriteResult(AurraModel):
    """The answer to `memories.add(messages=...)`: one `WriteResult` per extracted fact, in the
    order the conversation states them (each created, a duplicate, or superseding a memory),
    and how extraction went."""

    facts: list[WriteResult]
    extraction: Extraction

    @property
    def created(self) -> list[Memory]:
        """The memories this request stored (duplicates left out)."""
        return [fact.memory for fact in self.facts if fact.created]


class BatchWriteResult(AurraModel):
    """The answer to `memories.add_batch`: one `WriteResult` per fact, in the order given."""

    results: list[WriteResult]


class ExportPage(AurraModel):
    """One response of GET /agent/export: its records (each a dict with a `kind`:
    `memory_version`, `audit_event`, ...) and the cursor of the next response (None: done)."""

    records: list[dict[str, Any]]
    next_cursor: str | None

    @classmethod
    def from_lines(cls, lines: Any) -> ExportPage:
        if not isinstance(lines, list) or not lines or not isinstance(lines[-1], dict):
            raise ValueError("an export response ends with its end line")
        end = lines[-1]
        if end.get("kind") != "end":
            raise ValueError('an export response ends with {"kind": "end", ...}: this one was cut short')
        return cls(records=lines[:-1], next_cursor=end.get("next_cursor"))


class SupersedeResult(AurraModel):
    """The answer to `memories.supersede`: the new memory and the one it replaced."""

    memory: Memory
    superseded: Memory


class HistoryResult(AurraModel):
    """A memory's supersession lineage (`chain`, oldest first) and its recorded `versions`."""

    memory_id: str
    chain: list[Memory]
    versions: list[MemoryVersion] = Field(default_factory=list)


class AuditEvent(AurraModel):
    """One append-only audit record: a supersession, a rejected duplicate, a revert, a settings
    change, or a proposal and its approval or dismissal. `status` is set on proposals only."""

    id: str
    type: str
    created_at: Timestamp
    api_key_id: str | None = None
    memory_id: str | None = None
    superseded_id: str | None = None
    classifier: str | None = None
    confidence: float | None = None
    reason: str | None = None
    model: str | None = None
    candidates_examined: int | None = None
    details: dict[str, Any] = Field(default_factory=dict)
    status: ProposalStatus | None = None


class RevertResult(AurraModel):
    """The answer to `audit.revert`: the new `revert` event and the memory made current again."""

    event: AuditEvent
    restored: Memory


class ApproveResult(AurraModel):
    """The answer to `audit.approve`: the `proposal_approved` event, the superseding memory
    and the memory it superseded."""

    event: AuditEvent
    memory: Memory
    superseded: Memory


class DismissResult(AurraModel):
    """The answer to `audit.dismiss`: the `proposal_dismissed` event."""

    event: AuditEvent


class MemoryPage(AurraModel):
    """One page of `memories.list_page` / `memories.search_page`."""

    memories: list[Memory]
    next_cursor: str | None = None


class AuditPage(AurraModel):
    """One page of `audit.list_page`, newest event first."""

    events: list[AuditEvent]
    next_cursor: str | None = None


class ErasureCounts(AurraModel):
    """The records an erasure touched, by kind."""

    memories: int
    versions: int
    audit_events: int
    proposals: int
    idempotency_records: int


class ErasureReceipt(AurraModel):
    """The receipt of an erasure (`erasures.create`, `erasures.get`): what it selected, when,
    and what it touched. `created` is True when this call erased (201, or 202 for a large
    erasure still running), False when the same selector had been erased already and nothing new
    matched (200, the earlier receipt); None on a receipt read back with `erasures.get`. `status`
    is "completed", or "running" while a large erasure is between its batches (its counts so far;
    call `erasures.create` with the same selector again to go on until it is "completed")."""

    id: str
    selector: dict[str, Any]
    created_at: Timestamp
    counts: ErasureCounts
    status: str = "completed"
    created: bool | None = Field(default=None, exclude=True)


class ChangeEvent(AurraModel):
    """One change of the change stream (`events.list`) or of a webhook: ids only, never content."""

    id: str
    type: str
    created_at: Timestamp
    user_id: str | None = None
    agent_id: str | None = None
    memory_id: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class WebhookDelivery(AurraModel):
    """One event's delivery to one webhook URL (`webhooks.deliveries`): never the event's body."""

    id: str
    event_id: str
    event_type: str
    memory_id: str | None = None
    url: str
    status: str  # pending, delivered or dead
    attempts: int = 0
    created_at: Timestamp
    next_attempt_at: Timestamp | None = None
    last_attempt_at: Timestamp | None = None
    last_status: int | None = None
    last_error: str | None = None
    delivered_at: Timestamp | None = None


class DeliveryPage(AurraModel):
    """One page of `webhooks.deliveries`, newest event first."""

    deliveries: list[WebhookDelivery]
    next_cursor: str | None = None


class Job(AurraModel):
    """One asynchronous Level 2 decision (`jobs.get`, `jobs.list`): ids and outcome, never content."""

    id: str
    memory_id: str
    user_id: str | None = None
    agent_id: str | None = None
    status: str  # pending, running (a worker holds it) or done
    attempts: int = 0
    created_at: Timestamp
    completed_at: Timestamp | None = None
    # null until done; then superseded, proposed, not_acted, ... (docs/api.md)
    outcome: str | None = None
    audit_event_id: str | None = None


class ImportIndexing(AurraModel):
    """Where the tenant's new memories are indexed (`imports.announce`, `imports.build_index`,
    `imports.indexing`): "shared", "deferred" (no index until the tenant's own is built; searches
    read them exactly meanwhile), "building" or "own"; and why."""

    indexing: str
    reason: str


class JobPage(AurraModel):
    """One page of `jobs.list_page`, newest first."""

    jobs: list[Job]
    next_cursor: str | None = None


class EventPage(AurraModel):
    """One page of `events.list_page`, oldest first; `next_cursor` is always given."""

    events: list[ChangeEvent]
    next_cursor: str
