// The package against `streamseal serve` over real sockets: the whole
// sealed bot loop through createClient (presence, sealed session,
// generation 0, sealed prompt, claim, sealed reply, revoke), a 429 waited
// out, and a send whose answer is lost resent without a duplicate.
import { test } from "node:test";
import assert from "node:assert/strict";
import { shipped as pkg, shippedApi as api } from "./load.mjs";
import { control, startServe } from "./serve-process.mjs";

/** The typed data of a call that must have succeeded. */
function ok(result) {
  assert.equal(result.status, "ok", JSON.stringify(result.failure ?? result.error ?? result));
  return result.response.data.data;
}

const clients = (seed, options = {}) => ({
  owner: api.createClient({ baseUrl: seed.baseUrl, workspaceId: seed.workspaceId, apiKey: seed.user.key, ...options }),
  bot: api.createClient({ baseUrl: seed.baseUrl, workspaceId: seed.workspaceId, apiKey: seed.bots[0].key, ...options }),
});

test("a sealed bot loop over HTTP: sealed prompt in, sealed reply out, then revoke", async () => {
  const { seed, stop } = await startServe(["--rate-limit", "0"]);
  const OWNER = seed.user.id;
  const BOT = seed.bots[0].id;
  const { owner: ownerApi, bot: botApi } = clients(seed);
  const owner = pkg.IdentityKey.generate("user", "key_owner");
  const machine = pkg.IdentityKey.generate("bot", "machine-a");
  const freeLater = [owner, machine];
  try {
    // The owner sets up encryption (in the app's settings).
    await control(seed, seed.user.key, "PUT", "/_serve/e2e-key", { keyId: owner.keyId, publicKey: owner.publicKey });

    // The runtime: its machine key in presence, a sealed session, generation 0.
    ok(await botApi.call({
      endpoint: "postPresence",
      body: { runtimeKind: "alpha-local", instanceId: "machine-a", status: "available", acceptingInvocations: true, capabilities: {}, publicKey: machine.publicKey, publicKeyId: machine.keyId },
    }));
    const link = ok(await botApi.call({
      endpoint: "createSession",
      body: { runtimeKind: "alpha-local", instanceId: "machine-a", runtimeSessionId: "sess-1", displayName: "Scratch", e2e: { ownerKeyId: owner.keyId } },
    }));
    assert.equal(link.e2eEnabled, true);
    const ROOT = link.rootStreamId;
    const botTrust = new pkg.TrustStore("tofu");
    const ownerKey = pkg.ownerKey(botTrust, OWNER, ok(await botApi.call({ endpoint: "getOwnerE2eKey" })));
    const botState = new pkg.StreamState(ROOT);
    botState.setOwner(OWNER);
    botState.acceptSender(ownerKey);
    const roll = botState.prepareRoll(machine, [ownerKey, pkg.TrustedKey.own(BOT, machine)]);
    const stored = ok(await botApi.call({
      endpoint: "postKeyWraps",
      streamId: ROOT,
      body: { keyGeneration: 0, wraps: roll.wraps.map(({ keyGeneration, ...w }) => w) },
    }));
    assert.equal(stored.stored, 2);
    botState.commitRoll(roll);
    freeLater.push(botTrust, ownerKey, botState);

    // The owner's device pinned the machine key (compared out of band), takes
    // generation 0 and sends a sealed prompt.
    const ownerTrust = new pkg.TrustStore("tofu");
    const machineKey = ownerTrust.admit(BOT, { kind: "bot", keyId: machine.keyId, publicKey: machine.publicKey });
    const ownerState = new pkg.StreamState(ROOT);
    ownerState.acceptSender(machineKey);
    const report = pkg.openKeyWraps(ownerState, ownerTrust, ok(await ownerApi.call({ endpoint: "getKeyWraps", streamId: ROOT })), owner);
    assert.deepEqual(report.skipped, []);
    const ring = ownerState.keyring();
    freeLater.push(ownerTrust, machineKey, ownerState, ring);
    const PROMPT = "summarise the release notes";
    const sent = ok(await ownerApi.call({ endpoint: "sendMessage", streamId: ROOT, body: pkg.sealMessage(ring, owner, OWNER, ROOT, pkg.mintMessageId(Date.now()), PROMPT) }));
    assert.equal(sent.data.content, "[sealed]", "the server never sees the text");

    // The runtime hears of the work (long poll), claims it, opens the sealed
    // prompt, checks who sealed it, and answers sealed.
    const heard = await control(seed, seed.bots[0].key, "GET", "/_serve/events?after=0&waitMs=5000");
    assert.equal(api.decodeEvent(heard.data[0].event, heard.data[0].payload).type, "invocationAvailable");
    const claimed = await botApi.call({
      endpoint: "claimInvocation",
      body: { runtimeKind: "alpha-local", instanceId: "machine-a", supportedCapabilities: ["active-scratchpad"], claimTtlSeconds: 60 },
    });
    const invocation = ok(claimed).data;
    const opened = await pkg.OpenedInvocation.open(invocation, botState, botTrust, BOT, [machine]);
    freeLater.push(opened);
    assert.equal(opened.prompt, PROMPT);
    assert.equal(opened.promptSealedBy.subject, OWNER);
    const { callbackToken } = invocation.sealedContext;
    ok(await botApi.call({
      endpoint: "sealedStep",
      invocationId: invocation.id,
      callbackToken,
      body: await opened.sealStep("step-1", "thinking", null, "reading the notes", 12),
    }));
    const REPLY = "Three changes: faster opens, smaller downloads, retries.";
    const done = ok(await botApi.call({
      endpoint: "sealedComplete",
      invocationId: invocation.id,
      callbackToken,
      body: await opened.sealReply(pkg.mintMessageId(Date.now()), REPLY),
    }));
    assert.match(done.messageId, /^msg_/);

    // The owner opens the history: the prompt (own key) and the reply
    // (the pinned machine key), both checked.
    const page = ok(await ownerApi.call({ endpoint: "listMessages", streamId: ROOT, query: {} }));
    const results = await pkg.openMessagesAsync(ring, ownerTrust, ROOT, page.data, { subject: OWNER, keys: owner });
    assert.deepEqual(results.map((r) => r.status), ["opened", "opened"]);
    assert.deepEqual(results.map((r) => r.message.text), [PROMPT, REPLY]);
    assert.deepEqual(results.map((r) => r.message.sealedBy.subject), [OWNER, BOT]);

    // The owner removes the bot: its wraps are deleted and it is told.
    await control(seed, seed.user.key, "POST", `/_serve/streams/${ROOT}/remove-bot`);
    const revoked = await control(seed, seed.bots[0].key, "GET", `/_serve/events?after=${heard.next}&waitMs=5000`);
    const event = api.decodeEvent(revoked.data[0].event, revoked.data[0].payload);
    assert.equal(event.type, "e2eRevoke");
    const left = ok(await botApi.call({ endpoint: "getKeyWraps", streamId: ROOT }));
    assert.deepEqual(left.wraps.map((w) => w.recipientKind), ["user"]);
  } finally {
    for (const o of freeLater) o.free();
    stop();
  }
});

