// The golden vectors of tests/vectors/streamseal/, reproduced byte for byte
// from JS through the package's hazmat exports, which draw exactly the
// vector's randomness; the wraps also through an independent HPKE (npm
// @hpke/core).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { BACKEND, hex, shipped, throwsCode, unhex, utf8, vectors } from "./load.mjs";
import * as hostile from "./hostile-server.mjs";

// Each vector is reproduced byte for byte by the Node entry's module (the
// bot module, built with the `wasm-release` profile, `pkg` below), which has
// the tools' `hazmat*WithRandomness` exports. The browser's first module, which a
// front end loads, is built apart (its own profile, `wasm-browser`: the
// curve and AES-GCM for size, std from source) and has no fixed-randomness
// exports: it opens every vector, and what it seals, wraps and bundles
// with its own randomness is opened by the Node module and checked by
// WebCrypto and @hpke/core (the tests "... by the browser's first module"
// below). They run once, beside the synchronous backend.
const browser = await import("../src/browser.js");
await browser.init(readFileSync(new URL("../dist/streamseal_wasm_bg.wasm", import.meta.url)));
// The first module's tests take its synchronous calls, the same under
// every backend of this run: they run in the sync run, once.
const FIRST_MODULE = { skip: BACKEND === "sync" ? false : "the first module runs once, in the sync backend's run" };
// The Node entry's module (a bot runtime's calls, the invocations vector, are its only).
const pkg = shipped;


// Secret holders are freed after each vector (Node 20 has no `using`).
const held = [];
const keep = (obj) => (held.push(obj), obj);
const freeAll = () => held.splice(0).forEach((o) => o.free());


const subtle = globalThis.crypto.subtle;
const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
};
const u32 = (n) => Uint8Array.of(n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);

/** The key commitment of FORMAT.md section 2 (the ciphertext's first 32 bytes), with WebCrypto's HKDF: salt "streamseal/commit", ikm the stream key, info u8 version || iv. */
/** The content after the key commitment, decrypted by WebCrypto's AES-GCM under `aad` (FORMAT.md section 2). */
async function innerByWebCrypto(key, iv, aad, ciphertext) {
  const aes = await subtle.importKey("raw", key, "AES-GCM", false, ["decrypt"]);
  return new Uint8Array(await subtle.decrypt({ name: "AES-GCM", iv, additionalData: aad, tagLength: 128 }, aes, ciphertext.slice(32)));
}

async function commitment(key, version, iv) {
  const ikm = await subtle.importKey("raw", key, "HKDF", false, ["deriveBits"]);
  const info = concat(Uint8Array.of(version), iv);
  return new Uint8Array(await subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: utf8("streamseal/commit"), info }, ikm, 256));
}

