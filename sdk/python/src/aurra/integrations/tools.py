"""What the framework tool sets share: the four memory tools, their descriptions, and the text
they answer the model with. The frameworks' modules only wrap these in their own tool types and
bind the scope from their run context.

Scope: every call is bound to one end user (and optionally one agent) that the application
sets in the run's context, never one the model chooses: a model cannot read or erase another
user's memories by naming their id.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from aurra._client import Aurra
from aurra.errors import NotFoundError
from aurra.models import Memory

REMEMBER = (
    "Store a durable fact about the user, in the third person ('User switched from Vim to Emacs'). "
    "If it replaces something remembered before, Aurra retires the old fact and keeps its history. "
    "valid_from (ISO 8601) is when it became true, if the user said so."
)
RECALL = (
    "Search the user's memories. Returns the facts true now, or, with as_of (an ISO 8601 date "
    "such as 2026-04-15), the facts that were true then."
)
HISTORY = "The history of one memory (by id): what it replaced and what replaced it, with dates."
FORGET = "Erase one memory (by id) and its whole history. Only when the user asks to forget it."


@dataclass(frozen=True)
class AurraScope:
    """The end user (and agent) a run's memory calls are bound to. Put it, or any object with
    `user_id` (and `agent_id`) attributes, or a mapping with those keys, in the run's context."""

    user_id: str
    agent_id: str | None = None


def scope_of(context: Any) -> AurraScope:
    """The scope from a run's context: an `AurraScope`, an object with `user_id`, or a mapping."""
    if isinstance(context, AurraScope):
        return context
    if isinstance(context, Mapping):
        user_id, agent_id = context.get("user_id"), context.get("agent_id")
    else:
        user_id, agent_id = getattr(context, "user_id", None), getattr(context, "agent_id", None)
    if not isinstance(user_id, str) or not user_id:
        raise ValueError("the run's context names no user_id: pass AurraScope(user_id=...) as the context")
    return AurraScope(user_id=user_id, agent_id=agent_id if isinstance(agent_id, str) else None)


class MemoryTools:
    """The four tools over one client. Each returns plain text for the model."""

    def __init__(
        self, client: Aurra, *, auto_supersede: bool | None = None, topic: str | None = None
    ) -> None:
        self.client = client
        self.auto_supersede = auto_supersede
        self.topic = topic

    def remember(
        self, scope: AurraScope, content: str, topic: str | None = None, valid_from: str | None = None
    ) -> str:
        result = self.client.memories.add(
            content,
            topic=topic or self.topic,
            valid_from=_instant(valid_from),
            auto_supersede=self.auto_supersede,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
        )
        if not result.created:
            return f"Already remembered (memory {result.duplicate_of})."
        answer = f"Remembered: {result.memory.content} (memory {result.memory.id})."
        supersession = result.auto_supersede.supersession
        if supersession is not None:
            answer += f" It replaced memory {supersession.superseded_id}."
        return answer

    def recall(self, scope: AurraScope, query: str, as_of: str | None = None, limit: int = 5) -> str:
        found = self.client.memories.search_page(
            query, user_id=scope.user_id, agent_id=scope.agent_id, as_of=_instant(as_of), limit=limit
        )
        if not found.memories:
            return "Nothing remembered about that" + (f" as of {as_of}." if as_of else ".")
        return "\n".join(_line(memory) for memory in found.memories)

    def history(self, scope: AurraScope, memory_id: str) -> str:
        if self._own(scope, memory_id) is None:
            return f"No memory {memory_id} for this user."
        chain = self.client.memories.history(memory_id).chain
        return "\n".join(_line(memory, status=True) for memory in chain)

    def forget(self, scope: AurraScope, memory_id: str) -> str:
        if self._own(scope, memory_id) is None:
            return f"No memory {memory_id} for this user."
        receipt = self.client.erasures.create(memory_id=memory_id)
        return f"Erased memory {memory_id} and its history (receipt {receipt.id})."

    def _own(self, scope: AurraScope, memory_id: str) -> Memory | None:
        try:
            memory = self.client.memories.get(memory_id)
        except NotFoundError:
            return None
        if memory.user_id != scope.user_id or (scope.agent_id and memory.agent_id != scope.agent_id):
            return None
        return memory


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _instant(when: str | None) -> str | None:
    """A model's date as the API takes it: a bare date ("2026-04-15") is that day's midnight UTC."""
    if not when:
        return None
    return f"{when}T00:00:00Z" if _DATE.match(when.strip()) else when


def _line(memory: Memory, *, status: bool = False) -> str:
    valid = f"valid from {memory.valid_from:%Y-%m-%d}"
    if memory.valid_to is not None:
        valid += f" to {memory.valid_to:%Y-%m-%d}"
    state = f", {memory.status}" if status else ""
    return f"- {memory.content} ({valid}{state}; memory {memory.id})"


__all__ = ["FORGET", "HISTORY", "RECALL", "REMEMBER", "AurraScope", "MemoryTools", "scope_of"]
