// The browser entry of `streamseal`: call `await init()` once before
// anything else. Bundlers: pass the .wasm URL (or bytes, or a compiled
// WebAssembly.Module) to `init` if they do not resolve `new URL(..., import.meta.url)`.
import initWasm, * as glue from "../dist/streamseal_wasm.js";
import { StreamsealError } from "./error.js";
import { guardFreedObjects } from "./guard.js";
import { asyncOpens } from "./webcrypto.js";
import { nfcExports } from "./nfc.js";
import { loadOnce } from "./once.js";

export * from "../dist/streamseal_wasm.js";
export { StreamsealError } from "./error.js";

guardFreedObjects(glue, StreamsealError);

/**
 * Loads the WebAssembly module, once (later calls return the same promise).
 * `source`: a URL (string or URL), a Request, a Response or a promise of
 * one, the bytes (ArrayBuffer or typed array), or a WebAssembly.Module.
 * Omitted, the .wasm shipped next to the glue is fetched. Instantiation
 * streams, and falls back to bytes when the server does not send
 * `Content-Type: application/wasm`.
 */
export const init = loadOnce(initWasm);


// "auto" in browsers: WebCrypto always. In Chromium 156 (2026-11-27,
// interleaved medians) AES-GCM and Ed25519 through WebCrypto beat WASM at
// every size measured: one 1 KiB open 108 µs against 158, 16 KiB 223
// against 382, per message of a 512 B page 92 against 137 (2 of them) and
// 82 against 130 (64 of them).
const BROWSER_AUTO = { minBytes: 0, minPage: 1 };

/**
 * The async opens: AES-256-GCM through the browser's WebCrypto (hardware
 * AES, native Ed25519) under "auto", every check in WASM.
 */
export const { openAsync, openMessageAsync, openMessagesAsync } = asyncOpens(glue, BROWSER_AUTO);

/** The passphrase-taking calls, their passphrases normalised to NFC in JS (js/src/nfc.js). */
export const { unlock, setUp, changePassphrase, createBundle, openBundle, hazmatCreateBundleWithRandomness } =
  nfcExports(glue);