test(`envelopes.json: every slot kind seals byte for byte (iv || Z drawn), opens with its sender, and WebCrypto agrees`, async () => {
  const file = vectors("envelopes");
  assert.equal(file.envelopeVersion, 2);
  assert.equal(file.vectors.length, 8);
  for (const v of file.vectors) {
    const ring = keep(new pkg.Keyring(v.rootStreamId));
    ring.importKey(v.keyGeneration, unhex(v.streamKeyHex));
    const sender = keep(pkg.IdentityKey.fromSecretKey(v.senderKind, v.senderKeyId, unhex(v.senderSecretKeyHex)));
    assert.equal(sender.publicKey, v.senderPublicKey, v.name);
    // 12 + 64 bytes: the iv, then the XEdDSA nonce Z.
    assert.equal(unhex(v.randomHex).length, 76, v.name);
    const sealed = pkg.hazmatSealWithRandomness(ring, sender, v.senderSubject, v.slot, utf8(v.plaintext), unhex(v.randomHex));
    assert.deepEqual(sealed, v.sealed, v.name);
    const aadSender = { subject: v.senderSubject, kind: v.senderKind, keyId: v.senderKeyId };
    assert.equal(hex(pkg.aadEncode(2, v.rootStreamId, v.keyGeneration, aadSender, v.slot)), v.aadHex, v.name);
    assert.deepEqual(pkg.aadParse(unhex(v.aadHex)), { version: 2, rootStreamId: v.rootStreamId, keyGeneration: v.keyGeneration, sender: aadSender, slot: v.slot }, v.name);

    // Opened by a reader that pinned the sender's key on first use: unverified; by the sender itself: verified.
    const trust = keep(new pkg.TrustStore("tofu"));
    trust.observe(v.senderSubject, sender.recipient());
    const opened = await pkg.open(ring, trust, v.slot, v.sealed);
    assert.equal(new TextDecoder().decode(opened.plaintext), v.plaintext, v.name);
    assert.ok(opened.plaintext instanceof Uint8Array);
    assert.deepEqual(opened.slot, v.slot, v.name);
    assert.equal(opened.keyGeneration, v.keyGeneration, v.name);
    assert.deepEqual(opened.sealedBy, { ...aadSender, status: "unverified" }, v.name);
    const empty = keep(new pkg.TrustStore("tofu"));
    assert.equal((await pkg.open(ring, empty, v.slot, v.sealed, { subject: v.senderSubject, keys: sender })).sealedBy.status, "verified", v.name);
    // A reader that pinned another key under the sender's key id refuses it.
    const impostor = keep(pkg.IdentityKey.fromSecretKey(v.senderKind, v.senderKeyId, new Uint8Array(32).fill(0x99)));
    const other = keep(new pkg.TrustStore("tofu"));
    other.observe(v.senderSubject, impostor.recipient());
    await throwsCode(assert, pkg, () => pkg.open(ring, other, v.slot, v.sealed), "SENDER_MISMATCH");

    // Independently of the package (FORMAT.md section 2): the ciphertext is the key commitment
    // (WebCrypto's HKDF gives it) then AES-GCM over signature || content (WebCrypto opens it),
    // and the signature input is built here. The envelope keeps the spec's four fields.
    assert.deepEqual(Object.keys(v.sealed.envelope).sort(), ["aad", "iv", "keyGeneration", "v"], v.name);
    const iv = unhex(v.randomHex).slice(0, 12);
    const key = unhex(v.streamKeyHex);
    const ciphertext = new Uint8Array(Buffer.from(v.sealed.ciphertext, "base64"));
    assert.equal(hex(await commitment(key, 2, iv)), v.commitmentHex, v.name);
    assert.equal(hex(ciphertext.slice(0, 32)), v.commitmentHex, v.name);
    const inner = await innerByWebCrypto(key, iv, unhex(v.aadHex), ciphertext);
    assert.equal(hex(inner.slice(0, 64)), v.signatureHex, v.name);
    assert.equal(new TextDecoder().decode(inner.slice(64)), v.plaintext, v.name);
    const aad = unhex(v.aadHex);
    const input = concat(utf8("streamseal/signature"), Uint8Array.of(2), u32(aad.length), aad, utf8(v.plaintext));
    assert.equal(hex(input), v.signatureInputHex, v.name);
    freeAll();
  }
});

