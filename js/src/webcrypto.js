// The async seals of the package (`sealAsync`, `sealMessageAsync`,
// `sealEditAsync`, `sealDecisionNoteAsync`, `sealDecisionCardAsync`, and a
// bot runtime's `sealReplyAsync`, `sealCompleteReplyAsync`,
// `sealFollowUpAsync`, `sealStepStartedAsync`, `sealStepAsync`,
// `sealRuntimeDecisionCardAsync`): every step of the synchronous
// seal but AES-GCM runs in WebAssembly (`prepareSeal*`: the signature, the
// seal counted against the budget, the iv, the key commitment), AES-256-GCM
// of `signature || content` in WebCrypto under the same non-extractable
// CryptoKey the opens use, and WASM builds the payload from its output.
//
// The async opens of the package (`openAsync`, `openMessageAsync`,
// `openMessagesAsync`, `openStepAsync`, `openDecisionCardAsync`,
// `openDecisionAnswerAsync`, `openInvocationAsync`).
//
// Every check runs in WebAssembly, as in the synchronous `open`,
// `openMessage`, `openMessages`, `openStep`, `openDecisionCard`,
// `openDecisionAnswer` and `OpenedInvocation.open`: `prepareOpen*` checks each envelope up to its AES-GCM part (version,
// base64 and sizes, the AAD and its slot, the key held, the sender's key, the
// key commitment) and `finish` verifies the sender's signature over what was
// decrypted and builds the results. Two primitives move to the platform
// (`WEBCRYPTO` below, `crypto.subtle`: native code, hardware AES; in Node,
// node:crypto, js/src/node-crypto.js): AES-256-GCM, and the sender's
// signature, which the platform's Ed25519 checks
// (XEdDSA verifies under an Ed25519 key; WASM derives it and hands it over
// with the exact signed input, and verifies itself where the platform has no
// Ed25519). Or both stay in WebAssembly (backend "wasm"). Both give the same results,
// byte for byte (js/test/backends.test.mjs runs the tests through each).
//
// Keys: a stream key crosses to JS once per keyring object and key (named
// by its non-secret tag), is imported as a non-extractable CryptoKey (in
// Node, a secret KeyObject), and the copy is zeroed at once (WebCrypto copies the bytes before `importKey`
// returns; `exportKey` leaves no copy in WASM memory). The CryptoKeys are
// held in a WeakMap of the keyring object, dropped by its `clear()` and
// `free()` and gone when it is collected. `hazmatFinish` checks the key
// commitment again against the key the keyring holds then: an open in
// flight when the keyring is cleared is refused, as the synchronous one is.
import { StreamsealError } from "./error.js";

/** The backends ("auto" chooses per job, see `asyncOpens`). */
export const BACKENDS = Object.freeze(["auto", "webcrypto", "wasm"]);

const cryptoKeys = new WeakMap();

function subtleCrypto() {
  const subtle = globalThis.crypto?.subtle;
  return subtle && typeof subtle.decrypt === "function" ? subtle : undefined;
}

/**
 * The platform's primitives the async calls use: AES-256-GCM under a key
 * imported once, and Ed25519 verify. This one is WebCrypto (browsers,
 * workers, Deno); the Node entry passes node:crypto's (js/src/node-crypto.js).
 * `verify(key, signature, data, alongside)` resolves to whether the
 * signature verified (`alongside`: how many verifies this call runs side by
 * side; `data` is the caller's until it settles); `decrypt` resolves to
 * null when the tag is refused.
 */