test("the events long-poll waits for an event that comes after it asked", async () => {
  const { seed, stop } = await startServe(["--rate-limit", "0"]);
  try {
    const { bot } = clients(seed);
    const link = ok(await bot.call({
      endpoint: "createSession",
      body: { runtimeKind: "alpha-local", instanceId: "machine-a", runtimeSessionId: "sess-1", displayName: "Scratch" },
    }));
    const asked = Date.now();
    const polling = control(seed, seed.bots[0].key, "GET", "/_serve/events?after=0&waitMs=10000");
    await new Promise((r) => setTimeout(r, 300));
    const { owner } = clients(seed);
    ok(await owner.call({ endpoint: "sendMessage", streamId: link.rootStreamId, body: { content: "wake up" } }));
    const events = await polling;
    const waited = Date.now() - asked;
    assert.equal(events.data.length, 1);
    assert.equal(events.data[0].event, "bot_invocation:available");
    assert.ok(waited >= 250 && waited < 5000, `answered after ${waited} ms`);
    // Nothing new: it waits out waitMs and answers empty.
    const quiet = await control(seed, seed.bots[0].key, "GET", `/_serve/events?after=${events.next}&waitMs=200`);
    assert.deepEqual(quiet.data, []);
  } finally {
    stop();
  }
});

test("a 429 from streamseal serve is waited out (Retry-After), then the 200 comes", async () => {
  const { seed, stop } = await startServe(["--rate-limit", "2", "--window-ms", "1500"]);
  try {
    const retries = [];
    const { bot } = clients(seed, { onRetry: (r) => retries.push(r) });
    for (let i = 0; i < 2; i++) ok(await bot.call({ endpoint: "getMe" }));
    const third = await bot.call({ endpoint: "getMe" });
    assert.equal(ok(third).kind, "bot");
    assert.equal(retries.length, 1);
    const { failure } = retries[0].result;
    assert.equal(failure.status, 429);
    assert.equal(failure.windowMs, 1500);
    assert.ok(failure.retryAfter >= 1);
    assert.ok(retries[0].step.delayMs >= failure.retryAfter * 1000);
  } finally {
    stop();
  }
});

