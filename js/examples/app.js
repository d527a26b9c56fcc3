// The example page: unlock the user's key with a passphrase, open the
// stream's key wraps into its stream state, open the whole sealed history
// in one call, then show that an independent AES-GCM (WebCrypto) decrypts
// what the package sealed, with the AAD bytes built here from FORMAT.md
// section 3.
import { init, unlock, openKeyWraps, openMessages, seal, StreamState, TrustStore, StreamsealError } from "../src/browser.js";

const $ = (id) => document.getElementById(id);
const fixture = await (await fetch("./fixture.json")).json();
// The .wasm URL may be passed explicitly (bundlers); here it is resolved by the package.
await init();
$("status").textContent = "ready";

// FORMAT.md section 3, the message slot, written independently of the package.
function messageAad(rootStreamId, generation, slot) {
  const enc = new TextEncoder();
  const parts = [enc.encode("streamseal/aad"), Uint8Array.of(1, 1)];
  const str = (s) => {
    const b = enc.encode(s);
    parts.push(Uint8Array.of(b.length >> 8, b.length & 0xff), b);
  };
  const u32 = (n) => parts.push(Uint8Array.of(n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff));
  str(rootStreamId);
  u32(generation);
  str(slot.streamId);
  str(slot.messageId);
  str(slot.authorId);
  u32(slot.revision);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

const b64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

$("unlock").addEventListener("submit", async (event) => {
  event.preventDefault();
  let key, ring, state, trust;
  try {
    // The passphrase crosses as bytes the page can wipe once unlocked (the
    // input's string value itself cannot be wiped; clear the field).
    const passphrase = new TextEncoder().encode($("passphrase").value);
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
    openKeyWraps(state, trust, fixture.keyWraps, key);
    ring = state.keyring();
    const results = openMessages(ring, fixture.messages);
    $("history").replaceChildren(
      ...results.map((r) => {
        const li = document.createElement("li");
        li.textContent = r.status === "opened" ? r.message.text : `[${r.code}]`;
        return li;
      }),
    );
    $("status").textContent = `unlocked: ${results.filter((r) => r.status === "opened").length} opened`;

    // Interop: the package seals, WebCrypto opens with FORMAT.md's AAD.
    const slot = { kind: "message", streamId: fixture.rootStreamId, messageId: "msg_01JD3QZZ000000000000000000", authorId: "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1", revision: 1 };
    const sealed = seal(ring, slot, new TextEncoder().encode("sealed in wasm, opened by WebCrypto"));
    const generation = sealed.envelope.keyGeneration;
    const aad = messageAad(fixture.rootStreamId, generation, slot);
    const sameAad = btoa(String.fromCharCode(...aad)) === sealed.envelope.aad;
    const raw = ring.exportKey(generation); // the explicit export, for this demonstration only
    const cryptoKey = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["decrypt"]);
    raw.fill(0);
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: b64(sealed.envelope.iv), additionalData: aad, tagLength: 128 },
      cryptoKey,
      b64(sealed.ciphertext),
    );
    $("interop").textContent = `${sameAad ? "aad-match" : "aad-differs"}: ${new TextDecoder().decode(plain)}`;
  } catch (err) {
    $("status").textContent = err instanceof StreamsealError ? `error ${err.code}` : `error ${err}`;
  } finally {
    ring?.free();
    state?.free();
    trust?.free();
    key?.free();
  }
});
