// The XEdDSA primitive alone (hazmatXeddsaSign / hazmatXeddsaVerify, the
// core's streamseal::signature::{sign, verify}) against the golden
// envelopes of tests/vectors/streamseal/envelopes.json: each vector's
// signature over its signature input verifies under the sender's public key,
// a flipped bit anywhere is refused with the core's code, a fresh signature
// of ours verifies, and (hazmatXeddsaSignWithRandomness) the vector's
// signature reproduces byte for byte from its nonce Z.
import { test } from "node:test";
import assert from "node:assert/strict";
import { hex, shipped as pkg, throwsCode, unhex, utf8, vectors } from "./load.mjs";

const file = vectors("envelopes");

const flipped = (bytes, bit) => {
  const out = Uint8Array.from(bytes);
  out[bit >> 3] ^= 1 << (bit & 7);
  return out;
};

test("envelopes.json: every vector's signature verifies over its signature input under the sender's key", () => {
  assert.equal(file.vectors.length, 8);
  for (const v of file.vectors) {
    const input = unhex(v.signatureInputHex);
    const signature = unhex(v.signatureHex);
    assert.equal(signature.length, 64, v.name);
    assert.equal(pkg.hazmatXeddsaVerify(v.senderPublicKey, input, signature), undefined, v.name);
    // Buffer is a Uint8Array too.
    pkg.hazmatXeddsaVerify(v.senderPublicKey, Buffer.from(input), Buffer.from(signature));
  }
});

test("a flipped bit in the signature, the input or the key is refused with the core's code", () => {
  for (const v of file.vectors) {
    const input = unhex(v.signatureInputHex);
    const signature = unhex(v.signatureHex);
    // R's first bit, s's first bit, the last byte's low bit; the input's first and last bytes.
    for (const bit of [0, 256, 511]) {
      throwsCode(assert, pkg, () => pkg.hazmatXeddsaVerify(v.senderPublicKey, input, flipped(signature, bit)), "INVALID_FIELD");
    }
    for (const bit of [0, input.length * 8 - 1]) {
      throwsCode(assert, pkg, () => pkg.hazmatXeddsaVerify(v.senderPublicKey, flipped(input, bit), signature), "INVALID_FIELD");
    }
    throwsCode(assert, pkg, () => pkg.hazmatXeddsaVerify(v.senderPublicKey, input.slice(0, -1), signature), "INVALID_FIELD");
    // Another sender's key (the vectors have two senders).
    const other = file.vectors.find((w) => w.senderPublicKey !== v.senderPublicKey);
    throwsCode(assert, pkg, () => pkg.hazmatXeddsaVerify(other.senderPublicKey, input, signature), "INVALID_FIELD");
    // The key with its lowest bit flipped: another curve point (or none).
    const key = Buffer.from(flipped(Buffer.from(v.senderPublicKey, "base64"), 0)).toString("base64");
    assert.throws(
      () => pkg.hazmatXeddsaVerify(key, input, signature),
      (err) => err instanceof pkg.StreamsealError && ["INVALID_FIELD", "INVALID_PUBLIC_KEY"].includes(err.code),
    );
  }
  const v = file.vectors[0];
  const input = unhex(v.signatureInputHex);
  const signature = unhex(v.signatureHex);
  // Keys and signatures of the wrong shape, and keys no signature may verify under.
  throwsCode(assert, pkg, () => pkg.hazmatXeddsaVerify(v.senderPublicKey, input, signature.slice(0, 63)), "INVALID_LENGTH");
  throwsCode(assert, pkg, () => pkg.hazmatXeddsaVerify(v.senderPublicKey, input, new Uint8Array(65)), "INVALID_LENGTH");
  throwsCode(assert, pkg, () => pkg.hazmatXeddsaVerify(v.senderPublicKey.slice(1), input, signature), "INVALID_LENGTH");
  throwsCode(assert, pkg, () => pkg.hazmatXeddsaVerify(`${v.senderPublicKey.slice(0, 42)}!=`, input, signature), "MALFORMED_BASE64");
  const zero = Buffer.alloc(32).toString("base64"); // u = 0: a point of small order
  throwsCode(assert, pkg, () => pkg.hazmatXeddsaVerify(zero, input, signature), "INVALID_PUBLIC_KEY");
  const p = Buffer.from("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", "hex").toString("base64"); // u = p: not canonical
  throwsCode(assert, pkg, () => pkg.hazmatXeddsaVerify(p, input, signature), "INVALID_PUBLIC_KEY");
  // Bytes only as a Uint8Array: a string or an array would cross as something else.
  throwsCode(assert, pkg, () => pkg.hazmatXeddsaVerify(v.senderPublicKey, v.signatureInputHex, signature), "INVALID_FIELD");
  throwsCode(assert, pkg, () => pkg.hazmatXeddsaVerify(v.senderPublicKey, input, [...signature]), "INVALID_FIELD");
});

