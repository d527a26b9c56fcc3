// The golden vectors of tests/vectors/streamseal/, reproduced byte for byte
// from JS through the test flavour's fixed-randomness seam; the wraps also
// through an independent HPKE (npm @hpke/core).
import { test } from "node:test";
import assert from "node:assert/strict";
import { hex, testFlavour, throwsCode, unhex, utf8, vectors } from "./load.mjs";
import * as hostile from "./hostile-server.mjs";

const pkg = await testFlavour();

// Secret holders are freed after each vector (Node 20 has no `using`).
const held = [];
const keep = (obj) => (held.push(obj), obj);
const freeAll = () => held.splice(0).forEach((o) => o.free());

function withRandomness(bytes, fn) {
  pkg.setFixedRandomness(bytes);
  try {
    const out = fn();
    assert.equal(pkg.remainingFixedRandomness(), 0, "every fixed random byte is drawn");
    return out;
  } finally {
    pkg.clearFixedRandomness();
  }
}

test("envelopes.json: every slot kind seals byte for byte and opens", () => {
  const file = vectors("envelopes");
  assert.equal(file.vectors.length, 8);
  for (const v of file.vectors) {
    const ring = keep(new pkg.Keyring(v.rootStreamId));
    ring.importKey(v.keyGeneration, unhex(v.streamKeyHex));
    const sealed = withRandomness(unhex(v.randomHex), () => pkg.seal(ring, v.slot, utf8(v.plaintext)));
    assert.deepEqual(sealed, v.sealed, v.name);
    assert.equal(hex(pkg.aadEncode(1, v.rootStreamId, v.keyGeneration, v.slot)), v.aadHex, v.name);
    assert.deepEqual(pkg.aadParse(unhex(v.aadHex)).slot, v.slot, v.name);
    assert.equal(new TextDecoder().decode(pkg.open(ring, v.slot, v.sealed)), v.plaintext, v.name);
    freeAll();
  }
});

test("wraps.json: auth-mode wraps (format 2) reproduce and unwrap only as made by their sender", () => {
  const file = vectors("wraps");
  assert.equal(file.vectors.length, 3);
  for (const v of file.vectors) {
    const me = keep(pkg.IdentityKey.fromSecretKey(v.recipientKind, v.recipientKeyId, unhex(v.recipientSecretKeyHex)));
    assert.equal(me.publicKey, v.recipientPublicKey);
    const sender = keep(pkg.IdentityKey.fromSecretKey(v.senderKind, v.senderKeyId, unhex(v.senderSecretKeyHex)));
    assert.equal(sender.publicKey, v.senderPublicKey);
    const ring = keep(new pkg.Keyring(v.rootStreamId));
    ring.importKey(v.keyGeneration, unhex(v.streamKeyHex));
    const wrap = withRandomness(unhex(v.randomHex), () => pkg.wrapStreamKey(ring, v.keyGeneration, sender, me.recipient()));
    assert.deepEqual(wrap, v.wrap, v.name);
    const opened = keep(new pkg.Keyring(v.rootStreamId));
    const stranger = keep(pkg.IdentityKey.generate(v.senderKind, v.senderKeyId));
    assert.deepEqual(pkg.unwrapStreamKey(opened, v.wrap, [me], [stranger.recipient(), sender.recipient()]), { sender: 1, recipient: 0 }, v.name);
    assert.equal(hex(opened.exportKey(v.keyGeneration)), v.streamKeyHex, v.name);
    // The same wrap offered as made by anyone else does not open.
    throwsCode(assert, pkg, () => pkg.unwrapStreamKey(keep(new pkg.Keyring(v.rootStreamId)), v.wrap, me, [stranger.recipient()]), "UNTRUSTED_WRAP");
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

test("bundles.json: passphrase bundles reproduce and open", () => {
  const file = vectors("bundles");
  assert.equal(file.vectors.length, 3);
  for (const v of file.vectors) {
    const key = keep(pkg.IdentityKey.fromSecretKey("user", "key_1", unhex(v.secretKeyHex)));
    assert.equal(key.publicKey, v.publicKey);
    const pass = new TextEncoder().encode(v.passphrase);
    const record = withRandomness(unhex(v.randomHex), () =>
      pkg.createBundle(key, pass, v.record.kdfParams),
    );
    assert.deepEqual(record, v.record, v.name);
    const opened = keep(pkg.openBundle("user", "key_1", v.publicKey, v.record, pass));
    pass.fill(0);
    assert.equal(hex(opened.exportSecretKey()), v.secretKeyHex, v.name);
    freeAll();
  }
});

test("invocations.json: a runtime that pinned the owner's key opens sealedContext and seals the reply byte for byte", () => {
  const [v] = vectors("invocations").vectors;
  const me = keep(pkg.IdentityKey.fromSecretKey(v.runtimeKeyKind, v.runtimeKeyId, unhex(v.runtimeSecretKeyHex)));
  const owner = keep(pkg.IdentityKey.fromSecretKey(v.ownerKeyKind, v.ownerKeyId, unhex(v.ownerSecretKeyHex)));
  assert.equal(owner.publicKey, v.ownerPublicKey);
  const trust = keep(new pkg.TrustStore("tofu"));
  const ownerKey = keep(pkg.ownerKey(trust, v.ownerUserId, { keyId: v.ownerKeyId, publicKey: v.ownerPublicKey }));
  // Without the owner's key accepted as the key sender, nothing is admitted.
  const bare = keep(new pkg.StreamState(v.invocation.rootStreamId));
  bare.setOwner(v.ownerUserId);
  throwsCode(assert, pkg, () => pkg.OpenedInvocation.open(v.invocation, bare, trust, v.botId, me), "UNTRUSTED_WRAP");
  const state = keep(new pkg.StreamState(v.invocation.rootStreamId));
  state.setOwner(v.ownerUserId);
  state.acceptSender(ownerKey);
  const opened = keep(pkg.OpenedInvocation.open(v.invocation, state, trust, v.botId, [me]));
  assert.equal(opened.prompt, v.expectedPrompt);
  assert.deepEqual(
    opened.history.map((h) => (h.status === "opened" ? h.entry.text : h.code)),
    v.expectedHistory,
  );
  assert.deepEqual(opened.wraps.admitted, [
    { keyGeneration: v.invocation.sealedContext.reply.keyGeneration, sender: v.ownerUserId, senderKeyId: v.ownerKeyId, level: "unverified" },
  ]);
  assert.equal(hex(keep(state.keyring()).exportKey(v.invocation.sealedContext.reply.keyGeneration)), v.streamKeyHex);
  const complete = withRandomness(unhex(v.replyRandomHex), () => opened.sealReply(v.replyMessageId, v.replyText));
  assert.deepEqual(complete, v.sealedComplete);
  freeAll();
});
