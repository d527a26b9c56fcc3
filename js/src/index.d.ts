// The generated classes declare `[Symbol.dispose]()` (explicit resource
// management, `using`): this reference gives every consumer that
// declaration whatever its `lib` setting (without it, `tsc` with
// `lib: ["ES2022", "DOM"]` and `skipLibCheck: false` fails on the package).
/// <reference lib="esnext.disposable" />
// Every type below comes from the generated declarations of the WASM glue
// (wasm-bindgen, and tsify for the wire types); nothing is restated here.
// This is the front end's module (the browser's `streamseal`); bot.d.ts
// adds a bot runtime's calls (`streamseal/bot`, and `streamseal` in Node).
export * from "../dist/streamseal_wasm.js";
import type {
  CreateDecisionRequest,
  IdentityKey,
  KeyWrap,
  KeyWraps,
  Keyring,
  Message,
  OpenedDecisionCard,
  OpenedStep,
  SendMessageRequest,
  StepPlacement,
  OpenResult,
  OpenedEnvelope,
  SealedPayload,
  Slot,
  OpenedMessage,
  OwnKeys,
  PresentedKey,
  Recipient,
  StreamState,
  TrustStore,
  Unwrapped,
  WrapsReport,
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
 * Where the AES-256-GCM and the sender's signature of an async open run
 * (for the key-wrap opens, the X25519 of HPKE's decapsulation; in Node
 * through node:crypto):
 * `"webcrypto"` (the platform's native crypto, hardware AES and native
 * Ed25519: `crypto.subtle` in browsers and workers; in Node, node:crypto,
 * the same OpenSSL without `crypto.subtle`'s per-call promise and thread
 * hop), `"wasm"` (this module's, as the synchronous calls), or `"auto"`
 * (the default: the faster in this runtime by the package's measurements;
 * the platform for every open, in browsers and in Node). Every other check runs in
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

/**
 * `openStep`, with AES-256-GCM on `options.backend`: the opened step, or a
 * rejection with the `StreamsealError` `openStep` throws.
 */
export declare function openStepAsync(
  keyring: Keyring,
  trust: TrustStore,
  placement: StepPlacement,
  sealed: SealedPayload,
  own?: OwnKeys | null,
  presented?: PresentedKey[] | null,
  options?: OpenOptions,
): Promise<OpenedStep>;

/**
 * `openDecisionCard`, with AES-256-GCM on `options.backend`: the opened
 * card, or a rejection with the `StreamsealError` `openDecisionCard` throws.
 */
export declare function openDecisionCardAsync(
  keyring: Keyring,
  trust: TrustStore,
  streamId: string,
  card: CreateDecisionRequest,
  own?: OwnKeys | null,
  presented?: PresentedKey[] | null,
  options?: OpenOptions,
): Promise<OpenedDecisionCard>;

/** Options of the async seals. */
export interface SealOptions {
  /** Where AES-256-GCM runs (default `"auto"`: WebCrypto from 4 KiB in browsers, node:crypto from 4 KiB in Node). */
  backend?: OpenBackend;
}

/**
 * `seal`, with AES-256-GCM on `options.backend` (the signature, the seal's
 * count and the key commitment in WebAssembly): the same payload, or a
 * rejection with the `StreamsealError` `seal` throws.
 */
export declare function sealAsync(
  keyring: Keyring,
  identity: IdentityKey,
  subject: string,
  slot: Slot,
  plaintext: Uint8Array,
  options?: SealOptions,
): Promise<SealedPayload>;

/** `sealMessage`, with AES-256-GCM on `options.backend`. */
export declare function sealMessageAsync(
  keyring: Keyring,
  identity: IdentityKey,
  subject: string,
  streamId: string,
  messageId: string,
  text: string,
  options?: SealOptions,
): Promise<SendMessageRequest>;

/** `sealEdit`, with AES-256-GCM on `options.backend`. */
export declare function sealEditAsync(
  keyring: Keyring,
  identity: IdentityKey,
  subject: string,
  message: Message,
  text: string,
  options?: SealOptions,
): Promise<SealedPayload>;

/** `sealDecisionNote`, with AES-256-GCM on `options.backend`. */
export declare function sealDecisionNoteAsync(
  keyring: Keyring,
  identity: IdentityKey,
  subject: string,
  decisionId: string,
  optionId: string,
  note: string,
  options?: SealOptions,
): Promise<SealedPayload>;


/**
 * `unwrapStreamKey`, with the X25519 of the wrap's enc (HPKE's AuthDecap
 * `DH(skR, enc)`) on `options.backend` (`"webcrypto"`: the platform's X25519, `crypto.subtle`
 * in browsers, node:crypto in Node; `"wasm"`; `"auto"`: the faster here by
 * the package's measurements). Every other step runs in WebAssembly; the
 * same result and the same errors either way. The identity's secret key
 * is imported into the platform once per IdentityKey object
 * (non-extractable), and dropped by its `free()`. A wrap from a sender
 * whose wrap this IdentityKey object opened before costs one X25519, not
 * two: the object keeps that result (see `IdentityKey`), on every backend
 * and in `unwrapStreamKey` and `openKeyWraps` too.
 */
export declare function unwrapStreamKeyAsync(
  keyring: Keyring,
  record: KeyWrap,
  identities: IdentityKey | IdentityKey[],
  senders: Recipient[],
  options?: OpenOptions,
): Promise<Unwrapped>;

/**
 * `openKeyWraps`, with each wrap's `DH(skR, enc)` on
 * `options.backend` (see `unwrapStreamKeyAsync`): the same report, state and
 * errors.
 */
export declare function openKeyWrapsAsync(
  state: StreamState,
  trust: TrustStore,
  keyWraps: KeyWraps,
  identities: IdentityKey | IdentityKey[],
  options?: OpenOptions,
): Promise<WrapsReport>;
