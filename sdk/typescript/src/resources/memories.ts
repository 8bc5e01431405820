/** `client.memories`: write, list, search, read, trace and supersede memories. */

import { InvalidArgumentError } from "../errors.js";
import {
  type APICall,
  compact,
  describe,
  formatTime,
  idempotencyKey,
  optionalTime,
  query,
  segment,
} from "../core/request.js";
import type { Transport } from "../core/transport.js";
import {
  readBatchWriteResult,
  readHistory,
  readMemory,
  readMemoryPage,
  readMessagesWriteResult,
  readSupersedeResult,
  readWriteResult,
} from "../core/wire.js";
import { Pager } from "../pagination.js";
import type {
  AddBatchParams,
  AddFactParams,
  AddMessagesParams,
  AddParams,
  BatchWriteResult,
  HistoryResult,
  Memory,
  MemoryAtParams,
  MemoryListPageParams,
  MemoryListParams,
  MemoryPage,
  MessageInput,
  MessagesWriteResult,
  Metadata,
  RequestOptions,
  SupersedeParams,
  SupersedeResult,
  WriteResult,
} from "../types.js";

const PATH = "/agent/memories";

export class Memories {
  readonly #transport: Transport;

  /** @internal */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Write one fact (`content`), or the facts a conversation states (`messages`).
   *
   * `autoSupersede` absent uses the key's `autoSupersedeDefault`. Every call
   * sends one `Idempotency-Key` (generated unless given) on all its retries,
   * so a retried write is never stored twice.
   */
  add(params: AddFactParams, options?: RequestOptions): Promise<WriteResult>;
  add(params: AddMessagesParams, options?: RequestOptions): Promise<MessagesWriteResult>;
  add(params: AddParams, options?: RequestOptions): Promise<WriteResult | MessagesWriteResult>;
  async add(params: AddParams, options?: RequestOptions): Promise<WriteResult | MessagesWriteResult> {
    return this.#transport.send(addCall(params), options);
  }

  /**
   * Write 1..100 facts as one unit (`POST /agent/memories/batch`): all of them or none.
   *
   * `autoSupersede` applies to the whole batch; the facts are applied in
   * `validFrom` order, each seeing the batch's earlier facts. One result per
   * fact, in the order given. One `Idempotency-Key` (generated unless given)
   * covers the batch on all its retries. The body must stay within 64 KiB.
   */
  async addBatch(params: AddBatchParams, options?: RequestOptions): Promise<BatchWriteResult> {
    return this.#transport.send(addBatchCall(params), options);
  }

  /** Every matching memory, fetched page by page as you iterate (`limit` is the page size). */
  list(params: MemoryListParams = {}, options?: RequestOptions): Pager<Memory, MemoryPage> {
    const pageCall = listCall(undefined, params);
    return new Pager((cursor) => this.#transport.send(pageCall(cursor), options), (page) => page.memories);
  }

  /** One page of memories; pass its `nextCursor` back as `cursor` for the next one. */
  async listPage(params: MemoryListPageParams = {}, options?: RequestOptions): Promise<MemoryPage> {
    const { cursor, ...filters } = params;
    return this.#transport.send(listCall(undefined, filters)(cursor ?? null), options);
  }

  /** Memories ranked by meaning, shared words and kinds for `q` (at most 200), each with a `score` and a `relevance`, fetched page by page. */
  search(q: string, params: MemoryListParams = {}, options?: RequestOptions): Pager<Memory, MemoryPage> {
    const pageCall = listCall(q, params);
    return new Pager((cursor) => this.#transport.send(pageCall(cursor), options), (page) => page.memories);
  }

  /** One page of search results; pass its `nextCursor` back as `cursor` for the next one. */
  async searchPage(q: string, params: MemoryListPageParams = {}, options?: RequestOptions): Promise<MemoryPage> {
    const { cursor, ...filters } = params;
    return this.#transport.send(listCall(q, filters)(cursor ?? null), options);
  }

  /** One memory, as it was valid at `asOf` and as Aurra knew it at `knownAt`. */
  async get(memoryId: string, params: MemoryAtParams = {}, options?: RequestOptions): Promise<Memory> {
    return this.#transport.send(
      {
        method: "GET",
        path: `${PATH}/${segment(memoryId, "memoryId")}`,
        query: atQuery(params),
        parse: (data) => readMemory(data),
      },
      options,
    );
  }

  /** The supersession chain this memory belongs to and its recorded versions, oldest first. */
  async history(memoryId: string, params: MemoryAtParams = {}, options?: RequestOptions): Promise<HistoryResult> {
    return this.#transport.send(
      {
        method: "GET",
        path: `${PATH}/${segment(memoryId, "memoryId")}/history`,
        query: atQuery(params),
        parse: (data) => readHistory(data),
      },
      options,
    );
  }

