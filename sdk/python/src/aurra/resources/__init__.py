"""The API's resources, each in a blocking and an asyncio flavour over shared request building."""

from aurra.resources.audit import AsyncAudit, Audit
from aurra.resources.erasures import AsyncErasures, Erasures
from aurra.resources.events import AsyncEvents, Events
from aurra.resources.imports import AsyncImports, Imports
from aurra.resources.jobs import AsyncJobs, Jobs
from aurra.resources.memories import AsyncMemories, Memories
from aurra.resources.settings import AsyncSettings, Settings
from aurra.resources.webhooks import AsyncWebhooks, Webhooks

__all__ = [
    "AsyncAudit",
    "AsyncErasures",
    "AsyncEvents",
    "AsyncImports",
    "AsyncJobs",
    "AsyncMemories",
    "AsyncSettings",
    "AsyncWebhooks",
    "Audit",
    "Erasures",
    "Events",
    "Imports",
    "Jobs",
    "Memories",
    "Settings",
    "Webhooks",
]
