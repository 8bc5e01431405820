/** `client.erasures`: erase memories for good (their content and every version of it), with a receipt. */

import { InvalidArgumentError } from "../errors.js";
import { compact, describe, segment } from "../core/request.js";
import type { Transport } from "../core/transport.js";
import { readErasure } from "../core/wire.js";
import type { Erasure, ErasureCreateParams, RequestOptions } from "../types.js";

const PATH = "/agent/erasures";

/** The selectors, in the order the API lists them; `agentId` only narrows `userId`. */
const SELECTORS = ["memoryId", "userId", "conversationId", "sourceId", "tenant"] as const;

export class Erasures {
  readonly #transport: Transport;

  /** @internal */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Erase what one selector names: `{ memoryId }` (its whole lineage), `{ userId, agentId? }`,
   * `{ conversationId }`, `{ sourceId }` or `{ tenant: true }`. Resolves to the receipt; erasing
   * the same selector again, with nothing new to erase, resolves to the same receipt, so a retry
   * is safe. Afterwards no list or search returns the erased content, at any `asOf` or `knownAt`.
   */
  async create(params: ErasureCreateParams, options?: RequestOptions): Promise<Erasure> {
    if (typeof params !== "object" || params === null) {
      throw new InvalidArgumentError("erasures.create() takes an object with one selector, e.g. { memoryId }");
    }
    const given = SELECTORS.filter((name) => params[name] !== undefined);
    if (given.length !== 1) {
      throw new InvalidArgumentError(
        "erasures.create() takes exactly one of memoryId, userId (with agentId or not), conversationId, sourceId " +
          `and tenant: true${given.length ? `, not ${given.join(" and ")}` : ""}`,
      );
    }
    if (params.agentId !== undefined && params.userId === undefined) {
      throw new InvalidArgumentError("agentId selects only beside userId: { userId, agentId }");
    }
    const tenant: unknown = params.tenant;
    if (tenant !== undefined && tenant !== true) {
      throw new InvalidArgumentError(`tenant selects only as true, not ${describe(tenant)}`);
    }
    for (const name of ["memoryId", "userId", "agentId", "conversationId", "sourceId"] as const) {
      const value: unknown = params[name];
      if (value !== undefined && (typeof value !== "string" || value === "")) {
        throw new InvalidArgumentError(`${name} must be a non-empty string, not ${describe(value)}`);
      }
    }
    const body = compact({
      memory_id: params.memoryId,
      user_id: params.userId,
      agent_id: params.agentId,
      conversation_id: params.conversationId,
      source_id: params.sourceId,
      tenant: params.tenant,
    });
    return this.#transport.send({ method: "POST", path: PATH, body, parse: (data) => readErasure(data) }, options);
  }

  /** The receipt of an erasure. */
  async get(erasureId: string, options?: RequestOptions): Promise<Erasure> {
    return this.#transport.send(
      { method: "GET", path: `${PATH}/${segment(erasureId, "erasureId")}`, parse: (data) => readErasure(data) },
      options,
    );
  }
}
