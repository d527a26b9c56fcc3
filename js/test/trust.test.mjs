// Key verification and the persistent stream state through the shipped
// package: the trust store (pinning on first use, changed keys refused until
// verified or acknowledged, the policies), TrustedKey, fingerprints and
// safety numbers, StreamState (sealed flag, owner, senders, rolls, acted-on
// prompts) and both persisted through Uint8Array, sealed under the
// identity key.
import { test } from "node:test";
import assert from "node:assert/strict";
import { shipped as pkg, throwsCode } from "./load.mjs";
import * as server from "./hostile-server.mjs";

const ROOT = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
const BOB = "usr_01JD3QS2E3C4N5D6000000000B";

test("TrustStore: pinned on first use, a changed key refused until verified or acknowledged", () => {
  const store = new pkg.TrustStore("tofu");
  assert.equal(store.policy, "tofu");
  const bob = pkg.IdentityKey.generate("user", "key_phone");
  const swapped = pkg.IdentityKey.generate("user", "key_phone");
  throwsCode(assert, pkg, () => store.trusted(BOB, bob.recipient()), "UNKNOWN_KEY");
  throwsCode(assert, pkg, () => store.trustedById(BOB, "key_phone"), "UNKNOWN_KEY");
  assert.equal(store.observe(BOB, bob.recipient()), "new");
  assert.equal(store.observe(BOB, bob.recipient()), "same");
  // A further key id of a subject already known is told apart from a first sight.
  const laptop = pkg.IdentityKey.generate("user", "key_laptop");
  assert.equal(store.observe(BOB, laptop.recipient()), "added");
  assert.equal(store.forget(BOB, "key_laptop"), true);
  laptop.free();
  const key = store.trusted(BOB, bob.recipient());
  assert.ok(key instanceof pkg.TrustedKey);
  assert.equal(key.subject, BOB);
  assert.deepEqual(key.recipient, bob.recipient());
  assert.equal(key.level, "unverified");
  assert.equal(store.trustedById(BOB, "key_phone").level, "unverified");
  assert.deepEqual(store.pinned(BOB, "key_phone"), { subject: BOB, recipient: bob.recipient(), verified: false, pendingChange: null, previouslyVerified: false });
  assert.equal(store.pinned(BOB, "key_laptop"), undefined);

  // The server presents another key under the same id: noticed, and neither key is usable.
  assert.equal(store.observe(BOB, swapped.recipient()), "changed");
  assert.equal(store.pinned(BOB, "key_phone").pendingChange, swapped.publicKey);
  throwsCode(assert, pkg, () => store.trusted(BOB, swapped.recipient()), "KEY_CHANGED");
  throwsCode(assert, pkg, () => store.trusted(BOB, bob.recipient()), "KEY_CHANGED");
  throwsCode(assert, pkg, () => store.admit(BOB, swapped.recipient()), "KEY_CHANGED");
  // Bob and the user compare safety numbers over another channel: they match the new key.
  store.verify(BOB, swapped.recipient());
  assert.equal(store.trusted(BOB, swapped.recipient()).level, "verified");
  assert.equal(store.observe(BOB, swapped.recipient()), "verified");
  throwsCode(assert, pkg, () => store.trusted(BOB, bob.recipient()), "KEY_CHANGED");

  // A verified key that changes again is the strongest alert; acknowledging accepts it unverified.
  assert.equal(store.observe(BOB, bob.recipient()), "verified-then-changed");
  store.acknowledgeChange(BOB, "key_phone");
  const acknowledged = store.pinned(BOB, "key_phone");
  assert.equal(acknowledged.recipient.publicKey, bob.publicKey);
  assert.equal(acknowledged.previouslyVerified, true);
  assert.equal(store.trusted(BOB, bob.recipient()).level, "unverified");

  // Policies.
  store.setPolicy("verified-only");
  assert.equal(store.policy, "verified-only");
  throwsCode(assert, pkg, () => store.trusted(BOB, bob.recipient()), "KEY_NOT_VERIFIED");
  store.setPolicy("refuse-after-verified-change");
  assert.equal(store.policy, "refuse-after-verified-change");
  throwsCode(assert, pkg, () => store.setPolicy("anything"), "INVALID_FIELD");
  const botKey = store.admit("bot_1", { kind: "bot", keyId: "machine-a", publicKey: bob.publicKey });
  assert.equal(botKey.level, "unverified");
  assert.deepEqual(store.keysOf(BOB).map((k) => k.recipient.keyId), ["key_phone"]);
  assert.equal(store.forget(BOB, "key_phone"), true);
  assert.equal(store.forget(BOB, "key_phone"), false);
  assert.deepEqual(store.keysOf(BOB), []);
  for (const k of [store, bob, swapped, key, botKey]) k.free();
});

