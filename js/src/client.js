// `createClient`: the sans-IO endpoints over `fetch`, with the core's retry
// policy. It holds no logic of its own: `buildRequest` builds and validates,
// `parseResponse` reads, `retryStep` decides whether and when to send
// again, `nextPage` pages. What is here is the I/O: the fetch, a per-attempt
// timeout, the sleep between attempts, a bounded read of the body, and the
// caller's AbortSignal through all of it.
import { StreamsealError } from "./error.js";

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

function abortError(signal) {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const done = () => {
      signal?.removeEventListener("abort", stop);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    signal?.addEventListener("abort", stop, { once: true });
  });
}

/**
 * The body as text, refusing more than `max` bytes (a hostile server's
 * endless body). A success body must be UTF-8 (`MALFORMED_JSON` else), read
 * as Rust and Python read it: no byte replaced by U+FFFD, a byte-order mark
 * kept (the JSON reader then refuses it). Any other body is read only for
 * its error code, and kept with what is not UTF-8 replaced.
 */
async function boundedText(response, max) {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > max) {
    await response.body?.cancel();
    throw tooLarge(declared, max);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw tooLarge(size, max);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: response.ok, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new StreamsealError("MALFORMED_JSON", `malformed JSON: the ${response.status} body is not UTF-8`);
  }
}

function tooLarge(size, max) {
  return new StreamsealError(
    "INPUT_TOO_LARGE",
    `the response body is larger than the client's limit (${size} > ${max} bytes)`,
  );
}

/** The error `pages` throws for a failed or malformed page. */
function pageError(result) {
  const f = result.failure;
  const code = result.status === "malformed" ? f.code : (f.code ?? `HTTP_${f.status}`);
  const error = new StreamsealError(code, f.message || `${f.endpoint} answered ${f.status}`, f.details ?? undefined);
  error.result = result;
  return error;
}

/**
 * `createClient` over one module's glue (the Node or the browser entry of
 * `streamseal/api`).
 */
export function clientFactory(glue) {
  return function createClient(options) {
    const {
      fetch: fetchImpl = globalThis.fetch,
      retry = undefined,
      now = Date.now,
      timeoutMs = DEFAULT_TIMEOUT_MS,
      maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES,
      mintClientMessageIds = true,
      onRetry = undefined,
      ...contextInit
    } = options ?? {};
    if (typeof fetchImpl !== "function") {
      throw new StreamsealError("INVALID_FIELD", "field `fetch` is invalid: no fetch function in this runtime; pass one");
    }
    // Checked once, here: a bad base URL, workspace or key fails at once.
    glue.buildRequest(contextInit, { endpoint: "getMe" });
    const policy = retry === false ? { ...glue.defaultRetryPolicy(), maxAttempts: 1 } : (retry ?? undefined);

    /** One endpoint call, with the retries the policy allows. */
    async function call(endpointRequest, callOptions = {}) {
      const { signal, upload } = callOptions;
      // Minted once (the core's rule: a send without one), reused on every
      // attempt: the service returns the original message to a resend
      // instead of posting it twice.
      const request = mintClientMessageIds ? glue.withClientMessageId(endpointRequest, now()) : endpointRequest;
      const built = glue.buildRequest(contextInit, request);
      if (built.body?.kind === "multipart" && upload === undefined) {
        throw new StreamsealError("INVALID_FIELD", `field \`upload\` is invalid: ${built.endpoint} sends a file; pass its bytes as { upload }`);
      }
      for (let attempt = 1; ; attempt++) {
        if (signal?.aborted) throw abortError(signal);
        let result;
        let facts;
        const attemptSignal = anySignal([signal, AbortSignal.timeout(timeoutMs)].filter(Boolean));
        try {
          const response = await fetchImpl(built.url, {
            method: built.method,
            headers: headersOf(built),
            body: bodyOf(built, upload),
            signal: attemptSignal,
          });
          const body = await boundedText(response, maxResponseBytes);
          result = glue.parseResponse(built, { status: response.status, headers: [...response.headers], body });
          if (result.status !== "failed") return result;
          facts = result.failure.retry;
        } catch (error) {
          if (signal?.aborted) throw abortError(signal);
          if (error instanceof StreamsealError) throw error;
          // No response (refused, reset, timed out): the work may have been done.
          result = { status: "lost", error, request: built };
          facts = glue.noResponseRetryFacts(built);
        }
        const step = glue.retryStep(facts, attempt, now(), policy);
        if (step.step !== "retry") return { ...result, attempts: attempt, step };
        onRetry?.({ attempt, step, result });
        await sleep(step.delayMs, signal);
      }
    }

    /** Every page of a paged list, as each page's `ApiResponse`. */
    async function* pages(endpointRequest, callOptions = {}) {
      for (let request = endpointRequest; request; ) {
        const result = await call(request, callOptions);
        if (result.status !== "ok") {
          if (result.status === "lost") throw result.error;
          throw pageError(result);
        }
        yield result.response;
        request = glue.nextPage(request, result.response.data);
      }
    }

    return { call, pages };
  };
}

/** `AbortSignal.any` (Node 20.3+, every current browser), or its equivalent. */
function anySignal(signals) {
  if (typeof AbortSignal.any === "function") return AbortSignal.any(signals);
  const controller = new AbortController();
  for (const s of signals) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    s.addEventListener("abort", () => controller.abort(s.reason), { once: true });
  }
  return controller.signal;
}

function headersOf(built) {
  // A multipart body's Content-Type (with its boundary) is fetch's to write.
  return built.body?.kind === "multipart"
    ? built.headers.filter(([name]) => name.toLowerCase() !== "content-type")
    : built.headers;
}

function bodyOf(built, upload) {
  if (!built.body) return undefined;
  if (built.body.kind === "json") return built.body.value;
  const { field, filename, contentType } = built.body.value;
  const form = new FormData();
  form.append(field, new Blob([upload], { type: contentType }), filename);
  return form;
}
