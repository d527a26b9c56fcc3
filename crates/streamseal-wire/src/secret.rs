//! Secrets of the wire: API keys, claim tokens and callback tokens.
//!
//! Each is a newtype over the text that `Debug` prints as `[redacted]`,
//! that zeroizes its bytes on drop, and that compares in constant time.
//! Claim and callback tokens (de)serialise as plain strings because the
//! wire carries them; API keys travel only in the `Authorization` header and
//! have no serde at all.
//!
//! Claim tokens are deserialised leniently: a claim response whose token
//! did not parse would leave the claim held but unusable until its lease
//! lapsed, so any text the service hands out is kept. [`ClaimToken::parse`]
//! is the strict check (`clm_` prefix) for values a user pastes in.
//!
//! ```
//! use streamseal_wire::secret::{ApiKey, ApiKeyKind, ClaimToken};
//!
//! let key = ApiKey::parse("svc_bk_0123456789abcdef")?;
//! assert_eq!(key.kind(), ApiKeyKind::Bot);
//! assert_eq!(format!("{key:?}"), "ApiKey([redacted])");
//! assert!(ApiKey::parse("sk_live_nope").is_err());
//!
//! let token = ClaimToken::parse("clm_abc")?;
//! assert_eq!(token.expose(), "clm_abc");
//! assert_eq!(serde_json::to_string(&token).unwrap(), "\"clm_abc\"");
//! # Ok::<(), streamseal_wire::Error>(())
//! ```

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

use streamseal_crypto::error::{Error, Result};

macro_rules! secret_string {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone, Default)]
        pub struct $name(String);

        impl $name {
            /// The secret text, for the one place that must send it.
            pub fn expose(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(concat!(stringify!($name), "([redacted])"))
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                self.0.zeroize();
            }
        }

        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.0.as_bytes().ct_eq(other.0.as_bytes()).into()
            }
        }

        impl Eq for $name {}
    };
}

macro_rules! secret_serde {
    ($name:ident) => {
        ts_decl!(concat!("export type ", stringify!($name), " = string;"));

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                Ok($name(String::deserialize(d)?))
            }
        }

        // Any string reads, and is written back as it came.
        impl $crate::shape::WireShape for $name {
            const SHAPE: &'static $crate::shape::Shape = &$crate::shape::Shape::Str;
        }

        impl From<String> for $name {
            /// Wraps any text as this secret, unchecked (the service's own value).
            fn from(text: String) -> Self {
                $name(text)
            }
        }
    };
}

/// The kind of an API key, from its prefix (API §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ApiKeyKind {
    /// A personal, user-scoped key (`svc_uk_`): acts as its owner.
    User,
    /// A bot key (`svc_bk_`): acts as the bot.
    Bot,
}

/// Prefix of a personal (user-scoped) API key.
pub const USER_KEY_PREFIX: &str = "svc_uk_";
/// Prefix of a bot API key.
pub const BOT_KEY_PREFIX: &str = "svc_bk_";
/// Prefix of a claim token.
pub const CLAIM_TOKEN_PREFIX: &str = "clm_";

secret_string!(
    /// An API key (`svc_uk_...` or `svc_bk_...`), sent as
    /// `Authorization: Bearer <key>`. Never printed, zeroized on drop.
    ApiKey
);

impl ApiKey {
    /// Recognises a key by its prefix; the rest must be non-empty. The key's
    /// body format is not shown in the spec and is not checked further.
    ///
    /// # Errors
    ///
    /// `INVALID_FIELD` (`apiKey`) when the prefix is neither `svc_uk_` nor
    /// `svc_bk_` or nothing follows it.
    pub fn parse(text: &str) -> Result<Self> {
        let rest = text
            .strip_prefix(USER_KEY_PREFIX)
            .or_else(|| text.strip_prefix(BOT_KEY_PREFIX));
        match rest {
            Some(rest) if !rest.is_empty() => Ok(ApiKey(text.to_owned())),
            _ => Err(Error::invalid(
                "apiKey",
                "expected `svc_uk_` or `svc_bk_` followed by the key",
            )),
        }
    }

    /// Whether the key is a personal or a bot key.
    pub fn kind(&self) -> ApiKeyKind {
        if self.0.starts_with(BOT_KEY_PREFIX) {
            ApiKeyKind::Bot
        } else {
            ApiKeyKind::User
        }
    }

    /// The `Authorization` header value, `Bearer <key>`, in a buffer that
    /// zeroizes itself.
    pub fn authorization_header(&self) -> Zeroizing<String> {
        Zeroizing::new(format!("Bearer {}", self.0))
    }
}

secret_string!(
    /// A per-claim token (`clm_...`) of an invocation or a delegation. Shown
    /// once by the service; sent back in claim-bound bodies or in the
    /// `X-Service-Callback-Token` header.
    ClaimToken
);
secret_serde!(ClaimToken);

impl ClaimToken {
    /// Strict check for user input: the `clm_` prefix and a non-empty rest.
    ///
    /// # Errors
    ///
    /// `INVALID_FIELD` (`claimToken`) when `clm_` and a non-empty rest are missing.
    pub fn parse(text: &str) -> Result<Self> {
        match text.strip_prefix(CLAIM_TOKEN_PREFIX) {
            Some(rest) if !rest.is_empty() => Ok(ClaimToken(text.to_owned())),
            _ => Err(Error::invalid(
                "claimToken",
                "expected `clm_` followed by the token",
            )),
        }
    }
}

secret_string!(
    /// The `callbackToken` of a sealed invocation context, sent as the
    /// `X-Service-Callback-Token` header of sealed calls and in socket step
    /// frames. Its format is not shown in the spec; any text is kept.
    CallbackToken
);
secret_serde!(CallbackToken);

/// Name of the header that carries a claim or callback token on sealed
/// invocation calls and claim-bound delegation calls.
pub const CALLBACK_TOKEN_HEADER: &str = "X-Service-Callback-Token";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_prints_the_secret() {
        let token = ClaimToken::from("clm_supersecret".to_owned());
        let callback = CallbackToken::from("cb_supersecret".to_owned());
        let key = ApiKey::parse("svc_uk_supersecret").unwrap_or_default();
        for text in [
            format!("{token:?}"),
            format!("{callback:?}"),
            format!("{key:?}"),
        ] {
            assert!(!text.contains("supersecret"), "{text}");
            assert!(text.contains("[redacted]"), "{text}");
        }
        assert_eq!(key.kind(), ApiKeyKind::User);
        assert_eq!(&*key.authorization_header(), "Bearer svc_uk_supersecret");
    }

    #[test]
    fn strict_parsing_recognises_prefixes() {
        assert!(ApiKey::parse("svc_uk_").is_err());
        assert!(ApiKey::parse("svc_xk_abc").is_err());
        assert!(ClaimToken::parse("clm_").is_err());
        assert!(ClaimToken::parse("tok_abc").is_err());
        assert!(ClaimToken::parse("clm_x").is_ok());
    }
}
