//! The one JavaScript error class, `StreamsealError`, and the conversions
//! between plain JS objects and the core's serde types, shared by the
//! package's two WASM modules.
//!
//! Every failure of the package reaches JS as a `StreamsealError` (it
//! extends `Error`) with the core's stable `code` (`ErrorCode::as_str`) and,
//! for `VALIDATION_FAILED`, the per-field `details`. A JS value of the wrong
//! shape is `MALFORMED_JSON`, named after the parameter it came in; a
//! request (`buildRequest`, `nextPage`, ...) is read through the core's one
//! validation path instead ([`request_value`]), where a field of the wrong
//! type is `VALIDATION_FAILED` keyed by its wire path, like a broken bound.

use serde::Serialize;
use serde::de::DeserializeOwned;
use streamseal::{Error, ErrorCode};
use tsify::{Ts, Tsify};
use wasm_bindgen::JsCast;
use wasm_bindgen::convert::TryFromJsValue;
use wasm_bindgen::prelude::*;

// The class is registered once per JS realm under a global symbol (with
// the package's version: two versions on one page keep a class each), by
// whichever runs first: this snippet (one copy in each module's glue) or the
// package's `src/error.js`, which defines it the same way. So an error of
// either module is `instanceof` the one `StreamsealError` the package
// exports (js/test/api.test.mjs checks it).
//
// One snippet for both functions: wasm-bindgen numbers a crate's snippets
// (`snippets/<crate>/inline<N>.js`) in link order, which is not the same in
// every module, and the package's modules share one `snippets/` directory.
//
// The walk of `check_nesting`, in JS: one call into JS per value read,
// whatever its size. It visits what serde-wasm-bindgen reads: an array's
// items, a map's own enumerable entries, and a struct's fields by name,
// which JS looks up through the prototype chain, enumerable or not (an app
// that merged a server's object with `Object.assign` can give it a
// prototype the server chose, through the `__proto__` key `JSON.parse`
// keeps). A value it cannot read (a getter that throws) counts as too deep.
// It does not iterate, nor walk an iterable's properties: an iterator read
// here would be used up before the read, and a generator's prototype chain
// loops (`constructor.prototype`), which refused every generator. What an
// iterable holds (a `Map`'s pairs, a `Set`'s values) is bounded by
// serde-wasm-bindgen itself as it reads it (its `MAX_DEPTH`, the same 128),
// and read there without JS that can throw through WebAssembly
// (`vendor/serde-wasm-bindgen/PATCHED.md`, sections 2 and 3).
#[wasm_bindgen(inline_js = r#"
const KEY = Symbol.for("streamseal@0.1:StreamsealError");
globalThis[KEY] ??= class StreamsealError extends Error {
  constructor(code, message, details) {
    super(message);
    this.name = "StreamsealError";
    this.code = code;
    if (details !== undefined) this.details = details;
  }
};
export function makeStreamsealError(code, message, details) {
  return new globalThis[KEY](code, message, details);
}
export function nestedDeeperThan(value, max) {
  try {
    const values = [value];
    const depths = [0];
    while (values.length > 0) {
      const v = values.pop();
      const depth = depths.pop();
      if (v === null || typeof v !== "object" || ArrayBuffer.isView(v)) continue;
      if (depth >= max) return true;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          values.push(v[i]);
          depths.push(depth + 1);
        }
        continue;
      }
      // Another iterable (a Map, a Set, a generator): what is read of it is
      // its items, bounded where they are read; its prototype's properties
      // are not read (a generator's lead back to themselves).
      if (typeof v[Symbol.iterator] === "function") continue;
      for (let o = v; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
        for (const key of Object.getOwnPropertyNames(o)) {
          values.push(v[key]);
          depths.push(depth + 1);
        }
      }
    }
    return false;
  } catch {
    return true;
  }
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = makeStreamsealError)]
    fn make_streamseal_error(code: &str, message: &str, details: JsValue) -> JsValue;
    #[wasm_bindgen(js_name = nestedDeeperThan)]
    fn nested_deeper_than(value: &JsValue, max: u32) -> bool;
}

/// What every export returns: a thrown `StreamsealError` on failure.
pub type JsResult<T> = Result<T, JsValue>;

/// The `StreamsealError` of a core error.
pub fn to_js_error(error: &Error) -> JsValue {
    let details = match error.details() {
        Some(details) => details
            .serialize(&serializer())
            .unwrap_or(JsValue::UNDEFINED),
        None => JsValue::UNDEFINED,
    };
    make_streamseal_error(error.code().as_str(), &error.to_string(), details)
}

