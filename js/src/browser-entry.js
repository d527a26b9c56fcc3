// What the two browser entries share: `streamseal` (js/src/browser.js, the
// module a front end needs to unlock, open and seal) and `streamseal/bot`
// (js/src/browser-bot.js, the same module with a bot runtime's calls).
import { StreamsealError } from "./error.js";
import { guardFreedObjects } from "./guard.js";
import { asyncOpens } from "./webcrypto.js";
import { nfcExports } from "./nfc.js";
import { loadOnce } from "./once.js";

// "auto" in browsers: WebCrypto always. In Chromium 156 (the "async open by
// backend" rows of BENCHMARKS.md, 2026-11-27) AES-GCM and Ed25519 through
// WebCrypto took 0.66x to 0.73x the WASM time at every size measured: one
// 1, 16 or 32 KiB message, pages of 4 and 16.
// Seals: WebCrypto from 4 KiB. "async seal by backend", `node
// bench/chromium.js --quick` (2026-11-28): WebCrypto took 1.10x the WASM
// time at 1 KiB, 0.97x at 4 KiB, 0.78x at 16 KiB, 0.76x at 32 KiB: the
// signature, in WASM either way, is most of a small seal. Since this
// module builds AES-GCM for size (the `wasm-browser` profile, 2026-11-30),
// `cargo xtask bench`: 1.09x at 1 KiB, 0.89x at 4 KiB, 0.64x at 16 KiB,
// 0.55x at 32 KiB (0.84x at 4 KiB in a --quick run beside it).
// Key wraps: the X25519 of each AuthDecap through WebCrypto (Chromium 156,
// 3 x 1000 unwraps with one accepted sender: 168 to 200 µs per unwrap
// against 255 to 272 in WASM).
const BROWSER_AUTO = { minBytes: 0, minPage: 1, minSealBytes: 4 * 1024, x25519: true };

/**
 * An entry over one module's glue: `init` (loads the module, once: later
 * calls return the same promise; `source` is a URL, a Request, a Response
 * or a promise of one, the bytes, or a WebAssembly.Module, and omitted, the
 * .wasm shipped next to the glue is fetched, streaming, with a fallback to
 * bytes when the server does not send `Content-Type: application/wasm`),
 * the async opens and seals (AES-256-GCM through the browser's WebCrypto,
 * hardware AES and native Ed25519, under "auto"; every check in WASM), and
 * the passphrase-taking calls with their passphrases normalised to NFC in
 * JS (js/src/nfc.js).
 */
export function browserEntry(initWasm, glue) {
  guardFreedObjects(glue, StreamsealError);
  return { init: loadOnce(initWasm), opens: asyncOpens(glue, BROWSER_AUTO), nfc: nfcExports(glue) };
}