export const WEBCRYPTO = Object.freeze({
  id: "webcrypto",
  available: () => subtleCrypto() !== undefined,
  importAes: (raw) => subtleCrypto().importKey("raw", raw, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]),
  async decrypt(key, iv, aad, ciphertext) {
    try {
      return new Uint8Array(
        await subtleCrypto().decrypt({ name: "AES-GCM", iv, additionalData: aad, tagLength: 128 }, key, ciphertext),
      );
    } catch (error) {
      if (error?.name === "OperationError") return null;
      throw error;
    }
  },
  async encrypt(key, iv, aad, input) {
    return new Uint8Array(
      await subtleCrypto().encrypt({ name: "AES-GCM", iv, additionalData: aad, tagLength: 128 }, key, input),
    );
  },
  importEd25519: (raw) => subtleCrypto().importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]),
  verify: (key, signature, data) => subtleCrypto().verify({ name: "Ed25519" }, key, signature, data),
  // X25519: a secret key from its PKCS #8 (RFC 8410), non-extractable; a
  // public key from its 32 bytes; `x25519` resolves to the 32-byte result
  // (WebCrypto refuses an all-zero one: the call then leaves it to WASM).
  importX25519Secret: (pkcs8) => subtleCrypto().importKey("pkcs8", pkcs8, { name: "X25519" }, false, ["deriveBits"]),
  importX25519Public: (raw) => subtleCrypto().importKey("raw", raw, { name: "X25519" }, true, []),
  async x25519(secret, publicKey) {
    return new Uint8Array(await subtleCrypto().deriveBits({ name: "X25519", public: publicKey }, secret, 256));
  },
});

// Lower-case hex, through a table (a Chromium profile of a 1 KiB async open
// had the map-and-join form at 3% of it: two 32-byte names per open).
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));
function hex(bytes) {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]];
  return out;
}

// The CryptoKey of `keyring`'s key of `generation`, named by the key's tag
// (`Keyring.keyTag`: non-secret, one-way, another for another key): a key
// cleared and replaced is never decrypted with under its old CryptoKey, and
// a refused tag never exports the key again.
// `owner` holds the cache: the keyring itself, or for a runtime's
// invocation (its opens and its seals) the StreamState whose keyring copy
// it works under (so a key leaves WASM once per state, not once per
// invocation, and the state's `dropKeys()` drops it).
function importedKey(platform, keyring, generation, tag, owner = keyring) {
  let byKey = cryptoKeys.get(owner);
  if (byKey === undefined) {
    byKey = new Map();
    cryptoKeys.set(owner, byKey);
  }
  const name = `${platform.id}:${generation}:${hex(tag)}`;
  let key = byKey.get(name);
  if (key === undefined) {
    const raw = keyring.exportKey(generation);
    try {
      key = Promise.resolve(platform.importAes(raw));
    } finally {
      raw.fill(0);
    }
    byKey.set(name, key);
    key.catch(() => byKey.delete(name));
  }
  return key;
}

/**
 * Drops a keyring's CryptoKeys when it is cleared or freed (the WASM keys
 * are zeroized then; their WebCrypto copies go with them); for a
 * StreamState, when its keys are dropped or it is freed.
 */
export function forgetKeysOf(Keyring, methods = ["clear", "free"]) {
  const proto = Keyring.prototype;
  if (proto.__streamsealForgets) return;
  for (const method of methods) {
    const inner = proto[method];
    proto[method] = function (...args) {
      cryptoKeys.delete(this);
      return inner.apply(this, args);
    };
  }
  if (typeof Symbol.dispose === "symbol") proto[Symbol.dispose] = proto.free;
  Object.defineProperty(proto, "__streamsealForgets", { value: true });
}

// The StreamState each OpenedInvocation was opened through (by
// `OpenedInvocation.open` or `openInvocationAsync`): its seals' CryptoKeys
// are cached under that state, beside its opens'.
const openedThrough = new WeakMap();

/** Records the state of each invocation `OpenedInvocation.open` opens. */
function recordStates(OpenedInvocation) {
  if (OpenedInvocation.__streamsealRecordsStates) return;
  const open = OpenedInvocation.open;
  OpenedInvocation.open = function (invocation, state, ...rest) {
    const opened = open.call(this, invocation, state, ...rest);
    if (state !== null && typeof state === "object") openedThrough.set(opened, state);
    return opened;
  };
  Object.defineProperty(OpenedInvocation, "__streamsealRecordsStates", { value: true });
}

// Ed25519 public keys (public: the sender's key as XEdDSA verifies under
// it), imported once each. Once the platform has shown it has no Ed25519
// (NotSupportedError), signatures are left to WASM.
const ed25519Keys = new Map();
const ed25519Missing = new Set();

