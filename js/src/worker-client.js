// `streamseal/worker`: the package in a module Worker, behind Promises, so
// that a 64 MiB Argon2id unlock, opening key wraps or opening a history
// never blocks the page. The page does not load the WebAssembly module at
// all; the worker does. Terminating the worker (`terminate()`, or an
// AbortSignal given to `start` or to a call) cancels what runs in it and
// frees all of its memory, keys included; pending calls reject with an
// `AbortError` DOMException.
import { StreamsealError } from "./error.js";

const HANDLE = Symbol("streamseal handle");

// A `Remote` the page drops is freed in the worker (its secrets zeroized
// there), as wasm-bindgen's own finalizer would on the main thread.
const dropped = new FinalizationRegistry(({ worker, handle }) => {
  if (!worker.terminated) worker.request({ op: "free", target: handle, args: [] }).catch(() => {});
});

/** An object held in the worker (an IdentityKey, a StreamState, ...). */
export class Remote {
  constructor(worker, handle) {
    this.worker = worker;
    this.type = handle.type;
    this[HANDLE] = handle;
    dropped.register(this, { worker, handle }, this);
  }

  /** Calls a method of the object in the worker. */
  call(method, ...args) {
    return this.worker.request({ op: "method", name: method, target: this[HANDLE], args });
  }

  /** Reads a property (a getter) of the object in the worker. */
  get(property) {
    return this.worker.request({ op: "get", name: property, target: this[HANDLE], args: [] });
  }

  /** Frees the object in the worker (its secrets zeroized there). */
  free() {
    dropped.unregister(this);
    return this.worker.request({ op: "free", target: this[HANDLE], args: [] });
  }
}

const isPlain = (v) => v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype;

function abortError() {
  return new DOMException("the streamseal worker was terminated", "AbortError");
}

/** The package running in a module Worker. */
export class StreamsealWorker {
  /**
   * Starts the worker. `url` overrides where the worker script is loaded
   * from (bundlers that do not handle `new URL(..., import.meta.url)`);
   * `signal` terminates it when aborted.
   */
  static start({ url, signal } = {}) {
    // Written out whole so that bundlers (Vite, webpack 5, Parcel) see the
    // `new Worker(new URL(..., import.meta.url))` pattern and bundle the
    // worker with the module it loads.
    const worker =
      url === undefined
        ? new Worker(new URL("./worker.js", import.meta.url), { type: "module", name: "streamseal" })
        : new Worker(url, { type: "module", name: "streamseal" });
    return new StreamsealWorker(worker, signal);
  }

  constructor(worker, signal) {
    this.worker = worker;
    this.pending = new Map();
    this.next = 1;
    this.terminated = false;
    // Tags this worker's handles (see worker.js); sent before any call.
    this.session = crypto.randomUUID();
    worker.postMessage({ op: "session", s: this.session });
    worker.onmessage = ({ data }) => {
      const call = this.pending.get(data.id);
      if (call === undefined) return;
      this.pending.delete(data.id);
      call.signal?.removeEventListener("abort", call.onAbort);
      if (data.ok) {
        call.resolve(this.lift(data.value));
      } else if (data.error.code !== undefined) {
        call.reject(new StreamsealError(data.error.code, data.error.message, data.error.details));
      } else {
        call.reject(new Error(data.error.message));
      }
    };
    // The worker script did not load, or threw: it is done for, and every
    // pending and later call rejects instead of hanging.
    const broken = (what) => (event) => {
      event.preventDefault?.();
      this.stop(new Error(`the streamseal worker failed: ${event.message ?? what}`));
    };
    worker.onerror = broken("load error");
    worker.onmessageerror = broken("a reply did not cross");
    if (signal) {
      if (signal.aborted) this.terminate();
      else signal.addEventListener("abort", () => this.terminate(), { once: true });
    }
  }

  /** Handles of this worker's session (top level or in an array) to `Remote`s. */
  lift(value) {
    if (Array.isArray(value)) return value.map((v) => this.lift(v));
    if (isPlain(value) && value.s === this.session && typeof value.__streamsealHandle === "number") {
      return new Remote(this, value);
    }
    return value;
  }

  /** `Remote`s to their handles, at any depth of arrays and plain objects. */
  lower(value) {
    if (value instanceof Remote) {
      if (value.worker !== this) {
        throw new StreamsealError("INVALID_FIELD", "field `handle` is invalid: an object of another worker");
      }
      return value[HANDLE];
    }
    if (Array.isArray(value)) return value.map((v) => this.lower(v));
    if (isPlain(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.lower(v)]));
    return value;
  }

  request(message, { signal } = {}) {
    if (this.terminated) return Promise.reject(abortError());
    if (signal?.aborted) {
      this.terminate();
      return Promise.reject(abortError());
    }
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const onAbort = () => this.terminate();
      let posted;
      try {
        posted = { ...message, id, args: this.lower(message.args), target: message.target };
        this.worker.postMessage(posted);
      } catch (e) {
        reject(e);
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, { resolve, reject, signal, onAbort });
    });
  }

  /** Calls a function of the package in the worker (`"unlock"`, `"openMessages"`, ...). */
  run(name, args = [], options = {}) {
    return this.request({ op: "function", name, args }, options);
  }

  /** Constructs one of the package's classes in the worker (`"StreamState"`, ...). */
  construct(name, args = [], options = {}) {
    return this.request({ op: "construct", name, args }, options);
  }

  /** Calls a static method in the worker (`"StreamState.fromBytes"`, ...). */
  callStatic(name, args = [], options = {}) {
    return this.request({ op: "static", name, args }, options);
  }

  /** `unlock(record, passphrase, limits)` in the worker: the key stays there. */
  unlock(record, passphrase, limits, options = {}) {
    return this.run("unlock", [record, passphrase, limits ?? null], options);
  }

  /** `openKeyWraps(state, trust, keyWraps, identities)` in the worker. */
  openKeyWraps(state, trust, keyWraps, identities, options = {}) {
    return this.run("openKeyWraps", [state, trust, keyWraps, identities], options);
  }

  /**
   * `openMessages` over the state's keyring, in the worker, through
   * `openMessagesAsync` (AES-GCM and the signatures in the worker's WebCrypto).
   */
  async openMessages(state, trust, streamId, messages, own, presented, options = {}) {
    const keyring = await state.call("keyring");
    try {
      return await this.run(
        "openMessagesAsync",
        [keyring, trust, streamId, messages, own ?? null, presented ?? null],
        options,
      );
    } finally {
      if (!this.terminated) await keyring.free();
    }
  }

  fail(error) {
    for (const call of this.pending.values()) {
      call.signal?.removeEventListener("abort", call.onAbort);
      call.reject(error);
    }
    this.pending.clear();
  }

  /** Terminates the worker: cancels what runs and frees all of its memory. */
  terminate() {
    this.stop(abortError());
  }

  stop(error) {
    if (this.terminated) return;
    this.terminated = true;
    this.worker.terminate();
    this.fail(error);
  }
}
