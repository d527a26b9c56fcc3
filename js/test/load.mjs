// Loads the package for the tests, as apps get it (through its own Node
// entry). There is one build: the golden vectors are reproduced through its
// `hazmat*WithRandomness` exports, which take the randomness as a parameter.
import { readFileSync } from "node:fs";

export const shipped = await import("../src/node.js");
/** The second module, `streamseal/api` (the sans-IO endpoints, the realtime events). */
export const shippedApi = await import("../src/api-node.js");

export const hex = (bytes) => Buffer.from(bytes).toString("hex");
export const unhex = (text) => new Uint8Array(Buffer.from(text, "hex"));
export const utf8 = (text) => new TextEncoder().encode(text);

export function vectors(name) {
  const url = new URL(`../../tests/vectors/streamseal/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8"));
}

/** Asserts that `fn` throws a StreamsealError of `code` (from `pkg`). */
export function throwsCode(assert, pkg, fn, code) {
  assert.throws(fn, (err) => {
    assert.ok(err instanceof pkg.StreamsealError, `not a StreamsealError: ${err}`);
    assert.ok(err instanceof Error);
    assert.equal(err.name, "StreamsealError");
    assert.equal(err.code, code, err.message);
    return true;
  });
}