test("TrustedKey.own, ownerKey: a changed owner key is refused", () => {
  const me = pkg.IdentityKey.generate("bot", "machine-a");
  const own = pkg.TrustedKey.own("bot_1", me);
  assert.deepEqual([own.subject, own.recipient, own.level], ["bot_1", me.recipient(), "verified"]);
  const owner = pkg.IdentityKey.generate("user", "owner-key");
  const trust = new pkg.TrustStore("tofu");
  const first = pkg.ownerKey(trust, "usr_owner", { keyId: "owner-key", publicKey: owner.publicKey });
  assert.equal(first.subject, "usr_owner");
  const impostor = pkg.IdentityKey.generate("user", "owner-key");
  throwsCode(assert, pkg, () => pkg.ownerKey(trust, "usr_owner", { keyId: "owner-key", publicKey: impostor.publicKey }), "KEY_CHANGED");
  throwsCode(assert, pkg, () => pkg.ownerKey(trust, "usr_owner", { keyId: "owner-key", publicKey: "short" }), "MALFORMED_JSON");
  for (const k of [me, own, owner, trust, first, impostor]) k.free();
});

test("fingerprint and safetyNumber: the same digits on both sides, scannable payloads that match only the other side's", () => {
  const alice = pkg.IdentityKey.generate("user", "a");
  const bot = pkg.IdentityKey.generate("bot", "m");
  const f = pkg.fingerprint("usr_alice", alice.publicKey);
  assert.match(f.digits, /^\d{30}$/);
  assert.equal(f.display, f.digits.match(/.{5}/g).join(" "));
  assert.notEqual(pkg.fingerprint("usr_mallory", alice.publicKey).digits, f.digits); // bound to the subject
  throwsCode(assert, pkg, () => pkg.fingerprint("", alice.publicKey), "INVALID_LENGTH");
  throwsCode(assert, pkg, () => pkg.fingerprint("usr_alice", "AAAA"), "INVALID_LENGTH");

  const mine = pkg.safetyNumber("usr_alice", alice.publicKey, "bot_1", bot.publicKey);
  const theirs = pkg.safetyNumber("bot_1", bot.publicKey, "usr_alice", alice.publicKey);
  assert.ok(mine instanceof pkg.SafetyNumber);
  assert.match(mine.digits, /^\d{60}$/);
  assert.equal(mine.digits, theirs.digits);
  assert.equal(mine.display, theirs.display);
  assert.ok(mine.matchesDigits(theirs.display));
  assert.ok(mine.matchesDigits(theirs.digits));
  assert.ok(!mine.matchesDigits(theirs.digits.replace(/.$/, (d) => String((Number(d) + 1) % 10))));
  const qr = theirs.scannable();
  assert.ok(qr instanceof Uint8Array);
  assert.ok(mine.matchesScanned(qr));
  assert.ok(!mine.matchesScanned(mine.scannable())); // one's own screen does not match
  const impostor = pkg.IdentityKey.generate("bot", "m");
  const forged = pkg.safetyNumber("bot_1", impostor.publicKey, "usr_alice", alice.publicKey);
  assert.ok(!mine.matchesScanned(forged.scannable()));
  assert.ok(!mine.matchesDigits(forged.digits));
  throwsCode(assert, pkg, () => mine.matchesScanned(qr.slice(0, -1)), "INVALID_LENGTH");
  throwsCode(assert, pkg, () => mine.matchesScanned(new Uint8Array(qr.length)), "INVALID_FIELD");
  for (const k of [alice, bot, mine, theirs, impostor, forged]) k.free();
});