function ed25519Key(platform, raw) {
  const id = `${platform.id}:${hex(raw)}`;
  let key = ed25519Keys.get(id);
  if (key === undefined) {
    if (ed25519Keys.size >= 4096) ed25519Keys.clear();
    key = Promise.resolve().then(() => platform.importEd25519(raw));
    ed25519Keys.set(id, key);
    key.catch(() => ed25519Keys.delete(id));
  }
  return key;
}

// X25519 for the async key-wrap opens (`unwrapStreamKeyAsync`,
// `openKeyWrapsAsync`): WASM reads the arguments once and lists the X25519
// of each wrap's enc (`hazmatPrepareUnwrap`, `hazmatPrepareKeyWraps`: a
// `PendingUnwrap` whose `requests` are a key's index and the enc each), the
// platform computes them side by side, and WASM runs the synchronous open
// with those results (`hazmatFinish`, `hazmatFinishKeyWraps`: the same
// result and errors; any result missing, it computes itself). DH(skR, pkS) is never the platform's: a
// wrong value the server could predict there would open the server's own
// wrap as the sender's. WASM computes it once per sender and keeps it with
// the IdentityKey (`SenderDh`). A secret key leaves WASM once per
// IdentityKey object (`exportSecretKey`), is imported as a non-extractable
// CryptoKey (in Node, a private KeyObject) and the copies are zeroed at
// once; the CryptoKeys are held in the WeakMap of the IdentityKey object,
// dropped by its `free()` and gone when it is collected. The results are
// secrets: zeroed once WASM has read them.

// PKCS #8 of an X25519 secret key (RFC 8410), before its 32 bytes.
const X25519_PKCS8 = Uint8Array.of(0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x04, 0x22, 0x04, 0x20);
const DH_REQUEST = 33;
const x25519Missing = new Set();

function x25519Secret(platform, identity) {
  let byKey = cryptoKeys.get(identity);
  if (byKey === undefined) {
    byKey = new Map();
    cryptoKeys.set(identity, byKey);
  }
  const name = `${platform.id}:x25519`;
  let key = byKey.get(name);
  if (key === undefined) {
    const secret = identity.exportSecretKey();
    const pkcs8 = new Uint8Array(X25519_PKCS8.length + secret.length);
    try {
      pkcs8.set(X25519_PKCS8, 0);
      pkcs8.set(secret, X25519_PKCS8.length);
      key = Promise.resolve(platform.importX25519Secret(pkcs8));
    } catch (error) {
      key = Promise.reject(error);
    } finally {
      secret.fill(0);
      pkcs8.fill(0);
    }
    byKey.set(name, key);
    key.catch(() => byKey.delete(name));
  }
  return key;
}

// Imported per request, not cached: a wrap's `enc` is new with every wrap.
function x25519Public(platform, raw) {
  return Promise.resolve().then(() => platform.importX25519Public(raw.slice()));
}

/**
 * The platform's answers to packed X25519 `requests` for `identities` (an
 * IdentityKey or an array of them): 33 bytes each, 1 and the result where
 * the platform computed it, 0 and zeros where it did not (WASM then does).
 */
async function platformX25519(platform, identities, requests) {
  const count = Math.floor(requests.length / DH_REQUEST);
  const results = new Uint8Array(count * DH_REQUEST);
  if (!platform.available() || typeof platform.x25519 !== "function" || x25519Missing.has(platform.id)) return results;
  const keys = Array.isArray(identities) ? identities : [identities];
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const at = i * DH_REQUEST;
      const identity = keys[requests[at]];
      if (identity === undefined) return;
      try {
        const [secret, publicKey] = await Promise.all([
          x25519Secret(platform, identity),
          x25519Public(platform, requests.subarray(at + 1, at + DH_REQUEST)),
        ]);
        const out = await platform.x25519(secret, publicKey);
        if (out.length === 32) {
          results[at] = 1;
          results.set(out, at + 1);
        }
        out.fill(0);
      } catch (error) {
        // No X25519 here at all: WASM computes from now on. A result the
        // platform refuses (all zero, a key it will not take) is left to WASM.
        if (error?.name === "NotSupportedError") x25519Missing.add(platform.id);
      }
    }),
  );
  return results;
}

