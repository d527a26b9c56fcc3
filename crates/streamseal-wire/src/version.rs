//! API versions (API §9): dated versions, the `Service-Version` header,
//! and the `apiVersion` object of `GET /me`.
//!
//! [`ApiVersion`] is the closed set of versions this library knows, parsed
//! with the service's own `INVALID_API_VERSION` rule: the value must equal a
//! known version exactly. The shape-bearing types of [`crate`] map each
//! version's JSON into one normalised model and back through
//! [`crate::versioned::Versioned`].
//!
//! ```
//! use streamseal_wire::version::ApiVersion;
//!
//! let v = ApiVersion::parse("2026-07-24")?;
//! assert!(v.has_slots() && !v.has_pinned_slots());
//! assert_eq!(v.header(), ("Service-Version", "2026-07-24"));
//! assert!(ApiVersion::parse("2026-07-23").is_err());
//! assert!(ApiVersion::parse(" 2026-07-24").is_err());
//! # Ok::<(), streamseal_wire::Error>(())
//! ```

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::extra::Extra;
use streamseal_crypto::error::{Error, Result};

/// The request and response header that names a version.
pub const SERVICE_VERSION_HEADER: &str = "Service-Version";

/// A version of the API this library knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ApiVersion {
    /// `2026-07-12`, the initial versioned API.
    V2026_07_12,
    /// `2026-07-22`: stream `parentMessageId` became `anchorId`; delegation
    /// results go straight into the card thread.
    V2026_07_22,
    /// `2026-07-24`: message responses carry a top-level `slots`.
    V2026_07_24,
    /// `2026-08-21`: shared-message references pin a revision and a span.
    V2026_08_21,
}

impl ApiVersion {
    /// Every known version, oldest first.
    pub const ALL: [ApiVersion; 4] = [
        ApiVersion::V2026_07_12,
        ApiVersion::V2026_07_22,
        ApiVersion::V2026_07_24,
        ApiVersion::V2026_08_21,
    ];

    /// The newest version this library knows.
    pub const LATEST: ApiVersion = ApiVersion::V2026_08_21;

    /// The date spelling, e.g. `"2026-07-24"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ApiVersion::V2026_07_12 => "2026-07-12",
            ApiVersion::V2026_07_22 => "2026-07-22",
            ApiVersion::V2026_07_24 => "2026-07-24",
            ApiVersion::V2026_08_21 => "2026-08-21",
        }
    }

    /// Parses a version the way the service checks `Service-Version`: the
    /// value must exactly equal a known version (no trimming, no other date
    /// forms). The error lists the known versions, as the service's does.
    ///
    /// # Errors
    ///
    /// `INVALID_FIELD` (`Service-Version`) when `text` is not a known version.
    pub fn parse(text: &str) -> Result<Self> {
        ApiVersion::ALL
            .into_iter()
            .find(|v| v.as_str() == text)
            .ok_or_else(|| {
                Error::invalid(
                    SERVICE_VERSION_HEADER,
                    format!(
                        "INVALID_API_VERSION: unknown or malformed version; known versions: {}",
                        ApiVersion::ALL.map(ApiVersion::as_str).join(", ")
                    ),
                )
            })
    }

    /// The request header that overrides the key's pin for one request.
    pub const fn header(self) -> (&'static str, &'static str) {
        (SERVICE_VERSION_HEADER, self.as_str())
    }

    /// Whether message responses carry `slots` (from 2026-07-24).
    pub fn has_slots(self) -> bool {
        self >= ApiVersion::V2026_07_24
    }

    /// Whether slot keys may pin a revision and span, and `ok` slots carry
    /// `version`, `currentRevision` and `range` (from 2026-08-21).
    pub fn has_pinned_slots(self) -> bool {
        self >= ApiVersion::V2026_08_21
    }

    /// Whether a thread's anchor is `anchorId` (from 2026-07-22) rather than
    /// `parentMessageId`.
    pub fn uses_anchor_id(self) -> bool {
        self >= ApiVersion::V2026_07_22
    }
}

impl fmt::Display for ApiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ApiVersion {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        ApiVersion::parse(s)
    }
}

ts_decl!("export type ApiVersion = string;");

impl Serialize for ApiVersion {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ApiVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        ApiVersion::parse(&String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// A version named by the service: one this library knows, or a newer one
/// (an unpinned key always gets the current version, including future ones).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ServiceVersion {
    /// A version this library knows.
    Known(ApiVersion),
    /// A version published after this library, kept verbatim.
    Unknown(String),
}

ts_decl!("export type ServiceVersion = string;");

// Crosses to JavaScript (feature `wasm`) as the version text.
#[cfg(feature = "wasm")]
impl Serialize for ServiceVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(feature = "wasm")]
impl<'de> Deserialize<'de> for ServiceVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(ServiceVersion::parse(&String::deserialize(d)?))
    }
}

impl ServiceVersion {
    /// Classifies a version string; never fails.
    pub fn parse(text: &str) -> Self {
        match ApiVersion::parse(text) {
            Ok(v) => ServiceVersion::Known(v),
            Err(_) => ServiceVersion::Unknown(text.to_owned()),
        }
    }

    /// Reads the `Service-Version` echo of a response from its headers
    /// (name compared case-insensitively). `None` when the response did not
    /// resolve a version (for example a 400 `INVALID_API_VERSION`).
    pub fn from_response_headers<'a>(
        headers: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Option<Self> {
        headers
            .into_iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(SERVICE_VERSION_HEADER))
            .map(|(_, value)| ServiceVersion::parse(value.trim()))
    }

    /// The version whose shapes a response of this version is read with:
    /// the known version itself, or the newest known one for a version
    /// newer than this library (later versions only add to it, or this
    /// library must be updated).
    pub fn shape(&self) -> ApiVersion {
        match self {
            ServiceVersion::Known(v) => *v,
            ServiceVersion::Unknown(_) => ApiVersion::LATEST,
        }
    }

    /// The version as text.
    pub fn as_str(&self) -> &str {
        match self {
            ServiceVersion::Known(v) => v.as_str(),
            ServiceVersion::Unknown(s) => s,
        }
    }
}

/// `apiVersion` of `GET /me`: `{pinned, resolved, current, supported}`.
///
/// Values stay text: the service may name versions newer than this library.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ApiVersionInfo {
    /// The key's pin; `null` when the key is unpinned (it then always gets the current version).
    pub pinned: Option<String>,
    /// The version this request resolved to.
    pub resolved: String,
    /// The service's current version.
    pub current: String,
    /// Every version the service supports.
    pub supported: Vec<String>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

impl ApiVersionInfo {
    /// A newer version exists when `resolved` differs from `current`.
    pub fn newer_version_exists(&self) -> bool {
        self.resolved != self.current
    }

    /// The resolved version, classified.
    pub fn resolved_version(&self) -> ServiceVersion {
        ServiceVersion::parse(&self.resolved)
    }

    /// Whether the service supports a version this library knows.
    pub fn supports(&self, version: ApiVersion) -> bool {
        self.supported.iter().any(|v| v == version.as_str())
    }
}