test("TrustStore and StreamState persist through Uint8Array, sealed under the identity key (STATE_AUTH_FAILED for another)", () => {
  const me = pkg.IdentityKey.generate("user", "key_laptop");
  const other = pkg.IdentityKey.generate("user", "key_laptop");
  const bot = pkg.IdentityKey.generate("bot", "machine-a");
  const trust = new pkg.TrustStore("verified-only");
  trust.observe("bot_1", bot.recipient());
  trust.verify("bot_1", bot.recipient());
  const trustBytes = trust.toBytes(me);
  assert.ok(trustBytes instanceof Uint8Array);
  const trustBack = pkg.TrustStore.fromBytes(trustBytes, me);
  assert.equal(trustBack.policy, "verified-only");
  assert.deepEqual(trustBack.keysOf("bot_1"), trust.keysOf("bot_1"));
  assert.equal(trustBack.trusted("bot_1", bot.recipient()).level, "verified");
  throwsCode(assert, pkg, () => pkg.TrustStore.fromBytes(trustBytes, other), "STATE_AUTH_FAILED");

  const state = new pkg.StreamState(ROOT);
  state.setOwner("usr_me");
  state.acceptSender(trust.trusted("bot_1", bot.recipient()));
  const roll = state.prepareRoll(me, [pkg.TrustedKey.own("usr_me", me), trust.trusted("bot_1", bot.recipient())]);
  state.commitRoll(roll);
  const sealed = pkg.seal(state.keyring(), me, "usr_me", { kind: "message", streamId: ROOT, messageId: "msg_1", authorId: "usr_me", authorType: "user", revision: 1 }, new Uint8Array([1]));
  const bytes = state.toBytes(me);
  assert.ok(bytes instanceof Uint8Array);
  // The stream key is nowhere in the persisted bytes.
  const key = state.keyring().exportKey(0);
  assert.ok(!Buffer.from(bytes).includes(Buffer.from(key)));
  const back = pkg.StreamState.fromBytes(bytes, me);
  assert.equal(back.rootStreamId, ROOT);
  assert.equal(back.isSealed, true);
  assert.equal(back.highWater, 0);
  assert.equal(back.ownerUserId, "usr_me");
  assert.deepEqual(back.senders, [{ subject: "bot_1", recipient: bot.recipient() }]);
  assert.deepEqual(back.keyring().exportKey(0), key);
  assert.equal(back.keyring().sealCount(0), 1); // seal counts persist too
  assert.equal(sealed.envelope.keyGeneration, 0);
  throwsCode(assert, pkg, () => pkg.StreamState.fromBytes(bytes, other), "STATE_AUTH_FAILED");
  const flipped = Uint8Array.from(bytes);
  flipped[flipped.length - 1] ^= 1;
  throwsCode(assert, pkg, () => pkg.StreamState.fromBytes(flipped, me), "STATE_AUTH_FAILED");
  throwsCode(assert, pkg, () => pkg.StreamState.fromBytes(new Uint8Array(3), me), "MALFORMED_STATE");
  key.fill(0);
  for (const k of [me, other, bot, trust, trustBack, state, back]) k.free();
});

