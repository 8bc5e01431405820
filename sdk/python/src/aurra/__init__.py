"""Aurra: memory for AI agents that keeps facts current without losing their history.

from aurra import Aurra
client = Aurra(api_key="aurra_...")
client.memories.add(content="alice switched to Emacs", topic="preferences")
client.memories.add(messages=[{"role": "user", "content": "I moved to Berlin"}], user_id="alice")
"""

from aurra import webhooks
from aurra._client import AsyncAurra, Aurra
from aurra._pagination import AsyncPager, Pager
from aurra._version import __version__
from aurra.errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AurraError,
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    ConflictError,
    InvalidArgumentError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    UnexpectedResponseError,
    ValidationError,
)
from aurra.models import (
    ApproveResult,
    AuditEvent,
    AuditPage,
    AutoSupersedeResult,
    ChangeEvent,
    Decision,
    DismissResult,
    EventPage,
    Extraction,
    HistoryResult,
    Memory,
    MemoryPage,
    MemoryVersion,
    MessagesWriteResult,
    ProposalStatus,
    RevertResult,
    SettingsResult,
    SupersedeResult,
    Supersession,
    Usage,
    WriteResult,
)

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "ApproveResult",
    "AsyncAurra",
    "AsyncPager",
    "AuditEvent",
    "AuditPage",
    "Aurra",
    "AurraError",
    "AuthenticationError",
    "AutoSupersedeResult",
    "BadRequestError",
    "ChangeEvent",
    "ConfigurationError",
    "ConflictError",
    "Decision",
    "DismissResult",
    "EventPage",
    "Extraction",
    "HistoryResult",
    "InvalidArgumentError",
    "Memory",
    "MemoryPage",
    "MemoryVersion",
    "MessagesWriteResult",
    "NotFoundError",
    "Pager",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "ProposalStatus",
    "RateLimitError",
    "RevertResult",
    "ServerError",
    "SettingsResult",
    "SupersedeResult",
    "Supersession",
    "UnexpectedResponseError",
    "Usage",
    "ValidationError",
    "WriteResult",
    "__version__",
    "webhooks",
]
