"""HTTP transports: one shared core (`_base`), a blocking and an asyncio front."""

from aurra._transport._async import AsyncTransport
from aurra._transport._sync import SyncTransport

__all__ = ["AsyncTransport", "SyncTransport"]
