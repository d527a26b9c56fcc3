// The module Worker of `streamseal/worker` (see worker-client.js). It loads
// the WebAssembly module in the worker and runs what the page asks of it:
// the package's functions, constructors and static methods, methods and
// getters of the objects it holds. Objects (keys, keyrings, stream states,
// trust stores) never leave the worker: the page gets a handle to each.
// Byte arrays given to a call (passphrases among them: these are the
// worker's own copies) are zeroed once the call returns.
import * as api from "./browser.js";

const { init, StreamsealError } = api;
const held = new Map();
let next = 1;

function isHeld(value) {
  return (
    value !== null &&
    typeof value === "object" &&
    typeof value.free === "function" &&
    "__wbg_ptr" in value
  );
}

const isPlain = (v) => v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype;

// Handles back to the objects they stand for, at any depth of arrays and
// plain objects (`{ subject, keys: handle }`).
function lift(value) {
  if (Array.isArray(value)) return value.map(lift);
  if (isPlain(value) && typeof value.__streamsealHandle === "number") {
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
    return { __streamsealHandle: handle, type: value.constructor.name };
  }
  if (Array.isArray(value)) return value.map(lower);
  return value;
}

function wipe(args) {
  for (const a of args) {
    if (a instanceof Uint8Array) a.fill(0);
    else if (Array.isArray(a)) wipe(a);
  }
}

function run({ op, name, target, args }) {
  const lifted = lift(args);
  try {
    switch (op) {
      case "function": {
        const f = api[name];
        if (typeof f !== "function" || name === "init" || /^[A-Z]/.test(name)) {
          throw new StreamsealError("INVALID_FIELD", `field \`name\` is invalid: no function \`${name}\``);
        }
        return lower(f(...lifted));
      }
      case "construct":
      case "static": {
        const klass = api[name.split(".")[0]];
        if (typeof klass !== "function" || typeof klass.prototype?.free !== "function") {
          throw new StreamsealError("INVALID_FIELD", `field \`name\` is invalid: no class \`${name}\``);
        }
        if (op === "construct") return lower(new klass(...lifted));
        const method = name.split(".")[1];
        if (typeof klass[method] !== "function") {
          throw new StreamsealError("INVALID_FIELD", `field \`name\` is invalid: no static \`${name}\``);
        }
        return lower(klass[method](...lifted));
      }
      case "method":
      case "get": {
        const object = lift(target);
        if (op === "get") return lower(object[name]);
        if (typeof object[name] !== "function" || name === "constructor") {
          throw new StreamsealError("INVALID_FIELD", `field \`name\` is invalid: no method \`${name}\``);
        }
        return lower(object[name](...lifted));
      }
      case "free": {
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

self.onmessage = async ({ data }) => {
  await ready;
  let reply;
  try {
    const value = run(data);
    const transfer = value instanceof Uint8Array ? [value.buffer] : [];
    reply = [{ id: data.id, ok: true, value }, transfer];
  } catch (e) {
    const error =
      e instanceof StreamsealError
        ? { code: e.code, message: e.message, details: e.details }
        : { code: undefined, message: String(e?.message ?? e) };
    reply = [{ id: data.id, ok: false, error }, []];
  }
  self.postMessage(reply[0], reply[1]);
};
