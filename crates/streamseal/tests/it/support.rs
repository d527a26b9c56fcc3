//! Helpers more than one suite used to define for itself: reading the
//! repository's fixture files, and the small constructors and error probes
//! the sealed-flow suites share.

use std::fmt::Debug;
use std::path::Path;

use serde_json::Value;
use streamseal::envelope::SealedPayload;
use streamseal::identity::{IdentityKey, KeyId, RecipientKind};
use streamseal::sender::SealedBy;
use streamseal::trust::TrustLevel;
use streamseal::wire::ids::MessageId;
use streamseal::wire::invocation::Invocation;
use streamseal::wire::requests::messages::SendMessageRequest;
use streamseal::{Error, ErrorCode};

/// The text of `name` under the repository's `tests/fixtures/<dir>/`.
/// The directory of the fixtures `dir` (`wire`, `api`).
pub fn fixture_dir(dir: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(dir)
}

fn fixture_text(dir: &str, name: &str) -> String {
    let path = fixture_dir(dir).join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text of a wire fixture (`tests/fixtures/wire/<name>`).
pub fn wire_fixture(name: &str) -> String {
    fixture_text("wire", name)
}

/// A wire fixture (`tests/fixtures/wire/<name>`) read as JSON.
pub fn wire_json(name: &str) -> Value {
    serde_json::from_str(&wire_fixture(name)).unwrap()
}

/// The text of an API fixture (`tests/fixtures/api/<name>`).
pub fn api_fixture(name: &str) -> String {
    fixture_text("api", name)
}

/// The code of an error that must happen.
pub fn code<T: Debug, E: Into<Error> + Debug>(r: Result<T, E>) -> ErrorCode {
    r.expect_err("the hostile input must be refused")
        .into()
        .code()
}

/// The `n`th message id, minted at a fixed time.
pub fn mint(n: u64) -> MessageId {
    MessageId::mint(1_763_700_000_000 + n).unwrap()
}

/// A fresh identity key of `kind` named `id`.
pub fn key(kind: RecipientKind, id: &str) -> IdentityKey {
    IdentityKey::generate(kind, KeyId::new(id).unwrap()).unwrap()
}

/// The sealed payload of a send-message body.
pub fn sealed_of(body: &SendMessageRequest) -> SealedPayload {
    body.sealed.clone().unwrap()
}

/// A claimed invocation from its JSON.
pub fn parse_claim(v: Value) -> Invocation {
    serde_json::from_value(v).unwrap()
}

/// Who sealed something, as an opener reports it.
pub fn sealed_by(subject: &str, key: &IdentityKey, status: TrustLevel) -> SealedBy {
    SealedBy {
        subject: subject.to_owned(),
        kind: key.kind().clone(),
        key_id: key.key_id().as_str().to_owned(),
        status,
    }
}

/// A `decision:resolved` event as the server sends it: `decision`, `option`
/// and `by` in the clear, with `note`'s ciphertext and envelope if given.
pub fn resolved(
    decision: &str,
    option: &str,
    by: &str,
    note: Option<&SealedPayload>,
) -> streamseal::wire::events::DecisionResolved {
    let mut v = serde_json::json!({"decisionId": decision, "optionId": option, "decidedBy": by});
    if let Some(n) = note {
        v["noteCiphertext"] = serde_json::json!(n.ciphertext);
        v["noteEnvelope"] = serde_json::to_value(&n.envelope).unwrap();
    }
    serde_json::from_value(v).unwrap()
}

/// `signature` (`R || s`) with `s + L` in place of `s` (L, the order of the
/// base point): the same signature to a verify that skips RFC 8032's
/// `s < L`, a malleated one to every verify that keeps it.
pub fn malleated_s_plus_l(signature: [u8; 64]) -> [u8; 64] {
    const L: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde,
        0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let mut malleated = signature;
    let mut carry = 0u16;
    for (s, l) in malleated[32..].iter_mut().zip(&L) {
        let sum = u16::from(*s) + u16::from(*l) + carry;
        *s = (sum & 0xff) as u8;
        carry = sum >> 8;
    }
    malleated
}
