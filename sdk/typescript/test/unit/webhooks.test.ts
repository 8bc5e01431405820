import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { AurraError, InvalidArgumentError } from "../../src/index.js";
import {
  DEFAULT_TOLERANCE_SECONDS,
  WebhookVerificationError,
  signWebhook,
  verifyWebhook,
  verifyWebhookSignature,
} from "../../src/webhooks.js";

// The example of the Standard Webhooks specification, as its reference libraries' tests use it.
const VECTOR_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const VECTOR_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const VECTOR_TIMESTAMP = 1614265330;
const VECTOR_BODY = '{"test": 2432232314}';
const VECTOR_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
const VECTOR_HEADERS = {
  "webhook-id": VECTOR_ID,
  "webhook-timestamp": String(VECTOR_TIMESTAMP),
  "webhook-signature": VECTOR_SIGNATURE,
};
const AT_VECTOR = { now: new Date(VECTOR_TIMESTAMP * 1000) };

/** A change event as Aurra delivers it, and its headers, signed with the vector's secret. */
function delivery(timestamp = VECTOR_TIMESTAMP): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({
    id: "0193a2b4-0000-7000-8000-0000000000c1",
    type: "memory.superseded",
    created_at: "2026-05-03T10:00:00.123456Z",
    user_id: "alice",
    agent_id: null,
    memory_id: "0192f0c4-0000-7000-8000-000000000001",
    data: { superseded_by: "0192f0c4-0000-7000-8000-000000000002", event_id: "0192f0c4-0000-7000-8000-0000000000e1", by: "auto" },
  });
  const id = "0193a2b4-0000-7000-8000-0000000000c1";
  return {
    body,
    headers: {
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signWebhook(VECTOR_SECRET, id, timestamp, body),
    },
  };
}

function refused(run: () => unknown, message: RegExp): void {
  assert.throws(run, (e: unknown) => {
    assert.ok(e instanceof WebhookVerificationError, String(e));
    assert.ok(e instanceof AurraError);
    assert.match(e.message, message);
    return true;
  });
}

