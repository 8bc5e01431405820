/**
 * `client.jobs`: asynchronous Level 2's jobs, the decisions a write with
 * `autoSupersede: "async"` left to a worker: pending, running, or done with their outcome.
 */

import { type APICall, query, segment } from "../core/request.js";
import type { Transport } from "../core/transport.js";
import { readJob, readJobPage } from "../core/wire.js";
import { Pager } from "../pagination.js";
import type { Job, JobListPageParams, JobListParams, JobPage, RequestOptions } from "../types.js";

const PATH = "/agent/jobs";

export class Jobs {
  readonly #transport: Transport;

  /** @internal */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Every matching job, newest first, fetched page by page as you iterate.
   * `{ status: "pending" }`: the decisions still to come (running ones included).
   */
  list(params: JobListParams = {}, options?: RequestOptions): Pager<Job, JobPage> {
    const pageCall = listCall(params);
    return new Pager((cursor) => this.#transport.send(pageCall(cursor), options), (page) => page.jobs);
  }

  /** One page of jobs; pass its `nextCursor` back as `cursor` for the next one. */
  async listPage(params: JobListPageParams = {}, options?: RequestOptions): Promise<JobPage> {
    const { cursor, ...filters } = params;
    return this.#transport.send(listCall(filters)(cursor ?? null), options);
  }

  /** One job: the `autoSupersede.jobId` of an asynchronous write. */
  async get(jobId: string, options?: RequestOptions): Promise<Job> {
    return this.#transport.send(
      { method: "GET", path: `${PATH}/${segment(jobId, "jobId")}`, parse: (data) => readJob(data) },
      options,
    );
  }
}

function listCall(params: JobListParams): (cursor: string | null) => APICall<JobPage> {
  const filters = query({
    status: params.status,
    memory_id: params.memoryId,
    user_id: params.userId,
    limit: params.limit,
  });
  return (cursor) => ({
    method: "GET",
    path: PATH,
    query: { ...filters, ...query({ cursor }) },
    parse: (data) => readJobPage(data),
  });
}
