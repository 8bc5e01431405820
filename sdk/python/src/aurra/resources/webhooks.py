"""`client.webhooks`: the deliveries of the key's webhooks (GET /agent/webhooks/deliveries) and
sending one again (POST .../{id}/replay). The webhooks themselves are a setting
(`client.settings.update(webhooks=[...])`); verifying one is `aurra.webhooks.verify`."""

from __future__ import annotations

from typing import Literal

from aurra._request import APICall, IdLike, path, query
from aurra.models import DeliveryPage, WebhookDelivery
from aurra.resources._base import AsyncResource, SyncResource

DeliveryStatus = Literal["pending", "delivered", "dead"]


def _deliveries_call(
    status: DeliveryStatus | None, limit: int | None, cursor: str | None
) -> APICall[DeliveryPage]:
    params = query(status=status, limit=limit, cursor=cursor)
    return APICall("GET", "/agent/webhooks/deliveries", DeliveryPage.model_validate, params=params)


def _replay_call(delivery_id: IdLike) -> APICall[WebhookDelivery]:
    return APICall(
        "POST", path("/agent/webhooks/deliveries/{}/replay", delivery_id), WebhookDelivery.model_validate
    )


class Webhooks(SyncResource):
    def deliveries(
        self, *, status: DeliveryStatus | None = None, limit: int | None = None, cursor: str | None = None
    ) -> DeliveryPage:
        """The tenant's deliveries, newest event first (`status`: pending, delivered or dead)."""
        return self._transport.send(_deliveries_call(status, limit, cursor))

    def replay(self, delivery_id: IdLike) -> WebhookDelivery:
        """Send a delivery again, whatever its status: pending, due now, the same `webhook-id`."""
        return self._transport.send(_replay_call(delivery_id))


class AsyncWebhooks(AsyncResource):
    async def deliveries(
        self, *, status: DeliveryStatus | None = None, limit: int | None = None, cursor: str | None = None
    ) -> DeliveryPage:
        """The tenant's deliveries, newest event first (`status`: pending, delivered or dead)."""
        return await self._transport.send(_deliveries_call(status, limit, cursor))

    async def replay(self, delivery_id: IdLike) -> WebhookDelivery:
        """Send a delivery again, whatever its status: pending, due now, the same `webhook-id`."""
        return await self._transport.send(_replay_call(delivery_id))
