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

test("a Map nested 100,000 deep is refused where it is read, and the instance keeps working", async () => {
  // The walk does not iterate (an iterator read there would be used up
  // before the read): serde-wasm-bindgen bounds an iterable's items itself
  // as it reads them (its depth limit, 128). Before, a Map nested deep
  // overflowed the WASM stack and every later call failed ("memory access
  // out of bounds").
  const deepMap = (levels) => {
    let value = new Map([["leaf", 1]]);
    for (let i = 1; i < levels; i++) value = new Map([["x", value]]);
    return value;
  };
  const nestedDeeper = (err) => {
    assert.equal(err.code, "MALFORMED_JSON", err.message);
    assert.match(err.message, /nested deeper than 128 levels/);
    return true;
  };
  const revoke = { workspaceId: "ws_01J80000000000000000000001", botId: "bot_1", streamId: ROOT };
  const deep = deepMap(100_000);
  assert.throws(() => api.decodeEvent("bot:e2e_revoke", { ...revoke, junk: deep }), nestedDeeper);
  assert.throws(() => api.decodeEvent("bot:e2e_revoke", new Map([...Object.entries(revoke), ["junk", deep]])), nestedDeeper);
  assert.throws(() => api.decodeHelloAck({ e2eGrantedStreamIds: [], junk: deep }), nestedDeeper);
  // The first module reads through the same deserializer.
  const key = pkg.IdentityKey.generate("user", "k");
  const state = new pkg.StreamState(ROOT);
  const trust = new pkg.TrustStore("tofu");
  const wraps = { currentKeyGeneration: 0, ownerUserId: "usr_1", wraps: [], junk: deep };
  assert.throws(() => pkg.openKeyWraps(state, trust, wraps, key), nestedDeeper);
  // 128 levels in all read; 129 do not (the response object is the first level).
  assert.deepEqual(pkg.openKeyWraps(state, trust, { ...wraps, junk: deepMap(127) }, key), { admitted: [], skipped: [], conflicts: [] });
  assert.throws(() => pkg.openKeyWraps(state, trust, { ...wraps, junk: deepMap(128) }, key), nestedDeeper);
  for (const k of [key, state, trust]) k.free();
  assert.equal(api.decodeEvent("bot:e2e_revoke", { ...revoke, junk: deepMap(100) }).type, "e2eRevoke");
  assert.equal(api.endpointCount(), 58);
  assert.equal(pkg.encodeBase64(new Uint8Array([1, 2, 3])), "AQID");
});

test("a server's JSON handed over in a Map, a Set or an iterator: a deep or hostile value is an error, never an exception through WebAssembly, however often", async () => {
  // The walk does not see inside iterables, so what the deserializer reads
  // there must not run JS that can throw through WebAssembly: each such
  // throw left state behind, and after some hundreds every call failed
  // ("memory access out of bounds"). A message whose authorId is an array
  // 20,000 deep (JSON.parse takes it) where a string belongs: its error
  // message wrote the value with wasm-bindgen's debugString, which recursed
  // in JS without a limit (a RangeError through WebAssembly).
  const page = JSON.parse(`{"data":[{"id":"msg_01JD3QK7C9E1G3J5M7P9S1V3X5","streamId":"${ROOT}","sequence":"1","authorId":${"[".repeat(20_000)}${"]".repeat(20_000)},"authorType":"user","content":"","replyCount":0,"metadata":{},"revision":1,"createdAt":"2026-11-21T10:00:00Z"}]}`);
  const state = new pkg.StreamState(ROOT);
  const trust = new pkg.TrustStore("tofu");
  for (let i = 0; i < 1500; i++) {
    await throwsCode(assert, pkg, () => pkg.openMessages(state.keyring(), trust, ROOT, page.data.values()), "MALFORMED_JSON");
  }
  await throwsCode(assert, pkg, () => pkg.openMessages(state.keyring(), trust, ROOT, new Set(page.data)), "MALFORMED_JSON");
  assert.deepEqual(await pkg.openMessages(state.keyring(), trust, ROOT, []), []);
  // App-built values with getters inside a Map: a pair whose key throws, a
  // value whose field throws.
  const pairs = new Map();
  pairs[Symbol.iterator] = function* () { yield { get 0() { throw new Error("pair getter"); } }; };
  const field = new Map([["k", { get g() { throw new Error("field getter"); } }]]);
  const cfg = { baseUrl: "https://x.test", workspaceId: "ws_01J80000000000000000000001", apiKey: "svc_bk_secret" };
  for (let i = 0; i < 1500; i++) {
    await throwsCode(assert, api, () => api.buildRequest(cfg, { endpoint: "getMe", junk: pairs }), "MALFORMED_JSON");
    await throwsCode(assert, api, () => api.decodeHelloAck({ e2eGrantedStreamIds: [], junk: field }), "MALFORMED_JSON");
  }
  assert.equal(api.missingScope("sendMessage", ["messages:read"]), "messages:write");
  assert.equal(pkg.encodeBase64(new Uint8Array([1, 2, 3])), "AQID");
  for (const k of [state, trust]) k.free();
});
