/**
 * `client.events`: the change stream, every change of the tenant's memories once, in commit
 * order. `list()` iterates until it has caught up; keep its `nextCursor` and pass it back as
 * `after` to read what committed since.
 */

import { InvalidArgumentError } from "../errors.js";
import { type APICall, describe, query } from "../core/request.js";
import type { Transport } from "../core/transport.js";
import { readChangeEventPage } from "../core/wire.js";
import type { ChangeEvent, ChangeEventPage, EventListParams, RequestOptions } from "../types.js";

const PATH = "/agent/events";

export class Events {
  readonly #transport: Transport;

  /** @internal */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Every event after `after` (from the oldest kept when absent), oldest first, fetched page by
   * page as you iterate, until a page comes back empty. Then `stream.nextCursor` is where the
   * next walk starts: past every event yielded.
   */
  list(params: EventListParams = {}, options?: RequestOptions): EventStream {
    const pageCall = listCall(params);
    return new EventStream((after) => this.#transport.send(pageCall(after), options), params.after ?? null);
  }

  /** One page; pass its `nextCursor` back as `after` for the next one (it is given on every page). */
  async listPage(params: EventListParams = {}, options?: RequestOptions): Promise<ChangeEventPage> {
    return this.#transport.send(listCall(params)(params.after ?? null), options);
  }
}

/**
 * A walk of the change stream from a cursor to the end of what has committed. The stream itself
 * has no end: a page is never the last one, so the walk stops at the first empty page.
 *
 * `nextCursor` moves past a page once the events after it are asked for (or the walk ends), so
 * a walk stopped early (`break`, an error) resumes from the page it was reading: every event is
 * seen at least once, in order; drop repeats by `id`.
 */
export class EventStream implements AsyncIterable<ChangeEvent> {
  readonly #fetchPage: (after: string | null) => Promise<ChangeEventPage>;
  /** Where the next walk starts: the `after` given, then past every page read whole. */
  nextCursor: string | null;

  /** @internal Made by `events.list`. */
  constructor(fetchPage: (after: string | null) => Promise<ChangeEventPage>, after: string | null) {
    this.#fetchPage = fetchPage;
    this.nextCursor = after;
  }

  /** Every page from `nextCursor` on, the last one empty. */
  async *pages(): AsyncGenerator<ChangeEventPage, void, undefined> {
    for (;;) {
      const page = await this.#fetchPage(this.nextCursor);
      yield page;
      this.nextCursor = page.nextCursor;
      if (page.events.length === 0) return;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ChangeEvent, void, undefined> {
    for await (const page of this.pages()) yield* page.events;
  }

  /** Every event up to now, in one array: for a stream you know is short. */
  async toArray(): Promise<ChangeEvent[]> {
    const events: ChangeEvent[] = [];
    for await (const event of this) events.push(event);
    return events;
  }
}

/** Validate the filters now (not at the first iteration) and return the call for any cursor. */
function listCall(params: EventListParams): (after: string | null) => APICall<ChangeEventPage> {
  if (typeof params !== "object" || params === null) {
    throw new InvalidArgumentError("events.list() takes an object: { after, types, limit }");
  }
  const types: unknown = params.types;
  if (types !== undefined && (!Array.isArray(types) || types.length === 0 || types.some((t) => typeof t !== "string"))) {
    // A lone string ("memory.created") is the likely mistake: name it before anything is sent.
    throw new InvalidArgumentError(`types must be a non-empty array of event types, not ${describe(types)}`);
  }
  const filters = query({ types: params.types?.join(","), limit: params.limit });
  return (after) => ({
    method: "GET",
    path: PATH,
    query: { ...filters, ...query({ after }) },
    parse: (data) => readChangeEventPage(data),
  });
}
