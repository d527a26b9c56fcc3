// Which names every binding exports is checked once, by `cargo xtask
// exports` against the one list in crates/xtask/src/exports.rs. What it does
// not read is checked here: that each function the package exports is
// declared in its .d.ts, that a catalogue row has the same fields in JS and
// in Swift, and that the README's table of sans-IO differences names real
// functions in both spellings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { module as pkg, shippedApi as api } from "./load.mjs";

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const camel = (snake) => snake.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const sorted = (names) => [...names].sort();
const names = (m) => Object.keys(m).filter((k) => typeof m[k] === "function" && /^[a-z]/.test(k));
const functions = names(pkg);
const apiFunctions = names(api).filter((k) => k !== "init" && k !== "initSync");

test("each function of either module is declared in its .d.ts; no name is in both", () => {
  // The Node entry's module is the one with a bot runtime's calls (bot.d.ts over index.d.ts).
  const dts = read("js/dist/streamseal_bot.d.ts") + read("js/src/index.d.ts") + read("js/src/bot.d.ts");
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

// What only a bot runtime calls: in the Node entry and `streamseal/bot`,
// not in the browser's first module.
const RUNTIME = [
  "OpenedInvocation",
  "openDecisionAnswer",
  "openDecisionAnswerAsync",
  "openInvocationAsync",
  "prepareOpenDecisionAnswer",
  "prepareOpenInvocation",
  "prepareSealDecisionCard",
  "sealCompleteReplyAsync",
  "sealDecisionCard",
  "sealDecisionCardAsync",
  "sealFollowUpAsync",
  "sealReplyAsync",
  "sealRuntimeDecisionCardAsync",
  "sealStepAsync",
  "sealStepStartedAsync",
];

// The tools' exports (tests and tools, not front ends: the golden vectors'
// fixed randomness, raw XEdDSA, the AAD codec, the passphrase bundle
// without its record): in the Node entry and `streamseal/bot`, not in the
// browser's first module, whose flows (`setUp`, `unlock`,
// `changePassphrase`, the seals and opens) do what a front end needs of them.
const TOOLS = [
  "aadEncode",
  "aadParse",
  "createBundle",
  "openBundle",
  "hazmatCreateBundleWithRandomness",
  "hazmatPrepareSealWithRandomness",
  "hazmatSealWithRandomness",
  "hazmatWrapStreamKeyWithRandomness",
  "hazmatXeddsaSign",
  "hazmatXeddsaSignWithRandomness",
  "hazmatXeddsaVerify",
];

test("the browser's `streamseal` is the Node entry without a bot runtime's calls and the tools', and works; `streamseal/bot` is the Node entry's set", async () => {
  const wasm = (name) => readFileSync(fileURLToPath(new URL(`../dist/${name}_bg.wasm`, import.meta.url)));
  const front = await import("../src/browser.js");
  await front.init(wasm("streamseal_wasm"));
  const bot = await import("../src/browser-bot.js");
  await bot.init(wasm("streamseal_bot"));
  const all = sorted(Object.keys(pkg));
  assert.deepEqual(sorted(Object.keys(bot)), all);
  assert.deepEqual(sorted(Object.keys(front)), all.filter((n) => !RUNTIME.includes(n) && !TOOLS.includes(n)));
  for (const name of [...RUNTIME, ...TOOLS]) assert.ok(name in pkg && name in bot, name);
  // The front end's module seals and opens on its own.
  const ROOT = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
  const me = front.IdentityKey.generate("user", "k1");
  const ring = new front.Keyring(ROOT);
  ring.generateKey(0);
  const trust = new front.TrustStore("tofu");
  const slot = { kind: "message", streamId: ROOT, messageId: "msg_01JD3QH2A7C4E6G8J0K2M4P6R8", authorId: "usr_1", authorType: "user", revision: 1 };
  const sealed = front.seal(ring, me, "usr_1", slot, new TextEncoder().encode("hi"));
  const opened = await front.openAsync(ring, trust, slot, sealed, { subject: "usr_1", keys: me });
  assert.equal(new TextDecoder().decode(opened.plaintext), "hi");
  // ... and refuses what a forging server would try, with the codes of the Node module.
  const own = { subject: "usr_1", keys: me };
  const code = async (fn) => {
    try {
      await fn();
    } catch (e) {
      assert.ok(e instanceof front.StreamsealError, String(e));
      return e.code;
    }
    return "opened";
  };
  const moved = { ...slot, messageId: "msg_01JD3QH2A7C4E6G8J0K2M4P6R9" };
  assert.equal(await code(() => front.open(ring, trust, moved, sealed, own)), "AAD_MISMATCH");
  assert.equal(await code(() => front.openAsync(ring, trust, moved, sealed, own)), "AAD_MISMATCH");
  const bent = sealed.ciphertext[0] === "A" ? `B${sealed.ciphertext.slice(1)}` : `A${sealed.ciphertext.slice(1)}`;
  const forged = { ...sealed, ciphertext: bent };
  assert.equal(await code(() => front.open(ring, trust, slot, forged, own)), "DECRYPTION_FAILED");
  assert.equal(await code(() => front.openAsync(ring, trust, slot, forged, own)), "DECRYPTION_FAILED");
  const mallory = front.IdentityKey.generate("user", "k1");
  const signedByMallory = front.seal(ring, mallory, "usr_1", slot, new TextEncoder().encode("hi"));
  assert.equal(await code(() => front.openAsync(ring, trust, slot, signedByMallory, own)), "SENDER_MISMATCH");
  mallory.free();
  // Its classes are its own: the Node module's Keyring is not one of them.
  const nodeRing = new pkg.Keyring(ROOT);
  assert.throws(() => front.seal(nodeRing, me, "usr_1", slot, new Uint8Array(1)), (e) => e.code === "INVALID_FIELD");
  for (const o of [me, ring, trust, nodeRing]) o.free();
});