// Runs `finish(results)` (which uses `pending` up) with the platform's
// X25519 results for the `requests` of `pending` (a `PendingUnwrap`), then
// zeroes them. `pending` holds copies of the identity keys: it is freed on
// every path where it was not used up (the platform failing, or a finish
// refused by the glue before it took the object, e.g. for an argument of
// the wrong class).
async function withPlatformX25519(platform, identities, pending, finish) {
  let results;
  try {
    results = await platformX25519(platform, identities, pending.requests);
    return finish(results);
  } catch (error) {
    freeUnlessUsed(pending);
    throw error;
  } finally {
    results?.fill(0);
  }
}

// Frees a wasm-bindgen object unless a method taking it by value used it up
// (freeing it then throws: nothing is left to free).
function freeUnlessUsed(object) {
  try {
    object.free();
  } catch {
    // Used up already.
  }
}

// The signed input `prefix || content` is written into a buffer that this
// verify alone holds until the platform's verify has settled, then wiped and
// kept for the next (up to `KEPT` buffers of at most `KEPT_UP_TO` bytes
// each): a fresh buffer per verify (64 KiB allocated and wiped per open) was
// a tenth of an async 64 KiB open in Chromium. Held until settled, not just
// until `verify` returns: no verify's input can be another's, even on a
// platform that read its input late (WebCrypto and node:crypto copy it
// first, but nothing here depends on that).
const KEPT = 16;
const KEPT_UP_TO = 1024 * 1024;
const keptBuffers = [];

function takeBuffer(length) {
  for (let i = keptBuffers.length - 1; i >= 0; i--) {
    if (keptBuffers[i].length >= length) return keptBuffers.splice(i, 1)[0];
  }
  return new Uint8Array(length);
}

function giveBack(buffer, used) {
  buffer.fill(0, 0, used);
  if (buffer.length <= KEPT_UP_TO && keptBuffers.length < KEPT) keptBuffers.push(buffer);
}

// The sender's signature of a decrypted job, by the platform's Ed25519:
// `signature` (the first 64 bytes) over `prefix || content` under `signer`.
// True when it verified; false when it did not, or the platform has no
// Ed25519 (WASM then verifies, and refuses what does not verify).
async function verifiedByPlatform(platform, signer, prefix, plain, alongside) {
  if (ed25519Missing.has(platform.id) || signer === null || prefix === null || plain.length < 64) return false;
  let key;
  try {
    key = await ed25519Key(platform, signer);
  } catch (error) {
    // No Ed25519 here at all: WASM verifies from now on. A key the platform
    // refuses (a point it will not take) is left to WASM alone.
    if (error?.name === "NotSupportedError") ed25519Missing.add(platform.id);
    return false;
  }
  const length = prefix.length + plain.length - 64;
  let buffer;
  try {
    buffer = takeBuffer(length);
    const signed = buffer.subarray(0, length);
    signed.set(prefix, 0);
    signed.set(plain.subarray(64), prefix.length);
    return (await platform.verify(key, plain.subarray(0, 64), signed, alongside)) === true;
  } catch {
    return false;
  } finally {
    if (buffer !== undefined) giveBack(buffer, length);
  }
}

// One job: `[generation, iv, aad, ciphertext, signer, prefix, tag]`.
// Resolves to `{plain, verified}` (the decrypted bytes, and whether the
// platform's Ed25519 verified their signature), or null when the platform
// refuses the AES-GCM tag (DECRYPTION_FAILED).
async function decryptJob(platform, keyring, [generation, iv, aad, ciphertext, signer, prefix, tag], owner, alongside) {
  const key = await importedKey(platform, keyring, generation, tag, owner);
  const plain = await platform.decrypt(key, iv, aad, ciphertext);
  if (plain === null) return null;
  try {
    return { plain, verified: await verifiedByPlatform(platform, signer, prefix, plain, alongside) };
  } catch (error) {
    plain.fill(0);
    throw error;
  }
}

