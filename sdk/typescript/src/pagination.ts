/**
 * Iteration over every page of a listing, following `nextCursor` for you.
 * Nothing is fetched until iteration starts, and each iteration starts again
 * from the first page.
 */

import { UnexpectedResponseError } from "./errors.js";

interface CursorPage {
  nextCursor: string | null;
}

/** `for await (const item of pager)` yields every item of every page; `pages()` yields the pages. */
export class Pager<Item, Page extends CursorPage> implements AsyncIterable<Item> {
  readonly #fetchPage: (cursor: string | null) => Promise<Page>;
  readonly #items: (page: Page) => Item[];

  /** @internal Made by the resources (`memories.list`, `memories.search`, `audit.list`). */
  constructor(fetchPage: (cursor: string | null) => Promise<Page>, items: (page: Page) => Item[]) {
    this.#fetchPage = fetchPage;
    this.#items = items;
  }

  /** Every page, first to last. */
  async *pages(): AsyncGenerator<Page, void, undefined> {
    let cursor: string | null = null;
    for (;;) {
      const page: Page = await this.#fetchPage(cursor);
      yield page;
      const following = page.nextCursor || null;
      if (following === null) return;
      if (following === cursor) {
        // A server that hands back the cursor it was given would make us loop forever.
        throw new UnexpectedResponseError(`Aurra returned the same next_cursor twice (${cursor})`, 200);
      }
      cursor = following;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* this.#items(page);
  }

  /** Every item of every page, in one array: for listings you know are small. */
  async toArray(): Promise<Item[]> {
    const items: Item[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}

interface ExportResponse {
  records: Record<string, unknown>[];
  nextCursor: string | null;
}

/**
 * The records of an export, response after response (one snapshot: writes made meanwhile are
 * not in it). A response's records are yielded only once it has arrived whole; a response cut
 * short is asked for again with its cursor, which gives the same response.
 *
 * `cursor` is the cursor of the response being read (null: the first). Should the iteration
 * fail for good (retries spent), iterating the same stream again, or `client.export({ cursor })`,
 * resumes with that response: no record of an earlier response comes again.
 */
export class ExportStream implements AsyncIterable<Record<string, unknown>> {
  readonly #fetchPage: (cursor: string | null) => Promise<ExportResponse>;
  /** The cursor of the response being read, to resume from. */
  cursor: string | null;
  /** True once the last response (`next_cursor` null) has been read whole. */
  done = false;

  /** @internal Made by `client.export`. */
  constructor(fetchPage: (cursor: string | null) => Promise<ExportResponse>, cursor: string | null) {
    this.#fetchPage = fetchPage;
    this.cursor = cursor;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Record<string, unknown>, void, undefined> {
    while (!this.done) {
      const page = await this.#fetchPage(this.cursor);
      yield* page.records;
      if (page.nextCursor === null) this.done = true;
      else this.cursor = page.nextCursor;
    }
  }
}
