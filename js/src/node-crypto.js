// The platform primitives of the Node entry's async calls: node:crypto's
// AES-256-GCM and Ed25519 (OpenSSL, the same code Node's WebCrypto runs).
// AES-GCM runs on this thread (26 µs at 64 KiB: a 4 MiB message holds the
// event loop for about 2 ms, scaled from it); Ed25519 too, except for pages
// of 8 or more and inputs from 256 KiB, which go to libuv's thread pool
// (and so share it with the app's file and DNS work while they run).
// Node's `crypto.subtle` hands every call to its thread pool and back
// through a promise: 72 and 102 µs per AES-GCM decrypt of 1 and 64 KiB
// against 5.7 and 26 µs through `createDecipheriv`, and 143 and 189 µs per
// Ed25519 verify against 83 and 157 µs through `crypto.verify` (a one-off
// script on the bench machine, 200 calls x 9, medians). Against WASM, the
// "async open by backend" rows of `node bench/node.js` choose "auto".
//
// Keys: a stream key is imported once per keyring object and key (as the
// WebCrypto backend imports its CryptoKeys, js/src/webcrypto.js) into a
// secret `KeyObject`, which copies it into OpenSSL's memory; the caller
// zeroes its copy at once. The KeyObjects are held where the CryptoKeys
// would be and dropped with them.
import { createCipheriv, createDecipheriv, createPrivateKey, createPublicKey, createSecretKey, diffieHellman, verify } from "node:crypto";

const TAG = 16;
// Pages of this many platform jobs or more verify in the thread pool.
// Measured (pages of 512 B messages, node:crypto's verify on this thread
// against its callback form, one run of each side by side): a page of 2
// took 0.69x, of 4 0.81x, of 16 1.29x, of 1000 1.55x.
const POOLED_FROM = 8;
// A signed input this long verifies in the thread pool even alone, so a
// large message does not hold the event loop for its verify (157 µs at
// 64 KiB on this thread, most of it SHA-512 over the input, which grows
// with it).
const POOLED_FROM_BYTES = 256 * 1024;
// A raw 32-byte public key of curve `crv` as a JWK (RFC 8037).
function okp(crv, raw) {
  return { kty: "OKP", crv, x: Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString("base64url") };
}

/** node:crypto as the async calls' platform (see `WEBCRYPTO` in webcrypto.js). */
export const NODE_CRYPTO = Object.freeze({
  id: "node:crypto",
  available: () => true,
  importAes: (raw) => createSecretKey(raw),
  async decrypt(key, iv, aad, ciphertext) {
    if (ciphertext.length < TAG) return null;
    const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: TAG });
    decipher.setAAD(aad);
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - TAG));
    const plain = decipher.update(ciphertext.subarray(0, ciphertext.length - TAG));
    try {
      decipher.final();
    } catch {
      // The tag did not verify: what was decrypted is not the sender's.
      plain.fill(0);
      return null;
    }
    return new Uint8Array(plain.buffer, plain.byteOffset, plain.length);
  },
  async encrypt(key, iv, aad, input) {
    const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG });
    cipher.setAAD(aad);
    const body = cipher.update(input);
    cipher.final();
    const sealed = new Uint8Array(body.length + TAG);
    sealed.set(body, 0);
    sealed.set(cipher.getAuthTag(), body.length);
    return sealed;
  },
  // X25519 on this thread (one scalar multiplication: no thread-pool hop).
  // The PKCS #8 is read in place (OpenSSL copies it), so the caller's
  // zeroing of it leaves no copy behind.
  importX25519Secret: (pkcs8) =>
    createPrivateKey({ key: Buffer.from(pkcs8.buffer, pkcs8.byteOffset, pkcs8.length), format: "der", type: "pkcs8" }),
  // Public keys as JWK: Node 20 reads one in about 6 µs, against about 80 µs
  // for the same key as SubjectPublicKeyInfo DER (measured, bindings/wasm/README.md).
  importX25519Public: (raw) => createPublicKey({ key: okp("X25519", raw), format: "jwk" }),
  async x25519(secret, publicKey) {
    const out = diffieHellman({ privateKey: secret, publicKey });
    return new Uint8Array(out.buffer, out.byteOffset, out.length);
  },
  importEd25519: (raw) => createPublicKey({ key: okp("Ed25519", raw), format: "jwk" }),
  // Alone or among a few, on this thread (a thread-pool hop costs more
  // than the verify); from `POOLED_FROM` side by side, or over a large
  // input (which would hold the event loop), in libuv's thread pool, as
  // WebCrypto's would.
  verify(key, signature, data, alongside = 1) {
    if (alongside < POOLED_FROM && data.length < POOLED_FROM_BYTES) {
      return Promise.resolve(verify(null, data, key, signature));
    }
    return new Promise((resolve) => {
      verify(null, data, key, signature, (error, verified) => resolve(error == null && verified === true));
    });
  },
});