  /** Replace `memoryId` by a new fact (`content`) or by a memory that exists (`supersededBy`). */
  async supersede(memoryId: string, params: SupersedeParams, options?: RequestOptions): Promise<SupersedeResult> {
    return this.#transport.send(supersedeCall(memoryId, params), options);
  }
}

function addCall(params: AddParams): APICall<WriteResult | MessagesWriteResult> {
  if (typeof params !== "object" || params === null) {
    throw new InvalidArgumentError("memories.add() takes an object: { content } or { messages }");
  }
  const hasContent = params.content !== undefined;
  const hasMessages = params.messages !== undefined;
  if (hasContent === hasMessages) {
    throw new InvalidArgumentError("memories.add() takes exactly one of content (a fact) and messages (a conversation)");
  }
  const content: unknown = params.content;
  if (hasContent && typeof content !== "string") {
    throw new InvalidArgumentError(`content must be a string, not ${describe(content)}`);
  }
  if (hasMessages && params.source !== undefined) {
    throw new InvalidArgumentError("source is for a content write; a messages write takes conversationId");
  }
  if (hasContent && params.conversationId !== undefined) {
    throw new InvalidArgumentError("conversationId is for a messages write; a content write takes source");
  }
  const body = compact({
    content: params.content,
    messages: hasMessages ? messagesBody(params.messages) : undefined,
    topic: params.topic,
    user_id: params.userId,
    agent_id: params.agentId,
    metadata: metadataBody(params.metadata),
    valid_from: optionalTime(params.validFrom, "validFrom"),
    valid_to: optionalTime(params.validTo, "validTo"),
    auto_supersede: params.autoSupersede,
    source: params.source === undefined ? undefined : compact({ ...params.source }),
    conversation_id: params.conversationId,
  });
  return {
    method: "POST",
    path: PATH,
    body,
    idempotencyKey: idempotencyKey(params.idempotencyKey),
    parse: hasMessages ? (data) => readMessagesWriteResult(data) : (data) => readWriteResult(data),
  };
}

const MAX_BATCH_FACTS = 100;

function addBatchCall(params: AddBatchParams): APICall<BatchWriteResult> {
  const facts: unknown = typeof params === "object" && params !== null ? params.facts : undefined;
  if (!Array.isArray(facts) || facts.length < 1 || facts.length > MAX_BATCH_FACTS) {
    throw new InvalidArgumentError(`memories.addBatch() takes { facts: [...] } with 1 to ${MAX_BATCH_FACTS} facts`);
  }
  const body = compact({
    facts: facts.map((fact: unknown, i) => {
      if (typeof fact !== "object" || fact === null || typeof (fact as { content?: unknown }).content !== "string") {
        throw new InvalidArgumentError(`facts[${i}] must be an object with a string content`);
      }
      const f = fact as AddBatchParams["facts"][number];
      return compact({
        content: f.content,
        topic: f.topic,
        user_id: f.userId,
        agent_id: f.agentId,
        metadata: metadataBody(f.metadata),
        valid_from: optionalTime(f.validFrom, `facts[${i}].validFrom`),
        valid_to: optionalTime(f.validTo, `facts[${i}].validTo`),
        source: f.source === undefined ? undefined : compact({ ...f.source }),
      });
    }),
    auto_supersede: params.autoSupersede,
  });
  return {
    method: "POST",
    path: `${PATH}/batch`,
    body,
    idempotencyKey: idempotencyKey(params.idempotencyKey),
    parse: (data) => readBatchWriteResult(data),
  };
}

