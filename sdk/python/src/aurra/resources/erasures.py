"""`client.erasures`: erase memories for good, with a receipt (POST /agent/erasures), and read a
receipt back (GET /agent/erasures/{id})."""

from __future__ import annotations

from typing import Any

from aurra._request import APICall, IdLike, compact, path
from aurra.errors import InvalidArgumentError
from aurra.models import ErasureReceipt
from aurra.resources._base import AsyncResource, SyncResource

_SELECTORS = ("memory_id", "user_id", "conversation_id", "source_id", "tenant")


def _receipt(status: int, data: Any) -> ErasureReceipt:
    receipt = ErasureReceipt.model_validate(data)
    # 202: a large erasure erased batches and is still running; the same call again goes on.
    receipt.created = status in (201, 202)
    return receipt


def _create_call(
    memory_id: IdLike | None,
    user_id: str | None,
    agent_id: str | None,
    conversation_id: str | None,
    source_id: str | None,
    tenant: bool | None,
) -> APICall[ErasureReceipt]:
    if tenant is not None and tenant is not True:
        raise InvalidArgumentError("tenant=True erases every memory of the tenant; leave it out otherwise")
    given = {
        "memory_id": memory_id,
        "user_id": user_id,
        "conversation_id": conversation_id,
        "source_id": source_id,
        "tenant": tenant,
    }
    chosen = [name for name in _SELECTORS if given[name] is not None]
    if len(chosen) != 1:
        raise InvalidArgumentError(
            "erasures.create() takes exactly one of memory_id, user_id (with agent_id or not), "
            "conversation_id, source_id and tenant=True"
        )
    if agent_id is not None and user_id is None:
        raise InvalidArgumentError("agent_id selects only beside user_id")
    body = compact(
        memory_id=None if memory_id is None else str(memory_id),
        user_id=user_id,
        agent_id=agent_id,
        conversation_id=conversation_id,
        source_id=source_id,
        tenant=tenant,
    )
    # No Idempotency-Key: the erasure is idempotent by itself (a retry answers 200 with the receipt).
    return APICall(
        "POST", "/agent/erasures", ErasureReceipt.model_validate, body=body, parse_with_status=_receipt
    )


def _get_call(erasure_id: IdLike) -> APICall[ErasureReceipt]:
    return APICall("GET", path("/agent/erasures/{}", erasure_id), ErasureReceipt.model_validate)


class Erasures(SyncResource):
    def create(
        self,
        *,
        memory_id: IdLike | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        conversation_id: str | None = None,
        source_id: str | None = None,
        tenant: bool | None = None,
    ) -> ErasureReceipt:
        """Erase for good what exactly one selector names: a memory's whole lineage
        (`memory_id`), a user's memories (`user_id`, with `agent_id` that agent's only), a
        conversation's or a source's (`conversation_id`, `source_id`), or the whole tenant
        (`tenant=True`). Returns the receipt; `receipt.created` is False when nothing new
        matched and the receipt is the earlier one. Reading an erased memory then raises
        GoneError."""
        return self._transport.send(
            _create_call(memory_id, user_id, agent_id, conversation_id, source_id, tenant)
        )

    def get(self, erasure_id: IdLike) -> ErasureReceipt:
        """An erasure's receipt."""
        return self._transport.send(_get_call(erasure_id))


class AsyncErasures(AsyncResource):
    async def create(
        self,
        *,
        memory_id: IdLike | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        conversation_id: str | None = None,
        source_id: str | None = None,
        tenant: bool | None = None,
    ) -> ErasureReceipt:
        """Erase for good what exactly one selector names (see `Erasures.create`)."""
        return await self._transport.send(
            _create_call(memory_id, user_id, agent_id, conversation_id, source_id, tenant)
        )

    async def get(self, erasure_id: IdLike) -> ErasureReceipt:
        """An erasure's receipt."""
        return await self._transport.send(_get_call(erasure_id))
