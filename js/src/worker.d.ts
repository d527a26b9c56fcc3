// `streamseal/worker`: the package in a module Worker, behind Promises.
import type { KdfLimits, KeyWraps, Message, OpenResult, OwnKey, PresentedKey, WrapsReport } from "./index.js";

/** A call's options: aborting `signal` terminates the worker (cancelling the call). */
export interface CallOptions {
  signal?: AbortSignal;
}

/** An object held in the worker (an `IdentityKey`, a `StreamState`, ...). */
export declare class Remote {
  private constructor();
  /** The class of the object in the worker, e.g. `"IdentityKey"`. */
  readonly type: string;
  /** Calls a method of the object in the worker. */
  call(method: string, ...args: unknown[]): Promise<any>;
  /** Reads a property (a getter) of the object in the worker. */
  get(property: string): Promise<any>;
  /** Frees the object in the worker (its secrets zeroized there). */
  free(): Promise<void>;
}

/** `OwnKeys` with the keys held in the worker. */
export interface RemoteOwnKeys {
  subject: string;
  keys: Remote | Remote[];
}

/** The package running in a module Worker. */
export declare class StreamsealWorker {
  private constructor();
  /**
   * Starts the worker. `url`: where to load the worker script from, for
   * bundlers that do not handle `new URL(..., import.meta.url)`; `signal`
   * terminates the worker when aborted.
   */
  static start(options?: { url?: string | URL; signal?: AbortSignal }): StreamsealWorker;
  /** Whether the worker was terminated (every later call rejects with an `AbortError`). */
  readonly terminated: boolean;
  /** Calls a function of the package in the worker; objects come back as `Remote`s. */
  run(name: string, args?: unknown[], options?: CallOptions): Promise<any>;
  /** Constructs one of the package's classes in the worker. */
  construct(name: string, args?: unknown[], options?: CallOptions): Promise<Remote>;
  /** Calls a static method in the worker, e.g. `"StreamState.fromBytes"`. */
  callStatic(name: string, args?: unknown[], options?: CallOptions): Promise<any>;
  /** `unlock` in the worker: the identity key stays there. */
  unlock(record: OwnKey, passphrase: Uint8Array, limits?: KdfLimits | null, options?: CallOptions): Promise<Remote>;
  /** `openKeyWraps` in the worker. */
  openKeyWraps(state: Remote, trust: Remote, keyWraps: KeyWraps, identities: Remote | Remote[], options?: CallOptions): Promise<WrapsReport>;
  /**
   * `openMessages` over the state's keyring, in the worker, through
   * `openMessagesAsync` (AES-GCM and the signatures in the worker's WebCrypto).
   */
  openMessages(
    state: Remote,
    trust: Remote,
    streamId: string,
    messages: Message[],
    own?: RemoteOwnKeys | null,
    presented?: PresentedKey[] | null,
    options?: CallOptions,
  ): Promise<OpenResult[]>;
  /** Terminates the worker: cancels what runs and frees all of its memory. */
  terminate(): void;
}
