// The browser entry of `streamseal/api`, the package's second module: the
// sans-IO endpoints and the realtime events, kept out of the first
// download. Import it when the app first talks to the service
// (`const api = await import("streamseal/api"); await api.init();`); the
// bundler then fetches it, and its .wasm, only then.
import initWasm, * as glue from "../dist/streamseal_api.js";
import { clientFactory } from "./client.js";
import { loadOnce } from "./once.js";

export * from "../dist/streamseal_api.js";
export { StreamsealError } from "./error.js";

/**
 * The endpoints over `fetch`, with the retry policy (js/src/client.js);
 * after `init()`.
 */
export const createClient = clientFactory(glue);

/**
 * Loads this module's WebAssembly, once (later calls return the same
 * promise). `source` as the main entry's `init`: a URL, a Response, the
 * bytes or a WebAssembly.Module; omitted, `streamseal_api_bg.wasm` next to
 * the glue is fetched.
 */
export const init = loadOnce(initWasm);
