// The retry policy through the shipped API module (`retryStep`,
// `noResponseRetryFacts`, `defaultRetryPolicy`): what `parseResponse`
// reads of a failure is what the policy decides from, and a call that may
// have landed is read back, never resent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { shippedApi as pkg, throwsCode } from "./load.mjs";

const ctx = { baseUrl: "https://chat.example.test/", workspaceId: "ws_01J80000000000000000000001", apiKey: "svc_bk_secret" };
const STREAM = "stream_01J80000000000000000000010";
const rateBody = JSON.stringify({ error: "Too many requests", limit: 60, windowMs: 60000 });

const send = (clientMessageId) =>
  pkg.buildRequest(ctx, {
    endpoint: "sendMessage",
    streamId: STREAM,
    body: { content: "hi", ...(clientMessageId ? { clientMessageId } : {}) },
  });

test("a 429 with an HTTP-date Retry-After waits the date, on the server's clock", () => {
  const failed = pkg.parseResponse(send(), {
    status: 429,
    headers: [["Date", "Wed, 21 Oct 2026 07:28:00 GMT"], ["Retry-After", "Wed, 21 Oct 2026 07:28:07 GMT"]],
    body: rateBody,
  });
  assert.equal(failed.status, "failed");
  const { failure } = failed;
  assert.equal(failure.retryAfter, 7);
  assert.deepEqual(failure.retry, {
    endpoint: "sendMessage",
    kind: "rateLimited",
    status: 429,
    waitMs: 7000,
    retryAtMs: null,
    retrySafe: true,
  });
  // The client's clock is far off: it is not consulted.
  const step = pkg.retryStep(failure.retry, 1, Date.UTC(2030, 0, 1));
  assert.equal(step.step, "retry");
  assert.ok(step.delayMs >= 7000 && step.delayMs < 7500, `${step.delayMs}`);
});

test("a date without a Date header is measured by nowMs", () => {
  const { failure } = pkg.parseResponse(send("cmid_01J80000000000000000000001"), {
    status: 503,
    headers: [["Retry-After", "Wed, 21 Oct 2026 07:28:07 GMT"]],
    body: "",
  });
  const at = Date.UTC(2026, 9, 21, 7, 28, 7);
  assert.equal(failure.retry.retryAtMs, at);
  const step = pkg.retryStep(failure.retry, 1, at - 3000, { baseDelayMs: 0, maxDelayMs: 0, maxAttempts: 3, maxWaitMs: 60000 });
  assert.deepEqual(step, { step: "retry", delayMs: 3000 });
});

test("a lost response is resent only when the request is retry-safe", () => {
  const safe = pkg.noResponseRetryFacts(send("cmid_01J80000000000000000000001"));
  assert.equal(safe.kind, "noResponse");
  assert.equal(safe.retrySafe, true);
  const step = pkg.retryStep(safe, 2);
  assert.equal(step.step, "retry");
  assert.ok(step.delayMs < 1000);
  assert.deepEqual(pkg.retryStep(safe, 5), { step: "giveUp", reason: "attemptsExhausted", waitMs: null });

  // A send without clientMessageId: nothing finds it, so its outcome is unknown.
  const unsafe = pkg.noResponseRetryFacts(send());
  assert.deepEqual(pkg.retryStep(unsafe, 1), { step: "giveUp", reason: "outcomeUnknown", waitMs: null });
  // A key-wrap post: the wraps are read back (and past the last attempt, unknown).
  const wraps = { ...unsafe, endpoint: "postKeyWraps" };
  assert.equal(pkg.retryStep(wraps, 1).endpoint, "getKeyWraps");
  assert.equal(pkg.retryStep(wraps, 5).reason, "outcomeUnknown");
});

test("final statuses give up; a server asking for a day is not waited for", () => {
  const { failure } = pkg.parseResponse(send(), { status: 400, headers: [], body: '{"error":"bad"}' });
  assert.deepEqual(pkg.retryStep(failure.retry, 1), { step: "giveUp", reason: "notRetryable", waitMs: null });
  const day = pkg.parseResponse(send(), { status: 429, headers: [["Retry-After", "86400"]], body: rateBody }).failure;
  const step = pkg.retryStep(day.retry, 1);
  assert.equal(step.reason, "waitTooLong");
  assert.ok(step.waitMs >= 86_400_000);
});

test("defaultRetryPolicy, and bad inputs are typed errors", () => {
  assert.deepEqual(pkg.defaultRetryPolicy(), { baseDelayMs: 500, maxDelayMs: 30000, maxAttempts: 5, maxWaitMs: 120000 });
  const facts = pkg.noResponseRetryFacts(send("cmid_01J80000000000000000000001"));
  throwsCode(assert, pkg, () => pkg.retryStep({ ...facts, kind: "maybe" }, 1), "MALFORMED_JSON");
  throwsCode(assert, pkg, () => pkg.retryStep(facts, 1, -5), "INVALID_FIELD");
  const jitters = new Set(Array.from({ length: 32 }, () => pkg.retryStep(facts, 4).delayMs));
  assert.ok(jitters.size > 1, "the jitter is drawn, not fixed");
  for (const d of jitters) assert.ok(d >= 0 && d < 4000, `${d}`);
});

test("withClientMessageId: the core mints one for a send without one, once", () => {
  const bare = { endpoint: "sendMessage", streamId: STREAM, body: { content: "hi" } };
  const minted = pkg.withClientMessageId(bare, Date.now());
  assert.match(minted.body.clientMessageId, /^cmid_[0-9A-Z]{26}$/);
  assert.equal(pkg.buildRequest(ctx, minted).retrySafe, true);
  assert.equal(pkg.buildRequest(ctx, bare).retrySafe, false);
  assert.deepEqual(pkg.withClientMessageId(minted, Date.now() + 5), minted, "kept, not replaced");
  const read = { endpoint: "getStream", streamId: STREAM };
  assert.deepEqual(pkg.withClientMessageId(read, Date.now()), read);
});
