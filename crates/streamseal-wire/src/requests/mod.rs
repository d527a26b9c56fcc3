//! Request bodies (and query parameters) of every endpoint of API §4
//! that has one, each with [`Validate::validate`] against the bounds of
//! sections 4 and 8.
//!
//! Request fields are plain data (strings, numbers, open enums) so that
//! every mistake, a bad id as much as a long name, comes back from
//! `validate()` in the service's 400 shape; see [`crate::validate`]
//! for the field-path convention. Request enums are open like response
//! enums (so a request read back from JSON keeps any value), but `validate`
//! accepts only the values the spec allows for that request.
//!
//! A request read from JSON goes through [`decode`]: a value of the wrong
//! type, a missing field or `null` for a required one is the same
//! `VALIDATION_FAILED` under the field's full path (never `MALFORMED_JSON`
//! "at line 1 column N"), then `validate()` runs. Every binding reads its
//! requests that way.
//!
//! ```
//! use streamseal_wire::requests::{invocation::ClaimRequest, Validate};
//! use streamseal_wire::presence::RuntimeKind;
//!
//! let mut claim = ClaimRequest::new(RuntimeKind::Custom, "machine-a", vec!["mentionable".into()]);
//! claim.validate()?;
//! claim.claim_ttl_seconds = 301;
//! let err = claim.validate().unwrap_err();
//! assert!(err.details().unwrap().contains_key("claimTtlSeconds"));
//! # Ok::<(), streamseal_wire::Error>(())
//! ```

pub mod attachments;
pub mod bot_runtime;
pub mod conversations;
pub mod decisions;
pub mod decode;
pub mod delegations;
pub mod invocation;
pub mod labels;
pub mod memos;
pub mod messages;
pub mod streams;
pub mod webhooks;

use streamseal_crypto::error::Result;

/// A request checked before sending.
pub trait Validate {
    /// Checks every bound; returns every failure at once as
    /// [`crate::Error::ValidationFailed`].
    ///
    /// # Errors
    ///
    /// `VALIDATION_FAILED`, with every failed bound in its details.
    fn validate(&self) -> Result<()>;
}

/// A query string's parameters, in order, for endpoints that take them.
pub trait QueryParams {
    /// The `(name, value)` pairs of the set parameters.
    fn query_pairs(&self) -> Vec<(&'static str, String)>;
}

/// Serde for `Option<Option<T>>` fields of PATCH bodies: absent keeps the
/// value, `null` clears it, a value sets it.
pub(crate) mod double_option {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Serialises `Some(None)` as `null` (absent is skipped by the field attribute).
    pub(crate) fn serialize<T: Serialize, S: Serializer>(
        value: &Option<Option<T>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(inner) => inner.serialize(s),
            None => s.serialize_none(),
        }
    }

    /// A present field (even `null`) becomes `Some`.
    pub(crate) fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(d).map(Some)
    }
}

/// Pushes `name=value` when the value is set.
pub(crate) fn push<T: ToString>(
    out: &mut Vec<(&'static str, String)>,
    name: &'static str,
    value: Option<&T>,
) {
    if let Some(value) = value {
        out.push((name, value.to_string()));
    }
}
