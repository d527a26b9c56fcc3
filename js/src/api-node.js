// The Node entry of `streamseal/api`, the package's second module: the
// sans-IO endpoints (catalogue, request building, response parsing,
// paging) and the realtime events. Read from disk and instantiated on
// import; `init()` resolves at once. It throws the package's one
// `StreamsealError`.
import { readFileSync } from "node:fs";
import * as glue from "../dist/streamseal_api.js";

import { clientFactory } from "./client.js";

export * from "../dist/streamseal_api.js";
export { StreamsealError } from "./error.js";

/** The endpoints over `fetch`, with the retry policy (js/src/client.js). */
export const createClient = clientFactory(glue);

glue.initSync({
  module: readFileSync(new URL("../dist/streamseal_api_bg.wasm", import.meta.url)),
});

/** Already loaded on import in Node; resolves at once. */
export function init() {
  return Promise.resolve();
}
