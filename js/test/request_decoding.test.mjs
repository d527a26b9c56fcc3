// Issue 17, one validation path for requests: a request field of the wrong
// type (a fraction for an integer, a string for a boolean, -1 for a
// generation, null for a required string), a missing field or an unknown
// endpoint comes back from buildRequest as a StreamsealError
// VALIDATION_FAILED whose `details` are keyed by the wire path, the shape of
// the service's 400 body; never MALFORMED_JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { shipped as pkg, shippedApi as api } from "./load.mjs";

const ctx = { baseUrl: "https://chat.example.test", workspaceId: "ws_01J80000000000000000000001", apiKey: "svc_bk_secret" };
const STREAM = "stream_01J80000000000000000000010";

/** The `details` of the VALIDATION_FAILED that `fn` throws. */
function validationDetails(fn) {
  let caught;
  assert.throws(fn, (e) => {
    caught = e;
    return true;
  });
  assert.ok(caught instanceof pkg.StreamsealError, `not a StreamsealError: ${caught}`);
  assert.equal(caught.code, "VALIDATION_FAILED", caught.message);
  assert.equal(typeof caught.details, "object");
  return caught.details;
}

const claim = (ttl) => ({
  endpoint: "claimInvocation",
  body: { runtimeKind: "custom", instanceId: "machine-a", supportedCapabilities: ["mentionable"], claimTtlSeconds: ttl },
});

test("buildRequest: a fraction for an integer is VALIDATION_FAILED on claimTtlSeconds", () => {
  const details = validationDetails(() => api.buildRequest(ctx, claim(60.5)));
  assert.deepEqual(Object.keys(details), ["claimTtlSeconds"]);
  assert.deepEqual(details.claimTtlSeconds, ["must be an integer between 0 and 4294967295"]);
  // A whole JS number crosses as an integer, and builds.
  const built = api.buildRequest(ctx, claim(60));
  assert.equal(JSON.parse(built.body.value).claimTtlSeconds, 60);
  // Out of bounds after decoding: the same error under the same key.
  assert.deepEqual(Object.keys(validationDetails(() => api.buildRequest(ctx, claim(301)))), ["claimTtlSeconds"]);
});

test("buildRequest: every kind of decoding mistake is named by its wire path", () => {
  const cases = [
    [{ endpoint: "searchMessages", body: { query: "q", semantic: "true" } }, ["semantic"]],
    [{ endpoint: "postKeyWraps", streamId: STREAM, body: { keyGeneration: -1, wraps: [] } }, ["keyGeneration"]],
    [{ endpoint: "updateMessage", messageId: "msg_1", body: { content: null } }, ["content"]],
    [{ endpoint: "sendMessage", streamId: STREAM, body: { content: "hi", conversation: { intent: "maybe" } } }, ["conversation.intent"]],
    [
      { endpoint: "postKeyWraps", streamId: STREAM, body: { keyGeneration: 0, wraps: [{ recipientKind: "user", recipientKeyId: "k", wrapEnc: "AAAA" }] } },
      ["wraps[0].wrapCt"],
    ],
    [{ endpoint: "getStream", streamId: 5 }, ["streamId"]],
    [{ endpoint: "postKeyWraps", streamId: 5, body: { keyGeneration: 1.5, wraps: [] } }, ["keyGeneration", "streamId"]],
    [{ endpoint: "searchMemos", body: { before: "last tuesday", after: "2026-13-01" } }, ["after", "before"]],
    [{ endpoint: "noSuchEndpoint" }, ["endpoint"]],
  ];
  for (const [request, keys] of cases) {
    const details = validationDetails(() => api.buildRequest(ctx, request));
    assert.deepEqual(Object.keys(details).sort(), keys, JSON.stringify(request));
  }
});

test("reasons do not repeat the value given", () => {
  const err = (() => {
    try {
      api.buildRequest(ctx, claim("svc_uk_TOPSECRET"));
    } catch (e) {
      return e;
    }
    return undefined;
  })();
  assert.equal(err?.code, "VALIDATION_FAILED");
  assert.ok(!JSON.stringify(err.details).includes("TOPSECRET"));
  assert.ok(!err.message.includes("TOPSECRET"));
});

test("nextPage, nextMessageQuery and checkSendRules read requests the same way", () => {
  const page = { kind: "streams", data: { data: [], hasMore: true, cursor: "c2" } };
  const details = validationDetails(() => api.nextPage({ endpoint: "listStreams", query: { type: "channel", limit: 2.5 } }, page));
  assert.deepEqual(Object.keys(details), ["limit"]);
  const list = { data: [], hasMore: false, slots: {} };
  assert.deepEqual(Object.keys(validationDetails(() => api.nextMessageQuery({ limit: "2" }, list))), ["limit"]);
  assert.deepEqual(Object.keys(validationDetails(() => api.checkSendRules(false, false, { content: 5 }))), ["content"]);
});
