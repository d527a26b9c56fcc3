//! # streamseal-wasm-glue
//!
//! What the npm package's two WASM modules share, with no exports of its
//! own (a crate with `#[wasm_bindgen]` exports would put them into every
//! module that links it): the one `StreamsealError` ([`error`]), the
//! conversions between plain JS objects and the core's types, and the
//! checks of values JS passes. `streamseal-wasm` (the first module: keys,
//! envelopes, the sealed flows) and `streamseal-wasm-api` (`streamseal/api`,
//! loaded on first use: the sans-IO endpoints and the realtime events) both
//! build on it.

// Every function returns the one coded `StreamsealError`; each names its codes.
#![allow(clippy::missing_errors_doc)]

pub mod error;