test(`wraps.json: auth-mode wraps (format 2) reproduce and unwrap only as made by their sender`, async () => {
  const file = vectors("wraps");
  assert.equal(file.vectors.length, 3);
  for (const v of file.vectors) {
    const me = keep(pkg.IdentityKey.fromSecretKey(v.recipientKind, v.recipientKeyId, unhex(v.recipientSecretKeyHex)));
    assert.equal(me.publicKey, v.recipientPublicKey);
    const sender = keep(pkg.IdentityKey.fromSecretKey(v.senderKind, v.senderKeyId, unhex(v.senderSecretKeyHex)));
    assert.equal(sender.publicKey, v.senderPublicKey);
    const ring = keep(new pkg.Keyring(v.rootStreamId));
    ring.importKey(v.keyGeneration, unhex(v.streamKeyHex));
    const wrap = pkg.hazmatWrapStreamKeyWithRandomness(ring, v.keyGeneration, sender, me.recipient(), unhex(v.randomHex));
    assert.deepEqual(wrap, v.wrap, v.name);
    const opened = keep(new pkg.Keyring(v.rootStreamId));
    const stranger = keep(pkg.IdentityKey.generate(v.senderKind, v.senderKeyId));
    assert.deepEqual(pkg.unwrapStreamKey(opened, v.wrap, [me], [stranger.recipient(), sender.recipient()]), { sender: 1, recipient: 0 }, v.name);
    assert.equal(hex(opened.exportKey(v.keyGeneration)), v.streamKeyHex, v.name);
    // The same wrap offered as made by anyone else does not open.
    await throwsCode(assert, pkg, () => pkg.unwrapStreamKey(keep(new pkg.Keyring(v.rootStreamId)), v.wrap, me, [stranger.recipient()]), "UNTRUSTED_WRAP");
    freeAll();
  }
});

test("wraps.json through @hpke/core: the info built from FORMAT.md, the same wraps from the same ephemeral, opened in auth mode", async () => {
  for (const v of vectors("wraps").vectors) {
    const info = hostile.wrapInfo({
      rootStreamId: v.rootStreamId,
      generation: v.keyGeneration,
      recipientKind: v.recipientKind,
      recipientKeyId: v.recipientKeyId,
      senderKind: v.senderKind,
      senderKeyId: v.senderKeyId,
    });
    assert.equal(hex(info), v.infoHex, v.name);
    const senderKey = await hostile.keyPair(unhex(v.senderSecretKeyHex), v.senderPublicKey);
    const minted = await hostile.mintWrap({
      keyGeneration: v.keyGeneration,
      streamKey: unhex(v.streamKeyHex),
      recipientPublicKey: v.recipientPublicKey,
      info,
      senderKey,
      ikmE: unhex(v.randomHex),
      named: { recipientKeyId: v.recipientKeyId, recipientKind: v.recipientKind },
    });
    assert.deepEqual(minted, v.wrap, v.name);
    const recipientKey = await hostile.keyPair(unhex(v.recipientSecretKeyHex), v.recipientPublicKey);
    const key = await hostile.openWrap({ wrap: v.wrap, info, recipientKey, senderPublicKey: v.senderPublicKey });
    assert.equal(hex(key), v.streamKeyHex, v.name);
  }
});

test(`bundles.json: passphrase bundles reproduce and open`, async () => {
  const file = vectors("bundles");
  assert.equal(file.vectors.length, 3);
  for (const v of file.vectors) {
    const key = keep(pkg.IdentityKey.fromSecretKey("user", "key_1", unhex(v.secretKeyHex)));
    assert.equal(key.publicKey, v.publicKey);
    const pass = new TextEncoder().encode(v.passphrase);
    const record = pkg.hazmatCreateBundleWithRandomness(key, pass, v.record.kdfParams, unhex(v.randomHex));
    assert.deepEqual(record, v.record, v.name);
    const opened = keep(pkg.openBundle("user", "key_1", v.publicKey, v.record, pass));
    pass.fill(0);
    assert.equal(hex(opened.exportSecretKey()), v.secretKeyHex, v.name);
    freeAll();
  }
});

// The browser's first module against the same vectors (see the top of the file).
const first = browser;
const ownKeyRecord = (v, record) => ({ keyId: "key_1", publicKey: v.publicKey, ...record, createdAt: "2026-11-30T00:00:00Z" });