test("StreamState: the sealed flag never unsets, the owner is pinned, rolls go stale, senders are bounded, keys drop", () => {
  const me = pkg.IdentityKey.generate("user", "k");
  const state = new pkg.StreamState(ROOT);
  assert.equal(state.isSealed, false);
  state.observeE2eEnabled(undefined);
  state.observeE2eEnabled(false);
  assert.equal(state.isSealed, false);
  state.observeE2eEnabled(true);
  assert.equal(state.isSealed, true);
  throwsCode(assert, pkg, () => state.observeE2eEnabled(undefined), "SEALED_STREAM_DOWNGRADE");
  throwsCode(assert, pkg, () => state.observeE2eEnabled(false), "SEALED_STREAM_DOWNGRADE");
  const plain = new pkg.StreamState(ROOT);
  plain.markSealed();
  assert.equal(plain.isSealed, true);

  assert.equal(state.ownerUserId, undefined);
  state.setOwner("usr_1");
  state.setOwner("usr_1");
  throwsCode(assert, pkg, () => state.setOwner("usr_2"), "UNEXPECTED_AUTHOR");

  const own = pkg.TrustedKey.own("usr_1", me);
  const a = state.prepareRoll(me, own);
  const b = state.prepareRoll(me, [own]);
  assert.equal(a.keyGeneration, 0);
  assert.equal(b.keyGeneration, 0);
  assert.equal(state.commitRoll(a), 0);
  throwsCode(assert, pkg, () => state.commitRoll(b), "STALE_ROLL"); // a 409 or a race: never two keys of one generation
  assert.equal(state.highWater, 0);
  throwsCode(assert, pkg, () => state.prepareRoll(me, []), "INVALID_FIELD");

  const trust = new pkg.TrustStore("tofu");
  const keys = Array.from({ length: 17 }, (_, i) => pkg.IdentityKey.generate("bot", `m${i}`));
  const trusted = keys.map((k) => trust.admit("bot_1", k.recipient()));
  trusted.slice(0, 16).forEach((t) => state.acceptSender(t));
  throwsCode(assert, pkg, () => state.acceptSender(trusted[16]), "TOO_MANY_KEYS");
  assert.equal(state.senders.length, 16);
  assert.equal(state.removeSender("bot_1", "m0"), true);
  assert.equal(state.removeSender("bot_1", "m0"), false);
  assert.equal(state.senders.length, 15);

  assert.equal(state.wasActedOn("msg_1", 1), false);
  state.dropKeys();
  assert.deepEqual(state.keyring().generations(), []);
  assert.equal(state.isSealed, true);
  for (const k of [me, state, plain, own, a, b, trust, ...keys, ...trusted]) k.free();
});

