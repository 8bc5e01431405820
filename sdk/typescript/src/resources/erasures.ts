/** `client.erasures`: erase memories for good, with a receipt, and read a receipt back. */

import { InvalidArgumentError } from "../errors.js";
import { compact, segment } from "../core/request.js";
import type { Transport } from "../core/transport.js";
import { readErasureReceipt } from "../core/wire.js";
import type { ErasureCreateParams, ErasureReceipt, RequestOptions } from "../types.js";

const PATH = "/agent/erasures";
const SELECTORS = ["memoryId", "userId", "conversationId", "sourceId", "tenant"] as const;

export class Erasures {
  readonly #transport: Transport;

  /** @internal */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Erase for good what exactly one selector names: a memory's whole lineage (`memoryId`), a
   * user's memories (`userId`, with `agentId` that agent's only), a conversation's or a
   * source's (`conversationId`, `sourceId`), or the whole tenant (`tenant: true`). Resolves to
   * the receipt; `created` is false when nothing new matched and the receipt is the earlier one.
   * Reading an erased memory then throws `GoneError`. No Idempotency-Key: a retry is answered
   * with the receipt.
   */
  async create(params: ErasureCreateParams, options?: RequestOptions): Promise<ErasureReceipt> {
    if (typeof params !== "object" || params === null) {
      throw new InvalidArgumentError("erasures.create() takes an object with exactly one selector");
    }
    const tenant: unknown = params.tenant;
    if (tenant !== undefined && tenant !== true) {
      throw new InvalidArgumentError("tenant: true erases every memory of the tenant; leave it out otherwise");
    }
    const chosen = SELECTORS.filter((name) => params[name] !== undefined);
    if (chosen.length !== 1) {
      throw new InvalidArgumentError(
        "erasures.create() takes exactly one of memoryId, userId (with agentId or not), conversationId, sourceId and tenant: true",
      );
    }
    if (params.agentId !== undefined && params.userId === undefined) {
      throw new InvalidArgumentError("agentId selects only beside userId");
    }
    const body = compact({
      memory_id: params.memoryId,
      user_id: params.userId,
      agent_id: params.agentId,
      conversation_id: params.conversationId,
      source_id: params.sourceId,
      tenant: params.tenant,
    });
    return this.#transport.send(
      { method: "POST", path: PATH, body, parse: (data, status) => readErasureReceipt(data, status) },
      options,
    );
  }

  /** An erasure's receipt. */
  async get(erasureId: string, options?: RequestOptions): Promise<ErasureReceipt> {
    return this.#transport.send(
      {
        method: "GET",
        path: `${PATH}/${segment(erasureId, "erasureId")}`,
        parse: (data) => readErasureReceipt(data, null),
      },
      options,
    );
  }
}
