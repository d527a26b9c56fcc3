// Loads the two builds of the package for the tests: the shipped one
// (through the package's own Node entry) and the test flavour (`dist-test`,
// built with the `test-seams` feature, never shipped).
import { readFileSync } from "node:fs";

export const shipped = await import("../src/node.js");

export async function testFlavour() {
  const glue = await import("../dist-test/streamseal_wasm.js");
  glue.initSync({
    module: readFileSync(new URL("../dist-test/streamseal_wasm_bg.wasm", import.meta.url)),
  });
  const { StreamsealError } = await import("../dist-test/error.js");
  const { guardFreedObjects } = await import("../src/guard.js");
  guardFreedObjects(glue, StreamsealError);
  return { ...glue, StreamsealError };
}

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
