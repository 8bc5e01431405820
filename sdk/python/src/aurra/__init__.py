"""Aurra: memory for AI agents that keeps facts current without losing their history.

from aurra import Aurra
client = Aurra(api_key="aurra_...")
client.memories.add(content="alice switched to Emacs", topic="preferences")
client.memories.add(messages=[{"role": "user", "content": "I moved to Berlin"}], user_id="alice")
"""

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
    AuditEvent,
    AuditPage,
    AutoSupersedeResult,
    Decision,
    Extraction,
    HistoryResult,
    Memory,
    MemoryPage,
    MemoryVersion,
    MessagesWriteResult,
    RevertResult,
    SettingsResult,
    SupersedeResult,
    Supersession,
    WriteResult,
)

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AsyncAurra",
    "AsyncPager",
    "AuditEvent",
    "AuditPage",
    "Aurra",
    "AurraError",
    "AuthenticationError",
    "AutoSupersedeResult",
    "BadRequestError",
    "ConfigurationError",
    "ConflictError",
    "Decision",
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
    "RateLimitError",
    "RevertResult",
    "ServerError",
    "SettingsResult",
    "SupersedeResult",
    "Supersession",
    "UnexpectedResponseError",
    "ValidationError",
    "WriteResult",
    "__version__",
]
