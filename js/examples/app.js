// The example page: unlock the user's key with a passphrase, open the
// stream's key wraps into its stream state, open the whole sealed history
// in one call (each message says who sealed it and how sure that is), then
// show that WebCrypto opens what the package sealed: the AAD bytes built
// here from FORMAT.md section 3, the key commitment (the ciphertext's first
// 32 bytes) checked with HKDF, and the sender's 64-byte signature ahead of
// the content (FORMAT.md section 2).
import { init, unlock, openKeyWrapsAsync, openMessagesAsync, seal, StreamState, TrustStore, StreamsealError } from "../src/browser.js";

const $ = (id) => document.getElementById(id);
const fixture = await (await fetch("./fixture.json")).json();
// The .wasm URL may be passed explicitly (bundlers); here it is resolved by the package.
await init();
$("status").textContent = "ready";

const enc = new TextEncoder();
const concat = (parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

// FORMAT.md section 3, the message slot of envelope version 2, written independently of the package.
function messageAad(rootStreamId, generation, sender, slot) {
  const parts = [enc.encode("streamseal/aad"), Uint8Array.of(2, 1)];
  const str = (s) => {
    const b = enc.encode(s);
    parts.push(Uint8Array.of(b.length >> 8, b.length & 0xff), b);
  };
  const u32 = (n) => parts.push(Uint8Array.of(n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff));
  str(rootStreamId);
  u32(generation);
  str(sender.subject);
  str(sender.kind);
  str(sender.keyId);
  str(slot.streamId);
  str(slot.messageId);
  str(slot.authorId);
  str(slot.authorType);
  u32(slot.revision);
  return concat(parts);
}

const b64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

$("unlock").addEventListener("submit", async (event) => {
  event.preventDefault();
  let key, ring, state, trust;
  try {
    // The passphrase crosses as bytes the page can wipe once unlocked (the
    // input's string value itself cannot be wiped; clear the field).
    const passphrase = enc.encode($("passphrase").value);
    try {
      key = unlock(fixture.ownKey, passphrase);
    } finally {
      passphrase.fill(0);
    }
    // A real app restores both from storage (StreamState.fromBytes, TrustStore.fromBytes)
    // and persists them after each change; this stream's generation was made by the
    // user's own key, which is always an accepted sender.
    state = new StreamState(fixture.rootStreamId);
    trust = new TrustStore("tofu");
    // The X25519 of each wrap's HPKE AuthDecap runs in the browser's WebCrypto.
    await openKeyWrapsAsync(state, trust, fixture.keyWraps, key, { backend: "webcrypto" });
    ring = state.keyring();
    // The history of the stream asked for; the user's own key checks what it signed ("verified").
    // AES-256-GCM runs in the browser's WebCrypto (hardware AES), every check in WASM.
    const results = await openMessagesAsync(ring, trust, fixture.rootStreamId, fixture.messages, { subject: fixture.userId, keys: key }, null, { backend: "webcrypto" });
    $("history").replaceChildren(
      ...results.map((r) => {
        const li = document.createElement("li");
        li.textContent = r.status === "opened" ? r.message.text : `[${r.code}]`;
        if (r.status === "opened") li.dataset.sealedBy = `${r.message.sealedBy.subject} ${r.message.sealedBy.status}`;
        return li;
      }),
    );
    $("status").textContent = `unlocked: ${results.filter((r) => r.status === "opened").length} opened`;

    // Interop: the package seals, WebCrypto opens with FORMAT.md's AAD and commitment.
    const slot = { kind: "message", streamId: fixture.rootStreamId, messageId: "msg_01JD3QZZ000000000000000000", authorId: fixture.userId, authorType: "user", revision: 1 };
    const sealed = seal(ring, key, fixture.userId, slot, enc.encode("sealed in wasm, opened by WebCrypto"));
    const generation = sealed.envelope.keyGeneration;
    const aad = messageAad(fixture.rootStreamId, generation, { subject: fixture.userId, kind: key.kind, keyId: key.keyId }, slot);
    const sameAad = btoa(String.fromCharCode(...aad)) === sealed.envelope.aad;
    const iv = b64(sealed.envelope.iv);
    const raw = ring.exportKey(generation); // the explicit export, for this demonstration only
    const hkdf = await crypto.subtle.importKey("raw", raw, "HKDF", false, ["deriveBits"]);
    const cryptoKey = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["decrypt"]);
    raw.fill(0);
    const commitment = new Uint8Array(
      await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: enc.encode("streamseal/commit"), info: concat([Uint8Array.of(2), iv]) }, hkdf, 256),
    );
    const ciphertext = b64(sealed.ciphertext);
    const sameCommitment = commitment.every((b, i) => b === ciphertext[i]);
    const inner = new Uint8Array(
      await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: aad, tagLength: 128 }, cryptoKey, ciphertext.subarray(32)),
    );
    // The first 64 bytes are the sender's XEdDSA signature; the content follows.
    const text = new TextDecoder().decode(inner.subarray(64));
    $("interop").textContent = `${sameAad ? "aad-match" : "aad-differs"} ${sameCommitment ? "commitment-match" : "commitment-differs"}: ${text}`;
  } catch (err) {
    $("status").textContent = err instanceof StreamsealError ? `error ${err.code}` : `error ${err}`;
  } finally {
    ring?.free();
    state?.free();
    trust?.free();
    key?.free();
  }
});
