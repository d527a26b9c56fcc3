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

// "auto" in Node: WebCrypto for a ciphertext from 20 KiB, or a page of 16
// envelopes or more; WASM below, where Node's per-call WebCrypto cost
// outweighs its native AES-GCM and Ed25519. Measured on this project's
// machine (2026-11-27, interleaved medians): one 16 KiB open 416 µs in WASM
// against 440 through WebCrypto, 32 KiB 649 against 545; per message of a
// 512 B page, 4 of them 155 against 191 µs, 16 of them 149 against 141.
const NODE_AUTO = { minBytes: 20 * 1024, minPage: 16 };

/**
 * The async opens: AES-256-GCM and the signature through Node's WebCrypto
 * or WASM ("auto": by size and page length), every check in WASM.
 */
export const { openAsync, openMessageAsync, openMessagesAsync } = asyncOpens(glue, NODE_AUTO);

/** The passphrase-taking calls, their passphrases normalised to NFC in JS (js/src/nfc.js). */
export const { unlock, setUp, changePassphrase, createBundle, openBundle, hazmatCreateBundleWithRandomness } =
  nfcExports(glue);
