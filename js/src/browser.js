// The browser entry of `streamseal`: call `await init()` once before
// anything else. Bundlers: pass the .wasm URL (or bytes, or a compiled
// WebAssembly.Module) to `init` if they do not resolve `new URL(..., import.meta.url)`.
import initWasm, * as glue from "../dist/streamseal_wasm.js";
import { StreamsealError } from "./error.js";
import { guardFreedObjects } from "./guard.js";
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
