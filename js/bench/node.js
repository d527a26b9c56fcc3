// Node runner: `node node.js [--quick]` (from js/bench, after `npm ci` here
// and the package's build). Prints the table and one `RESULT_JSON` line
// that `cargo xtask bench` reads.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as hpke from "@hpke/core";
import * as dhkemX25519 from "@hpke/dhkem-x25519";
import * as hashWasm from "hash-wasm";
import setupArgon2id from "argon2id/lib/setup.js";
import * as lib from "../src/node.js";
import { runAll, table } from "./bench.js";

const require = createRequire(import.meta.url);
const quick = process.argv.includes("--quick");

// openpgpjs argon2id imports its .wasm as modules (a bundler feature); load
// the same two builds directly, SIMD first, as its own loader does.
const wasmDir = new URL("./node_modules/argon2id/dist/", import.meta.url);
const instantiate = (file) => (imports) =>
  WebAssembly.instantiate(readFileSync(new URL(file, wasmDir)), imports);
const openpgpArgon2id = await setupArgon2id(instantiate("simd.wasm"), instantiate("no-simd.wasm"));
const hashWasmArgon2id = hashWasm.argon2id ?? hashWasm.default.argon2id;

await lib.init();
const log = (m) => console.error(`[node] ${m}`);
const result = await runAll(lib, { hpke, dhkemX25519, hashWasmArgon2id, openpgpArgon2id }, log, {
  quick,
});
const env = `Node ${process.versions.node}`;
console.log(table(env, result));
const versions = Object.fromEntries(
  ["@hpke/core", "@hpke/dhkem-x25519", "hash-wasm", "argon2id"].map((p) => [
    p,
    require(`${p}/package.json`).version,
  ]),
);
console.log(`RESULT_JSON ${JSON.stringify({ env, versions, ...result })}`);
