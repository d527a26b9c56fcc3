// The consumer test: run from a scratch project where the `npm pack`
// tarball is installed (see `cargo xtask test`). Plain Node ESM, importing
// the package by name, as an app would.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import {
  init,
  Keyring,
  IdentityKey,
  seal,
  open,
  wrapStreamKey,
  unwrapStreamKey,
  StreamState,
  TrustStore,
  TrustedKey,
  openKeyWraps,
  StreamsealError,
} from "streamseal";
// The second module: the sans-IO endpoints.
import { buildRequest, parseResponse, endpoints, endpointCount, nextPage } from "streamseal/api";

await init();
const ROOT = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
const slot = { kind: "message", streamId: ROOT, messageId: "msg_1", authorId: "usr_1", authorType: "user", revision: 1 };

const owner = new Keyring(ROOT);
owner.generateKey(0);
const ownerKey = IdentityKey.generate("user", "owner-key");
const bot = IdentityKey.generate("bot", "machine-a");
const ring = new Keyring(ROOT);
unwrapStreamKey(ring, wrapStreamKey(owner, 0, ownerKey, bot.recipient()), bot, [ownerKey.recipient()]);
// Sealed by usr_1's key; the bot pinned it on first use: unverified.
const sealed = seal(owner, ownerKey, "usr_1", slot, new TextEncoder().encode("from the tarball"));
const pins = new TrustStore("tofu");
pins.observe("usr_1", ownerKey.recipient());
const opened = open(ring, pins, slot, sealed);
assert.equal(new TextDecoder().decode(opened.plaintext), "from the tarball");
assert.deepEqual(opened.sealedBy, { subject: "usr_1", kind: "user", keyId: "owner-key", status: "unverified" });
assert.throws(() => open(ring, pins, { ...slot, revision: 2 }, sealed), (e) => e instanceof StreamsealError && e.code === "AAD_MISMATCH");
assert.throws(() => open(ring, new TrustStore("tofu"), slot, sealed), (e) => e instanceof StreamsealError && e.code === "UNKNOWN_KEY");

assert.equal(endpoints().length, 58);
assert.equal(endpointCount(), 58);
assert.equal(nextPage({ endpoint: "getMe" }, { kind: "noContent" }), undefined);
const request = buildRequest(
  { baseUrl: "https://chat.example.test", workspaceId: "ws_01J80000000000000000000001", apiKey: "svc_bk_secret" },
  { endpoint: "getStream", streamId: "stream_01J80000000000000000000010" },
);
assert.equal(request.method, "GET");
const parsed = parseResponse(request, { status: 404, headers: [], body: '{"error":"Not found"}' });
assert.equal(parsed.status, "failed");
assert.equal(parsed.failure.status, 404);

// The published files: types and the .wasm come with the package.
const require = createRequire(import.meta.url);
const manifest = require.resolve("streamseal/package.json");
const dir = manifest.slice(0, -"package.json".length);
for (const file of ["src/index.d.ts", "src/bot.d.ts", "src/api.d.ts", "dist/streamseal_wasm.d.ts", "dist/streamseal_bot.d.ts", "dist/streamseal_wasm_bg.wasm", "dist/streamseal_bot_bg.wasm", "dist/streamseal_api_bg.wasm", "README.md"]) {
  assert.ok(existsSync(dir + file), `${file} is in the package`);
}
// A generation through the stream state and the trust store, persisted and restored.
const state = new StreamState(ROOT);
const trust = new TrustStore("tofu");
const self = TrustedKey.own("usr_1", ownerKey);
const roll = state.prepareRoll(ownerKey, [self, trust.admit("bot_1", bot.recipient())]);
state.commitRoll(roll);
const botState = new StreamState(ROOT);
botState.acceptSender(trust.admit("usr_1", ownerKey.recipient()));
const report = openKeyWraps(botState, trust, { currentKeyGeneration: 0, ownerUserId: "usr_1", wraps: roll.wraps }, [bot]);
assert.deepEqual(report.admitted.map((a) => a.sender), ["usr_1"]);
const restored = StreamState.fromBytes(botState.toBytes(bot), bot);
assert.equal(restored.highWater, 0);
for (const k of [owner, ring, bot, ownerKey, pins, state, trust, self, roll, botState, restored]) k.free();
// In Node, `streamseal` is the module with a bot runtime's calls, and `streamseal/bot` is the same entry.
const main = await import("streamseal");
const botEntry = await import("streamseal/bot");
assert.equal(typeof main.OpenedInvocation, "function");
assert.equal(botEntry.OpenedInvocation, main.OpenedInvocation);
console.log("consumer: the packed package installs, imports and works");
