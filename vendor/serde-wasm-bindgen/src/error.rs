use wasm_bindgen::prelude::*;

/// A newtype that represents Serde errors as JavaScript exceptions.
#[derive(Debug)]
pub struct Error(JsValue);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        #[wasm_bindgen]
        extern "C" {
            // streamseal: with `catch`. The error may hold what a getter or
            // an iterator of the value threw, and `String` of that runs its
            // own code (`toString`), which can throw in turn: that would be
            // an exception through WebAssembly (PATCHED.md).
            #[wasm_bindgen(catch, js_name = String)]
            pub fn to_string(value: &JsValue) -> Result<String, JsValue>;
        }

        match to_string(&self.0) {
            Ok(text) => text.fmt(f),
            Err(_) => f.write_str("a thrown value that cannot be written as text"),
        }
    }
}

impl std::error::Error for Error {}

impl Error {
    /// Creates a JavaScript `Error` with a given message.
    pub fn new<T: std::fmt::Display>(msg: T) -> Self {
        Error(JsError::new(&msg.to_string()).into())
    }
}

impl serde::ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::new(msg)
    }
}

impl serde::de::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::new(msg)
    }

    // streamseal's patch (PATCHED.md): the message serde's defaults write,
    // through `Shown` instead of `Unexpected`'s `Display`, whose one
    // floating-point arm links all of core's float formatting (about 20 KB
    // of code) into every module that deserializes anything.
    fn invalid_type(unexp: serde::de::Unexpected, exp: &dyn serde::de::Expected) -> Self {
        Error::new(format_args!("invalid type: {}, expected {}", Shown(unexp), exp))
    }

    fn invalid_value(unexp: serde::de::Unexpected, exp: &dyn serde::de::Expected) -> Self {
        Error::new(format_args!("invalid value: {}, expected {}", Shown(unexp), exp))
    }
}

#[wasm_bindgen]
extern "C" {
    /// The engine's `String(number)`.
    #[wasm_bindgen(js_name = String)]
    fn number_text(value: f64) -> String;
}

/// `Unexpected`'s `Display`, word for word, except that a float is written
/// by the engine (`String(number)`: `1.5`, `NaN`, `Infinity`, `1e+21`)
/// instead of by core's float formatting.
struct Shown<'a>(serde::de::Unexpected<'a>);

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        use serde::de::Unexpected::*;
        match self.0 {
            Bool(b) => write!(formatter, "boolean `{}`", b),
            Unsigned(i) => write!(formatter, "integer `{}`", i),
            Signed(i) => write!(formatter, "integer `{}`", i),
            Float(f) => write!(formatter, "floating point `{}`", number_text(f)),
            Char(c) => write!(formatter, "character `{}`", c),
            // Never the string itself: what came in the wrong place can be a
            // secret (a passphrase, a plaintext). PATCHED.md, section 5.
            Str(_) => formatter.write_str("string"),
            Bytes(_) => formatter.write_str("byte array"),
            Unit => formatter.write_str("unit value"),
            Option => formatter.write_str("Option value"),
            NewtypeStruct => formatter.write_str("newtype struct"),
            Seq => formatter.write_str("sequence"),
            Map => formatter.write_str("map"),
            Enum => formatter.write_str("enum"),
            UnitVariant => formatter.write_str("unit variant"),
            NewtypeVariant => formatter.write_str("newtype variant"),
            TupleVariant => formatter.write_str("tuple variant"),
            StructVariant => formatter.write_str("struct variant"),
            Other(other) => formatter.write_str(other),
        }
    }
}

/// This conversion is needed for `?` to just work when using wasm-bindgen
/// imports that return JavaScript exceptions as `Result<T, JsValue>`.
impl From<JsValue> for Error {
    fn from(error: JsValue) -> Error {
        Error(error)
    }
}

// This conversion is needed for `?` to just work in wasm-bindgen exports
// that return `Result<T, JsValue>` to throw JavaScript exceptions.
impl From<Error> for JsValue {
    fn from(error: Error) -> JsValue {
        error.0
    }
}