describe("webhooks: the Standard Webhooks test vector", () => {
  it("signs the published vector", () => {
    assert.equal(signWebhook(VECTOR_SECRET, VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY), VECTOR_SIGNATURE);
    assert.equal(signWebhook(VECTOR_SECRET, VECTOR_ID, VECTOR_TIMESTAMP, Buffer.from(VECTOR_BODY)), VECTOR_SIGNATURE);
    // The secret's prefix is optional, as in the reference libraries.
    assert.equal(signWebhook(VECTOR_SECRET.slice("whsec_".length), VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY), VECTOR_SIGNATURE);
  });

  it("verifies the published vector's headers, as a string, bytes, or a Headers object", () => {
    verifyWebhookSignature(VECTOR_BODY, VECTOR_HEADERS, VECTOR_SECRET, AT_VECTOR);
    verifyWebhookSignature(new TextEncoder().encode(VECTOR_BODY), VECTOR_HEADERS, VECTOR_SECRET, AT_VECTOR);
    verifyWebhookSignature(VECTOR_BODY, new Headers(VECTOR_HEADERS), VECTOR_SECRET, AT_VECTOR);
    const upper = Object.fromEntries(Object.entries(VECTOR_HEADERS).map(([k, v]) => [k.toUpperCase(), v]));
    verifyWebhookSignature(VECTOR_BODY, upper, VECTOR_SECRET, AT_VECTOR);
    // Node's IncomingMessage may hand a header over as a one-element list.
    verifyWebhookSignature(VECTOR_BODY, { ...VECTOR_HEADERS, "webhook-signature": [VECTOR_SIGNATURE] }, VECTOR_SECRET, AT_VECTOR);
  });

  it("refuses the vector with anything changed: body, id, timestamp, secret, signature", () => {
    const wrong: [string, Record<string, string>, string][] = [
      ['{"test": 2432232315}', VECTOR_HEADERS, VECTOR_SECRET],
      [`${VECTOR_BODY} `, VECTOR_HEADERS, VECTOR_SECRET],
      [VECTOR_BODY, { ...VECTOR_HEADERS, "webhook-id": "msg_other" }, VECTOR_SECRET],
      [VECTOR_BODY, { ...VECTOR_HEADERS, "webhook-signature": "v1,dawfeoifkpqwoekfpqoekf" }, VECTOR_SECRET],
      [VECTOR_BODY, { ...VECTOR_HEADERS, "webhook-signature": VECTOR_SIGNATURE.slice(0, 8) }, VECTOR_SECRET],
      [VECTOR_BODY, { ...VECTOR_HEADERS, "webhook-signature": "v1," }, VECTOR_SECRET],
      // The right digest under another version is not a v1 signature.
      [VECTOR_BODY, { ...VECTOR_HEADERS, "webhook-signature": VECTOR_SIGNATURE.replace("v1,", "v2,") }, VECTOR_SECRET],
      [VECTOR_BODY, VECTOR_HEADERS, `whsec_${"A".repeat(32)}`],
    ];
    for (const [body, headers, secret] of wrong) {
      refused(() => verifyWebhookSignature(body, headers, secret, AT_VECTOR), /no signature/);
    }
    const timestamp = { ...VECTOR_HEADERS, "webhook-timestamp": String(VECTOR_TIMESTAMP + 1) };
    refused(() => verifyWebhookSignature(VECTOR_BODY, timestamp, VECTOR_SECRET, AT_VECTOR), /no signature/);
  });

  it("accepts any one signature of several (a secret being rotated)", () => {
    const sigs = [
      "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
      "v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
      VECTOR_SIGNATURE,
      "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
    ];
    verifyWebhookSignature(VECTOR_BODY, { ...VECTOR_HEADERS, "webhook-signature": sigs.join(" ") }, VECTOR_SECRET, AT_VECTOR);
    const none = sigs.filter((s) => s !== VECTOR_SIGNATURE).join(" ");
    refused(() => verifyWebhookSignature(VECTOR_BODY, { ...VECTOR_HEADERS, "webhook-signature": none }, VECTOR_SECRET, AT_VECTOR), /no signature/);
  });

  it("refuses a timestamp more than 5 minutes away, either way, and one that is not whole seconds", () => {
    assert.equal(DEFAULT_TOLERANCE_SECONDS, 300);
    const at = (seconds: number) => ({ now: new Date((VECTOR_TIMESTAMP + seconds) * 1000) });
    verifyWebhookSignature(VECTOR_BODY, VECTOR_HEADERS, VECTOR_SECRET, at(300));
    verifyWebhookSignature(VECTOR_BODY, VECTOR_HEADERS, VECTOR_SECRET, at(-300));
    refused(() => verifyWebhookSignature(VECTOR_BODY, VECTOR_HEADERS, VECTOR_SECRET, at(301)), /too old/);
    refused(() => verifyWebhookSignature(VECTOR_BODY, VECTOR_HEADERS, VECTOR_SECRET, at(-301)), /future/);
    verifyWebhookSignature(VECTOR_BODY, VECTOR_HEADERS, VECTOR_SECRET, { ...at(3600), toleranceSeconds: 3600 });
    // The clock's now by default: the vector is from 2021.
    refused(() => verifyWebhookSignature(VECTOR_BODY, VECTOR_HEADERS, VECTOR_SECRET), /too old/);
    for (const stamp of ["hello", "1614265330.5", "-1614265330", ""]) {
      refused(
        () => verifyWebhookSignature(VECTOR_BODY, { ...VECTOR_HEADERS, "webhook-timestamp": stamp }, VECTOR_SECRET, AT_VECTOR),
        stamp === "" ? /missing header webhook-timestamp/ : /not whole Unix seconds/,
      );
    }
  });

  it("refuses a delivery without one of the three headers, or with one sent twice", () => {
    for (const name of Object.keys(VECTOR_HEADERS)) {
      const { [name]: _left, ...headers } = VECTOR_HEADERS as Record<string, string>;
      refused(() => verifyWebhookSignature(VECTOR_BODY, headers, VECTOR_SECRET, AT_VECTOR), new RegExp(`missing header ${name}`));
    }
    const twice = { ...VECTOR_HEADERS, "webhook-id": [VECTOR_ID, VECTOR_ID] };
    refused(() => verifyWebhookSignature(VECTOR_BODY, twice, VECTOR_SECRET, AT_VECTOR), /sent 2 times/);
  });

  it("says a malformed secret, tolerance or clock, or a parsed body, is the receiver's mistake, not a forged webhook", () => {
    for (const secret of ["", "whsec_", "whsec_not base64!", "whsec_abc"]) {
      assert.throws(() => verifyWebhookSignature(VECTOR_BODY, VECTOR_HEADERS, secret, AT_VECTOR), InvalidArgumentError);
    }
    // A tolerance or a clock that is not a number would let any timestamp through.
    for (const options of [{ toleranceSeconds: Number.NaN }, { toleranceSeconds: -1 }, { now: new Date("not a date") }]) {
      assert.throws(() => verifyWebhookSignature(VECTOR_BODY, VECTOR_HEADERS, VECTOR_SECRET, options), InvalidArgumentError);
    }
    assert.throws(
      () => verifyWebhookSignature(JSON.parse(VECTOR_BODY) as never, VECTOR_HEADERS, VECTOR_SECRET, AT_VECTOR),
      (e: unknown) => e instanceof InvalidArgumentError && /raw body/.test(e.message),
    );
  });
});

describe("webhooks: verifyWebhook reads the change event", () => {
  it("returns the event as events.list yields it, camelCase and typed", () => {
    const { body, headers } = delivery();
    const event = verifyWebhook(body, headers, VECTOR_SECRET, AT_VECTOR);
    assert.deepEqual(event, {
      id: "0193a2b4-0000-7000-8000-0000000000c1",
      type: "memory.superseded",
      createdAt: "2026-05-03T10:00:00.123456Z",
      userId: "alice",
      agentId: null,
      memoryId: "0192f0c4-0000-7000-8000-000000000001",
      data: { supersededBy: "0192f0c4-0000-7000-8000-000000000002", eventId: "0192f0c4-0000-7000-8000-0000000000e1", by: "auto" },
    });
    assert.equal(event.id, headers["webhook-id"], "drop repeats by webhook-id: it is the event's id");
  });

  it("checks the signature before reading anything", () => {
    const { body, headers } = delivery();
    refused(() => verifyWebhook(body.replace("alice", "mallory"), headers, VECTOR_SECRET, AT_VECTOR), /no signature/);
  });

  it("refuses a signed body that is not a change event", () => {
    refused(() => verifyWebhook(VECTOR_BODY, VECTOR_HEADERS, VECTOR_SECRET, AT_VECTOR), /not a change event/);
  });
});
