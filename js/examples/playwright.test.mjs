// The example page in real headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core; no browser download): unlock a bundle with a
// passphrase, open a sealed history (each message signed by its author,
// one served under an id the server assigned), and WebCrypto decrypts an
// envelope the package sealed, with FORMAT.md's AAD and key commitment.
// Also: the page still loads when the server sends the .wasm without the
// application/wasm type. The hostile server of issue 15 in Chromium: the
// members of test/victims.mjs, imported into the page, refuse a generation
// minted with @hpke/core (in Node, as the server would) and a prompt forged
// under it. And the forgers of issue 16 (test/forgers.mjs), played in the page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import * as pkg from "../src/node.js";
import { serve } from "./server.mjs";
import { OWNER, PASSPHRASE, ROOT, sealedHistory } from "./history.mjs";
import { expectOwnerDevice, expectRuntime, stage } from "../test/hostile-server.mjs";
import { expectForgers } from "../test/forgers.mjs";
import * as api from "../src/api-node.js";
import { control, startServe } from "../test/serve-process.mjs";

const TEXTS = ["Ship the release on Thursday?", "Thursday works, after the freeze.", "Édité : « la version finale » ✅"];
const IDS = ["msg_01JD3QH2A7C4E6G8J0K2M4P6R8", "msg_01JD3QJ6B8D0F2H4K6M8P0R2T4", "msg_01JD3QK7C9E1G3J5M7P9S1V3X5"];

function fixture() {
  const f = sealedHistory(pkg, { kdf: { m: 19 * 1024, t: 2, p: 1 }, texts: TEXTS, ids: IDS });
  const messages = [...f.messages];
  // The service assigned the third message an id of its own: it opens through clientMessageId.
  messages[2] = { ...messages[2], id: "msg_01JD3QSERVER0000000000000C", clientMessageId: IDS[2] };
  // A hostile server moves the first ciphertext onto a fourth message.
  messages.push({ ...messages[0], id: "msg_01JD3QM8D0F2H4K6N8Q0T2W4Y6", sequence: "4" });
  const { rootStreamId, userId, ownKey, keyWraps } = f;
  return { rootStreamId, userId, ownKey, keyWraps, messages };
}

