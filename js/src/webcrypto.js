// The async opens of the package (`openAsync`, `openMessageAsync`,
// `openMessagesAsync`).
//
// Every check runs in WebAssembly, as in the synchronous `open`,
// `openMessage` and `openMessages`: `prepareOpen*` checks each envelope up to its AES-GCM part (version,
// base64 and sizes, the AAD and its slot, the key held, the sender's key, the
// key commitment) and `finish` verifies the sender's signature over what was
// decrypted and builds the results. Only AES-256-GCM itself moves: to the
// platform's WebCrypto (`crypto.subtle`, hardware AES in browsers and Node),
// or it stays in WebAssembly (backend "wasm"). Both give the same results,
// byte for byte (js/test/backends.test.mjs runs the tests through each).
//
// Keys: a stream key crosses to JS once per keyring object and generation,
// is imported as a non-extractable CryptoKey, and the copy is zeroed at once
// (WebCrypto copies the bytes before `importKey` returns). The CryptoKeys
// are held in a WeakMap of the keyring object: they go when it is collected.
import { StreamsealError } from "./error.js";

/** The backends ("auto" chooses per job, see `asyncOpens`). */
export const BACKENDS = Object.freeze(["auto", "webcrypto", "wasm"]);

const cryptoKeys = new WeakMap();

function subtleCrypto() {
  const subtle = globalThis.crypto?.subtle;
  return subtle && typeof subtle.decrypt === "function" ? subtle : undefined;
}

function importedKey(subtle, keyring, generation, fresh) {
  let byGeneration = cryptoKeys.get(keyring);
  if (byGeneration === undefined) {
    byGeneration = new Map();
    cryptoKeys.set(keyring, byGeneration);
  }
  let key = fresh ? undefined : byGeneration.get(generation);
  if (key === undefined) {
    const raw = keyring.exportKey(generation);
    try {
      key = subtle.importKey("raw", raw, { name: "AES-GCM" }, false, ["decrypt"]);
    } finally {
      raw.fill(0);
    }
    byGeneration.set(generation, key);
    key.catch(() => byGeneration.delete(generation));
  }
  return key;
}

// One job: `[generation, iv, aad, ciphertext || tag]`. Resolves to the
// decrypted bytes, or null when WebCrypto refuses the tag. A refusal under a
// cached key is retried once under a fresh import: the keyring may have been
// cleared and given another key for the generation since the cache was
// filled (the key commitment, checked in WASM against the key it holds now,
// passed).
async function decryptJob(subtle, keyring, [generation, iv, aad, ciphertext]) {
  const params = { name: "AES-GCM", iv, additionalData: aad, tagLength: 128 };
  for (const fresh of [false, true]) {
    const key = await importedKey(subtle, keyring, generation, fresh);
    try {
      return new Uint8Array(await subtle.decrypt(params, key, ciphertext));
    } catch (error) {
      if (error?.name !== "OperationError") throw error;
    }
  }
  return null;
}

// Runs each AES-GCM job of `pending` where `here(job)` says (true: in WASM,
// left `undefined` for `finish`; false: in WebCrypto) and completes it.
// Consumes `pending`.
async function complete(pending, keyring, here, one) {
  const subtle = subtleCrypto();
  const jobs = pending.jobs();
  const settled = await Promise.allSettled(
    jobs.map((job) => {
      if (job === null) return null;
      if (subtle === undefined || here(job)) return undefined;
      return decryptJob(subtle, keyring, job);
    }),
  );
  let decrypted = settled.map((s) => s.value);
  if (settled.some((s) => s.status === "rejected")) {
    // WebCrypto without AES-GCM (NotSupportedError) or a freed keyring: WASM
    // gives the result, or the error, of the synchronous call.
    for (const bytes of decrypted) bytes?.fill(0);
    decrypted = jobs.map((job) => (job === null ? null : undefined));
  }
  try {
    return one ? pending.finishOne(decrypted, keyring) : pending.finish(decrypted, keyring);
  } finally {
    for (const bytes of decrypted) bytes?.fill(0);
  }
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
 * The async opens over one entry's glue. Under "auto", a job goes to
 * WebCrypto when its ciphertext is at least `autoMinBytes` long (browsers
 * 8 KiB, Node 24 KiB): where the per-call cost of WebCrypto stops
 * outweighing its faster AES (BENCHMARKS.md).
 */
export function asyncOpens(glue, autoMinBytes) {
  const placement = (options) => {
    const backend = backendOf(options);
    if (backend === "wasm") return () => true;
    if (backend === "webcrypto") return () => false;
    return (job) => job[3].length < autoMinBytes;
  };
  return {
    async openAsync(keyring, trust, slot, sealed, own, presented, options) {
      const here = placement(options);
      const pending = glue.prepareOpen(keyring, trust, slot, sealed, own, presented);
      return complete(pending, keyring, here, true);
    },
    async openMessageAsync(keyring, trust, streamId, message, own, presented, options) {
      const here = placement(options);
      const pending = glue.prepareOpenMessage(keyring, trust, streamId, message, own, presented);
      return complete(pending, keyring, here, true);
    },
    async openMessagesAsync(keyring, trust, streamId, messages, own, presented, options) {
      const here = placement(options);
      const pending = glue.prepareOpenMessages(keyring, trust, streamId, messages, own, presented);
      return complete(pending, keyring, here, false);
    },
  };
}
