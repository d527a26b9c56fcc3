//! The integration tests of `streamseal`, one binary: each former
//! `tests/<suite>.rs` is a module here (run one with
//! `cargo test -p streamseal --test it <suite>::`), `support` holds the
//! helpers several suites share and `attacker` what a hostile server can make.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]

mod attacker;
mod support;

mod api_endpoints;
mod api_errors;
mod api_retry;
mod bad_inputs;
mod base64_oracle;
mod card_json_oracle;
mod crypto_props;
mod fuzz_regressions;
mod golden_vectors;
mod hostile_server;
mod http_date;
mod official_vectors;
mod roundtrip_props;
mod sealed_presence;
mod sealed_props;
mod sealed_scenario;
mod sealed_tamper;
mod sender_auth;
mod split_flows;
mod split_open;
mod stream_state_props;
mod wire_basics;
mod wire_bounds;
mod wire_duplicate_keys;
mod wire_fixtures;
mod wire_props;
mod wire_request_decoding;
mod wire_shapes;
mod wire_tolerance;
mod wire_unknown_fields;
mod xeddsa_vectors;