test("envelopes.json by the browser's first module: opens every vector; what it seals opens in the Node module and in WebCrypto under the vector's AAD", FIRST_MODULE, async () => {
  const all = vectors("envelopes").vectors;
  for (const [i, v] of all.entries()) {
    const ring = keep(new first.Keyring(v.rootStreamId));
    ring.importKey(v.keyGeneration, unhex(v.streamKeyHex));
    const sender = keep(first.IdentityKey.fromSecretKey(v.senderKind, v.senderKeyId, unhex(v.senderSecretKeyHex)));
    assert.equal(sender.publicKey, v.senderPublicKey, v.name);
    const aadSender = { subject: v.senderSubject, kind: v.senderKind, keyId: v.senderKeyId };
    const trust = keep(new first.TrustStore("tofu"));
    trust.observe(v.senderSubject, sender.recipient());
    const opened = first.open(ring, trust, v.slot, v.sealed);
    assert.equal(new TextDecoder().decode(opened.plaintext), v.plaintext, v.name);
    assert.deepEqual(opened.slot, v.slot, v.name);
    assert.equal(opened.keyGeneration, v.keyGeneration, v.name);
    assert.deepEqual(opened.sealedBy, { ...aadSender, status: "unverified" }, v.name);
    // By the sender itself: verified. A reader that pinned another key under the sender's key id refuses it.
    const empty = keep(new first.TrustStore("tofu"));
    assert.equal(first.open(ring, empty, v.slot, v.sealed, { subject: v.senderSubject, keys: sender }).sealedBy.status, "verified", v.name);
    const impostor = keep(first.IdentityKey.fromSecretKey(v.senderKind, v.senderKeyId, new Uint8Array(32).fill(0x99)));
    const other = keep(new first.TrustStore("tofu"));
    other.observe(v.senderSubject, impostor.recipient());
    await throwsCode(assert, first, () => first.open(ring, other, v.slot, v.sealed), "SENDER_MISMATCH");
    // Moved to another vector's slot: refused.
    const moved = all[(i + 1) % all.length].slot;
    await throwsCode(assert, first, () => first.open(ring, trust, moved, v.sealed), "AAD_MISMATCH");

    // Sealed here with fresh randomness: the Node module opens it as the sender's, and
    // WebCrypto decrypts it under the vector's AAD (the same slot, sender and generation).
    const sealed = first.seal(ring, sender, v.senderSubject, v.slot, utf8(v.plaintext));
    assert.equal(sealed.envelope.aad, Buffer.from(unhex(v.aadHex)).toString("base64"), v.name);
    // A fresh iv each time (an AES-GCM nonce is never reused under one key): not the vector's, not the last seal's.
    const again = first.seal(ring, sender, v.senderSubject, v.slot, utf8(v.plaintext));
    const vectorIv = Buffer.from(unhex(v.randomHex).slice(0, 12)).toString("base64");
    assert.equal(new Set([sealed.envelope.iv, again.envelope.iv, vectorIv]).size, 3, v.name);
    assert.notEqual(sealed.ciphertext, again.ciphertext, v.name);
    const nodeRing = keep(new shipped.Keyring(v.rootStreamId));
    nodeRing.importKey(v.keyGeneration, unhex(v.streamKeyHex));
    const nodeSender = keep(shipped.IdentityKey.fromSecretKey(v.senderKind, v.senderKeyId, unhex(v.senderSecretKeyHex)));
    const nodeTrust = keep(new shipped.TrustStore("tofu"));
    nodeTrust.observe(v.senderSubject, nodeSender.recipient());
    const inNode = await shipped.open(nodeRing, nodeTrust, v.slot, sealed);
    assert.equal(new TextDecoder().decode(inNode.plaintext), v.plaintext, v.name);
    assert.deepEqual(inNode.sealedBy, { ...aadSender, status: "unverified" }, v.name);
    const iv = new Uint8Array(Buffer.from(sealed.envelope.iv, "base64"));
    const key = unhex(v.streamKeyHex);
    const ciphertext = new Uint8Array(Buffer.from(sealed.ciphertext, "base64"));
    assert.equal(hex(ciphertext.slice(0, 32)), hex(await commitment(key, 2, iv)), v.name);
    const inner = await innerByWebCrypto(key, iv, unhex(v.aadHex), ciphertext);
    assert.equal(new TextDecoder().decode(inner.slice(64)), v.plaintext, v.name);
    // The signature is XEdDSA over the vector's signature input: the Node module's raw verify agrees.
    const input = concat(utf8("streamseal/signature"), Uint8Array.of(2), u32(unhex(v.aadHex).length), unhex(v.aadHex), utf8(v.plaintext));
    assert.equal(shipped.hazmatXeddsaVerify(v.senderPublicKey, input, inner.slice(0, 64)), undefined, v.name);
    freeAll();
  }
});

