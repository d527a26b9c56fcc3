// The hostile server of issue 15 against the shipped package, in Node: a
// generation minted with an independent HPKE implementation (npm
// @hpke/core, auth and base mode, with a key pair of the server's own) is
// skipped with UNTRUSTED_WRAP and never sealed under, and a prompt the
// server sealed under it (envelope version 2, its commitment made with
// WebCrypto; the owner's signature it cannot make) is refused without its
// text. The same victims run in Chromium (examples/playwright.test.mjs).
// And the other way round: @hpke/core opens what the package wraps, so the
// wrap is standard HPKE.
import { test } from "node:test";
import assert from "node:assert/strict";
import { shipped as pkg, throwsCode } from "./load.mjs";
import * as server from "./hostile-server.mjs";
import * as victims from "./victims.mjs";

test("forged generation via key-wraps: openKeyWraps skips the @hpke/core-minted wraps (UNTRUSTED_WRAP) and never seals under them", async () => {
  const scenario = await server.stage(pkg);
  server.expectOwnerDevice(assert, await victims.ownerDevice(pkg, scenario));
});

test("forged prompt in a sealedContext: OpenedInvocation.open refuses it with its code and never returns the text", async () => {
  const scenario = await server.stage(pkg);
  server.expectRuntime(assert, await victims.runtime(pkg, scenario), scenario);
});

test("the forged prompt is a well-formed version-2 envelope: a key holder would still refuse it for its signature (SENDER_MISMATCH)", async () => {
  const scenario = await server.stage(pkg);
  const prompt = scenario.invocations.forged.sealedContext.prompt;
  const slot = server.promptSlot(scenario.forgedSource);
  // Whoever held the minted key: the commitment and AES-GCM check out, the owner's signature does not.
  const ring = new pkg.Keyring(server.ROOT);
  ring.importKey(1, server.unhex(scenario.mintedKeyHex));
  const trust = new pkg.TrustStore("tofu");
  trust.observe(server.OWNER, { kind: "user", keyId: scenario.owner.keyId, publicKey: scenario.owner.publicKey });
  await throwsCode(assert, pkg, () => pkg.open(ring, trust, slot, prompt), "SENDER_MISMATCH");
  // Another commitment than the key's (the ciphertext's first 32 bytes): refused before AES-GCM.
  const bytes = server.unb64(prompt.ciphertext);
  bytes.fill(0, 0, 32);
  const bent = { ...prompt, ciphertext: server.b64(bytes) };
  await throwsCode(assert, pkg, () => pkg.open(ring, trust, slot, bent), "DECRYPTION_FAILED");
  for (const k of [ring, trust]) k.free();
});

test("@hpke/core opens a wrap the package made (auth mode, the sender's public key), and not as anyone else's", async () => {
  const sender = pkg.IdentityKey.generate("bot", "machine-a");
  const me = pkg.IdentityKey.generate("user", "key_laptop");
  const ring = new pkg.Keyring(server.ROOT);
  ring.generateKey(7);
  const wrap = pkg.wrapStreamKey(ring, 7, sender, me.recipient());
  const info = server.wrapInfo({ rootStreamId: server.ROOT, generation: 7, recipientKind: "user", recipientKeyId: "key_laptop", senderKind: "bot", senderKeyId: "machine-a" });
  const secret = me.exportSecretKey();
  const recipientKey = await server.keyPair(secret, me.publicKey);
  secret.fill(0);
  const key = await server.openWrap({ wrap, info, recipientKey, senderPublicKey: sender.publicKey });
  assert.deepEqual(key, ring.exportKey(7));
  // Not as made by another key, nor under another generation's info: auth mode binds both.
  const other = pkg.IdentityKey.generate("bot", "machine-a");
  await assert.rejects(server.openWrap({ wrap, info, recipientKey, senderPublicKey: other.publicKey }));
  const moved = server.wrapInfo({ rootStreamId: server.ROOT, generation: 8, recipientKind: "user", recipientKeyId: "key_laptop", senderKind: "bot", senderKeyId: "machine-a" });
  await assert.rejects(server.openWrap({ wrap, info: moved, recipientKey, senderPublicKey: sender.publicKey }));
  // And the package: this wrap opens only with the sender among the accepted ones.
  const opened = new pkg.Keyring(server.ROOT);
  assert.deepEqual(pkg.unwrapStreamKey(opened, wrap, me, [other.recipient(), sender.recipient()]), { sender: 1, recipient: 0 });
  await throwsCode(assert, pkg, () => pkg.unwrapStreamKey(new pkg.Keyring(server.ROOT), wrap, me, [other.recipient()]), "UNTRUSTED_WRAP");
  for (const k of [sender, me, ring, other, opened]) k.free();
});
