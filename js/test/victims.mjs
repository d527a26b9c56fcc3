// The members the hostile server (hostile-server.mjs) attacks, written
// against the package alone so that the same code runs in Node
// (hostile.test.mjs) and in Chromium (examples/playwright.test.mjs, which
// imports this file into the page). Each takes the package and the staged
// scenario and returns plain results for the caller to check.

const unhex = (text) => Uint8Array.from(text.match(/../g) ?? [], (h) => parseInt(h, 16));
const fromB64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const utf8 = (text) => new TextEncoder().encode(text);

async function refusal(fn, secretText) {
  try {
    await fn();
    return { opened: true };
  } catch (e) {
    return { name: e.name, code: e.code, quotesPrompt: String(e.message).includes(secretText) };
  }
}

/** Whether AES-GCM under `key` opens `sealed` (WebCrypto, FORMAT.md's AAD from the envelope; the ciphertext after its 32-byte key commitment). */
async function opensWith(key, sealed) {
  const k = await crypto.subtle.importKey("raw", key, "AES-GCM", false, ["decrypt"]);
  try {
    await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: fromB64(sealed.envelope.iv), additionalData: fromB64(sealed.envelope.aad), tagLength: 128 },
      k,
      fromB64(sealed.ciphertext).subarray(32),
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * The owner's device: it pinned the bot's machine key and accepts it as the
 * root's key sender, then opens the key-wraps list the server serves (the
 * runtime's honest generation 0, and generation 1 minted by the server).
 */
export async function ownerDevice(pkg, s) {
  const owner = pkg.IdentityKey.fromSecretKey("user", s.owner.keyId, unhex(s.owner.secretHex));
  const trust = new pkg.TrustStore("tofu");
  const state = new pkg.StreamState(s.rootStreamId);
  const bot = trust.admit(s.botId, { kind: "bot", keyId: s.machine.keyId, publicKey: s.machine.publicKey });
  state.acceptSender(bot);
  const report = pkg.openKeyWraps(state, trust, s.keyWraps, [owner]);
  const slot = { kind: "message", streamId: s.rootStreamId, messageId: "msg_01JD3QK7C9E1G3J5M7P9S1V3X5", authorId: s.ownerUserId, authorType: "user", revision: 1 };
  const ring = state.keyring();
  let sealCode = null;
  try {
    pkg.seal(ring, owner, s.ownerUserId, slot, utf8("sealed while the server announces generation 1"));
  } catch (e) {
    sealCode = e.code;
  }
  // A restart from the persisted state.
  const saved = state.toBytes(owner);
  const restarted = pkg.StreamState.fromBytes(saved, owner);
  const restartedRing = restarted.keyring();
  const sealed = pkg.seal(restartedRing, owner, s.ownerUserId, slot, utf8("sealed after a restart"));
  const held = restartedRing.exportKey(0);
  const result = {
    admitted: report.admitted,
    skipped: report.skipped,
    conflicts: report.conflicts,
    highWater: state.highWater ?? null,
    holdsMinted: ring.contains(1),
    sealCode,
    restartedGeneration: sealed.envelope.keyGeneration,
    openedWithMintedKey: await opensWith(unhex(s.mintedKeyHex), sealed),
    openedWithHeldKey: await opensWith(held, sealed),
  };
  held.fill(0);
  // The control wrap, minted like the forgeries but with the machine's real key.
  const control = pkg.StreamState.fromBytes(saved, owner);
  const controlReport = pkg.openKeyWraps(control, trust, { currentKeyGeneration: 1, ownerUserId: s.ownerUserId, wraps: [s.controlWrap] }, owner);
  result.controlAdmitted = controlReport.admitted;
  result.controlHighWater = control.highWater ?? null;
  for (const o of [owner, trust, state, bot, ring, restarted, restartedRing, control]) o.free();
  return result;
}

/**
 * The bot's runtime, restarted from its persisted trust store and stream
 * state: the server hands it an invocation whose prompt is sealed under the
 * generation it minted, then the owner's honest one.
 */
export async function runtime(pkg, s) {
  const machine = pkg.IdentityKey.fromSecretKey("bot", s.machine.keyId, unhex(s.machine.secretHex));
  const trust = pkg.TrustStore.fromBytes(unhex(s.runtimeTrustHex), machine);
  const state = pkg.StreamState.fromBytes(unhex(s.runtimeStateHex), machine);
  const forged = await refusal(() => pkg.OpenedInvocation.open(s.invocations.forged, state, trust, s.botId, [machine]), s.forgedPrompt);
  // A runtime that holds no generation yet: only the minted wraps are offered.
  const fresh = new pkg.StreamState(s.rootStreamId);
  fresh.setOwner(s.ownerUserId);
  const owner = trust.trustedById(s.ownerUserId, s.owner.keyId);
  fresh.acceptSender(owner);
  const forgedOnFreshRuntime = await refusal(() => pkg.OpenedInvocation.open(s.invocations.forged, fresh, trust, s.botId, machine), s.forgedPrompt);
  const result = {
    forged,
    forgedOnFreshRuntime,
    highWaterAfter: state.highWater ?? null,
    forgedActedOn: state.wasActedOn(s.forgedSource, 1),
  };
  // The honest invocation, on the state as persisted before the attack.
  const restarted = pkg.StreamState.fromBytes(unhex(s.runtimeStateHex), machine);
  const opened = await pkg.OpenedInvocation.open(s.invocations.honest, restarted, trust, s.botId, [machine]);
  result.honestPrompt = opened.prompt;
  result.honestPromptSealedBy = opened.promptSealedBy;
  result.honestAdmitted = opened.wraps.admitted;
  result.replyGeneration = (await opened.sealReply("msg_01JD3QM8D0F2H4K6N8Q0T2W4Y6", "Here is the summary.")).reply.envelope.keyGeneration;
  result.honestActedOn = restarted.wasActedOn(s.invocations.honest.sourceMessageId, 1);
  for (const o of [machine, trust, state, fresh, owner, restarted, opened]) o.free();
  return result;
}
