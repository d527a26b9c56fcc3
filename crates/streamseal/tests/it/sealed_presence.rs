//! Presence keys of a runtime, its key policy on `bot:e2e_revoke`, and the
//! grants to fetch after the hello acknowledgement. The rest of the sealed
//! flows is covered by `sealed_scenario`, `sealed_tamper` and `sealed_props`.

use serde_json::json;
use streamseal::ErrorCode;
use streamseal::identity::{IdentityKey, KeyId, RecipientKind};
use streamseal::sealed::presence::{KeyPolicy, on_revoke};
use streamseal::stream_key::Keyring;
use streamseal::wire::events::E2eRevoke;

use crate::support::code;

const ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
const OTHER_ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7N";
const BOT: &str = "bot_01JD3QB0T0000000000000000B";

#[test]
fn presence_keys_policy_and_grants() {
    use streamseal::sealed::presence::{check_key_set, grants_to_fetch, with_machine_key};
    use streamseal::wire::events::HelloAck;
    use streamseal::wire::presence::{PresenceStatus, RuntimeKind};
    use streamseal::wire::requests::bot_runtime::PresenceRequest;

    let keys: Vec<IdentityKey> = (0..33)
        .map(|i| {
            IdentityKey::generate(RecipientKind::Bot, KeyId::new(format!("m{i}")).unwrap()).unwrap()
        })
        .collect();
    check_key_set(&keys[..32]).unwrap();
    assert_eq!(code(check_key_set(&keys)), ErrorCode::TooManyKeys);
    let dup = [keys[0].clone(), keys[0].clone()];
    assert_eq!(code(check_key_set(&dup)), ErrorCode::InvalidField);

    let base = PresenceRequest::new(
        RuntimeKind::Custom,
        "machine-a",
        PresenceStatus::Available,
        true,
    );
    let presence = with_machine_key(base.clone(), &keys[0]).unwrap();
    assert_eq!(presence.public_key.as_deref().map(str::len), Some(44));
    assert_eq!(presence.public_key_id.as_deref(), Some("m0"));
    let mut bad = base;
    bad.instance_id = String::new();
    assert_eq!(
        code(with_machine_key(bad, &keys[0])),
        ErrorCode::ValidationFailed
    );

    // A shared key must be replaced after a revoke; per-machine keys need not.
    let revoke = E2eRevoke {
        workspace_id: "ws".into(),
        bot_id: BOT.into(),
        stream_id: ROOT.into(),
        extra: Default::default(),
    };
    let mut rings = std::collections::BTreeMap::new();
    let shared = on_revoke(&mut rings, &revoke, KeyPolicy::Shared);
    assert!(!shared.dropped && shared.rewrite_presence);

    let hello: HelloAck =
        serde_json::from_value(json!({"botId": BOT, "e2eGrantedStreamIds": [ROOT, OTHER_ROOT]}))
            .unwrap();
    rings.insert(ROOT.to_owned(), Keyring::new(ROOT).unwrap());
    assert_eq!(grants_to_fetch(&hello, &rings), vec![OTHER_ROOT.to_owned()]);
}
