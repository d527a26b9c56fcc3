// The module Worker of `streamseal/worker` (see worker-client.js). It loads
// the WebAssembly module in the worker and runs what the page asks of it:
// the package's functions, constructors and static methods, methods and
// getters of the objects it holds. The page gets a handle to each object
// (key, keyring, stream state, trust store), not the object; what the
// package itself hands out (`exportSecretKey`, `Keyring.exportKey`, a
// plaintext) crosses to the page as it would on the main thread. Byte
// arrays given to a call (passphrases among them: these are the worker's
// own copies) are zeroed once the call returns.
//
// Handles carry the random session tag the page sent first, so a value of
// the same shape inside server data (a message's free-form `metadata`, a
// key record's unknown fields) stays data, and a handle of another worker
// is refused. wasm-bindgen's internals (`__wrap`, `__destroy_into_raw`, ...),
// `free` (use the `free` op), `initSync` and the `hazmat*` exports (caller-
// chosen randomness) are not reachable.
import * as api from "./browser.js";

const { init, StreamsealError } = api;
let SESSION = null;
const held = new Map();
let next = 1;

const refuse = (what) => new StreamsealError("INVALID_FIELD", `field \`name\` is invalid: ${what}`);
const hidden = (name) =>
  typeof name !== "string" ||
  name.startsWith("_") ||
  name === "free" ||
  name === "constructor" ||
  name === "initSync" ||
  name === "init" ||
  name.startsWith("hazmat");

// Exported classes by identity, for a name that survives minification.
const classNames = new Map(
  Object.entries(api)
    .filter(([, v]) => typeof v === "function" && typeof v.prototype?.free === "function")
    .map(([name, klass]) => [klass, name]),
);

function isHeld(value) {
  return value !== null && typeof value === "object" && classNames.has(value.constructor);
}

const isPlain = (v) => v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype;
const isHandle = (v) =>
  SESSION !== null && isPlain(v) && v.s === SESSION && typeof v.__streamsealHandle === "number";

// Handles of this session back to their objects, at any depth of arrays and
// plain objects (`{ subject, keys: handle }`); anything else is data.
function lift(value) {
  if (Array.isArray(value)) return value.map(lift);
  if (isHandle(value)) {
    const object = held.get(value.__streamsealHandle);
    if (object === undefined) {
      throw new StreamsealError("INVALID_FIELD", "field `handle` is invalid: the object was freed in the worker");
    }
    return object;
  }
  if (isPlain(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, lift(v)]));
  return value;
}

function lower(value) {
  if (isHeld(value)) {
    const handle = next++;
    held.set(handle, value);
    return { __streamsealHandle: handle, s: SESSION, type: classNames.get(value.constructor) };
  }
  if (Array.isArray(value)) return value.map(lower);
  return value;
}

function wipe(value) {
  if (value instanceof Uint8Array) value.fill(0);
  else if (Array.isArray(value)) value.forEach(wipe);
  else if (isPlain(value)) Object.values(value).forEach(wipe);
}

const own = (object, name) => Object.hasOwn(object, name);

function run({ op, name, target, args }) {
  try {
    const lifted = lift(args);
    switch (op) {
      case "function": {
        if (hidden(name) || !own(api, name) || typeof api[name] !== "function" || classNames.has(api[name])) {
          throw refuse(`no function \`${name}\``);
        }
        const result = api[name](...lifted);
        // The async opens: the worker replies once they settle.
        return result instanceof Promise ? result.then(lower) : lower(result);
      }
      case "construct":
      case "static": {
        const [className, method] = String(name).split(".");
        const klass = own(api, className) ? api[className] : undefined;
        if (!classNames.has(klass)) throw refuse(`no class \`${className}\``);
        if (op === "construct") return lower(new klass(...lifted));
        if (hidden(method) || !own(klass, method) || typeof klass[method] !== "function") {
          throw refuse(`no static \`${name}\``);
        }
        return lower(klass[method](...lifted));
      }
      case "method":
      case "get": {
        const object = lift(target);
        if (!isHeld(object)) throw refuse("not a handle of this worker");
        const proto = Object.getPrototypeOf(object);
        const d = hidden(name) ? undefined : Object.getOwnPropertyDescriptor(proto, name);
        if (op === "get") {
          if (d?.get === undefined) throw refuse(`no property \`${name}\``);
          return lower(object[name]);
        }
        if (typeof d?.value !== "function") throw refuse(`no method \`${name}\``);
        return lower(object[name](...lifted));
      }
      case "free": {
        if (!isHandle(target)) throw refuse("not a handle of this worker");
        const object = held.get(target.__streamsealHandle);
        held.delete(target.__streamsealHandle);
        object?.free();
        return undefined;
      }
      default:
        throw new StreamsealError("INVALID_FIELD", `field \`op\` is invalid: ${op}`);
    }
  } finally {
    wipe(args);
  }
}

const ready = init();

function reply(message, transfer = []) {
  try {
    self.postMessage(message, transfer);
  } catch (e) {
    // A result that cannot be cloned: the call fails instead of hanging.
    self.postMessage({ id: message.id, ok: false, error: { code: undefined, message: `the result did not cross: ${e}` } });
  }
}

self.onmessage = async ({ data }) => {
  if (data?.op === "session") {
    // The page's first message; set once.
    if (SESSION === null && typeof data.s === "string") SESSION = data.s;
    return;
  }
  try {
    await ready;
    const value = await run(data);
    reply({ id: data.id, ok: true, value }, value instanceof Uint8Array ? [value.buffer] : []);
  } catch (e) {
    wipe(data.args);
    const error =
      e instanceof StreamsealError
        ? { code: e.code, message: e.message, details: e.details }
        : { code: undefined, message: String(e?.message ?? e) };
    reply({ id: data.id, ok: false, error });
  }
};
