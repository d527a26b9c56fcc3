// The generated declarations (wasm-bindgen + tsify) of the shipped
// package: every referenced type is declared, maps are plain records, no
// BigInt, generations are numbers, open enums accept unknown strings, and
// the package's own index.d.ts restates no wire type.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

// The modules' declarations: the first (keys, envelopes, sealed flows),
// the same with a bot runtime's calls (`streamseal/bot`, and `streamseal`
// in Node) and `streamseal/api` (endpoints, events). Each must stand on its own.
const read = (name) => readFileSync(new URL(`../dist/${name}.d.ts`, import.meta.url), "utf8");
const strip = (text) =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\/\/.*$/gm, "")
    .replace(/"(?:[^"\\]|\\.)*"/g, '""');
const modules = [read("streamseal_wasm"), read("streamseal_bot"), read("streamseal_api")];
const dts = modules.join("\n");
const code = strip(dts);
const declaredIn = (text) => new Set([...strip(text).matchAll(/export (?:declare )?(?:type|interface|class|function|const) (\w+)/g)].map((m) => m[1]));

test("every type the declarations name is declared", () => {
  const declared = declaredIn(dts);
  const builtin = new Set(["Record", "Promise", "Uint8Array", "Array", "Error", "Symbol", "WebAssembly", "Response", "Request", "URL", "BufferSource", "ArrayBuffer", "InitInput", "SyncInitInput", "InitOutput", "RequestInfo", "Module", "Memory", "Table"]);
  for (const text of modules) {
    const own = declaredIn(text);
    const missing = [...new Set([...strip(text).matchAll(/\b([A-Z]\w*)\b/g)].map((m) => m[1]))].filter((n) => !own.has(n) && !builtin.has(n));
    assert.deepEqual(missing, []);
  }
  for (const name of ["Slot", "SealedPayload", "Envelope", "Message", "KeyWrap", "OwnKey", "HttpRequest", "ApiResponse", "ApiFailure", "EndpointRequest", "ErrorCode", "StreamsealError", "OpenResult", "Parsed", "SealedBy", "AadSender", "OwnKeys", "PresentedKey", "OpenedEnvelope", "OpenedStep", "OpenedDecisionCard", "StepPlacement"]) {
    assert.ok(declared.has(name), `${name} is declared`);
  }
});

test("plain objects: records not Maps, no BigInt, numbers for generations", () => {
  assert.doesNotMatch(code, /\bMap</);
  assert.doesNotMatch(code, /\bbigint\b/);
  assert.match(dts, /keyGeneration: number;/);
  assert.match(dts, /export type StepType = "context_received" \| [^;]*\(string & \{\}\);/);
  assert.match(dts, /export type ErrorCode = "MALFORMED_BASE64" \|/);
  assert.match(dts, /export type Endpoint = "getMe" \|/);
  // The trust store's spellings (the core's as_str of each).
  assert.match(dts, /export type KeyState = "new" \| "added" \| "same" \| "changed" \| "verified" \| "verified-then-changed";/);
  assert.match(dts, /export type TrustPolicyName = "tofu" \| "verified-only" \| "refuse-after-verified-change";/);
  assert.match(dts, /export type TrustLevel = "verified" \| "unverified";/);
  // Bytes are Uint8Array, classes are typed, identity lists take one key or an array.
  assert.match(dts, /toBytes\(identity: IdentityKey\): Uint8Array;/);
  assert.match(dts, /static fromBytes\(bytes: Uint8Array(?: \| number\[\])?, identity: IdentityKey\): StreamState;/);
  assert.match(dts, /scannable\(\): Uint8Array;/);
  assert.match(dts, /export function openKeyWraps\(state: StreamState, trust: TrustStore, key_wraps: KeyWraps, identities: IdentityKey \| IdentityKey\[\]\): WrapsReport;/);
  assert.match(dts, /readonly history: HistoryItem\[\];/);
});

