//! The library of the `streamseal` command line: what its commands need
//! that the core library does not offer, shared with the CLI's tests and the
//! fuzz targets.
//!
//! - [`wire_inspect`]: which wire shape a JSON document is, its version
//!   shape and the request bounds it breaks (`streamseal inspect`).

pub mod wire_inspect;
