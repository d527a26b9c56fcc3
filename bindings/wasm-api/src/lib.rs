//! # streamseal-wasm-api
//!
//! The npm package's second WASM module, `streamseal/api`: what a front end
//! needs only once it talks to the service, loaded on first use (a subpath
//! export and a dynamic import), so that the first download holds only the
//! keys, envelopes and sealed flows (`streamseal-wasm`). A thin forwarder
//! over the core, like the first module, and throwing the same
//! `StreamsealError` (`streamseal-wasm-glue`).
//!
//! Modules: [`api`] (the sans-IO endpoints: catalogue, request building,
//! response parsing, paging), [`events`] (the realtime events of API §6).

// Exports return the one coded `StreamsealError`; each one's codes are its core call's.
#![allow(clippy::missing_errors_doc)]

pub mod api;
pub mod events;

pub(crate) use streamseal_wasm_glue::error;