test("a send whose answer is lost is resent and lands once", async () => {
  const { seed, stop } = await startServe(["--rate-limit", "0"]);
  try {
    const retries = [];
    const { owner, bot } = clients(seed, { retry: { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 3, maxWaitMs: 5000 }, onRetry: (r) => retries.push(r) });
    const link = ok(await bot.call({
      endpoint: "createSession",
      body: { runtimeKind: "alpha-local", instanceId: "machine-a", runtimeSessionId: "sess-1", displayName: "Scratch" },
    }));
    await control(seed, seed.user.key, "POST", "/_serve/faults", { endpoint: "sendMessage" });
    const sent = await owner.call({ endpoint: "sendMessage", streamId: link.rootStreamId, body: { content: "ship it" } });
    assert.equal(ok(sent).data.content, "ship it");
    // The first answer was lost (the connection closed unanswered), so it was sent again.
    assert.deepEqual(retries.map((r) => [r.result.status, r.step.step]), [["lost", "retry"]]);
    const page = ok(await owner.call({ endpoint: "listMessages", streamId: link.rootStreamId, query: {} }));
    assert.equal(page.data.length, 1, "one message, not two");
    assert.equal(page.data[0].clientMessageId, ok(sent).data.clientMessageId);
  } finally {
    stop();
  }
});

/** The honest world of a sealed session at generation 0, over HTTP. */
async function sealedWorld(seed, apis) {
  const OWNER = seed.user.id;
  const BOT = seed.bots[0].id;
  const owner = pkg.IdentityKey.generate("user", "key_owner");
  const machine = pkg.IdentityKey.generate("bot", "machine-a");
  await control(seed, seed.user.key, "PUT", "/_serve/e2e-key", { keyId: owner.keyId, publicKey: owner.publicKey });
  ok(await apis.bot.call({
    endpoint: "postPresence",
    body: { runtimeKind: "alpha-local", instanceId: "machine-a", status: "available", acceptingInvocations: true, capabilities: {}, publicKey: machine.publicKey, publicKeyId: machine.keyId },
  }));
  const link = ok(await apis.bot.call({
    endpoint: "createSession",
    body: { runtimeKind: "alpha-local", instanceId: "machine-a", runtimeSessionId: "sess-1", displayName: "Scratch", e2e: { ownerKeyId: owner.keyId } },
  }));
  const ROOT = link.rootStreamId;
  const botTrust = new pkg.TrustStore("tofu");
  const ownerKey = pkg.ownerKey(botTrust, OWNER, ok(await apis.bot.call({ endpoint: "getOwnerE2eKey" })));
  const botState = new pkg.StreamState(ROOT);
  botState.setOwner(OWNER);
  botState.acceptSender(ownerKey);
  const roll = botState.prepareRoll(machine, [ownerKey, pkg.TrustedKey.own(BOT, machine)]);
  ok(await apis.bot.call({ endpoint: "postKeyWraps", streamId: ROOT, body: { keyGeneration: 0, wraps: roll.wraps.map(({ keyGeneration, ...w }) => w) } }));
  botState.commitRoll(roll);
  const ownerTrust = new pkg.TrustStore("tofu");
  const machineKey = ownerTrust.admit(BOT, { kind: "bot", keyId: machine.keyId, publicKey: machine.publicKey });
  const ownerState = new pkg.StreamState(ROOT);
  ownerState.acceptSender(machineKey);
  ownerState.acceptSender(pkg.TrustedKey.own(OWNER, owner));
  pkg.openKeyWraps(ownerState, ownerTrust, ok(await apis.owner.call({ endpoint: "getKeyWraps", streamId: ROOT })), owner);
  const world = { OWNER, BOT, ROOT, owner, machine, botTrust, ownerKey, botState, ownerTrust, machineKey, ownerState };
  world.free = () => [owner, machine, botTrust, ownerKey, botState, ownerTrust, machineKey, ownerState].forEach((o) => o.free());
  /** The owner seals and sends `text`. */
  world.send = async (text) => {
    const ring = ownerState.keyring();
    try {
      return ok(await apis.owner.call({ endpoint: "sendMessage", streamId: ROOT, body: pkg.sealMessage(ring, owner, OWNER, ROOT, pkg.mintMessageId(Date.now()), text) }));
    } finally {
      ring.free();
    }
  };
  /** The runtime claims; the invocation as served. */
  world.claim = async () =>
    ok(await apis.bot.call({
      endpoint: "claimInvocation",
      body: { runtimeKind: "alpha-local", instanceId: "machine-a", supportedCapabilities: ["active-scratchpad"], claimTtlSeconds: 60 },
    })).data;
  /** The code `OpenedInvocation.open` refuses `invocation` with (or "opened"). */
  world.openCode = async (invocation) => {
    try {
      (await pkg.OpenedInvocation.open(invocation, botState, botTrust, BOT, [machine])).free();
      return "opened";
    } catch (e) {
      return e.code;
    }
  };
  /** Opens `invocation` and seals a reply: the reply's generation, or the code of the refusal. */
  world.replyGeneration = async (invocation) => {
    let opened;
    let skipped;
    try {
      opened = await pkg.OpenedInvocation.open(invocation, botState, botTrust, BOT, [machine]);
      skipped = opened.wraps.skipped.map((x) => [x.keyGeneration, x.code]);
      const reply = await opened.sealReply(pkg.mintMessageId(Date.now()), "reply");
      return { skipped, generation: reply.reply.envelope.keyGeneration };
    } catch (e) {
      return { skipped, code: e.code };
    } finally {
      opened?.free();
    }
  };
  return world;
}