// Runs on the platform the jobs whose ciphertext is at least `platformFrom`
// bytes (AES-GCM, then the signature), leaves the others to WASM, and
// completes `pending` (which this consumes) with `finish(decrypted,
// verified)`. `decoded`: the bytes given to `prepareOpen*` as `decoded`, whose job
// names its ciphertext by length (the last `n` of them) instead of copying
// it back out of WASM.
async function complete(platform, pending, keyring, platformFrom, finish, owner = keyring, decoded = undefined) {
  const jobs = pending.jobs(platform.available() ? platformFrom : Infinity, keyring).map((job) => {
    if (job == null || typeof job[3] !== "number") return job;
    const n = job[3];
    // Never without the bytes it names; left to WASM (its own copy) then.
    if (!(decoded instanceof Uint8Array) || n > decoded.length) return undefined;
    return [job[0], job[1], job[2], decoded.subarray(decoded.length - n), ...job.slice(4)];
  });
  // How many jobs the platform works side by side (its verify may pick a
  // thread pool for many, its own thread for few).
  const alongside = jobs.filter((job) => job != null).length;
  const settled = await Promise.allSettled(
    jobs.map((job) => (job === null || job === undefined ? job : decryptJob(platform, keyring, job, owner, alongside))),
  );
  let decrypted = settled.map((s) => (s.value == null ? s.value : s.value.plain));
  let verified = settled.map((s) => s.value?.verified === true);
  if (settled.some((s) => s.status === "rejected")) {
    // WebCrypto without AES-GCM (NotSupportedError) or a freed keyring: WASM
    // gives the result, or the error, of the synchronous call.
    for (const bytes of decrypted) if (bytes instanceof Uint8Array) bytes.fill(0);
    decrypted = jobs.map((job) => (job === null ? null : undefined));
    verified = jobs.map(() => false);
  }
  try {
    return finish(decrypted, verified);
  } finally {
    for (const bytes of decrypted) if (bytes instanceof Uint8Array) bytes.fill(0);
  }
}

// One seal job: `[generation, iv, aad, input, tag]`. Resolves to the
// platform's `ciphertext || tag` of `input`, which is wiped either way.
async function encryptJob(platform, keyring, [generation, iv, aad, input, tag], owner) {
  try {
    const key = await importedKey(platform, keyring, generation, tag, owner);
    return await platform.encrypt(key, iv, aad, input);
  } finally {
    input.fill(0);
  }
}

/**
 * Completes `pending` (a `PendingSeals`, consumed): AES-256-GCM on
 * `platform` when its input is at least `platformFrom` bytes, else (or where
 * the platform refuses: no AES-GCM, a freed keyring) in WASM, which then gives the
 * synchronous call's result or error. `owner` holds the CryptoKeys (see
 * `importedKey`).
 */
export async function completeSeal(pending, keyring, platformFrom, owner = keyring, platform = WEBCRYPTO) {
  let job;
  try {
    job = pending.job(platform.available() ? platformFrom : Infinity, keyring);
  } catch (error) {
    pending.free();
    throw error;
  }
  let sealed;
  if (job !== undefined) {
    try {
      sealed = await encryptJob(platform, keyring, job, owner);
    } catch {
      sealed = undefined;
    }
  }
  return pending.hazmatFinishSeal(sealed, keyring);
}

// A large ciphertext is decoded here, with the platform's base64
// (`Uint8Array.fromBase64`, else Node's `Buffer`: native code), instead of in
// WebAssembly, where its strict decode was most of what an async open added
// to the platform's AES-GCM and Ed25519 at 64 KiB. Strictness is kept:
// `Uint8Array.fromBase64` in its "strict" mode with a length check (below);
// Node's `Buffer` is lenient (whitespace, missing padding, URL-safe letters,
// other characters skipped), so there the bytes are re-encoded:
// `encode(decode(text)) === text` holds exactly for the canonical padded
// base64 the core accepts. Either way the bytes are the ones the core would
// decode. Any other text goes to
// WebAssembly as it came, which refuses it with the synchronous call's code.
// From 16 KiB of text (below, decoding in WebAssembly is cheap), up to 4 MiB
// (below the core's bound: no bound is checked differently).
const DECODE_HERE_FROM = 16 * 1024;
const DECODE_HERE_UP_TO = 4 * 1024 * 1024;

// The options, on no prototype: a polluted `Object.prototype.alphabet`
// cannot reach them.
const STRICT = Object.freeze({ __proto__: null, alphabet: "base64", lastChunkHandling: "strict" });

