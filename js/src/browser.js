// The browser entry of `streamseal`: call `await init()` once before
// anything else. Its module is what a front end needs to unlock, open and
// seal; a bot runtime in a browser imports `streamseal/bot` instead
// (js/src/browser-bot.js), whose module adds the runtime's calls and the
// tools' exports (`hazmat*WithRandomness`, `hazmatXeddsa*`, `aad*`,
// `createBundle`, `openBundle`: js/src/nfc.js).
// Bundlers: pass the .wasm URL (or bytes, or a compiled WebAssembly.Module)
// to `init` if they do not resolve `new URL(..., import.meta.url)`.
import initWasm, * as glue from "../dist/streamseal_wasm.js";
import { browserEntry } from "./browser-entry.js";

export * from "../dist/streamseal_wasm.js";
export { StreamsealError } from "./error.js";

const { init, opens, nfc } = browserEntry(initWasm, glue);

/** Loads the WebAssembly module, once (js/src/browser-entry.js). */
export { init };

/** The async opens and seals: AES-256-GCM through WebCrypto under "auto", every check in WASM. */
export const { openAsync, openMessageAsync, openMessagesAsync, openStepAsync, openDecisionCardAsync } = opens;
export const { sealAsync, sealMessageAsync, sealEditAsync, sealDecisionNoteAsync } = opens;
export const { unwrapStreamKeyAsync, openKeyWrapsAsync } = opens;

/** The passphrase-taking calls, their passphrases normalised to NFC in JS. */
export const { unlock, setUp, changePassphrase } = nfc;
