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

// "auto" in Node: WebCrypto for a ciphertext from 48 KiB, or a page of 32
// envelopes or more; WASM below, where Node's per-call WebCrypto cost
// outweighs its native AES-GCM and Ed25519. From the "async open by
// backend" rows of BENCHMARKS.md (`cargo xtask bench`, 2026-11-27): through
// WebCrypto, one 32 KiB message took 1.09x and a page of 16 1.06x the WASM
// time (about even, and 0.84x and 0.95x in an earlier run); a 64 KiB one
// 0.75x, a page of 1000 0.83x. The margin keeps Node from ever being slower
// than the WASM path.
// Seals: WebCrypto from 32 KiB. "async seal by backend", `node bench/node.js
// --quick` (2026-11-28): WebCrypto took 1.42x the WASM time at 1 KiB, 1.27x
// at 4 KiB, 1.03x at 16 KiB, 0.79x at 32 KiB (and 0.75x at 64 KiB in
// BENCHMARKS.md): the signature, in WASM either way, is most of a small seal.
const NODE_AUTO = { minBytes: 48 * 1024, minPage: 32, minSealBytes: 32 * 1024 };

/**
 * The async opens: AES-256-GCM and the signature through Node's WebCrypto
 * or WASM ("auto": by size and page length), every check in WASM.
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
} = asyncOpens(glue, NODE_AUTO);

/** The passphrase-taking calls, their passphrases normalised to NFC in JS (js/src/nfc.js). */
export const { unlock, setUp, changePassphrase, createBundle, openBundle, hazmatCreateBundleWithRandomness } =
  nfcExports(glue);
