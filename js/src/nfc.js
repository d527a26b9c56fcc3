// Passphrases to Unicode NFC before they cross into WebAssembly (FORMAT.md
// section 5: Argon2id takes the UTF-8 of the NFC form, so a passphrase typed
// on keyboards that compose accents differently derives one key). The
// package's WASM build leaves out the Rust normalisation tables (92 KB gzip;
// issue 20) and normalises here, with the platform's
// `String.prototype.normalize`, which every browser and Node have.
//
// A passphrase of ASCII only, or already in NFC, crosses as the caller's own
// array (no copy). Otherwise the NFC form crosses in a new array, zeroed
// once the call returns; the caller wipes its own as before. Bytes that are
// not UTF-8, or not a Uint8Array, cross unchanged and WASM refuses them with
// its code (INVALID_FIELD). What this costs: a passphrase with a non-ASCII
// character exists for a while as a JS string (the decoded text and its NFC
// form), which JS cannot wipe; the garbage collector frees it. An app that
// took it from a text field had it as a string already.

const ascii = (bytes) => {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] > 0x7f) return false;
  return true;
};

/** The UTF-8 of the NFC form of `bytes`, or `bytes` itself when that is the same. */
export function nfcBytes(bytes) {
  if (!(bytes instanceof Uint8Array) || ascii(bytes)) return bytes;
  // TextDecoder reads no shared memory in some engines: decode a copy then.
  const shared = typeof SharedArrayBuffer === "function" && bytes.buffer instanceof SharedArrayBuffer;
  const view = shared ? bytes.slice() : bytes;
  let text;
  try {
    // ignoreBOM: a leading U+FEFF is part of the passphrase, as the Rust side reads it.
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(view);
  } catch {
    // Not UTF-8: crosses unchanged, and WASM refuses it (INVALID_FIELD).
    return bytes;
  } finally {
    if (view !== bytes) view.fill(0);
  }
  const nfc = text.normalize("NFC");
  return nfc === text ? bytes : new TextEncoder().encode(nfc);
}

// Calls `fn` with the arguments at `positions` normalised, and zeroes the
// arrays made here once it returns.
function withNfc(fn, positions) {
  return function (...args) {
    const made = [];
    for (const at of positions) {
      const nfc = nfcBytes(args[at]);
      if (nfc !== args[at]) {
        made.push(nfc);
        args[at] = nfc;
      }
    }
    try {
      return fn.apply(this, args);
    } finally {
      for (const bytes of made) bytes.fill(0);
    }
  };
}

// Each passphrase-taking export, with the positions of its passphrases.
const PASSPHRASES = {
  unlock: [1],
  setUp: [1],
  changePassphrase: [1, 2],
  // The bot module's tools (`streamseal/bot`, the Node entry); the
  // browser's first module does not have them.
  createBundle: [1],
  openBundle: [4],
  hazmatCreateBundleWithRandomness: [1],
};

/**
 * The passphrase-taking exports `glue` has, normalising their passphrases
 * to NFC.
 */
export function nfcExports(glue) {
  const wrapped = {};
  for (const [name, positions] of Object.entries(PASSPHRASES)) {
    if (typeof glue[name] === "function") wrapped[name] = withNfc(glue[name], positions);
  }
  return wrapped;
}
