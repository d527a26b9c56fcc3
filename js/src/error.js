// The one error class of the package. Both WASM modules' glue register it
// under the same global symbol (named with the package's major.minor version,
// so that two versions on one page keep a class each), the same way as
// here, whichever runs first
// (bindings/wasm-glue/src/error.rs): an error of either module is
// `instanceof StreamsealError`.
const KEY = Symbol.for("streamseal@0.1:StreamsealError");
globalThis[KEY] ??= class StreamsealError extends Error {
  constructor(code, message, details) {
    super(message);
    this.name = "StreamsealError";
    this.code = code;
    if (details !== undefined) this.details = details;
  }
};

export const StreamsealError = globalThis[KEY];