test("streamseal serve --hostile: every attack of the active server is refused with its code", async () => {
  const { seed, stop } = await startServe(["--rate-limit", "0"]);
  const apis = clients(seed);
  const w = await sealedWorld(seed, apis);
  const hostile = (attacks) => control(seed, seed.user.key, "POST", "/_serve/hostile", { attacks });
  try {
    // Honest first: the prompt opens.
    await w.send("honest prompt");
    assert.equal(await w.openCode(await w.claim()), "opened");

    // A generation of the server's own: the owner's app skips its wraps and
    // keeps sealing under the generation it holds; the runtime refuses a
    // claim whose reply generation only the server's wrap gives.
    await w.send("prompt before the server mints");
    await hostile(["mint-generation"]);
    const listed = ok(await apis.owner.call({ endpoint: "getKeyWraps", streamId: w.ROOT }));
    assert.equal(listed.currentKeyGeneration, 1);
    // (A copy of the owner's state: once a generation is announced, the owner
    // will not seal under an older one.)
    const probe = pkg.StreamState.fromBytes(w.ownerState.toBytes(w.owner), w.owner);
    const report = pkg.openKeyWraps(probe, w.ownerTrust, listed, w.owner);
    assert.deepEqual(report.skipped.map((x) => [x.keyGeneration, x.code]), [[1, "UNTRUSTED_WRAP"]]);
    const ring = probe.keyring();
    assert.equal(ring.contains(1), false);
    assert.throws(() => pkg.sealMessage(ring, w.owner, w.OWNER, w.ROOT, pkg.mintMessageId(Date.now()), "x"), { code: "UNKNOWN_KEY_GENERATION" });
    ring.free();
    probe.free();
    // The runtime opens the owner's prompt, skips the server's wrap, and will
    // not seal its reply under the generation only the server gave.
    assert.deepEqual(await w.replyGeneration(await w.claim()), { skipped: [[1, "UNTRUSTED_WRAP"]], code: "UNKNOWN_KEY_GENERATION" });

    // A prompt forged in the owner's name.
    await hostile([]);
    await w.send("the owner's real words");
    await hostile(["forge-prompt"]);
    assert.equal(await w.openCode(await w.claim()), "UNKNOWN_KEY_GENERATION");

    // A sealed stream presented as plaintext.
    await hostile([]);
    await w.send("sealed words");
    await hostile(["downgrade"]);
    const link = ok(await apis.bot.call({ endpoint: "getStream", streamId: w.ROOT }));
    assert.equal(link.e2eEnabled, undefined);
    const plain = await w.claim();
    assert.equal(plain.sealedContext ?? null, null);
    assert.equal(await w.openCode(plain), "SEALED_STREAM_DOWNGRADE");

    // The owner rolls to generation 1; then the server announces generation 0 again.
    await hostile([]);
    const roll = w.ownerState.prepareRoll(w.owner, [pkg.TrustedKey.own(w.OWNER, w.owner), w.machineKey]);
    await control(seed, seed.user.key, "POST", `/_serve/streams/${w.ROOT}/key-wraps`, { keyGeneration: 1, wraps: roll.wraps });
    w.ownerState.commitRoll(roll);
    await w.send("under generation 1");
    assert.equal(await w.openCode(await w.claim()), "opened");
    await hostile(["rollback"]);
    const rolledBack = ok(await apis.owner.call({ endpoint: "getKeyWraps", streamId: w.ROOT }));
    assert.equal(rolledBack.currentKeyGeneration, 0);
    // The older state is not taken: the owner keeps sealing under generation 1.
    pkg.openKeyWraps(w.ownerState, w.ownerTrust, rolledBack, w.owner);
    await hostile([]);
    await w.send("after the rollback");
    await hostile(["rollback"]);
    // Nor by the runtime: asked to reply under generation 0, it replies under 1.
    assert.deepEqual(await w.replyGeneration(await w.claim()), { skipped: [], generation: 1 });
    const afterRing = w.ownerState.keyring();
    assert.equal(pkg.sealMessage(afterRing, w.owner, w.OWNER, w.ROOT, pkg.mintMessageId(Date.now()), "x").sealed.envelope.keyGeneration, 1);
    afterRing.free();
  } finally {
    w.free();
    stop();
  }
});
