// The generated classes declare `[Symbol.dispose]()` (explicit resource
// management, `using`): this reference gives every consumer that
// declaration whatever its `lib` setting (without it, `tsc` with
// `lib: ["ES2022", "DOM"]` and `skipLibCheck: false` fails on the package).
/// <reference lib="esnext.disposable" />
// Every type below comes from the generated declarations of the WASM glue
// (wasm-bindgen, and tsify for the wire types); nothing is restated here.
export * from "../dist/streamseal_wasm.js";

/** What `init` loads the module from. */
export type InitSource =
  | string
  | URL
  | Request
  | Response
  | Promise<Response>
  | BufferSource
  | WebAssembly.Module;

/**
 * Loads the WebAssembly module once (browser entry: required before any
 * other call; Node entry: already loaded, resolves at once).
 */
export declare function init(source?: InitSource): Promise<void>;
