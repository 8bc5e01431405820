/**
 * `client.webhooks`: the deliveries of the key's webhooks, and sending one again. The webhooks
 * themselves are a setting (`client.settings.update({ webhooks })`); verifying one is
 * `verifyWebhook` from `aurra/webhooks`.
 */

import { InvalidArgumentError } from "../errors.js";
import { query, segment } from "../core/request.js";
import type { Transport } from "../core/transport.js";
import { readWebhookDelivery, readWebhookDeliveryPage } from "../core/wire.js";
import type { RequestOptions, WebhookDelivery, WebhookDeliveryListParams, WebhookDeliveryPage } from "../types.js";

const PATH = "/agent/webhooks/deliveries";

export class Webhooks {
  readonly #transport: Transport;

  /** @internal */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** The tenant's deliveries, newest event first; `status`: `pending`, `delivered` or `dead`. */
  async deliveries(params: WebhookDeliveryListParams = {}, options?: RequestOptions): Promise<WebhookDeliveryPage> {
    if (typeof params !== "object" || params === null) {
      throw new InvalidArgumentError("webhooks.deliveries() takes an object: { status, limit, cursor }");
    }
    return this.#transport.send(
      {
        method: "GET",
        path: PATH,
        query: query({ status: params.status, limit: params.limit, cursor: params.cursor }),
        parse: (data) => readWebhookDeliveryPage(data),
      },
      options,
    );
  }

  /** Send a delivery again, whatever its status: `pending`, due now, the same `webhook-id`. */
  async replay(deliveryId: string, options?: RequestOptions): Promise<WebhookDelivery> {
    return this.#transport.send(
      {
        method: "POST",
        path: `${PATH}/${segment(deliveryId, "deliveryId")}/replay`,
        parse: (data) => readWebhookDelivery(data),
      },
      options,
    );
  }
}