test("wraps.json by the browser's first module: unwraps every vector only as made by its sender; what it wraps opens in the Node module and in @hpke/core", FIRST_MODULE, async () => {
  for (const v of vectors("wraps").vectors) {
    const me = keep(first.IdentityKey.fromSecretKey(v.recipientKind, v.recipientKeyId, unhex(v.recipientSecretKeyHex)));
    const sender = keep(first.IdentityKey.fromSecretKey(v.senderKind, v.senderKeyId, unhex(v.senderSecretKeyHex)));
    const stranger = keep(first.IdentityKey.generate(v.senderKind, v.senderKeyId));
    const opened = keep(new first.Keyring(v.rootStreamId));
    assert.deepEqual(first.unwrapStreamKey(opened, v.wrap, [me], [stranger.recipient(), sender.recipient()]), { sender: 1, recipient: 0 }, v.name);
    assert.equal(hex(opened.exportKey(v.keyGeneration)), v.streamKeyHex, v.name);
    await throwsCode(assert, first, () => first.unwrapStreamKey(keep(new first.Keyring(v.rootStreamId)), v.wrap, me, [stranger.recipient()]), "UNTRUSTED_WRAP");

    // Wrapped here with a fresh ephemeral key.
    const ring = keep(new first.Keyring(v.rootStreamId));
    ring.importKey(v.keyGeneration, unhex(v.streamKeyHex));
    const wrap = first.wrapStreamKey(ring, v.keyGeneration, sender, me.recipient());
    assert.notEqual(wrap.wrapEnc, v.wrap.wrapEnc, v.name);
    const nodeMe = keep(shipped.IdentityKey.fromSecretKey(v.recipientKind, v.recipientKeyId, unhex(v.recipientSecretKeyHex)));
    const nodeSender = keep(shipped.IdentityKey.fromSecretKey(v.senderKind, v.senderKeyId, unhex(v.senderSecretKeyHex)));
    const inNode = keep(new shipped.Keyring(v.rootStreamId));
    assert.deepEqual(shipped.unwrapStreamKey(inNode, wrap, nodeMe, [nodeSender.recipient()]), { sender: 0, recipient: 0 }, v.name);
    assert.equal(hex(inNode.exportKey(v.keyGeneration)), v.streamKeyHex, v.name);
    const key = await hostile.openWrap({
      wrap,
      info: unhex(v.infoHex),
      recipientKey: await hostile.keyPair(unhex(v.recipientSecretKeyHex), v.recipientPublicKey),
      senderPublicKey: v.senderPublicKey,
    });
    assert.equal(hex(key), v.streamKeyHex, v.name);
    freeAll();
  }
});

test("bundles.json by the browser's first module: unlocks every vector's record; what changePassphrase seals here unlocks in the Node module", FIRST_MODULE, async () => {
  for (const v of vectors("bundles").vectors) {
    const pass = new TextEncoder().encode(v.passphrase);
    const record = ownKeyRecord(v, v.record);
    const key = keep(first.unlock(record, pass));
    assert.equal(key.publicKey, v.publicKey, v.name);
    assert.equal(hex(key.exportSecretKey()), v.secretKeyHex, v.name);
    await throwsCode(assert, first, () => first.unlock(record, utf8(`${v.passphrase}!`)), "WRONG_PASSPHRASE");

    // Sealed again here under another passphrase, with a fresh salt and iv.
    const next = utf8(`${v.passphrase} again`);
    const resealed = first.changePassphrase(record, pass, next, v.record.kdfParams);
    assert.equal(resealed.publicKey, v.publicKey, v.name);
    assert.deepEqual(resealed.kdfParams, v.record.kdfParams, v.name);
    assert.notEqual(resealed.kdfSalt, v.record.kdfSalt, v.name);
    const inNode = keep(shipped.unlock(ownKeyRecord(v, resealed), next));
    assert.equal(hex(inNode.exportSecretKey()), v.secretKeyHex, v.name);
    pass.fill(0);
    next.fill(0);
    freeAll();
  }
});

