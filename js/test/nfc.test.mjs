// Issue 20: the WASM build leaves out the Rust NFC tables; the package's
// entries normalise passphrases to NFC in JS (src/nfc.js). One passphrase
// typed composed or decomposed unlocks one bundle, through every
// passphrase-taking call; the copies made for that are zeroed; the module
// without the entries does not normalise (so the entries are what holds it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { shipped as pkg, throwsCode } from "./load.mjs";
import * as glue from "../dist/streamseal_bot.js";
import { nfcBytes, nfcExports } from "../src/nfc.js";

const enc = (text) => new TextEncoder().encode(text);
const COMPOSED = "caf\u00e9 cr\u00e8me \u212b"; // é, è, and the Ångström sign (NFC: Å)
const DECOMPOSED = "cafe\u0301 cre\u0300me \u0041\u030a";
const FAST = { algorithm: "argon2id", m: 19456, t: 2, p: 1, version: 19 };

test("nfcBytes: the UTF-8 of the NFC form; ASCII, NFC text and non-UTF-8 bytes cross as given", () => {
  assert.deepEqual(nfcBytes(enc(DECOMPOSED)), enc(COMPOSED.normalize("NFC")));
  assert.deepEqual(nfcBytes(enc(COMPOSED)), enc(COMPOSED.normalize("NFC")));
  for (const same of [enc("correct horse"), enc("caf\u00e9"), new Uint8Array([0x6f, 0xff]), new Uint8Array()]) {
    assert.equal(nfcBytes(same), same);
  }
  assert.equal(nfcBytes("not bytes"), "not bytes");
  // A leading BOM is part of the passphrase, as the Rust side reads it (TextDecoder would drop it).
  assert.deepEqual(nfcBytes(enc("\ufeffcafe\u0301")), enc("\ufeffcaf\u00e9"));
});

test("composed and decomposed passphrases unlock one key through setUp, unlock, openBundle and changePassphrase", () => {
  const made = pkg.setUp("key_1", enc(DECOMPOSED), FAST);
  const record = { ...made.record, createdAt: "2026-11-27T10:00:00Z" };
  const me = made.takeIdentity();
  for (const typed of [COMPOSED, DECOMPOSED, COMPOSED.normalize("NFD")]) {
    const key = pkg.unlock(record, enc(typed));
    assert.equal(key.publicKey, me.publicKey, typed);
    key.free();
  }
  const bundle = pkg.createBundle(me, enc(COMPOSED), FAST);
  const opened = pkg.openBundle("user", "key_1", me.publicKey, bundle, enc(DECOMPOSED));
  assert.equal(opened.publicKey, me.publicKey);
  const changed = pkg.changePassphrase(record, enc(DECOMPOSED), enc("ne\u0301w"), FAST);
  const changedRecord = { ...changed, createdAt: record.createdAt };
  assert.equal(pkg.unlock(changedRecord, enc("n\u00e9w")).publicKey, me.publicKey);
  throwsCode(assert, pkg, () => pkg.unlock(changedRecord, enc(COMPOSED)), "WRONG_PASSPHRASE");
  throwsCode(assert, pkg, () => pkg.unlock(record, new Uint8Array([0x6f, 0xff])), "INVALID_FIELD");
  // The WASM module alone takes the bytes as NFC already: the decomposed form is another passphrase.
  throwsCode(assert, pkg, () => glue.unlock(record, enc(DECOMPOSED)), "WRONG_PASSPHRASE");
  for (const k of [made, me, opened]) k.free();
});

test("the NFC copy made for a call is zeroed when it returns, and the caller's array is left as given", () => {
  const seen = [];
  const original = glue.unlock;
  const made = pkg.setUp("key_1", enc(COMPOSED), FAST);
  const record = { ...made.record, createdAt: "2026-11-27T10:00:00Z" };
  const mine = enc(DECOMPOSED);
  // Watch the bytes that reach the module through the package's own wrapper.
  const wrapped = nfcExports({ ...glue, unlock: (r, p, l) => (seen.push(p), original(r, p, l)) }).unlock;
  const key = wrapped(record, mine);
  assert.equal(seen.length, 1);
  assert.notEqual(seen[0], mine);
  assert.ok(seen[0].every((b) => b === 0), "the NFC copy is zeroed");
  assert.deepEqual(mine, enc(DECOMPOSED), "the caller's array is untouched");
  for (const k of [made, key]) k.free();
});
