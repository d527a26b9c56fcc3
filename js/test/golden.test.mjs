// The golden vectors of tests/vectors/streamseal/, reproduced byte for byte
// from JS through the test flavour's fixed-randomness seam.
import { test } from "node:test";
import assert from "node:assert/strict";
import { hex, testFlavour, unhex, utf8, vectors } from "./load.mjs";

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

test("wraps.json: HPKE wraps reproduce and unwrap to the stream key", () => {
  const file = vectors("wraps");
  assert.equal(file.vectors.length, 3);
  for (const v of file.vectors) {
    const me = keep(pkg.IdentityKey.fromSecretKey(v.recipientKind, v.recipientKeyId, unhex(v.recipientSecretKeyHex)));
    assert.equal(me.publicKey, v.recipientPublicKey);
    const ring = keep(new pkg.Keyring(v.rootStreamId));
    ring.importKey(v.keyGeneration, unhex(v.streamKeyHex));
    const wrap = withRandomness(unhex(v.randomHex), () => pkg.wrapStreamKey(ring, v.keyGeneration, me.recipient()));
    assert.deepEqual(wrap, v.wrap, v.name);
    const opened = keep(new pkg.Keyring(v.rootStreamId));
    pkg.unwrapStreamKey(opened, v.wrap, me);
    assert.equal(hex(opened.exportKey(v.keyGeneration)), v.streamKeyHex, v.name);
    freeAll();
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

test("invocations.json: a runtime opens sealedContext and seals the reply byte for byte", () => {
  const [v] = vectors("invocations").vectors;
  const me = keep(pkg.IdentityKey.fromSecretKey(v.runtimeKeyKind, v.runtimeKeyId, unhex(v.runtimeSecretKeyHex)));
  const opened = keep(pkg.OpenedInvocation.open(v.invocation, me));
  assert.equal(opened.prompt, v.expectedPrompt);
  assert.deepEqual(opened.history.map((h) => h.text), v.expectedHistory);
  const complete = withRandomness(unhex(v.replyRandomHex), () => opened.sealReply(v.replyMessageId, v.replyText));
  assert.deepEqual(complete, v.sealedComplete);
  freeAll();
});
