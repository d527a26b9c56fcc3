// The Node entry of `streamseal` (and of `streamseal/bot`): the module is
// read from disk and instantiated on import (no fetch); `init()` exists for
// parity with the browser entry and resolves at once. In Node the module is
// the one with a bot runtime's calls (`OpenedInvocation`, a runtime's
// decision cards and the answers to them): bot runtimes run here, and the
// bytes the browser's first module saves by leaving them out matter less.
import { readFileSync } from "node:fs";
import * as glue from "../dist/streamseal_bot.js";
import { StreamsealError } from "./error.js";
import { guardFreedObjects } from "./guard.js";
import { asyncOpens } from "./webcrypto.js";
import { NODE_CRYPTO } from "./node-crypto.js";
import { nfcExports } from "./nfc.js";

export * from "../dist/streamseal_bot.js";
export { StreamsealError } from "./error.js";

guardFreedObjects(glue, StreamsealError);
glue.initSync({
  module: readFileSync(new URL("../dist/streamseal_bot_bg.wasm", import.meta.url)),
});

/** Already loaded on import in Node; resolves at once. */
export function init() {
  return Promise.resolve();
}

// "auto" in Node: the platform always for opens, from 4 KiB for seals. The
// platform here is node:crypto (js/src/node-crypto.js: OpenSSL's AES-GCM and
// Ed25519 called on this thread, or in the thread pool for pages of 8 or
// more), not Node's `crypto.subtle`, whose per-call cost (a promise and a
// thread-pool hop each) had kept "auto" on WASM below 48 KiB. The "async
// open by backend" rows (`node bench/node.js --quick`, 2026-11-28): one
// 1 KiB message took 0.78x the WASM time, 16 KiB 0.51x, 32 KiB 0.53x, pages
// of 4 and 16 0.75x and 0.77x. "async seal by backend": 1.02x at 1 KiB
// (the signature, in WASM either way, is most of a small seal), 0.87x at
// 4 KiB, 0.68x at 16 KiB.
// Key wraps: X25519 through node:crypto (a one-off script, Node 20, 7 x 400
// unwraps with one accepted sender, medians: 161 µs against 351 in WASM and
// 442 through Node's `crypto.subtle`).
const NODE_AUTO = { minBytes: 0, minPage: 1, minSealBytes: 4 * 1024, x25519: true };

/**
 * The async opens and seals: AES-256-GCM and the signature through
 * node:crypto or WASM ("auto": by measurement), every check in WASM.
 */
export const {
  unwrapStreamKeyAsync,
  openKeyWrapsAsync,
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
} = asyncOpens(glue, NODE_AUTO, NODE_CRYPTO);

/** The passphrase-taking calls, their passphrases normalised to NFC in JS (js/src/nfc.js). */
export const { unlock, setUp, changePassphrase, createBundle, openBundle, hazmatCreateBundleWithRandomness } =
  nfcExports(glue);
