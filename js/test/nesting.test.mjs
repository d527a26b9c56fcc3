// The attack first: a hostile server nests an unknown field some thousands
// deep (JSON.parse takes it). serde-wasm-bindgen recursed once per level
// without a limit, so this overflowed the WASM stack ("memory access out of
// bounds", a trap that can leave the instance's memory corrupt) or the JS
// stack. Every value read from JS is now refused past 128 levels
// (serde_json's limit, as in the other bindings) with MALFORMED_JSON, and
// the instance keeps working.
import { test } from "node:test";
import assert from "node:assert/strict";
import { shipped as pkg, shippedApi as api, throwsCode } from "./load.mjs";

const ROOT = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
/** An object `levels` deep, objects and arrays alternating. */
function nested(levels) {
  let value = {};
  for (let i = 1; i < levels; i++) value = i % 2 ? [value] : { x: value };
  return value;
}
const message = (junk) => ({
  id: "msg_01JD3QK7C9E1G3J5M7P9S1V3X5",
  streamId: ROOT,
  sequence: "1",
  authorId: "usr_1",
  authorType: "user",
  content: "",
  replyCount: 0,
  metadata: {},
  revision: 1,
  createdAt: "2026-11-21T10:00:00Z",
  junk,
});

test("a payload nested 50,000 deep is MALFORMED_JSON in every reader, and the instance keeps working", async () => {
  const deep = nested(50_000);
  const key = pkg.IdentityKey.generate("user", "k");
  const state = new pkg.StreamState(ROOT);
  const trust = new pkg.TrustStore("tofu");
  const wraps = { currentKeyGeneration: 0, ownerUserId: "usr_1", wraps: [{ keyGeneration: 0, junk: deep }] };
  await throwsCode(assert, pkg, () => pkg.openKeyWraps(state, trust, wraps, key), "MALFORMED_JSON");
  await throwsCode(assert, pkg, () => pkg.openMessages(state.keyring(), trust, ROOT, [message(deep)]), "MALFORMED_JSON");
  const resolved = { decisionId: "dreq_01JD3QQB2C4E6G8J0K2M4P6R8T", optionId: "a", decidedBy: "usr_1", junk: deep };
  await throwsCode(assert, api, () => api.decodeEvent("decision:resolved", resolved), "MALFORMED_JSON");
  await throwsCode(assert, api, () => api.decodeHelloAck({ e2eGrantedStreamIds: [], junk: deep }), "MALFORMED_JSON");
  await throwsCode(assert, api, () => api.buildRequest({ baseUrl: "https://x.test", workspaceId: "ws_01J80000000000000000000001", apiKey: "svc_bk_secret" }, { endpoint: "getMe", junk: deep }), "MALFORMED_JSON");
  // An event this library does not type is handed back unread, however deep, or binary.
  assert.equal(api.decodeEvent("bot:later", deep).payload, deep);
  const bytes = new Uint8Array([1, 2, 3]);
  assert.equal(api.decodeEvent("bot:e2e_grant", bytes).payload, bytes);
  // Both modules still work.
  assert.equal(pkg.encodeBase64(new Uint8Array([1, 2, 3])), "AQID");
  assert.equal(api.endpointCount(), 58);
  for (const k of [key, state, trust]) k.free();
});

test("128 levels still read: the limit is serde_json's, as in the other bindings", async () => {
  // An unknown field 120 deep in the response (itself one level) reads; 130 does not.
  const state = new pkg.StreamState(ROOT);
  const trust = new pkg.TrustStore("tofu");
  const key = pkg.IdentityKey.generate("user", "k");
  const within = { currentKeyGeneration: 0, ownerUserId: "usr_1", wraps: [] , extra: nested(120) };
  assert.deepEqual(pkg.openKeyWraps(state, trust, within, key), { admitted: [], skipped: [], conflicts: [] });
  await throwsCode(assert, pkg, () => pkg.openKeyWraps(state, trust, { ...within, extra: nested(130) }, key), "MALFORMED_JSON");
  for (const k of [key, state, trust]) k.free();
});

