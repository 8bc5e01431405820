import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  APIConnectionError,
  APIStatusError,
  APITimeoutError,
  APIUserAbortError,
  Aurra,
  AurraError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  GoneError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  ValidationError,
} from "../../src/index.js";
import { MockFetch, WIRE_SETTINGS, apiError, json } from "./mock-fetch.js";

function client(mock: MockFetch, options: { maxRetries?: number; timeout?: number } = {}): Aurra {
  return new Aurra({ apiKey: "aurra_test", baseURL: "http://aurra.test", fetch: mock.fetch, maxRetries: 0, ...options });
}

describe("errors", () => {
  const cases: [number, string, typeof APIStatusError][] = [
    [400, "bad_request", BadRequestError],
    [401, "unauthorized", AuthenticationError],
    [403, "forbidden", PermissionDeniedError],
    [404, "not_found", NotFoundError],
    [409, "conflict", ConflictError],
    [410, "gone", GoneError],
    [413, "payload_too_large", PayloadTooLargeError],
    [422, "validation_error", ValidationError],
    [429, "rate_limited", RateLimitError],
    [500, "internal", ServerError],
    [503, "unavailable", ServerError],
  ];
  for (const [status, code, ErrorClass] of cases) {
    it(`maps ${status} to ${ErrorClass.name} with the server's code, message, details and request id`, async () => {
      const details = [{ field: "x", problem: "y" }];
      const mock = new MockFetch().reply(apiError(status, code, `the ${code} message`, details, { "x-amzn-requestid": "req-1" }));
      await assert.rejects(client(mock).settings.get(), (e: unknown) => {
        assert.ok(e instanceof ErrorClass, `${(e as Error).name}`);
        assert.ok(e instanceof APIStatusError && e instanceof AurraError && e instanceof Error);
        assert.equal(e.name, ErrorClass.name);
        assert.equal(e.status, status);
        assert.equal(e.code, code);
        assert.equal(e.message, `the ${code} message`);
        assert.deepEqual(e.details, details);
        assert.equal(e.requestId, "req-1");
        return true;
      });
    });
  }

  it("gives a refused credential (422 sensitive_content) as a ValidationError naming the field, never the credential", async () => {
    const details = [{ field: "content", problem: "content carries a credential: aws_access_key" }];
    const mock = new MockFetch().reply(apiError(422, "sensitive_content", "the write carries credentials", details));
    await assert.rejects(client(mock).memories.add({ content: "my key is AKIA..." }), (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.equal(e.code, "sensitive_content");
      assert.equal(e.details[0]?.field, "content");
      return true;
    });
    assert.equal(mock.requests.length, 1, "a 422 is never retried");
  });

  it("gives a 429 its Retry-After in seconds, from a number or an HTTP date", async () => {
    const mock = new MockFetch().reply(apiError(429, "rate_limited", "slow down", [], { "retry-after": "7" }));
    await assert.rejects(client(mock).settings.get(), (e: unknown) => e instanceof RateLimitError && e.retryAfter === 7);
    const date = new Date(Date.now() + 30_000).toUTCString();
    const dated = new MockFetch().reply(apiError(429, "rate_limited", "slow down", [], { "retry-after": date }));
    await assert.rejects(client(dated).settings.get(), (e: unknown) => {
      assert.ok(e instanceof RateLimitError && e.retryAfter !== null);
      assert.ok(e.retryAfter > 25 && e.retryAfter <= 30, String(e.retryAfter));
      return true;
    });
    const none = new MockFetch().reply(apiError(429, "rate_limited", "slow down"));
    await assert.rejects(client(none).settings.get(), (e: unknown) => e instanceof RateLimitError && e.retryAfter === null);
  });

  it("makes sense of a body without the envelope (a gateway answered)", async () => {
    const gateway = new MockFetch().reply(json({ message: "Forbidden" }, 403));
    await assert.rejects(client(gateway).settings.get(), (e: unknown) =>
      e instanceof PermissionDeniedError && e.message === "Forbidden" && e.code === "forbidden" && Array.isArray(e.details),
    );
    const text = new MockFetch().reply(new Response("Bad Gateway", { status: 502 }));
    await assert.rejects(client(text).settings.get(), (e: unknown) => e instanceof ServerError && e.message === "Bad Gateway" && e.code === "internal");
    const empty = new MockFetch().reply(new Response(null, { status: 418, statusText: "I'm a teapot" }));
    await assert.rejects(client(empty).settings.get(), (e: unknown) =>
      e instanceof APIStatusError && e.constructor === APIStatusError && e.message === "HTTP 418 I'm a teapot",
    );
  });

  it("turns a network failure into APIConnectionError, keeping the cause", async () => {
    const refused = Object.assign(new TypeError("fetch failed"), { cause: new Error("connect ECONNREFUSED 127.0.0.1:9") });
    const mock = new MockFetch().reply(refused);
    await assert.rejects(client(mock).settings.get(), (e: unknown) => {
      assert.ok(e instanceof APIConnectionError && !(e instanceof APITimeoutError));
      assert.match(e.message, /GET http:\/\/aurra\.test\/agent\/settings: fetch failed: connect ECONNREFUSED/);
      assert.equal((e as Error & { cause?: unknown }).cause, refused);
      return true;
    });
  });

  it("times out an attempt that takes too long, including reading its body", async () => {
    const hang = new MockFetch().reply(
      (_request, init) =>
        new Promise<Response>((_, reject) => init.signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")))),
    );
    await assert.rejects(client(hang, { timeout: 20 }).settings.get(), (e: unknown) => e instanceof APITimeoutError && /timed out after 20 ms/.test(e.message));

    const slowBody = new MockFetch().reply((_request, init) => {
      const stream = new ReadableStream({
        start(controller) {
          init.signal.addEventListener("abort", () => controller.error(new DOMException("aborted", "AbortError")));
        },
      });
      return new Response(stream, { status: 200 });
    });
    await assert.rejects(client(slowBody, { timeout: 20 }).settings.get(), APITimeoutError);
  });

  it("stops at once when the caller aborts, without retrying", async () => {
    const mock = new MockFetch().reply(
      (_request, init) =>
        new Promise<Response>((_, reject) => init.signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")))),
    );
    const controller = new AbortController();
    const call = client(mock, { maxRetries: 5 }).settings.get({ signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await assert.rejects(call, APIUserAbortError);
    assert.equal(mock.requests.length, 1);
    await assert.rejects(client(new MockFetch().reply(json(WIRE_SETTINGS))).settings.get({ signal: AbortSignal.abort() }), APIUserAbortError);
  });
});
