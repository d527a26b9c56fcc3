// The Node entry of `streamseal`: the module is read from disk and
// instantiated on import (no fetch); `init()` exists for parity with the
// browser entry and resolves at once.
import { readFileSync } from "node:fs";
import * as glue from "../dist/streamseal_wasm.js";
import { StreamsealError } from "./error.js";
import { guardFreedObjects } from "./guard.js";
import { asyncOpens } from "./webcrypto.js";
import { nfcExports } from "./nfc.js";

export * from "../dist/streamseal_wasm.js";
export { StreamsealError } from "./error.js";

guardFreedObjects(glue, StreamsealError);
glue.initSync({
  module: readFileSync(new URL("../dist/streamseal_wasm_bg.wasm", import.meta.url)),
});

/** Already loaded on import in Node; resolves at once. */
export function init() {
  return Promise.resolve();
}

// "auto" in Node: WebCrypto's AES-GCM for a ciphertext from 24 KiB, WASM's
// below, where Node's per-call WebCrypto cost outweighs its faster AES
// (measured by `cargo xtask bench`, BENCHMARKS.md).
const NODE_AUTO_MIN_BYTES = 24 * 1024;

/**
 * The async opens: AES-256-GCM through Node's WebCrypto or WASM ("auto":
 * by size), every check and signature in WASM.
 */
export const { openAsync, openMessageAsync, openMessagesAsync } = asyncOpens(glue, NODE_AUTO_MIN_BYTES);

/** The passphrase-taking calls, their passphrases normalised to NFC in JS (js/src/nfc.js). */
export const { unlock, setUp, changePassphrase, createBundle, openBundle, hazmatCreateBundleWithRandomness } =
  nfcExports(glue);
