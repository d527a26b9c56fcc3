//! Typed ids, secrets, key ids, public keys and API versions parsed from
//! text the server sends.
//!
//! Oracle: whatever parses prints back to the same text, parses again to
//! the same value, and survives a JSON round trip; the permissive parsers
//! (`AnchorId`, `ServiceVersion`, `RecipientKind`) keep the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamseal::identity::{KeyId, PublicKey, RecipientKind};
use streamseal::wire::ids::{
    AnchorId, ConversationId, DecisionId, EventId, HookId, InvocationId, MessageId, StepId,
    StreamId, UserId, WorkspaceId,
};
use streamseal::wire::secret::{ApiKey, ClaimToken};
use streamseal::wire::version::{ApiVersion, ServiceVersion};
use streamseal_fuzz::json_round_trip;

macro_rules! ids {
    ($text:expr; $($ty:ident),+) => {$(
        if let Ok(id) = $ty::parse($text) {
            assert_eq!(id.as_str(), $text, "{} does not print as it came", stringify!($ty));
            assert_eq!($ty::parse(id.as_str()).ok().as_ref(), Some(&id));
            json_round_trip(stringify!($ty), &id);
        }
    )+};
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    ids!(text; WorkspaceId, UserId, StreamId, MessageId, ConversationId, InvocationId, HookId,
        DecisionId, EventId, StepId);
    if let Ok(id) = MessageId::parse(text) {
        assert!(text.ends_with(id.ulid()));
    }
    let anchor = AnchorId::parse(text);
    assert_eq!(anchor.as_str(), text);
    assert_eq!(anchor.to_string(), text);
    json_round_trip("AnchorId", &anchor);
    if let Ok(key) = ApiKey::parse(text) {
        assert_eq!(key.expose(), text);
        let _ = key.kind();
        assert!(
            text.len() < 12 || !format!("{key:?}").contains(text),
            "Debug shows the key"
        );
    }
    if let Ok(token) = ClaimToken::parse(text) {
        assert_eq!(token.expose(), text);
        json_round_trip("ClaimToken", &token);
    }
    if let Ok(id) = KeyId::new(text) {
        assert_eq!(id.as_str(), text);
        assert_eq!(
            serde_json::from_str::<KeyId>(&serde_json::to_string(id.as_str()).unwrap_or_default())
                .ok(),
            Some(id)
        );
    }
    if let Ok(pk) = PublicKey::from_base64(text) {
        assert_eq!(pk.to_base64(), text, "a public key has a second spelling");
        json_round_trip("PublicKey", &pk);
    }
    let kind = RecipientKind::parse(text);
    assert_eq!(kind.as_str(), text);
    json_round_trip("RecipientKind", &kind);
    if let Ok(v) = ApiVersion::parse(text) {
        assert_eq!(v.as_str(), text);
        json_round_trip("ApiVersion", &v);
    }
    let sv = ServiceVersion::parse(text);
    assert_eq!(sv.as_str(), text);
});
