// The realtime events of API §6 through the shipped package: decodeEvent and
// decodeHelloAck, the same decoder UniFFI's decode_event is (the core's
// wire::events::Event), on the wire fixtures the Kotlin and Python tests read.
// The attack first: a forged decision:resolved decodes to what the server
// claims, and only openDecisionAnswer's proof from the sealed note counts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { shipped as pkg, shippedApi as api, throwsCode } from "./load.mjs";

const fixture = (name) => JSON.parse(readFileSync(new URL(`../../tests/fixtures/wire/${name}`, import.meta.url), "utf8"));

test("a forged decision:resolved only claims its option; opening it refuses the flip and the noteless answer", async () => {
  const ROOT = "stream_01JD3QJ5ROOT000000000000000";
  const BOT = "bot_01JD3QB0T0000000000000000B";
  const DREQ = "dreq_01JD3QQB2C4E6G8J0K2M4P6R8T";
  const ring = new pkg.Keyring(ROOT);
  ring.generateKey(0);
  const machine = pkg.IdentityKey.generate("bot", "machine-a");
  const decider = pkg.IdentityKey.generate("user", "key_decider");
  const trust = new pkg.TrustStore("tofu");
  trust.observe(BOT, machine.recipient());
  trust.observe("usr_1", decider.recipient());
  const options = [{ id: "approve", tone: "primary" }, { id: "reject", tone: "neutral" }];
  const content = { title: "Deploy?", body: "All green.", labels: { approve: "Deploy", reject: "Wait" } };
  const card = pkg.sealDecisionCard(ring, machine, BOT, ROOT, DREQ, "session-1", "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z7", options, true, content);
  const note = pkg.sealDecisionNote(ring, decider, "usr_1", DREQ, "reject", "hold it");
  const honest = { decisionId: DREQ, optionId: "reject", decidedBy: "usr_1", noteCiphertext: note.ciphertext, noteEnvelope: note.envelope };
  // The server flips the option, or drops the note and claims one.
  const flipped = api.decodeEvent("decision:resolved", { ...honest, optionId: "approve" });
  const noteless = api.decodeEvent("decision:resolved", { decisionId: DREQ, optionId: "approve", decidedBy: "usr_1" });
  for (const forged of [flipped, noteless]) {
    assert.equal(forged.type, "decisionResolved");
    assert.equal(forged.claimedOptionId, "approve");
  }
  assert.equal(noteless.note, null);
  await throwsCode(assert, pkg, () => pkg.openDecisionAnswer(ring, trust, card, flipped.payload), "AAD_MISMATCH");
  await throwsCode(assert, pkg, () => pkg.openDecisionAnswer(ring, trust, card, noteless.payload), "UNPROVEN_DECISION_ANSWER");
  const event = api.decodeEvent("decision:resolved", honest);
  assert.deepEqual(event.note, { ciphertext: note.ciphertext, envelope: note.envelope });
  assert.equal((await pkg.openDecisionAnswer(ring, trust, card, event.payload)).optionId, "reject");
  for (const k of [ring, machine, decider, trust]) k.free();
});

test("decodeEvent: the typed events of §6 from the wire fixtures, the others as they came", () => {
  const resolved = fixture("event_decision_resolved.json");
  const event = api.decodeEvent("decision:resolved", resolved);
  assert.equal(event.type, "decisionResolved");
  assert.deepEqual([event.claimedOptionId, event.decidedBy], ["approve", "usr_01J80000000000000000000002"]);
  assert.equal(event.note.ciphertext, "bm90ZQ==");
  assert.equal(event.payload, resolved, "the payload is the caller's own object");
  assert.equal(api.decodeEvent("decision:resolved", fixture("event_decision_resolved_no_note.json")).note, null);
  assert.deepEqual(api.decodeEvent("bot:e2e_revoke", fixture("event_e2e_revoke.json")), {
    type: "e2eRevoke",
    workspaceId: "ws_01J80000000000000000000001",
    botId: "bot_01J80000000000000000000070",
    streamId: "stream_01J80000000000000000000012",
  });
  // The sealed-steps payload holds the callback token: it is not handed back.
  assert.deepEqual(api.decodeEvent("bot:invocation:sealed-steps", fixture("event_sealed_steps.json")), {
    type: "sealedSteps",
    invocationId: "inv_01J80000000000000000000040",
    stepCount: 2,
  });
  const grant = { streamId: "stream_1" };
  assert.deepEqual(api.decodeEvent("bot:e2e_grant", grant), { type: "e2eGrant", payload: grant });
  assert.equal(api.decodeEvent("bot_invocation:available", {}).type, "invocationAvailable");
  assert.deepEqual(api.decodeEvent("bot:later", [1]), { type: "other", name: "bot:later", payload: [1] });
  // A known event of another shape is MALFORMED_JSON.
  throwsCode(assert, pkg, () => api.decodeEvent("bot:e2e_revoke", { botId: 1 }), "MALFORMED_JSON");
  throwsCode(assert, pkg, () => api.decodeEvent("decision:resolved", "not an object"), "MALFORMED_JSON");
});

