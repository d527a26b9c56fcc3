// A quick timing of a package build (not the benchmark suite): seal and
// open 1 KiB (envelope version 2: signed with XEdDSA, the signature checked
// against a pinned key), and one Argon2id unlock at the library's default parameters
// (m = 64 MiB, t = 3, p = 1) and at the demo's (m = 19 MiB, t = 2).
// Usage: node scripts/quick-timing.mjs [dir with streamseal_wasm.js] [.wasm file]
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

const dir = resolve(process.argv[2] ?? new URL("../dist", import.meta.url).pathname);
const wasmPath = process.argv[3] ?? `${dir}/streamseal_wasm_bg.wasm`;
const glue = await import(pathToFileURL(`${dir}/streamseal_wasm.js`).href);
glue.initSync({ module: readFileSync(wasmPath) });
const { IdentityKey, Keyring, TrustStore, seal, open, setUp, unlock } = glue;

const ROOT = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
const slot = { kind: "message", streamId: ROOT, messageId: "msg_1", authorId: "usr_1", authorType: "user", revision: 1 };
const ring = new Keyring(ROOT);
ring.generateKey(0);
const author = IdentityKey.generate("user", "key_1");
const trust = new TrustStore("tofu");
trust.observe("usr_1", author.recipient());
const plaintext = new Uint8Array(1024).fill(7);

// Microseconds per call: the best of 7 batches (the machine may be busy).
function perOp(n, fn) {
  for (let i = 0; i < Math.min(n, 200); i++) fn();
  let best = Infinity;
  for (let batch = 0; batch < 7; batch++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t) / n / 1000);
  }
  return best;
}
const sealed = seal(ring, author, "usr_1", slot, plaintext);
const sealUs = perOp(1000, () => seal(ring, author, "usr_1", slot, plaintext));
const openUs = perOp(1000, () => open(ring, trust, slot, sealed));

function unlockMs(params) {
  const pass = new TextEncoder().encode("correct horse");
  const s = setUp("k", pass, params);
  const record = { ...s.record, createdAt: "2026-11-21T10:00:00Z" };
  s.takeIdentity().free();
  s.free();
  const runs = [];
  for (let i = 0; i < 5; i++) {
    const t = process.hrtime.bigint();
    unlock(record, pass).free();
    runs.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return Math.min(...runs);
}
const demo = unlockMs({ algorithm: "argon2id", m: 19 * 1024, t: 2, p: 1, version: 19 });
const full = unlockMs(undefined);
console.log(
  JSON.stringify({ wasm: String(wasmPath), sealUs1KiB: +sealUs.toFixed(1), openUs1KiB: +openUs.toFixed(1), unlockMsM19T2: +demo.toFixed(0), unlockMsM64T3: +full.toFixed(0) }),
);