async function withBrowser(fn) {
  const userDataDir = mkdtempSync(join(tmpdir(), "streamseal-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  try {
    return await fn(context);
  } finally {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
}

/**
 * Serves the example page, waits for it to be ready in headless Chromium,
 * runs `evaluate(arg)` in it and returns what it returned; the page must
 * raise no error meanwhile.
 */
async function inExamplePage(evaluate, arg) {
  const { server, url } = await serve({ fixture: fixture() });
  try {
    return await withBrowser(async (context) => {
      const page = await context.newPage();
      const errors = [];
      page.on("pageerror", (e) => errors.push(e));
      await page.goto(`${url}/examples/index.html`);
      await page.waitForFunction(() => document.getElementById("status").textContent === "ready");
      const results = await page.evaluate(evaluate, arg);
      assert.deepEqual(errors, []);
      return results;
    });
  } finally {
    server.close();
  }
}

test("the example page unlocks, opens the history, and WebCrypto opens a package envelope", async () => {
  const { server, url } = await serve({ fixture: fixture() });
  try {
    await withBrowser(async (context) => {
      const page = await context.newPage();
      const errors = [];
      page.on("pageerror", (e) => errors.push(e));
      await page.goto(`${url}/examples/index.html`);
      await page.waitForFunction(() => document.getElementById("status").textContent === "ready");

      await page.fill("#passphrase", "not the passphrase");
      await page.click("button[type=submit]");
      await page.waitForFunction(() => document.getElementById("status").textContent.startsWith("error"));
      assert.equal(await page.textContent("#status"), "error WRONG_PASSPHRASE");

      await page.fill("#passphrase", PASSPHRASE);
      await page.click("button[type=submit]");
      await page.waitForFunction(() => document.getElementById("status").textContent.startsWith("unlocked"), null, { timeout: 60_000 });
      assert.equal(await page.textContent("#status"), "unlocked: 3 opened");
      const items = await page.$$eval("#history li", (lis) => lis.map((li) => li.textContent));
      assert.deepEqual(items, [...TEXTS, "[AAD_MISMATCH]"]);
      // Signed by the user's own key, which the page passed as its own: verified.
      const senders = await page.$$eval("#history li", (lis) => lis.map((li) => li.dataset.sealedBy ?? null));
      assert.deepEqual(senders, [...TEXTS.map(() => `${OWNER} verified`), null]);
      assert.equal(await page.textContent("#interop"), "aad-match commitment-match: sealed in wasm, opened by WebCrypto");
      assert.deepEqual(errors, []);
    });
  } finally {
    server.close();
  }
});

test("without the application/wasm type the package falls back to bytes", async () => {
  const { server, url } = await serve({ fixture: fixture(), wasmMime: "application/octet-stream" });
  try {
    await withBrowser(async (context) => {
      const page = await context.newPage();
      const warnings = [];
      page.on("console", (m) => m.type() === "warning" && warnings.push(m.text()));
      await page.goto(`${url}/examples/index.html`);
      await page.waitForFunction(() => document.getElementById("status").textContent === "ready");
      assert.ok(warnings.some((w) => w.includes("application/wasm")), "the streaming failure was reported");
    });
  } finally {
    server.close();
  }
});

test("in Chromium: a generation minted with @hpke/core and a prompt forged under it are refused", async () => {
  const scenario = await stage(pkg);
  const results = await inExamplePage(async (s) => {
    // Both parties in one page, the runtime among them: `streamseal/bot`.
    const pkg = await import("/src/browser-bot.js");
    await pkg.init();
    const victims = await import("/test/victims.mjs");
    const { viaBackend } = await import("/test/backends.mjs");
    return {
      userAgent: navigator.userAgent,
      owner: await victims.ownerDevice(pkg, s),
      runtime: await victims.runtime(pkg, s),
      // The runtime's opens (prompt and history) through WebCrypto.
      runtimeWebCrypto: await victims.runtime(viaBackend(pkg, "webcrypto"), s),
    };
  }, scenario);
  assert.match(results.userAgent, /HeadlessChrome\//);
  expectOwnerDevice(assert, results.owner);
  expectRuntime(assert, results.runtime, scenario);
  expectRuntime(assert, results.runtimeWebCrypto, scenario);
});

test("in Chromium: the forgers of issue 16 are refused, statuses and bound fields as in Node", async () => {
  const results = await inExamplePage(async () => {
    // Both parties in one page, the runtime among them: `streamseal/bot`.
    const pkg = await import("/src/browser-bot.js");
    await pkg.init();
    const forgers = await import("/test/forgers.mjs");
    const { viaBackend } = await import("/test/backends.mjs");
    return {
      userAgent: navigator.userAgent,
      forgers: await forgers.run(pkg),
      // The same scenarios with every open's AES-256-GCM in Chromium's WebCrypto.
      forgersWebCrypto: await forgers.run(viaBackend(pkg, "webcrypto")),
    };
  });
  assert.match(results.userAgent, /HeadlessChrome\//);
  expectForgers(assert, results.forgers);
  expectForgers(assert, results.forgersWebCrypto);
});

test("in Chromium: a large ciphertext is decoded by Uint8Array.fromBase64, canonical base64 only; the rest is refused as in WebAssembly", async () => {
  const results = await inExamplePage(async () => {
    const pkg = await import("/src/browser.js");
    await pkg.init();
    const { decodedHere } = await import("/src/webcrypto.js");
    const ROOT = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
    const ALICE = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1";
    const id = "msg_01JD3R00000000000000000001";
    const me = pkg.IdentityKey.generate("user", "key_alice");
    const ring = new pkg.Keyring(ROOT);
    ring.generateKey(0);
    const trust = new pkg.TrustStore("tofu");
    trust.observe(ALICE, me.recipient());
    const text = "y".repeat(16 * 1024 + 2);
    const body = pkg.sealMessage(ring, me, ALICE, ROOT, id, text);
    const canonical = body.sealed.ciphertext;
    const atobBytes = Uint8Array.from(atob(canonical), (c) => c.charCodeAt(0));
    const decoded = decodedHere(canonical);
    const lastData = canonical.replace(/=+$/, "").length - 1;
    const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const at = (s, i, c) => s.slice(0, i) + c + s.slice(i + 1);
    const variants = [
      at(canonical, lastData, ALPHABET[ALPHABET.indexOf(canonical[lastData]) ^ 1]),
      canonical.replace(/=+$/, ""),
      `${canonical.slice(0, 100)}\n${canonical.slice(100)}`,
      `${canonical} `,
      at(canonical, 50, "-"),
      at(canonical, 50, "é"),
      `${canonical}====`,
      canonical.slice(0, -1),
      `${canonical.slice(0, 4)}\t${canonical.slice(4)}`,
      // Whitespace in place of a quantum: as long as the canonical text.
      `${canonical.slice(0, 40)}    ${canonical.slice(44)}`,
    ];
    const code = async (f) => {
      try {
        await f();
        return "opened";
      } catch (e) {
        return e.code;
      }
    };
    const message = (ciphertext) => ({ id, streamId: ROOT, authorId: ALICE, authorType: "user", revision: 1, sealed: { ...body.sealed, ciphertext } });
    const results = {
      fromBase64: typeof Uint8Array.fromBase64 === "function",
      sameBytes: decoded !== undefined && decoded.length === atobBytes.length && decoded.every((b, i) => b === atobBytes[i]),
      variantsDecoded: variants.map((v) => decodedHere(v) !== undefined),
      variantCodes: await Promise.all(variants.map((v) => code(() => pkg.openMessageAsync(ring, trust, ROOT, message(v))))),
      syncCodes: await Promise.all(variants.map((v) => code(() => pkg.openMessage(ring, trust, ROOT, message(v))))),
      opened: (await pkg.openMessageAsync(ring, trust, ROOT, message(canonical))).text === text,
    };
    for (const k of [me, ring, trust]) k.free();
    return results;
  });
  assert.equal(results.fromBase64, true, "Chromium has Uint8Array.fromBase64");
  assert.equal(results.sameBytes, true);
  assert.deepEqual(results.variantsDecoded, Array(10).fill(false));
  assert.deepEqual(results.variantCodes, results.syncCodes);
  assert.deepEqual(results.variantCodes, Array(10).fill("MALFORMED_BASE64"));
  assert.equal(results.opened, true);
});

/** The bot's side in Node: a sealed session at generation 0 and a runtime that answers one prompt. */
async function sealedBot(seed) {
  const ok = (result) => {
    assert.equal(result.status, "ok", JSON.stringify(result.failure ?? String(result.error)));
    return result.response.data.data;
  };
  const bot = api.createClient({ baseUrl: seed.baseUrl, workspaceId: seed.workspaceId, apiKey: seed.bots[0].key });
  const BOT = seed.bots[0].id;
  const machine = pkg.IdentityKey.generate("bot", "machine-a");
  ok(await bot.call({ endpoint: "postPresence", body: { runtimeKind: "alpha-local", instanceId: "machine-a", status: "available", acceptingInvocations: true, capabilities: {}, publicKey: machine.publicKey, publicKeyId: machine.keyId } }));
  const ownerRecord = ok(await bot.call({ endpoint: "getOwnerE2eKey" }));
  const link = ok(await bot.call({ endpoint: "createSession", body: { runtimeKind: "alpha-local", instanceId: "machine-a", runtimeSessionId: "chat", displayName: "Chat", e2e: { ownerKeyId: ownerRecord.keyId } } }));
  const root = link.rootStreamId;
  const trust = new pkg.TrustStore("tofu");
  const owner = pkg.ownerKey(trust, seed.user.id, ownerRecord);
  const state = new pkg.StreamState(root);
  state.setOwner(seed.user.id);
  state.acceptSender(owner);
  const roll = state.prepareRoll(machine, [owner, pkg.TrustedKey.own(BOT, machine)]);
  ok(await bot.call({ endpoint: "postKeyWraps", streamId: root, body: { keyGeneration: 0, wraps: roll.wraps.map(({ keyGeneration, ...w }) => w) } }));
  state.commitRoll(roll);
  const answered = (async () => {
    for (;;) {
      const invocation = ok(await bot.call({ endpoint: "claimInvocation", body: { runtimeKind: "alpha-local", instanceId: "machine-a", supportedCapabilities: ["active-scratchpad"], claimTtlSeconds: 60 } })).data;
      if (!invocation) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      const opened = pkg.OpenedInvocation.open(invocation, state, trust, BOT, [machine]);
      const reply = opened.sealReply(pkg.mintMessageId(Date.now()), `You said: ${opened.prompt}`);
      ok(await bot.call({ endpoint: "sealedComplete", invocationId: invocation.id, callbackToken: invocation.sealedContext.callbackToken, body: reply }));
      opened.free();
      return invocation.id;
    }
  })();
  const free = () => [machine, trust, owner, state].forEach((o) => o.free());
  return { root, BOT, machine: { keyId: machine.keyId, publicKey: machine.publicKey }, answered, free };
}

test("the chat page talks to streamseal serve: unlock, send sealed, the bot's sealed reply opens", async () => {
  const { seed, stop } = await startServe(["--rate-limit", "0"]);
  // The user set up their key in the app's settings (a bundle under the passphrase).
  const setup = pkg.setUp("key_owner", new TextEncoder().encode(PASSPHRASE), { algorithm: "argon2id", version: 19, m: 19 * 1024, t: 2, p: 1 });
  setup.takeIdentity().free();
  await control(seed, seed.user.key, "PUT", "/_serve/e2e-key", { ...setup.record, createdAt: "2026-11-27T10:00:00Z" });
  setup.free();
  const bot = await sealedBot(seed);
  const { server, url } = await serve();
  try {
    await withBrowser(async (context) => {
      const page = await context.newPage();
      const errors = [];
      const fetched = [];
      page.on("pageerror", (e) => errors.push(e));
      page.on("request", (r) => fetched.push(new URL(r.url()).pathname));
      const query = new URLSearchParams({
        serve: seed.baseUrl, workspace: seed.workspaceId, key: seed.user.key, root: bot.root, bot: bot.BOT,
        machineKeyId: bot.machine.keyId, machinePublicKey: bot.machine.publicKey,
      });
      await page.goto(`${url}/examples/chat.html?${query}`);
      await page.waitForFunction(() => document.getElementById("status").textContent === "ready");
      assert.equal(fetched.some((p) => p.endsWith("streamseal_api_bg.wasm")), false, "the endpoint module waits for first use");
      await page.fill("#passphrase", PASSPHRASE);
      await page.fill("#text", "Is the release on track?");
      await page.click("button[type=submit]");
      await page.waitForFunction(() => /^(replied|no reply|error)/.test(document.getElementById("status").textContent), null, { timeout: 60_000 });
      assert.equal(await page.textContent("#status"), "replied");
      const items = await page.$$eval("#history li", (lis) => lis.map((li) => [li.textContent, li.dataset.sealedBy]));
      assert.deepEqual(items, [
        ["Is the release on track?", `${seed.user.id} verified`],
        ["You said: Is the release on track?", `${bot.BOT} unverified`],
      ]);
      assert.ok(fetched.some((p) => p.endsWith("streamseal_api_bg.wasm")), "loaded on first use");
      // A front end never downloads a bot runtime's calls (`streamseal/bot`'s module).
      assert.ok(fetched.some((p) => p.endsWith("streamseal_wasm_bg.wasm")), "the first module");
      assert.equal(fetched.some((p) => p.endsWith("streamseal_bot_bg.wasm")), false, "not the bot module");
      assert.deepEqual(errors, []);
    });
    assert.match(await bot.answered, /^inv_/);
  } finally {
    bot.free();
    server.close();
    stop();
  }
});

test("in Chromium: a key wrap opens with DH(skR, enc) in WebCrypto (DH(skR, pkS) never there), to the synchronous result; a wrap the server minted is refused alike", async () => {
  const results = await inExamplePage(async () => {
    const pkg = await import("/src/browser.js");
    await pkg.init();
    const glue = await import("/dist/streamseal_wasm.js");
    const { asyncOpens, WEBCRYPTO } = await import("/src/webcrypto.js");
    const ROOT = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
    const me = pkg.IdentityKey.generate("user", "key_me");
    const owner = pkg.IdentityKey.generate("user", "key_owner");
    const admin = pkg.IdentityKey.generate("user", "key_admin");
    const server = pkg.IdentityKey.generate("user", "key_owner");
    const ring = new pkg.Keyring(ROOT);
    ring.generateKey(3);
    const wrap = pkg.wrapStreamKey(ring, 3, owner, me.recipient());
    const minted = pkg.wrapStreamKey(ring, 3, server, me.recipient());
    const senders = [admin.recipient(), owner.recipient()];
    let computed = 0;
    const counting = { ...WEBCRYPTO, id: "counting", x25519: (s, p) => ((computed += 1), WEBCRYPTO.x25519(s, p)) };
    const opens = asyncOpens(glue, { x25519: true }, counting);
    const code = async (f) => {
      try {
        await f();
        return "opened";
      } catch (e) {
        return e.code;
      }
    };
    const into = new pkg.Keyring(ROOT);
    const viaWebCrypto = await opens.unwrapStreamKeyAsync(into, wrap, me, senders);
    const sync = pkg.unwrapStreamKey(new pkg.Keyring(ROOT), wrap, me, senders);
    const same = Array.from(into.exportKey(3)).join() === Array.from(ring.exportKey(3)).join();
    const computedForOne = computed;
    const mintedCodes = [await code(() => opens.unwrapStreamKeyAsync(new pkg.Keyring(ROOT), minted, me, senders)), await code(() => pkg.unwrapStreamKey(new pkg.Keyring(ROOT), minted, me, senders))];
    const auto = await pkg.unwrapStreamKeyAsync(new pkg.Keyring(ROOT), wrap, me, senders);
    return { viaWebCrypto, sync, same, computedForOne, mintedCodes, auto };
  });
  assert.deepEqual(results.viaWebCrypto, { sender: 1, recipient: 0 });
  assert.deepEqual(results.sync, results.viaWebCrypto);
  assert.equal(results.same, true, "the key unwrapped is the key wrapped");
  assert.equal(results.computedForOne, 1, "DH(skR, enc) in WebCrypto; DH(skR, pkS) in WASM (kept with the key), never the platform's");
  assert.deepEqual(results.mintedCodes, ["UNTRUSTED_WRAP", "UNTRUSTED_WRAP"]);
  assert.deepEqual(results.auto, results.sync);
});
