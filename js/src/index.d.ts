// The generated classes declare `[Symbol.dispose]()` (explicit resource
// management, `using`): this reference gives every consumer that
// declaration whatever its `lib` setting (without it, `tsc` with
// `lib: ["ES2022", "DOM"]` and `skipLibCheck: false` fails on the package).
/// <reference lib="esnext.disposable" />
// Every type below comes from the generated declarations of the WASM glue
// (wasm-bindgen, and tsify for the wire types); nothing is restated here.
export * from "../dist/streamseal_wasm.js";
import type {
  Keyring,
  Message,
  OpenResult,
  OpenedEnvelope,
  SealedPayload,
  Slot,
  OpenedMessage,
  OwnKeys,
  PresentedKey,
  TrustStore,
} from "../dist/streamseal_wasm.js";

/** What `init` loads the module from. */
export type InitSource =
  | string
  | URL
  | Request
  | Response
  | Promise<Response>
  | BufferSource
  | WebAssembly.Module;

/**
 * Loads the WebAssembly module once (browser entry: required before any
 * other call; Node entry: already loaded, resolves at once).
 */
export declare function init(source?: InitSource): Promise<void>;

/**
 * Where the AES-256-GCM and the sender's signature of an async open run:
 * `"webcrypto"` (the platform's `crypto.subtle`: hardware AES, native
 * Ed25519, other threads), `"wasm"` (this module's, as the synchronous
 * calls), or `"auto"` (the default: the faster in this runtime by the
 * package's measurements, WebCrypto always in browsers; in Node, from 48 KiB
 * of ciphertext or a page of 32 messages). Every other check runs in
 * WebAssembly whichever it is; both give the same results.
 */
export type OpenBackend = "auto" | "webcrypto" | "wasm";

/** Options of the async opens. */
export interface OpenOptions {
  /** Where AES-256-GCM and the signature run (default `"auto"`). */
  backend?: OpenBackend;
}

/**
 * `open`, with AES-256-GCM on `options.backend`: the opened envelope, or a
 * rejection with the `StreamsealError` `open` throws.
 */
export declare function openAsync(
  keyring: Keyring,
  trust: TrustStore,
  slot: Slot,
  sealed: SealedPayload,
  own?: OwnKeys | null,
  presented?: PresentedKey[] | null,
  options?: OpenOptions,
): Promise<OpenedEnvelope>;

/**
 * `openMessages`, with AES-256-GCM on `options.backend`: the same results,
 * in order, each opened or failed on its own.
 */
export declare function openMessagesAsync(
  keyring: Keyring,
  trust: TrustStore,
  streamId: string,
  messages: Message[],
  own?: OwnKeys | null,
  presented?: PresentedKey[] | null,
  options?: OpenOptions,
): Promise<OpenResult[]>;

/**
 * `openMessage`, with AES-256-GCM on `options.backend`: the opened message,
 * or a rejection with the `StreamsealError` `openMessage` throws.
 */
export declare function openMessageAsync(
  keyring: Keyring,
  trust: TrustStore,
  streamId: string,
  message: Message,
  own?: OwnKeys | null,
  presented?: PresentedKey[] | null,
  options?: OpenOptions,
): Promise<OpenedMessage>;