test("the runtime's refusals cross with their codes: replayed prompt, reply under another sender, plaintext invocation on a sealed root, another author", async () => {
  const s = await server.stage(pkg);
  const machine = pkg.IdentityKey.fromSecretKey("bot", s.machine.keyId, server.unhex(s.machine.secretHex));
  const trust = pkg.TrustStore.fromBytes(server.unhex(s.runtimeTrustHex), machine);
  const fresh = () => pkg.StreamState.fromBytes(server.unhex(s.runtimeStateHex), machine);
  const open = (inv, state = fresh()) => pkg.OpenedInvocation.open(inv, state, trust, s.botId, [machine]);
  const honest = s.invocations.honest;

  const state = fresh();
  const opened = await open(honest, state);
  assert.equal(opened.invocationId, honest.id);
  assert.deepEqual(opened.generations(), [0]);
  assert.deepEqual(opened.history, []);
  assert.ok(state.wasActedOn(honest.sourceMessageId, 1));
  // The same invocation again (a re-claim after a crash) opens; the same prompt under another invocation does not.
  (await open(honest, state)).free();
  await throwsCode(assert, pkg, () => open({ ...honest, id: "inv_01JD3QR1G3J5M7Q9S1V3X5Z7B9" }, state), "PROMPT_REPLAYED");
  // ...and not after a restart either: the acted-on prompts persist.
  const restarted = pkg.StreamState.fromBytes(state.toBytes(machine), machine);
  await throwsCode(assert, pkg, () => open({ ...honest, id: "inv_01JD3QR1G3J5M7Q9S1V3X5Z7B9" }, restarted), "PROMPT_REPLAYED");

  const ctx = honest.sealedContext;
  await throwsCode(assert, pkg, () => open({ ...honest, sealedContext: { ...ctx, reply: { ...ctx.reply, senderId: s.ownerUserId } } }), "REPLY_SENDER_MISMATCH");
  await throwsCode(assert, pkg, () => open({ ...honest, sealedContext: undefined }), "SEALED_STREAM_DOWNGRADE");
  await throwsCode(assert, pkg, () => open({ ...honest, authorUserId: "usr_01JD3QS2E3C4N5D6000000000B" }), "UNEXPECTED_AUTHOR");
  await throwsCode(assert, pkg, () => open({ ...honest, sealedContext: { ...ctx, wraps: Array(33).fill(ctx.wraps[0]) } }), "INPUT_TOO_LARGE");

  // A history item that does not open fails alone; the prompt and the others still open.
  const item = { ...(await opened.sealReply("msg_01JD3QM8D0F2H4K6N8Q0T2W4Y6", "an earlier reply")).reply, role: "assistant", sequence: "7" };
  const broken = { ...item, sequence: "8", ciphertext: item.ciphertext.replace(/^./, (c) => (c === "A" ? "B" : "A")) };
  const id3 = "inv_01JD3QS2H4K6N8Q0T2W4Y6Z8C0";
  const withHistory = await open({ ...honest, id: id3, sealedContext: { ...ctx, history: [item, broken] } });
  assert.deepEqual(withHistory.history.map((h) => h.status), ["opened", "failed"]);
  assert.equal(withHistory.history[0].entry.text, "an earlier reply");
  assert.equal(withHistory.history[0].entry.slot.kind, "botReply");
  assert.equal(withHistory.history[0].entry.keyGeneration, 0);
  // The runtime's own reply, signed by its own key: verified.
  assert.deepEqual(withHistory.history[0].entry.sealedBy, { subject: s.botId, kind: "bot", keyId: "machine-a", status: "verified" });
  assert.deepEqual(withHistory.promptSealedBy, { subject: s.ownerUserId, kind: "user", keyId: s.owner.keyId, status: "unverified" });
  assert.deepEqual(withHistory.history[1], { status: "failed", role: "assistant", sequence: "8", code: "DECRYPTION_FAILED" });
  for (const k of [machine, trust, state, opened, restarted, withHistory]) k.free();
});

test("identity and trusted-key lists: copied in WASM memory, the caller's objects stay usable; freed or foreign ones are INVALID_FIELD", () => {
  const me = pkg.IdentityKey.generate("user", "k");
  const own = pkg.TrustedKey.own("usr_1", me);
  const state = new pkg.StreamState(ROOT);
  const trust = new pkg.TrustStore("tofu");
  const empty = { currentKeyGeneration: 0, ownerUserId: "usr_1", wraps: [] };
  pkg.openKeyWraps(state, trust, empty, [me, me]);
  state.prepareRoll(me, [own, own]).free();
  assert.equal(me.keyId, "k");
  assert.equal(own.subject, "usr_1");
  const freedKey = pkg.IdentityKey.generate("user", "gone");
  freedKey.free();
  const freedTrusted = pkg.TrustedKey.own("usr_1", me);
  freedTrusted.free();
  const invalid = (fn, pattern) =>
    assert.throws(fn, (e) => e instanceof pkg.StreamsealError && e.code === "INVALID_FIELD" && pattern.test(e.message));
  invalid(() => pkg.openKeyWraps(state, trust, empty, [me, freedKey]), /`identities`.*IdentityKey was freed/);
  invalid(() => state.prepareRoll(me, [own, freedTrusted]), /`trustedKeys`.*TrustedKey was freed/);
  invalid(() => pkg.openKeyWraps(state, trust, empty, [own]), /expected an instance of IdentityKey/);
  invalid(() => state.prepareRoll(me, [me]), /expected an instance of TrustedKey/);
  invalid(() => state.prepareRoll(me, "usr_1"), /expected an instance of TrustedKey/);
  invalid(() => state.acceptSender(freedTrusted), /TrustedKey was freed/);
  for (const k of [me, own, state, trust]) k.free();
});