function messagesBody(messages: MessageInput[] | undefined): Record<string, unknown>[] {
  if (!Array.isArray(messages)) {
    throw new InvalidArgumentError(`messages must be an array of { role, content }, not ${describe(messages)}`);
  }
  return messages.map((message, i) => {
    if (typeof message !== "object" || message === null) {
      throw new InvalidArgumentError(`messages[${i}] must be an object { role, content }`);
    }
    return compact({
      role: message.role,
      content: message.content,
      created_at: optionalTime(message.createdAt, `messages[${i}].createdAt`),
    });
  });
}

function metadataBody(metadata: Metadata | undefined): Metadata | undefined {
  if (metadata === undefined) return undefined;
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    throw new InvalidArgumentError(`metadata must be an object, not ${describe(metadata)}`);
  }
  // Sent as given: metadata keys are the caller's, never renamed.
  return metadata;
}

/** Validate the filters now (not at the first iteration) and return the call for any cursor. */
function listCall(q: string | undefined, params: MemoryListParams): (cursor: string | null) => APICall<MemoryPage> {
  if (q !== undefined && (typeof q !== "string" || q.trim() === "")) {
    throw new InvalidArgumentError("q must be a non-empty string");
  }
  const filters = query({
    q,
    topic: params.topic,
    user_id: params.userId,
    agent_id: params.agentId,
    conversation_id: params.conversationId,
    source_id: params.sourceId,
    as_of: optionalTime(params.asOf, "asOf"),
    known_at: optionalTime(params.knownAt, "knownAt"),
    include_superseded: params.includeSuperseded,
    limit: params.limit,
  });
  return (cursor) => ({
    method: "GET",
    path: PATH,
    query: { ...filters, ...query({ cursor }) },
    parse: (data) => readMemoryPage(data),
  });
}

function atQuery(params: MemoryAtParams): Record<string, string> {
  return query({
    as_of: optionalTime(params.asOf, "asOf"),
    known_at: optionalTime(params.knownAt, "knownAt"),
  });
}

function supersedeCall(memoryId: string, params: SupersedeParams): APICall<SupersedeResult> {
  const path = `${PATH}/${segment(memoryId, "memoryId")}/supersede`;
  if (typeof params !== "object" || params === null) {
    throw new InvalidArgumentError("memories.supersede() takes { content, ... } or { supersededBy }");
  }
  let body: Record<string, unknown>;
  // The API takes exactly one of two shapes; say which mix is wrong instead of letting the server guess.
  if (params.supersededBy !== undefined) {
    const extra = (["content", "topic", "validFrom", "metadata"] as const).filter((k) => params[k] !== undefined);
    if (extra.length) {
      throw new InvalidArgumentError(
        `memories.supersede() takes either supersededBy or content (with topic, validFrom, metadata), not both: got ${extra.join(", ")}`,
      );
    }
    body = { superseded_by: segmentCheck(params.supersededBy) };
  } else if (params.content !== undefined) {
    body = compact({
      content: params.content,
      topic: params.topic,
      valid_from: params.validFrom === undefined ? undefined : formatTime(params.validFrom, "validFrom"),
      metadata: metadataBody(params.metadata),
    });
  } else {
    throw new InvalidArgumentError("memories.supersede() needs content (a new fact) or supersededBy (an existing memory)");
  }
  return {
    method: "POST",
    path,
    body,
    idempotencyKey: idempotencyKey(params.idempotencyKey),
    parse: (data) => readSupersedeResult(data),
  };
}

function segmentCheck(id: string): string {
  segment(id, "supersededBy");
  return id;
}