test("issue 16: sealing takes the signer, opening the trust store, own keys and presented keys; results say who sealed", () => {
  assert.match(dts, /export function seal\(keyring: Keyring, identity: IdentityKey, subject: string, slot: Slot, plaintext: Uint8Array(?: \| number\[\])?\): SealedPayload;/);
  assert.match(dts, /export function open\(keyring: Keyring, trust: TrustStore, slot: Slot, sealed: SealedPayload, own\?: OwnKeys \| null, presented\?: PresentedKey\[\] \| null\): OpenedEnvelope;/);
  assert.match(dts, /export function sealMessage\(keyring: Keyring, identity: IdentityKey, subject: string, stream_id: string, message_id: string, text: string\): SendMessageRequest;/);
  assert.match(dts, /export function openMessages\(keyring: Keyring, trust: TrustStore, stream_id: string, messages: Message\[\], own\?: OwnKeys \| null, presented\?: PresentedKey\[\] \| null\): OpenResult\[\];/);
  assert.match(dts, /static open\(invocation: Invocation, state: StreamState, trust: TrustStore, bot_id: string, identities: IdentityKey \| IdentityKey\[\], presented\?: PresentedKey\[\] \| null\): OpenedInvocation;/);
  assert.match(dts, /readonly promptSealedBy: SealedBy;/);
  assert.match(dts, /export interface OwnKeys \{\s*subject: string;\s*keys: IdentityKey \| IdentityKey\[\];\s*\}/);
  const block = (name) => new RegExp(`export interface ${name} \\{([\\s\\S]*?)\\n\\}`).exec(code)?.[1] ?? "";
  const fields = (name) => [...block(name).matchAll(/^\s+(\w+)\??:/gm)].map((m) => m[1]);
  assert.deepEqual(fields("SealedBy"), ["subject", "kind", "keyId", "status"]);
  assert.match(block("SealedBy"), /status: TrustLevel;/);
  assert.deepEqual(fields("PresentedKey"), ["subject", "kind", "keyId", "publicKey"]);
  assert.deepEqual(fields("OpenedEnvelope"), ["slot", "keyGeneration", "sealedBy", "plaintext"]);
  assert.match(block("OpenedEnvelope"), /plaintext: Uint8Array;/);
  for (const name of ["OpenedMessage", "OpenedStep", "OpenedDecisionCard", "DecisionAnswer", "HistoryEntry"]) {
    assert.match(block(name), /sealedBy: SealedBy;/, name);
  }
  for (const field of ["streamId", "authorType", "keyGeneration", "sealedBy"]) assert.ok(fields("OpenedMessage").includes(field), field);
});

test("index.d.ts re-exports the generated declarations and adds only init and the async opens (written in JS); bot.d.ts adds a runtime's", () => {
  const index = readFileSync(new URL("../src/index.d.ts", import.meta.url), "utf8");
  assert.match(index, /export \* from "\.\.\/dist\/streamseal_wasm\.js";/);
  assert.deepEqual([...index.matchAll(/\binterface (\w+)/g)].map((m) => m[1]), ["OpenOptions", "SealOptions"]);
  assert.deepEqual([...index.matchAll(/export declare function (\w+)/g)].map((m) => m[1]), ["init", "openAsync", "openMessagesAsync", "openMessageAsync", "openStepAsync", "openDecisionCardAsync", "sealAsync", "sealMessageAsync", "sealEditAsync", "sealDecisionNoteAsync", "unwrapStreamKeyAsync", "openKeyWrapsAsync"]);
  const bot = readFileSync(new URL("../src/bot.d.ts", import.meta.url), "utf8");
  assert.match(bot, /export \* from "\.\/index\.js";/);
  assert.doesNotMatch(bot, /\binterface /);
  assert.deepEqual([...bot.matchAll(/export declare function (\w+)/g)].map((m) => m[1]), ["openDecisionAnswerAsync", "openInvocationAsync", "sealDecisionCardAsync", "sealReplyAsync", "sealCompleteReplyAsync", "sealFollowUpAsync", "sealStepStartedAsync", "sealStepAsync", "sealRuntimeDecisionCardAsync"]);
  // The front end's module declares no runtime call and no tool; the bot module's adds exactly those,
  // and bot.d.ts re-exports each of them from it.
  const declared = (name) => declaredIn(read(name));
  const added = [...declared("streamseal_bot")].filter((n) => !declared("streamseal_wasm").has(n)).sort();
  const tools = ["aadEncode", "aadParse", "createBundle", "hazmatCreateBundleWithRandomness", "hazmatPrepareSealWithRandomness", "hazmatSealWithRandomness", "hazmatWrapStreamKeyWithRandomness", "hazmatXeddsaSign", "hazmatXeddsaSignWithRandomness", "hazmatXeddsaVerify", "openBundle"];
  assert.deepEqual(added, ["OpenedInvocation", "openDecisionAnswer", "prepareOpenDecisionAnswer", "prepareOpenInvocation", "prepareSealDecisionCard", "sealDecisionCard", ...tools].sort());
  const reexported = /export \{([^}]*)\} from "\.\.\/dist\/streamseal_bot\.js";/.exec(bot)[1];
  for (const name of added) assert.match(reexported, new RegExp(`\\b${name}\\b`), name);
  assert.deepEqual([...declared("streamseal_wasm")].filter((n) => !declared("streamseal_bot").has(n)), []);
});

test("every export of the package is exercised by a suite", async () => {
  const pkg = await import("../src/node.js");
  const { readdirSync } = await import("node:fs");
  const dir = new URL("./", import.meta.url);
  const text = readdirSync(dir)
    // names.test.mjs compares names across bindings; it exercises nothing.
    .filter((f) => f.endsWith(".test.mjs") && f !== "types.test.mjs" && f !== "names.test.mjs")
    .map((f) => readFileSync(new URL(f, dir), "utf8"))
    .join("\n");
  const unused = Object.keys(pkg).filter((name) => name !== "default" && name !== "initSync" && !new RegExp(`\\b${name}\\b`).test(text));
  assert.deepEqual(unused, []);
});
