"""Typed results of the Aurra API.

The models are lenient readers of the server's JSON: unknown fields are ignored
(so additive API changes never break an installed SDK), enumerated values such
as `status` or `classifier` are plain strings (a new value must not break an
old client either), and timestamps become timezone-aware datetimes.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

__all__ = [
    "AuditEvent",
    "AuditPage",
    "AurraModel",
    "AutoSupersedeResult",
    "Decision",
    "Extraction",
    "HistoryResult",
    "Memory",
    "MemoryPage",
    "MemoryVersion",
    "MessagesWriteResult",
    "RevertResult",
    "SettingsResult",
    "SupersedeResult",
    "Supersession",
    "WriteResult",
]


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


class SettingsResult(AurraModel):
    """The settings of the API key in use (GET/PATCH /agent/settings)."""

    auto_supersede_default: bool
    excluded_categories: list[str]
    min_confidence: float
    classifier_model: str


class Decision(AurraModel):
    """The strongest verdict the classifier returned, acted on or not."""

    candidate_id: str
    classifier: str
    confidence: float
    reason: str | None = None
    model: str | None = None


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
    `no_candidates`, `classifier_error`.
    """

    ran: bool
    skipped_reason: str | None = None
    candidates_examined: int = 0
    decision: Decision | None = None
    supersession: Supersession | None = None


class Memory(AurraModel):
    """One fact, with its valid time (`valid_from`/`valid_to`) and transaction time (`recorded_at`).

    `user_id` and `agent_id` are the scope it was written in (None when the write gave none).
    `score` is set only on search results.
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
    score: float | None = None


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
    `bedrock`, `openai`), the model that answered, how many facts, and the prompt's version."""

    extractor: str
    model: str
    facts_found: int
    prompt_version: str
    usage: dict[str, Any] | None = None


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
    """One append-only audit record: a supersession, a rejected duplicate, a revert or a settings change."""

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


class RevertResult(AurraModel):
    """The answer to `audit.revert`: the new `revert` event and the memory made current again."""

    event: AuditEvent
    restored: Memory


class MemoryPage(AurraModel):
    """One page of `memories.list_page` / `memories.search_page`."""

    memories: list[Memory]
    next_cursor: str | None = None


class AuditPage(AurraModel):
    """One page of `audit.list_page`, newest event first."""

    events: list[AuditEvent]
    next_cursor: str | None = None