// Whether this engine's `fromBase64` refuses, in strict mode, what the spec
// says it does: padding bits set, and the URL-safe letters. Probed once.
let strictProbed;
function fromBase64IsStrict() {
  if (strictProbed === undefined) {
    const refuses = (text) => {
      try {
        Uint8Array.fromBase64(text, STRICT);
        return false;
      } catch {
        return true;
      }
    };
    strictProbed = refuses("QR==") && refuses("-_8=") && refuses("QQ") && !refuses("QQ==");
  }
  return strictProbed;
}

/** The canonical base64 `text` decoded with the platform's base64, or undefined. */
export function decodedHere(text) {
  if (typeof text !== "string" || text.length < DECODE_HERE_FROM || text.length > DECODE_HERE_UP_TO) return undefined;
  try {
    if (typeof Uint8Array.fromBase64 === "function") {
      const bytes = Uint8Array.fromBase64(text, STRICT);
      if (fromBase64IsStrict()) {
        // "strict": complete padded quanta, padding bits zero, the standard
        // alphabet; it throws on anything else but skips ASCII whitespace,
        // which canonical text has none of. Without whitespace, the text of
        // n bytes is exactly 4 * ceil(n / 3) characters long, and with any
        // it is longer: no re-encoding needed (it was most of this decode's
        // time).
        return text.length === 4 * Math.ceil(bytes.length / 3) ? bytes : undefined;
      }
      // An engine (or a shim) that does not refuse as the spec says: the
      // re-encoding decides.
      return typeof bytes.toBase64 === "function" && bytes.toBase64() === text ? bytes : undefined;
    }
    if (typeof globalThis.Buffer === "function") {
      const buffer = globalThis.Buffer.from(text, "base64");
      return buffer.toString("base64") === text ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length) : undefined;
    }
  } catch {
    // Not base64 at all: WebAssembly says so.
  }
  return undefined;
}

function backendOf(options) {
  const backend = options?.backend ?? "auto";
  if (!BACKENDS.includes(backend)) {
    throw new StreamsealError(
      "INVALID_FIELD",
      `field \`options.backend\` is invalid: one of ${BACKENDS.join(", ")}, not ${String(backend)}`,
    );
  }
  return backend;
}

/**
 * The async opens and seals over one entry's glue. Under "auto", `auto`
 * says where a job goes, measured per runtime (BENCHMARKS.md, `cargo xtask
 * bench`): an open's to `platform` for a ciphertext of at least
 * `minBytes`, and for every job of a page of at least `minPage` envelopes; a
 * seal's for an input of at least `minSealBytes`; WASM otherwise.
 */
