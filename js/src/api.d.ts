// `streamseal/api`: the package's second module, loaded on first use. Its
// types come from the generated declarations of its glue.
export * from "../dist/streamseal_api.js";
export { StreamsealError } from "./index.js";
import type { InitSource } from "./index.js";
import type {
  ApiResponse,
  ContextInit,
  EndpointRequest,
  HttpRequest,
  Parsed,
  RetryPolicy,
  RetryStep,
} from "../dist/streamseal_api.js";

/**
 * Loads this module's WebAssembly once (browser entry: required before any
 * other call of `streamseal/api`; Node entry: already loaded).
 */
export declare function init(source?: InitSource): Promise<void>;

/** What `createClient` takes: where and as whom, and how to send. */
export interface ClientOptions extends ContextInit {
  /** The fetch to send with (default: `globalThis.fetch`). */
  fetch?: typeof globalThis.fetch;
  /** The retry policy (default: `defaultRetryPolicy()`); `false` sends each request once. */
  retry?: RetryPolicy | false;
  /** The clock, in Unix milliseconds (default: `Date.now`). */
  now?: () => number;
  /** How long one attempt may take before it counts as lost (default: 30,000 ms). */
  timeoutMs?: number;
  /** The largest response body read (default: 32 MiB); larger is `INPUT_TOO_LARGE`. */
  maxResponseBytes?: number;
  /**
   * Whether a `sendMessage` or `invocationMessage` without a
   * `clientMessageId` gets one minted, so that a resend cannot post twice
   * (default: true).
   */
  mintClientMessageIds?: boolean;
  /** Told of each retry before its wait. */
  onRetry?: (info: { attempt: number; step: RetryStep; result: CallResult }) => void;
}

/** What one call takes beside the request. */
export interface CallOptions {
  /** Aborts the call, its retries and their waits; the promise rejects with its reason. */
  signal?: AbortSignal;
  /** The file's bytes, for `uploadAttachment`. */
  upload?: Blob | BufferSource;
}

/**
 * What `call` resolves to: `parseResponse`'s result, or `lost` when no
 * response came; after a failure, how many attempts were made and the
 * policy's last step (`readBack` names the read that tells whether a call
 * that is not safe to resend landed).
 */
export type CallResult = (Parsed | { status: "lost"; error: unknown; request: HttpRequest }) & {
  attempts?: number;
  step?: RetryStep;
};

/** The endpoints over `fetch`. */
export interface Client {
  /** One call, retried as the policy allows. */
  call(request: EndpointRequest, options?: CallOptions): Promise<CallResult>;
  /**
   * Every page of a paged list (`nextPage`), as each page's response;
   * throws `StreamsealError` (the failure's code, or `HTTP_<status>`, with
   * `result`) for a page that failed, and the network's error for one lost.
   */
  pages(request: EndpointRequest, options?: CallOptions): AsyncGenerator<ApiResponse, void, void>;
}

/**
 * The endpoints over `fetch`, with the core's retry policy: no logic of its
 * own beyond the I/O (timeouts, waits, a bounded body, the AbortSignal).
 */
export declare function createClient(options: ClientOptions): Client;
