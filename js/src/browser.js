// The browser entry of `streamseal`: call `await init()` once before
// anything else. Bundlers: pass the .wasm URL (or bytes, or a compiled
// WebAssembly.Module) to `init` if they do not resolve `new URL(..., import.meta.url)`.
import initWasm, * as glue from "../dist/streamseal_wasm.js";
import { StreamsealError } from "./error.js";
import { guardFreedObjects } from "./guard.js";
import { asyncOpens } from "./webcrypto.js";
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


/**
 * The async opens: AES-256-GCM through the browser's WebCrypto (hardware
 * AES) under "auto", every check and signature in WASM.
 */
export const { openAsync, openMessageAsync, openMessagesAsync } = asyncOpens(glue, 0);