test("a fresh signature of ours verifies under our key only, over exactly its bytes", () => {
  const v = file.vectors[0];
  const me = pkg.IdentityKey.fromSecretKey(v.senderKind, v.senderKeyId, unhex(v.senderSecretKeyHex));
  const stranger = pkg.IdentityKey.generate("user", "key_stranger");
  try {
    const input = unhex(v.signatureInputHex);
    const signature = pkg.hazmatXeddsaSign(me, input);
    assert.ok(signature instanceof Uint8Array);
    assert.equal(signature.length, 64);
    pkg.hazmatXeddsaVerify(me.publicKey, input, signature);
    pkg.hazmatXeddsaVerify(v.senderPublicKey, input, signature);
    // Fresh randomness Z each time: another signature, as valid.
    const again = pkg.hazmatXeddsaSign(me, input);
    assert.notEqual(hex(again), hex(signature));
    assert.notEqual(hex(signature), v.signatureHex);
    pkg.hazmatXeddsaVerify(me.publicKey, input, again);
    throwsCode(assert, pkg, () => pkg.hazmatXeddsaVerify(stranger.publicKey, input, signature), "INVALID_FIELD");
    throwsCode(assert, pkg, () => pkg.hazmatXeddsaVerify(me.publicKey, flipped(input, 7), signature), "INVALID_FIELD");
    throwsCode(assert, pkg, () => pkg.hazmatXeddsaVerify(me.publicKey, input, flipped(signature, 300)), "INVALID_FIELD");
    // Any length, the empty message too, and a generated key.
    for (const [key, message] of [[me, new Uint8Array(0)], [stranger, utf8("ship it")], [stranger, new Uint8Array(64 * 1024).fill(7)]]) {
      pkg.hazmatXeddsaVerify(key.publicKey, message, pkg.hazmatXeddsaSign(key, message));
    }
    // A string message is refused, not signed as the zeros the glue would pass.
    throwsCode(assert, pkg, () => pkg.hazmatXeddsaSign(me, "ship it"), "INVALID_FIELD");
  } finally {
    me.free();
    stranger.free();
  }
  throwsCode(assert, pkg, () => pkg.hazmatXeddsaSign(me, utf8("ship it")), "INVALID_FIELD");
});

test("hazmat: the vectors' signatures reproduce byte for byte from their nonce Z", () => {
  for (const v of file.vectors) {
    const key = pkg.IdentityKey.fromSecretKey(v.senderKind, v.senderKeyId, unhex(v.senderSecretKeyHex));
    try {
      // randomHex is iv (12 bytes) || Z (64 bytes): a signature alone draws only Z.
      const z = unhex(v.randomHex).slice(12);
      const signature = pkg.hazmatXeddsaSignWithRandomness(key, unhex(v.signatureInputHex), z);
      assert.equal(hex(signature), v.signatureHex, v.name);
      // Too little randomness is refused, never signed with a made-up Z; too
      // much is refused as not what the call draws.
      throwsCode(assert, pkg, () => pkg.hazmatXeddsaSignWithRandomness(key, unhex(v.signatureInputHex), z.slice(0, 10)), "RANDOMNESS_UNAVAILABLE");
      throwsCode(assert, pkg, () => pkg.hazmatXeddsaSignWithRandomness(key, unhex(v.signatureInputHex), new Uint8Array(65)), "INVALID_LENGTH");
    } finally {
      key.free();
    }
  }
});