export function asyncOpens(glue, auto, platform = WEBCRYPTO) {
  forgetKeysOf(glue.Keyring);
  forgetKeysOf(glue.StreamState, ["dropKeys", "free"]);
  forgetKeysOf(glue.IdentityKey, ["free"]);
  // A bot runtime's class: only in the module with its calls (the Node
  // entry, `streamseal/bot`), not in the browser's first module.
  if (glue.OpenedInvocation !== undefined) {
    forgetKeysOf(glue.OpenedInvocation, ["free"]);
    recordStates(glue.OpenedInvocation);
  }
  const platformFrom = (options, count) => {
    const backend = backendOf(options);
    if (backend === "wasm") return Infinity;
    if (backend === "webcrypto" || count >= auto.minPage) return 0;
    return auto.minBytes;
  };
  // Where an async key-wrap open's X25519 runs.
  const x25519Here = (options) => {
    const backend = backendOf(options);
    return backend === "webcrypto" || (backend === "auto" && auto.x25519 === true);
  };
  const sealFrom = (options) => {
    const backend = backendOf(options);
    return backend === "wasm" ? Infinity : backend === "webcrypto" ? 0 : auto.minSealBytes;
  };
  const seal = (prepare, keyring, options) => {
    const from = sealFrom(options);
    return completeSeal(prepare(), keyring, from, keyring, platform);
  };
  // A runtime's seal: under a copy of the invocation's keyring (freed here;
  // it shares the keys' seal counts and their clear), its CryptoKeys cached
  // under the state the invocation was opened through, as its opens' are (so
  // the key leaves WASM once per state, and the state's `dropKeys()` drops
  // them), else under the invocation (dropped by its `free()`).
  const anInvocation = (invocation) => {
    if (!(invocation instanceof glue.OpenedInvocation)) {
      throw new StreamsealError("INVALID_FIELD", "field `invocation` is invalid: not an OpenedInvocation");
    }
  };
  const sealByInvocation = async (invocation, prepare, options) => {
    const from = sealFrom(options);
    anInvocation(invocation);
    const keyring = invocation.sealingKeyring();
    // A state freed since (its CryptoKeys dropped then) holds no more: the
    // invocation does, until its own free().
    const state = openedThrough.get(invocation);
    const owner = state !== undefined && state.__wbg_ptr !== 0 ? state : invocation;
    try {
      return await completeSeal(prepare(), keyring, from, owner, platform);
    } finally {
      keyring.free();
    }
  };
  const one = (pending, keyring, from, decoded) =>
    complete(platform, pending, keyring, from, (decrypted, verified) => pending.hazmatFinishOne(decrypted, keyring, verified), keyring, decoded);
  return {
    async openAsync(keyring, trust, slot, sealed, own, presented, options) {
      const from = platformFrom(options, 1);
      const bytes = from === Infinity ? undefined : decodedHere(sealed?.ciphertext);
      const pending =
        bytes === undefined
          ? glue.prepareOpen(keyring, trust, slot, sealed, own, presented)
          : glue.prepareOpen(keyring, trust, slot, { ...sealed, ciphertext: "" }, own, presented, bytes);
      return one(pending, keyring, from, bytes);
    },
    async openMessageAsync(keyring, trust, streamId, message, own, presented, options) {
      const from = platformFrom(options, 1);
      const bytes = from === Infinity ? undefined : decodedHere(message?.sealed?.ciphertext);
      const pending =
        bytes === undefined
          ? glue.prepareOpenMessage(keyring, trust, streamId, message, own, presented)
          : glue.prepareOpenMessage(
              keyring,
              trust,
              streamId,
              { ...message, sealed: { ...message.sealed, ciphertext: "" } },
              own,
              presented,
              bytes,
            );
      return one(pending, keyring, from, bytes);
    },
    async openMessagesAsync(keyring, trust, streamId, messages, own, presented, options) {
      const from = platformFrom(options, Array.isArray(messages) ? messages.length : 0);
      const pending = glue.prepareOpenMessages(keyring, trust, streamId, messages, own, presented);
      return complete(platform, pending, keyring, from, (decrypted, verified) => pending.hazmatFinish(decrypted, keyring, verified));
    },
    // The identities are read once (a copy of the array): the listing, the
    // platform and the finish see the same keys at the same indices.
    async unwrapStreamKeyAsync(keyring, record, given, senders, options) {
      const identities = Array.isArray(given) ? [...given] : given;
      if (!x25519Here(options)) return glue.unwrapStreamKey(keyring, record, identities, senders);
      const pending = glue.hazmatPrepareUnwrap(record, identities, senders);
      return withPlatformX25519(platform, identities, pending, (results) => pending.hazmatFinish(keyring, results));
    },
    async openKeyWrapsAsync(state, trust, keyWraps, given, options) {
      const identities = Array.isArray(given) ? [...given] : given;
      if (!x25519Here(options)) return glue.openKeyWraps(state, trust, keyWraps, identities);
      const pending = glue.hazmatPrepareKeyWraps(state, trust, keyWraps, identities);
      return withPlatformX25519(platform, identities, pending, (results) => pending.hazmatFinishKeyWraps(state, trust, results));
    },
    async openStepAsync(keyring, trust, placement, sealed, own, presented, options) {
      const from = platformFrom(options, 1);
      const pending = glue.prepareOpenStep(keyring, trust, placement, sealed, own, presented);
      return one(pending, keyring, from);
    },
    async openDecisionCardAsync(keyring, trust, streamId, card, own, presented, options) {
      const from = platformFrom(options, 1);
      const pending = glue.prepareOpenDecisionCard(keyring, trust, streamId, card, own, presented);
      return one(pending, keyring, from);
    },
    async openDecisionAnswerAsync(keyring, trust, card, event, own, presented, options) {
      const from = platformFrom(options, 1);
      const pending = glue.prepareOpenDecisionAnswer(keyring, trust, card, event, own, presented);
      return one(pending, keyring, from);
    },
    async sealAsync(keyring, identity, subject, slot, plaintext, options) {
      return seal(() => glue.prepareSeal(keyring, identity, subject, slot, plaintext), keyring, options);
    },
    async sealMessageAsync(keyring, identity, subject, streamId, messageId, text, options) {
      return seal(() => glue.prepareSealMessage(keyring, identity, subject, streamId, messageId, text), keyring, options);
    },
    async sealEditAsync(keyring, identity, subject, message, text, options) {
      return seal(() => glue.prepareSealEdit(keyring, identity, subject, message, text), keyring, options);
    },
    async sealDecisionNoteAsync(keyring, identity, subject, decisionId, optionId, note, options) {
      return seal(() => glue.prepareSealDecisionNote(keyring, identity, subject, decisionId, optionId, note), keyring, options);
    },
    async sealDecisionCardAsync(keyring, identity, subject, streamId, decisionId, runtimeSessionId, invocationId, cardOptions, allowNote, content, options) {
      return seal(
        () => glue.prepareSealDecisionCard(keyring, identity, subject, streamId, decisionId, runtimeSessionId, invocationId, cardOptions, allowNote, content),
        keyring,
        options,
      );
    },
    async sealReplyAsync(invocation, messageId, text, options) {
      return sealByInvocation(invocation, () => invocation.prepareSealReply(messageId, text), options);
    },
    async sealCompleteReplyAsync(invocation, messageId, text, options) {
      return sealByInvocation(invocation, () => invocation.prepareSealCompleteReply(messageId, text), options);
    },
    async sealFollowUpAsync(invocation, messageId, text, options) {
      return sealByInvocation(invocation, () => invocation.prepareSealMessage(messageId, text), options);
    },
    async sealStepStartedAsync(invocation, stepId, stepType, messageId, text, options) {
      // Without a text nothing is sealed: the synchronous call's body.
      if (text === undefined || text === null) {
        sealFrom(options);
        anInvocation(invocation);
        return invocation.sealStepStarted(stepId, stepType, messageId, text);
      }
      return sealByInvocation(invocation, () => invocation.prepareSealStepStarted(stepId, stepType, messageId, text), options);
    },
    async sealStepAsync(invocation, stepId, stepType, messageId, text, durationMs, options) {
      return sealByInvocation(invocation, () => invocation.prepareSealStep(stepId, stepType, messageId, text, durationMs), options);
    },
    async sealRuntimeDecisionCardAsync(invocation, streamId, decisionId, cardOptions, allowNote, content, runtimeSessionId, options) {
      return sealByInvocation(
        invocation,
        () => invocation.prepareSealDecisionCard(streamId, decisionId, cardOptions, allowNote, content, runtimeSessionId),
        options,
      );
    },
    // The prompt first, alone: nothing of the history is decrypted or
    // verified before the prompt opened and the state recorded it. The
    // keyring is the invocation's own (a copy of the state's, freed here);
    // its CryptoKeys are cached under the state.
    async openInvocationAsync(invocation, state, trust, botId, identities, presented, options) {
      const history = invocation?.sealedContext?.history;
      const promptFrom = platformFrom(options, 1);
      const historyFrom = platformFrom(options, Array.isArray(history) ? history.length : 0);
      const pending = glue.prepareOpenInvocation(invocation, state, trust, botId, identities, presented);
      let keyring;
      try {
        keyring = pending.invocationKeyring();
      } catch (error) {
        pending.free();
        throw error;
      }
      try {
        try {
          await complete(platform, pending, keyring, promptFrom, (decrypted, verified) => pending.hazmatFinishPrompt(decrypted, state, verified), state);
        } catch (error) {
          pending.free();
          throw error;
        }
        const opened = await complete(platform, pending, keyring, historyFrom, (decrypted, verified) => pending.hazmatFinishInvocation(decrypted, verified), state);
        openedThrough.set(opened, state);
        return opened;
      } finally {
        keyring.free();
      }
    },
  };
}