test("invocations.json: a runtime that pinned the owner's key opens sealedContext (a member's presented key: unverified) and seals the reply byte for byte", async () => {
  const [v] = vectors("invocations").vectors;
  const me = keep(pkg.IdentityKey.fromSecretKey(v.runtimeKeyKind, v.runtimeKeyId, unhex(v.runtimeSecretKeyHex)));
  const owner = keep(pkg.IdentityKey.fromSecretKey(v.ownerKeyKind, v.ownerKeyId, unhex(v.ownerSecretKeyHex)));
  assert.equal(owner.publicKey, v.ownerPublicKey);
  const member = keep(pkg.IdentityKey.fromSecretKey(v.memberKeyKind, v.memberKeyId, unhex(v.memberSecretKeyHex)));
  assert.equal(member.publicKey, v.memberPublicKey);
  const trust = keep(new pkg.TrustStore("tofu"));
  const ownerKey = keep(pkg.ownerKey(trust, v.ownerUserId, { keyId: v.ownerKeyId, publicKey: v.ownerPublicKey }));
  // Without the owner's key accepted as the key sender, nothing is admitted.
  const bare = keep(new pkg.StreamState(v.invocation.rootStreamId));
  bare.setOwner(v.ownerUserId);
  await throwsCode(assert, pkg, () => pkg.OpenedInvocation.open(v.invocation, bare, trust, v.botId, me), "UNTRUSTED_WRAP");
  const fresh = () => {
    const state = keep(new pkg.StreamState(v.invocation.rootStreamId));
    state.setOwner(v.ownerUserId);
    state.acceptSender(ownerKey);
    return state;
  };
  // The member's key is presented by the server, not pinned.
  const presented = [{ subject: v.memberUserId, kind: v.memberKeyKind, keyId: v.memberKeyId, publicKey: v.memberPublicKey }];
  const state = fresh();
  const opened = keep(await pkg.OpenedInvocation.open(v.invocation, state, trust, v.botId, [me], presented));
  assert.equal(opened.prompt, v.expectedPrompt);
  assert.deepEqual(opened.promptSealedBy, { subject: v.ownerUserId, kind: v.ownerKeyKind, keyId: v.ownerKeyId, status: v.expectedPromptStatus });
  assert.deepEqual(
    opened.history.map((h) => (h.status === "opened" ? { text: h.entry.text, sealedBy: h.entry.sealedBy.subject, status: h.entry.sealedBy.status } : h.code)),
    v.expectedHistory,
  );
  assert.deepEqual(opened.wraps.admitted, [
    { keyGeneration: v.invocation.sealedContext.reply.keyGeneration, sender: v.ownerUserId, senderKeyId: v.ownerKeyId, level: "unverified" },
  ]);
  assert.equal(hex(keep(state.keyring()).exportKey(v.invocation.sealedContext.reply.keyGeneration)), v.streamKeyHex);
  const complete = opened.hazmatSealReplyWithRandomness(v.replyMessageId, v.replyText, unhex(v.replyRandomHex));
  assert.deepEqual(complete, v.sealedComplete);
  // Without the member's key, its history item cannot be checked; the rest opens.
  const unpresented = keep(await pkg.OpenedInvocation.open(v.invocation, fresh(), trust, v.botId, me));
  assert.deepEqual(
    unpresented.history.map((h) => (h.status === "opened" ? h.entry.sealedBy.subject : h.code)),
    v.expectedHistory.map((h) => (h.sealedBy === v.memberUserId ? "UNKNOWN_KEY" : h.sealedBy)),
  );
  freeAll();
});
