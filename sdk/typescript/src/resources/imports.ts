/**
 * `client.imports`: a large import's index deferred to its end (`POST /agent/imports`, `POST` and
 * `GET /agent/imports/index`). Announced, an import's memories enter no index while they arrive;
 * the tenant's own index is built once, at the end, over all of them.
 */

import { InvalidArgumentError } from "../errors.js";
import { describe } from "../core/request.js";
import type { Transport } from "../core/transport.js";
import { readImportIndexing } from "../core/wire.js";
import type { ImportAnnounceParams, ImportIndexing, RequestOptions } from "../types.js";

const PATH = "/agent/imports";
const INDEX_PATH = "/agent/imports/index";

export class Imports {
  readonly #transport: Transport;

  /** @internal */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * An import of `facts` facts is about to start; `largestScope`, the most of them in any one
   * scope (user and agent). `indexing` "deferred": its memories enter no index until
   * `buildIndex()`; "shared": they are indexed as they come (a small import, one with Level 2
   * that takes a scope past 2,000 memories or does not say its largest scope, or no room for
   * another tenant's own index). No Idempotency-Key: announcing again answers as the first time
   * did.
   */
  async announce(facts: number, params: ImportAnnounceParams = {}, options?: RequestOptions): Promise<ImportIndexing> {
    if (typeof facts !== "number" || !Number.isSafeInteger(facts) || facts < 1) {
      throw new InvalidArgumentError(`facts must be a positive whole number of facts, not ${describe(facts)}`);
    }
    if (typeof params !== "object" || params === null) {
      throw new InvalidArgumentError(
        "imports.announce() takes the number of facts, then an object { autoSupersede, largestScope }",
      );
    }
    const autoSupersede: unknown = params.autoSupersede ?? false;
    if (typeof autoSupersede !== "boolean") {
      throw new InvalidArgumentError(`autoSupersede must be a boolean, not ${describe(autoSupersede)}`);
    }
    const largestScope: unknown = params.largestScope;
    if (
      largestScope !== undefined &&
      (typeof largestScope !== "number" || !Number.isSafeInteger(largestScope) || largestScope < 1 || largestScope > facts)
    ) {
      throw new InvalidArgumentError(`largestScope must be a number of facts from 1 to facts, not ${describe(largestScope)}`);
    }
    return this.#transport.send(
      {
        method: "POST",
        path: PATH,
        body: { facts, auto_supersede: autoSupersede, ...(largestScope === undefined ? {} : { largest_scope: largestScope }) },
        parse: (data) => readImportIndexing(data),
      },
      options,
    );
  }

  /**
   * Build the tenant's own index now (after the import's last batch): "deferred" or "building"
   * while a build is asked for or under way (202), "own" or "shared" when there is nothing to
   * build (200). `indexing()` says when it is "own".
   */
  async buildIndex(options?: RequestOptions): Promise<ImportIndexing> {
    return this.#transport.send(
      { method: "POST", path: INDEX_PATH, body: {}, parse: (data) => readImportIndexing(data) },
      options,
    );
  }

  /** Where the tenant's new memories are indexed now, and why. */
  async indexing(options?: RequestOptions): Promise<ImportIndexing> {
    return this.#transport.send({ method: "GET", path: INDEX_PATH, parse: (data) => readImportIndexing(data) }, options);
  }
}