test("a server's `__proto__` key, merged by the app with Object.assign, cannot hide a deep field from the check (an inherited or non-enumerable field is read, so it is walked)", async () => {
  const deepJson = "[".repeat(30_000) + "]".repeat(30_000);
  const claim = JSON.parse(
    `{"id":"inv_1","rootStreamId":"${ROOT}","activeStreamId":"${ROOT}","sourceMessageId":"msg_01JD3QK7C9E1G3J5M7P9S1V3X5","responseStreamId":"${ROOT}","sourceRevision":1,"authorUserId":"usr_1","__proto__":{"sealedContext":{"junk":${deepJson}}}}`,
  );
  const merged = Object.assign({}, claim);
  assert.ok("sealedContext" in merged && !Object.hasOwn(merged, "sealedContext"), "inherited, as the attack needs");
  const hidden = Object.defineProperty({ ...message(undefined) }, "sealed", { value: { junk: JSON.parse(deepJson) }, enumerable: false });
  const key = pkg.IdentityKey.generate("bot", "k");
  const state = new pkg.StreamState(ROOT);
  const trust = new pkg.TrustStore("tofu");
  await throwsCode(assert, pkg, () => pkg.OpenedInvocation.open(merged, state, trust, "bot_1", [key]), "MALFORMED_JSON");
  await throwsCode(assert, pkg, () => pkg.prepareOpenInvocation(merged, state, trust, "bot_1", key), "MALFORMED_JSON");
  await throwsCode(assert, pkg, () => pkg.openMessages(state.keyring(), trust, ROOT, [hidden]), "MALFORMED_JSON");
  // A getter that throws is refused the same way, not thrown through.
  const throwing = Object.defineProperty({}, "sealed", { get() { throw new Error("no"); }, enumerable: true });
  await throwsCode(assert, pkg, () => pkg.openMessages(state.keyring(), trust, ROOT, [{ ...message(undefined), ...{} }, throwing]), "MALFORMED_JSON");
  // The instance keeps working.
  assert.equal(pkg.encodeBase64(new Uint8Array([1, 2, 3])), "AQID");
  // Bytes as the generated types allow them: a Uint8Array or an array of integers 0 to 255.
  assert.equal(pkg.encodeBase64([1, 2, 3]), "AQID");
  for (const k of [key, state, trust]) k.free();
});

test("a Map, a Set or another iterable nested 100,000 deep is refused too, and the instance keeps working", async () => {
  // serde-wasm-bindgen reads an iterable's items (a Map's pairs) as a
  // sequence or a map: the walk reads them as it does. Before, the walk
  // passed over them and the read overflowed the WASM stack, leaving the
  // instance unusable ("memory access out of bounds" on every later call).
  const deepMap = (levels) => {
    let value = new Map([["leaf", 1]]);
    for (let i = 1; i < levels; i++) value = new Map([["x", value]]);
    return value;
  };
  const deepSet = (levels) => {
    let value = new Set([1]);
    for (let i = 1; i < levels; i++) value = new Set([value]);
    return value;
  };
  const deepIterable = (levels) => {
    let value = [];
    for (let i = 1; i < levels; i++) {
      const inner = value;
      value = { *[Symbol.iterator]() { yield inner; } };
    }
    return value;
  };
  const revoke = { workspaceId: "ws_01J80000000000000000000001", botId: "bot_1", streamId: ROOT };
  for (const deep of [deepMap(100_000), deepSet(100_000), deepIterable(100_000)]) {
    await throwsCode(assert, api, () => api.decodeEvent("bot:e2e_revoke", { ...revoke, junk: deep }), "MALFORMED_JSON");
    await throwsCode(assert, api, () => api.decodeEvent("bot:e2e_revoke", new Map([...Object.entries(revoke), ["junk", deep]])), "MALFORMED_JSON");
    await throwsCode(assert, api, () => api.missingScope("sendMessage", deep), "MALFORMED_JSON");
  }
  // The first module's readers share the walk.
  const key = pkg.IdentityKey.generate("user", "k");
  const state = new pkg.StreamState(ROOT);
  const trust = new pkg.TrustStore("tofu");
  const wraps = { currentKeyGeneration: 0, ownerUserId: "usr_1", wraps: [], junk: deepMap(100_000) };
  await throwsCode(assert, pkg, () => pkg.openKeyWraps(state, trust, wraps, key), "MALFORMED_JSON");
  await throwsCode(assert, pkg, () => pkg.openKeyWraps(state, trust, { ...wraps, junk: undefined, wraps: deepSet(100_000) }, key), "MALFORMED_JSON");
  assert.deepEqual(pkg.openKeyWraps(state, trust, { ...wraps, junk: deepMap(100) }, key), { admitted: [], skipped: [], conflicts: [] });
  for (const k of [key, state, trust]) k.free();
  // Within the limit, a Map still reads (its values kept as the unknown field).
  const shallow = api.decodeEvent("bot:e2e_revoke", { ...revoke, junk: deepMap(100) });
  assert.equal(shallow.type, "e2eRevoke");
  assert.equal(api.missingScope("sendMessage", new Set(["messages:read"])), "messages:write");
  assert.equal(api.endpointCount(), 58);
  assert.equal(pkg.encodeBase64(new Uint8Array([1, 2, 3])), "AQID");
});
