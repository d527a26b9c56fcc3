// Which names every binding exports is checked once, by `cargo xtask
// exports` against the one list in crates/xtask/src/exports.rs. What it does
// not read is checked here: that each function the package exports is
// declared in its .d.ts, that a catalogue row has the same fields in JS and
// in Swift, and that the README's table of sans-IO differences names real
// functions in both spellings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { shipped as pkg } from "./load.mjs";

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const camel = (snake) => snake.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const sorted = (names) => [...names].sort();
const functions = Object.keys(pkg).filter((k) => typeof pkg[k] === "function" && /^[a-z]/.test(k));

test("each function of the package is declared in its .d.ts", () => {
  const dts = read("js/dist/streamseal_wasm.d.ts") + read("js/src/index.d.ts");
  assert.ok(functions.length >= 50, `found ${functions}`);
  for (const name of functions) {
    assert.match(dts, new RegExp(`^export (declare )?function ${name}\\(`, "m"), `the d.ts declares ${name}`);
  }
});

test("a catalogue row has the same fields in JS and in Swift", () => {
  const swift = read("bindings/uniffi/swift/Sources/Streamseal/streamseal_api.swift");
  const struct = /^public struct EndpointInfo\b[^{]*\{([\s\S]*?)^\}/m.exec(swift);
  assert.ok(struct, "the Swift EndpointInfo is generated in the api layer's namespace");
  const fields = [...struct[1].matchAll(/^ {4}public (?:var|let) (\w+):/gm)].map((m) => m[1]);
  assert.deepEqual(sorted(Object.keys(pkg.endpoint("sendMessage"))), sorted(fields));
});

test("README.md's table of sans-IO differences names functions of the package, in both spellings", () => {
  const rows = [...read("README.md").matchAll(/^\| `(\w+)` \| `(\w+)` \|/gm)];
  assert.equal(rows.length, 10);
  for (const [, name, snake] of rows) {
    assert.equal(camel(snake), name);
    assert.ok(functions.includes(name), `${name} is a function of the package`);
  }
});
