//! Decision card requests (API §4.12): `POST streams/{streamId}/decisions`.
//!
//! Only the fields the spec names are modelled; the plaintext body variant
//! and the responses are not shown. Options reuse
//! [`streamseal_crypto::slot::DecisionOption`], whose ids and tones are bound into the
//! sealed card's AAD.

use serde::{Deserialize, Serialize};

use crate::ids::DecisionId;
use crate::requests::Validate;
use crate::validate::Check;
use streamseal_crypto::envelope::SealedPayload;
use streamseal_crypto::error::Result;
use streamseal_crypto::slot::DecisionOption;

/// `POST streams/{streamId}/decisions`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct CreateDecisionRequest {
    /// The client-minted `dreq_` id (see [`DecisionId::mint`]).
    pub decision_id: String,
    /// Options `{id, tone}` in the clear (tones seen: `primary`, `neutral`).
    pub options: Vec<DecisionOption>,
    /// Whether the decider may attach a note.
    pub allow_note: bool,
    /// The runtime session.
    pub runtime_session_id: String,
    /// The invocation asking.
    pub invocation_id: String,
    /// For a sealed card: title, body and labels as ciphertext.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed: Option<SealedPayload>,
}

impl Validate for CreateDecisionRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        if DecisionId::parse(&self.decision_id).is_err() {
            c.fail("decisionId", "must be `dreq_` followed by a ULID");
        }
        c.finish()
    }
}