/// Maps a core result into a JS result.
pub fn js<T, E: Into<Error>>(result: Result<T, E>) -> JsResult<T> {
    result.map_err(|e| to_js_error(&e.into()))
}

/// A `StreamsealError` with a code and message of the binding's own (a JS
/// value of the wrong shape, an object used after `free()`).
pub fn error_with(code: ErrorCode, message: &str) -> JsValue {
    make_streamseal_error(code.as_str(), message, JsValue::UNDEFINED)
}

/// The serializer of every result: maps become plain objects, a missing
/// optional value is `null` (as the generated types say), integers stay
/// numbers, bytes (`serialize_bytes`, e.g. an opened envelope's plaintext)
/// are `Uint8Array` (`json_compatible` alone would make them arrays of numbers).
pub fn serializer() -> serde_wasm_bindgen::Serializer {
    serde_wasm_bindgen::Serializer::json_compatible().serialize_bytes_as_arrays(false)
}

/// A plain JS object of a core value.
pub fn to_js<T: Serialize>(value: &T) -> JsResult<JsValue> {
    value.serialize(&serializer()).map_err(not_written)
}

/// The error of a value serde could not write (one copy of this, not one
/// per type written).
#[inline(never)]
fn not_written(error: impl std::fmt::Display) -> JsValue {
    error_with(ErrorCode::MalformedJson, &error.to_string())
}

/// A typed plain JS object of a core value.
pub fn output<T: Tsify + Serialize>(value: &T) -> JsResult<Ts<T>> {
    to_js(value).map(Ts::new_unchecked)
}

/// A typed plain JS object of a core value that holds no bytes, written as
/// JSON text by serde_json and read by the engine's `JSON.parse`: the same
/// object [`output`] gives (maps as objects, integers as numbers, `None` as
/// `null`), without a serde-wasm-bindgen serializer of the type in the
/// module. Used for the large type trees (responses, requests), where that
/// serializer costs the most bytes (issue 20).
pub fn output_json<T: Tsify + Serialize>(value: &T) -> JsResult<Ts<T>> {
    output_text(&serde_json::to_string(value).map_err(not_written)?)
}

/// A typed plain JS object of JSON text that is what `T`'s `Serialize`
/// writes (the caller's word: the endpoint module's results, written by
/// their shape tables), read by the engine's `JSON.parse`.
pub fn output_text<T: Tsify>(text: &str) -> JsResult<Ts<T>> {
    js_sys::JSON::parse(text)
        .map(Ts::new_unchecked)
        .map_err(|_| error_with(ErrorCode::MalformedJson, "a result did not cross as JSON"))
}

/// A core value from a typed plain JS object; a wrong shape is
/// `MALFORMED_JSON` naming the parameter.
pub fn input<T: Tsify + DeserializeOwned>(param: &str, value: &Ts<T>) -> JsResult<T> {
    from_js(param, value.js_value())
}

/// How deep a JS value may nest (objects and arrays) to be read: serde_json's
/// own limit, so that a value reads the same in every binding.
pub const MAX_NESTING: usize = serde_wasm_bindgen::MAX_DEPTH as usize;

/// Refuses (`MALFORMED_JSON`, naming `param`) a value nested deeper than
/// [`MAX_NESTING`], before any deserializer sees it. serde-wasm-bindgen
/// recurses once per level without a limit: a hostile server's message with
/// an unknown field nested some thousands deep would overflow the WASM
/// stack (a trap that can leave the instance's memory corrupt) or the JS
/// stack. The walk is iterative, in JS, and reads what serde-wasm-bindgen
/// reads, inherited and non-enumerable fields included, but for iterables'
/// items, which serde-wasm-bindgen bounds itself as it reads them.
pub fn check_nesting(param: &str, value: &JsValue) -> JsResult<()> {
    #[allow(clippy::cast_possible_truncation)]
    if nested_deeper_than(value, MAX_NESTING as u32) {
        return Err(error_with(
            ErrorCode::MalformedJson,
            &format!(
                "malformed JSON: `{param}`: nested deeper than {MAX_NESTING} levels, or not readable"
            ),
        ));
    }
    Ok(())
}

/// A core value from any JS value; a wrong shape, or nesting deeper than
/// [`MAX_NESTING`], is `MALFORMED_JSON`.
pub fn from_js<T: DeserializeOwned>(param: &str, value: JsValue) -> JsResult<T> {
    check_nesting(param, &value)?;
    serde_wasm_bindgen::from_value(value).map_err(|e| not_read(param, &e))
}

