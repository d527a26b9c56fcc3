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


// "auto" in browsers: WebCrypto's AES-GCM for a ciphertext from 8 KiB. In
// Chromium 156 (BENCHMARKS.md of 2026-11-27) it saved 309 µs at 64 KiB and
// cost 39 µs at 1 KiB (await and copies against WASM's AES), even at about
// 8 KiB.
const BROWSER_AUTO_MIN_BYTES = 8 * 1024;

/**
 * The async opens: AES-256-GCM through the browser's WebCrypto (hardware
 * AES) under "auto" from 8 KiB, every check and signature in WASM.
 */
export const { openAsync, openMessageAsync, openMessagesAsync } = asyncOpens(glue, BROWSER_AUTO_MIN_BYTES);

/** The passphrase-taking calls, their passphrases normalised to NFC in JS (js/src/nfc.js). */
export const { unlock, setUp, changePassphrase, createBundle, openBundle, hazmatCreateBundleWithRandomness } =
  nfcExports(glue);
