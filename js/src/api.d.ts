// `streamseal/api`: the package's second module, loaded on first use. Its
// types come from the generated declarations of its glue.
export * from "../dist/streamseal_api.js";
export { StreamsealError } from "./index.js";
import type { InitSource } from "./index.js";

/**
 * Loads this module's WebAssembly once (browser entry: required before any
 * other call of `streamseal/api`; Node entry: already loaded).
 */
export declare function init(source?: InitSource): Promise<void>;
