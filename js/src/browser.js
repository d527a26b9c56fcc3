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


// "auto" in browsers: WebCrypto always. In Chromium 156 (the "async open by
// backend" rows of BENCHMARKS.md, 2026-11-27) AES-GCM and Ed25519 through
// WebCrypto took 0.66x to 0.73x the WASM time at every size measured: one
// 1, 16 or 32 KiB message, pages of 4 and 16.
// Seals: WebCrypto from 16 KiB. "async seal by backend", `node
// bench/chromium.js --quick` (2026-11-28): WebCrypto took 1.10x the WASM
// time at 1 KiB, 0.97x at 4 KiB, 0.78x at 16 KiB, 0.76x at 32 KiB: the
// signature, in WASM either way, is most of a small seal.
const BROWSER_AUTO = { minBytes: 0, minPage: 1, minSealBytes: 16 * 1024 };

/**
 * The async opens: AES-256-GCM through the browser's WebCrypto (hardware
 * AES, native Ed25519) under "auto", every check in WASM.
 */
export const {
  openAsync,
  openMessageAsync,
  openMessagesAsync,
  openStepAsync,
  openDecisionCardAsync,
  openDecisionAnswerAsync,
  openInvocationAsync,
  sealAsync,
  sealMessageAsync,
  sealEditAsync,
  sealDecisionNoteAsync,
  sealDecisionCardAsync,
  sealReplyAsync,
  sealCompleteReplyAsync,
  sealFollowUpAsync,
  sealStepStartedAsync,
  sealStepAsync,
  sealRuntimeDecisionCardAsync,
} = asyncOpens(glue, BROWSER_AUTO);

/** The passphrase-taking calls, their passphrases normalised to NFC in JS (js/src/nfc.js). */
export const { unlock, setUp, changePassphrase, createBundle, openBundle, hazmatCreateBundleWithRandomness } =
  nfcExports(glue);
