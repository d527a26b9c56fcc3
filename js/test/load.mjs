// Loads the package for the tests, as apps get it (through its own Node
// entry). There is one build: the golden vectors are reproduced through its
// `hazmat*WithRandomness` exports, which take the randomness as a parameter.
//
// Every suite runs once per backend (`cargo xtask wasm-test`):
// STREAMSEAL_JS_BACKEND is "sync" (the synchronous opens, the default),
// "wasm" or "webcrypto" (`open`, `openMessage`, `openMessages`, `openStep`,
// `openDecisionCard`, `openDecisionAnswer` and `OpenedInvocation.open`
// answered by the async opens with that backend; see backends.mjs). The
// async seals are compared with the synchronous ones in backends.test.mjs. The tests await
// every open and check refusals with `throwsCode`, which takes a throw or a
// rejection, so one test body serves all three.
import { readFileSync } from "node:fs";
import { BACKENDS, viaBackend } from "./backends.mjs";

/** The package's Node entry itself, whatever the backend of this run. */
export const module = await import("../src/node.js");

/** The backend this run's opens go through. */
export const BACKEND = process.env.STREAMSEAL_JS_BACKEND || "sync";
if (!BACKENDS.includes(BACKEND)) {
  throw new Error(`STREAMSEAL_JS_BACKEND is one of ${BACKENDS.join(", ")}, not ${BACKEND}`);
}

/** The package with its opens on this run's backend. */
export const shipped = viaBackend(module, BACKEND);
/** The second module, `streamseal/api` (the sans-IO endpoints, the realtime events). */
export const shippedApi = await import("../src/api-node.js");

export const hex = (bytes) => Buffer.from(bytes).toString("hex");
export const unhex = (text) => new Uint8Array(Buffer.from(text, "hex"));
export const utf8 = (text) => new TextEncoder().encode(text);

export function vectors(name) {
  const url = new URL(`../../tests/vectors/streamseal/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8"));
}

/**
 * Asserts that `fn` throws, or returns a promise that rejects with, a
 * StreamsealError of `code` (from `pkg`). Await it: for a promise the check
 * is in the promise returned.
 */
export function throwsCode(assert, pkg, fn, code) {
  return failsWith(assert, fn, (err) => {
    assert.ok(err instanceof pkg.StreamsealError, `not a StreamsealError: ${err}`);
    assert.ok(err instanceof Error);
    assert.equal(err.name, "StreamsealError");
    assert.equal(err.code, code, err.message);
  });
}

/**
 * Asserts that `fn` throws, or returns a promise that rejects; `check` reads
 * the error. A value (or a fulfilled promise) fails the test.
 */
export function failsWith(assert, fn, check) {
  let result;
  try {
    result = fn();
  } catch (err) {
    check(err);
    return Promise.resolve();
  }
  if (result && typeof result.then === "function") {
    return result.then(
      (value) => assert.fail(`expected a rejection, got ${String(value)}`),
      (err) => check(err),
    );
  }
  assert.fail(`expected a throw, got ${String(result)}`);
}
