/** `client.audit`: the record of what Aurra did (erasures included), reverts, and the review queue. */

import { type APICall, idempotencyKey, optionalTime, query, segment } from "../core/request.js";
import type { Transport } from "../core/transport.js";
import { readApproveResult, readAuditEvent, readAuditPage, readDismissResult, readRevertResult } from "../core/wire.js";
import { Pager } from "../pagination.js";
import type {
  ApproveResult,
  AuditActionParams,
  AuditEvent,
  AuditListPageParams,
  AuditListParams,
  AuditPage,
  DismissResult,
  RequestOptions,
  RevertResult,
} from "../types.js";

const PATH = "/agent/audit";

export class Audit {
  readonly #transport: Transport;

  /** @internal */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Every matching event, newest first, fetched page by page as you iterate.
   * `{ type: "supersession_proposed", status: "open" }` is the review queue.
   */
  list(params: AuditListParams = {}, options?: RequestOptions): Pager<AuditEvent, AuditPage> {
    const pageCall = listCall(params);
    return new Pager((cursor) => this.#transport.send(pageCall(cursor), options), (page) => page.events);
  }

  /** One page of events; pass its `nextCursor` back as `cursor` for the next one. */
  async listPage(params: AuditListPageParams = {}, options?: RequestOptions): Promise<AuditPage> {
    const { cursor, ...filters } = params;
    return this.#transport.send(listCall(filters)(cursor ?? null), options);
  }

  /** One audit event. */
  async get(eventId: string, options?: RequestOptions): Promise<AuditEvent> {
    return this.#transport.send(
      { method: "GET", path: `${PATH}/${segment(eventId, "eventId")}`, parse: (data) => readAuditEvent(data) },
      options,
    );
  }

  /** Undo the supersession event `eventId` made: the old memory is current again, and stays so. */
  async revert(eventId: string, params: AuditActionParams = {}, options?: RequestOptions): Promise<RevertResult> {
    return this.#transport.send(actionCall(eventId, "revert", params, (data) => readRevertResult(data)), options);
  }

  /** Apply an open `supersession_proposed` event as a manual supersession. */
  async approve(eventId: string, params: AuditActionParams = {}, options?: RequestOptions): Promise<ApproveResult> {
    return this.#transport.send(actionCall(eventId, "approve", params, (data) => readApproveResult(data)), options);
  }

  /** Close an open `supersession_proposed` event without superseding anything. */
  async dismiss(eventId: string, params: AuditActionParams = {}, options?: RequestOptions): Promise<DismissResult> {
    return this.#transport.send(actionCall(eventId, "dismiss", params, (data) => readDismissResult(data)), options);
  }
}

function listCall(params: AuditListParams): (cursor: string | null) => APICall<AuditPage> {
  const filters = query({
    memory_id: params.memoryId,
    type: params.type,
    user_id: params.userId,
    conversation_id: params.conversationId,
    source_id: params.sourceId,
    status: params.status,
    since: optionalTime(params.since, "since"),
    until: optionalTime(params.until, "until"),
    limit: params.limit,
  });
  return (cursor) => ({
    method: "GET",
    path: PATH,
    query: { ...filters, ...query({ cursor }) },
    parse: (data) => readAuditPage(data),
  });
}

function actionCall<T>(
  eventId: string,
  action: "revert" | "approve" | "dismiss",
  params: AuditActionParams,
  parse: (data: unknown) => T,
): APICall<T> {
  return {
    method: "POST",
    path: `${PATH}/${segment(eventId, "eventId")}/${action}`,
    body: {},
    // A retry of a POST that did land must not act twice (or fail as "already done").
    idempotencyKey: idempotencyKey(params.idempotencyKey),
    parse,
  };
}
