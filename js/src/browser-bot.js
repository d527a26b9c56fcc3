// The browser entry of `streamseal/bot`: `streamseal` with a bot runtime's
// calls (`OpenedInvocation`, a runtime's decision cards and the answers to
// them), for a runtime that runs in a browser or a worker. Its module is
// larger than the front end's: a page that only unlocks, opens and seals
// imports `streamseal`. In Node, `streamseal` is this module already.
import initWasm, * as glue from "../dist/streamseal_bot.js";
import { browserEntry } from "./browser-entry.js";

export * from "../dist/streamseal_bot.js";
export { StreamsealError } from "./error.js";

const { init, opens, nfc } = browserEntry(initWasm, glue);

/** Loads the WebAssembly module, once (js/src/browser-entry.js). */
export { init };

/** The async opens and seals, a runtime's among them: AES-256-GCM through WebCrypto under "auto". */
export const { openAsync, openMessageAsync, openMessagesAsync, openStepAsync, openDecisionCardAsync } = opens;
export const { sealAsync, sealMessageAsync, sealEditAsync, sealDecisionNoteAsync } = opens;
export const { unwrapStreamKeyAsync, openKeyWrapsAsync } = opens;
export const { openDecisionAnswerAsync, openInvocationAsync, sealDecisionCardAsync, sealReplyAsync } = opens;
export const { sealCompleteReplyAsync, sealFollowUpAsync, sealStepStartedAsync, sealStepAsync } = opens;
export const { sealRuntimeDecisionCardAsync } = opens;

/** The passphrase-taking calls, their passphrases normalised to NFC in JS. */
export const { unlock, setUp, changePassphrase, createBundle, openBundle, hazmatCreateBundleWithRandomness } = nfc;
