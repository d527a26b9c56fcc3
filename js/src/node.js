// The Node entry of `streamseal`: the module is read from disk and
// instantiated on import (no fetch); `init()` exists for parity with the
// browser entry and resolves at once.
import { readFileSync } from "node:fs";
import * as glue from "../dist/streamseal_wasm.js";
import { StreamsealError } from "./error.js";
import { guardFreedObjects } from "./guard.js";

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
