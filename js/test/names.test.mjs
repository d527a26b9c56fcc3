// Which names every binding exports is checked once, by `cargo xtask
// exports` against the one list in crates/xtask/src/exports.rs. What it does
// not read is checked here: that each function the package exports is
// declared in its .d.ts, that a catalogue row has the same fields in JS and
// in Swift, and that the README's table of sans-IO differences names real
// functions in both spellings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { module as pkg, shippedApi as api } from "./load.mjs";

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const camel = (snake) => snake.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const sorted = (names) => [...names].sort();
const names = (m) => Object.keys(m).filter((k) => typeof m[k] === "function" && /^[a-z]/.test(k));
const functions = names(pkg);
const apiFunctions = names(api).filter((k) => k !== "init" && k !== "initSync");

test("each function of either module is declared in its .d.ts; no name is in both", () => {
  const dts = read("js/dist/streamseal_wasm.d.ts") + read("js/src/index.d.ts");
  const apiDts = read("js/dist/streamseal_api.d.ts") + read("js/src/api.d.ts");
  assert.ok(functions.length >= 40, `found ${functions}`);
  assert.ok(apiFunctions.length >= 10, `found ${apiFunctions}`);
  for (const [list, text] of [[functions, dts], [apiFunctions, apiDts]]) {
    for (const name of list) {
      assert.match(text, new RegExp(`^export (declare )?function ${name}\\(`, "m"), `the d.ts declares ${name}`);
    }
  }
  assert.deepEqual(apiFunctions.filter((n) => functions.includes(n)), []);
});

test("a catalogue row has the same fields in JS and in Swift", () => {
  const swift = read("bindings/uniffi/swift/Sources/Streamseal/streamseal_api.swift");
  const struct = /^public struct EndpointInfo\b[^{]*\{([\s\S]*?)^\}/m.exec(swift);
  assert.ok(struct, "the Swift EndpointInfo is generated in the api layer's namespace");
  const fields = [...struct[1].matchAll(/^ {4}public (?:var|let) (\w+):/gm)].map((m) => m[1]);
  assert.deepEqual(sorted(Object.keys(api.endpoint("sendMessage"))), sorted(fields));
});

test("README.md's table of sans-IO differences names functions of the package, in both spellings", () => {
  const rows = [...read("README.md").matchAll(/^\| `(\w+)` \| `(\w+)` \|/gm)];
  assert.equal(rows.length, 10);
  for (const [, name, snake] of rows) {
    assert.equal(camel(snake), name);
    assert.ok(apiFunctions.includes(name), `${name} is a function of streamseal/api`);
  }
});