/// The error of a value serde could not read as `param` (one copy of
/// this, not one per type read).
#[inline(never)]
fn not_read(param: &str, error: &serde_wasm_bindgen::Error) -> JsValue {
    error_with(
        ErrorCode::MalformedJson,
        &format!("malformed JSON: `{param}`: {error}"),
    )
}

/// A plain JS value as JSON, for the core's request decoding
/// (`EndpointRequest::from_value`, `wire::requests::decode`): numbers stay
/// as JS has them (a whole safe integer as an integer, `60.5` as a
/// fraction), `undefined` is `null`. Only a value JSON cannot hold (a
/// symbol, a function, a BigInt beyond 64 bits) is `MALFORMED_JSON`.
pub fn request_value(param: &str, value: JsValue) -> JsResult<serde_json::Value> {
    from_js(param, value)
}

/// A request document (a body or a query) from a plain JS object through
/// the core's one validation path, validated: a field of the wrong type, a
/// missing one or a broken bound is `VALIDATION_FAILED` keyed by its wire path.
pub fn request_input<T>(param: &str, value: JsValue) -> JsResult<T>
where
    T: DeserializeOwned + streamseal::wire::requests::Validate,
{
    js(streamseal::wire::requests::decode::from_value(
        request_value(param, value)?,
    ))
}

/// Like [`request_input`] without the bounds, for callers that check them
/// after rules of their own (`checkSendRules`).
pub fn request_shape_input<T: DeserializeOwned>(param: &str, value: JsValue) -> JsResult<T> {
    js(streamseal::wire::requests::decode::decode_value(
        request_value(param, value)?,
    ))
}

/// Moves a value out of a holder that gives it away once (`takeIdentity`,
/// a prepared roll on `commitRoll`); a second call is `INVALID_FIELD` naming `what`.
pub fn take_once<T>(slot: &mut Option<T>, what: &str) -> JsResult<T> {
    slot.take().ok_or_else(|| {
        error_with(
            ErrorCode::InvalidField,
            &format!("{what} was already taken"),
        )
    })
}

/// Copies of the class instances in `value` (one instance, or an array of
/// them), made inside WASM memory by each instance's hidden `copy_method`:
/// the caller keeps its objects (a wasm-bindgen `Vec<Class>` parameter would
/// take them over and leave them freed), and no secret crosses to JS. A
/// freed instance, or anything else, is `INVALID_FIELD` naming `param`.
pub fn copies_of<T: TryFromJsValue>(
    param: &str,
    class: &str,
    copy_method: &str,
    value: &JsValue,
) -> JsResult<Vec<T>> {
    let wrong = || {
        error_with(
            ErrorCode::InvalidField,
            &format!(
                "field `{param}` is invalid: expected an instance of {class}, or an array of them"
            ),
        )
    };
    let items: Vec<JsValue> = if js_sys::Array::is_array(value) {
        js_sys::Array::from(value).iter().collect()
    } else {
        vec![value.clone()]
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        if !item.is_object() {
            return Err(wrong());
        }
        let ptr =
            js_sys::Reflect::get(&item, &JsValue::from_str("__wbg_ptr")).map_err(|_| wrong())?;
        if ptr.as_f64() == Some(0.0) {
            return Err(error_with(
                ErrorCode::InvalidField,
                &format!("field `{param}` is invalid: the {class} was freed"),
            ));
        }
        let copy = js_sys::Reflect::get(&item, &JsValue::from_str(copy_method))
            .map_err(|_| wrong())?
            .dyn_into::<js_sys::Function>()
            .map_err(|_| wrong())?
            .call0(&item)
            .map_err(|_| wrong())?;
        out.push(T::try_from_js_value(copy).map_err(|_| wrong())?);
    }
    Ok(out)
}

/// The largest integer a JS number holds exactly.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A clock reading crossed as a JS number (f64): only whole, non-negative,
/// exact values (`INVALID_FIELD` naming `nowMs` otherwise).
pub fn whole_ms(now_ms: f64) -> JsResult<u64> {
    if !((0.0..=MAX_SAFE_INTEGER).contains(&now_ms) && now_ms.fract() == 0.0) {
        return Err(error_with(
            ErrorCode::InvalidField,
            "field `nowMs` is invalid: expected a whole number of milliseconds",
        ));
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(now_ms as u64)
}