test("decodeHelloAck: the grants missed while offline, the payload as it came", () => {
  const payload = fixture("event_hello_ack.json");
  const ack = api.decodeHelloAck(payload);
  assert.deepEqual(ack.e2eGrantedStreamIds, ["stream_01J80000000000000000000012"]);
  assert.equal(ack.payload.botId, "bot_01J80000000000000000000070");
  throwsCode(assert, pkg, () => api.decodeHelloAck({ e2eGrantedStreamIds: "stream_1" }), "MALFORMED_JSON");
});

test("iterables cross as the arrays Array.from makes of them; an iterator that throws is an error, not an escape", () => {
  // vendor/serde-wasm-bindgen/PATCHED.md: sequences and maps are read from
  // arrays only, an iterable copied into one first.
  const revoke = fixture("event_e2e_revoke.json");
  const expected = api.decodeEvent("bot:e2e_revoke", revoke);
  // A Map where an object with unknown fields kept (a flattened struct) belongs.
  assert.deepEqual(api.decodeEvent("bot:e2e_revoke", new Map(Object.entries(revoke))), expected);
  // A Set and an iterable object where an array belongs.
  assert.equal(api.missingScope("sendMessage", new Set(["messages:read"])), "messages:write");
  assert.equal(api.missingScope("sendMessage", { *[Symbol.iterator]() { yield "messages:write"; } }), undefined);
  // A one-shot iterator is read once, by the read itself: its items count.
  assert.equal(api.missingScope("sendMessage", new Set(["messages:write"]).values()), undefined);
  assert.equal(api.missingScope("sendMessage", ["messages:read"].values()), "messages:write");
  // A generator object (its prototype chain loops: the nesting walk once
  // refused every one as "nested deeper than 128 levels").
  assert.equal(api.missingScope("sendMessage", (function* () { yield "messages:write"; })()), undefined);
  assert.equal(api.missingScope("sendMessage", (function* () { yield "messages:read"; })()), "messages:write");
  const headers = new Map([["Retry-After", "7"]]);
  const send = api.buildRequest({ baseUrl: "https://chat.example.test", workspaceId: "ws_01J80000000000000000000001", apiKey: "svc_bk_secret" }, { endpoint: "getMe" });
  const limited = api.parseResponse(send, { status: 429, headers: headers.entries(), body: "" });
  assert.equal(limited.failure.rateLimit.retryAfterSeconds, 7);
  // An iterator that throws, a getter of the iterator that throws, a pair
  // that is not an array: the module's error (with the thrown value's
  // words), never an exception through WebAssembly; the module still answers.
  const hostile = { *[Symbol.iterator]() { yield "messages:read"; throw new Error("iterator broke"); } };
  throwsCode(assert, api, () => api.missingScope("sendMessage", hostile), "MALFORMED_JSON");
  assert.throws(() => api.missingScope("sendMessage", hostile), /iterator broke/);
  const getter = { get [Symbol.iterator]() { throw new Error("getter broke"); } };
  throwsCode(assert, api, () => api.missingScope("sendMessage", getter), "MALFORMED_JSON");
  const hostileMap = new Map(Object.entries(revoke));
  hostileMap[Symbol.iterator] = function* () { throw new Error("map iterator broke"); };
  throwsCode(assert, api, () => api.decodeEvent("bot:e2e_revoke", hostileMap), "MALFORMED_JSON");
  // What is thrown may itself not be writable as text (String() of it throws).
  const unshowable = { *[Symbol.iterator]() { throw Object.create(null); } };
  throwsCode(assert, api, () => api.missingScope("sendMessage", unshowable), "MALFORMED_JSON");
  assert.throws(() => api.missingScope("sendMessage", unshowable), /a thrown value that cannot be written as text/);
  const nullPair = { *[Symbol.iterator]() { yield null; } };
  throwsCode(assert, api, () => api.decodeEvent("bot:e2e_revoke", nullPair), "MALFORMED_JSON");
  // A string where a list belongs is not read as its characters.
  throwsCode(assert, api, () => api.missingScope("sendMessage", "messages:write"), "MALFORMED_JSON");
  assert.throws(() => api.missingScope("sendMessage", "messages:write"), /expected a sequence/);
  assert.equal(api.missingScope("sendMessage", ["messages:read"]), "messages:write");
});
