// The sans-IO endpoints have the same names in every binding: the JS names
// of bindings/wasm/src/api.rs are the camelCase of the UniFFI names of
// bindings/uniffi/src/api.rs (which is what Kotlin and Swift call them),
// each is a function of the built package and of its declarations, and a
// `public func` of the committed Swift. Renaming, adding or dropping a
// function on one side only fails here; so does a Swift package that was
// not regenerated, or a README table that lists other names.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { shipped as pkg } from "./load.mjs";

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const camel = (snake) => snake.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const sorted = (names) => [...names].sort();

/** The JS names the wasm api module exports: `js_name = X`, else the Rust name. */
function wasmNames() {
  const src = read("bindings/wasm/src/api.rs");
  return sorted(
    [...src.matchAll(/^#\[wasm_bindgen(?:\((.*)\))?\]\s*pub fn (\w+)/gm)].map(
      (m) => /\bjs_name\s*=\s*(\w+)/.exec(m[1] ?? "")?.[1] ?? m[2],
    ),
  );
}

/** The Rust names the UniFFI api module exports. */
function uniffiNames() {
  const src = read("bindings/uniffi/src/api.rs");
  return sorted([...src.matchAll(/^#\[uniffi::export\]\s*pub fn (\w+)/gm)].map((m) => m[1]));
}

const js = wasmNames();
const uniffi = uniffiNames();

test("the sans-IO functions: the JS names are the camelCase of the UniFFI names", () => {
  assert.ok(js.length >= 10 && js.includes("buildRequest") && js.includes("nextPage"), `found ${js}`);
  assert.equal(new Set(js).size, js.length);
  assert.deepEqual(js, sorted(uniffi.map(camel)));
});

test("each is a function of the package and of its declarations", () => {
  const dts = read("js/dist/streamseal_wasm.d.ts");
  for (const name of js) {
    assert.equal(typeof pkg[name], "function", `the package exports ${name}`);
    assert.match(dts, new RegExp(`^export function ${name}\\(`, "m"), `the d.ts declares ${name}`);
  }
});

test("each is a public func of the committed Swift, under the same name", () => {
  const swift = read("bindings/uniffi/swift/Sources/Streamseal/streamseal_ffi.swift");
  const funcs = new Set([...swift.matchAll(/^public func (\w+)\(/gm)].map((m) => m[1]));
  const missing = js.filter((name) => !funcs.has(name));
  assert.deepEqual(missing, [], "regenerate with STREAMSEAL_UPDATE_SWIFT=1 cargo xtask ffi");
});

test("a catalogue row has the same fields in JS and in Swift", () => {
  const swift = read("bindings/uniffi/swift/Sources/Streamseal/streamseal_api.swift");
  const struct = /^public struct EndpointInfo\b[^{]*\{([\s\S]*?)^\}/m.exec(swift);
  assert.ok(struct, "the Swift EndpointInfo is generated in the api layer's namespace");
  const fields = [...struct[1].matchAll(/^ {4}public (?:var|let) (\w+):/gm)].map((m) => m[1]);
  assert.deepEqual(sorted(Object.keys(pkg.endpoint("sendMessage"))), sorted(fields));
});

test("README.md's table of the shared names lists exactly these", () => {
  const rows = [...read("README.md").matchAll(/^\| `(\w+)` \| `(\w+)` \|/gm)];
  assert.deepEqual(sorted(rows.map((m) => m[1])), js);
  for (const [, name, snake] of rows) assert.equal(camel(snake), name);
});
