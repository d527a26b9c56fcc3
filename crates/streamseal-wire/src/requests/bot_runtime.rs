//! Bot runtime requests (API §4.9): presence and session links.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::open_enum::open_enum;
use crate::presence::{PresenceStatus, RuntimeKind};
use crate::requests::Validate;
use crate::stream::MemoryMode;
use crate::validate::{Check, path};
use streamseal_crypto::error::Result;
use streamseal_crypto::identity::{MAX_KEYS, PUBLIC_KEY_BASE64_LEN};

/// `POST bot-runtime/presence`, repeated every 15 to 30 seconds.
///
/// The spec says the runtime's public keys are sent as a complete set in an
/// array (empty unregisters all, absent keeps them, at most 32) but does not
/// show that array's field name or item shape. Fields the spec does not name
/// go in `extra`, sent as given; every array in `extra` is taken to be that
/// key set and bounded at 32 items under its own name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct PresenceRequest {
    /// Required; one of the runtime kinds.
    pub runtime_kind: RuntimeKind,
    /// Required, 1 to 128; any stable per-process string.
    pub instance_id: String,
    /// 1 to 256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_session_id: Option<String>,
    /// At most 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Required.
    pub status: PresenceStatus,
    /// Required.
    pub accepting_invocations: bool,
    /// Required (default `{}`); shape not shown in the spec.
    #[serde(default)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub capabilities: Map<String, Value>,
    /// At most 200.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_text: Option<String>,
    /// Exactly 44 characters (base64 X25519 public key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_key: Option<String>,
    /// 1 to 128.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_key_id: Option<String>,
    /// Fields the spec does not name (such as the public-key set array).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Map<String, Value>,
}

impl PresenceRequest {
    /// A presence with the required fields and empty capabilities.
    pub fn new(
        runtime_kind: RuntimeKind,
        instance_id: impl Into<String>,
        status: PresenceStatus,
        accepting_invocations: bool,
    ) -> Self {
        PresenceRequest {
            runtime_kind,
            instance_id: instance_id.into(),
            runtime_session_id: None,
            display_name: None,
            status,
            accepting_invocations,
            capabilities: Map::new(),
            status_text: None,
            public_key: None,
            public_key_id: None,
            extra: Map::new(),
        }
    }
}

impl Validate for PresenceRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.known(
            "runtimeKind",
            self.runtime_kind.is_known(),
            RuntimeKind::KNOWN,
        );
        c.len("instanceId", &self.instance_id, 1, 128);
        c.opt_len(
            "runtimeSessionId",
            self.runtime_session_id.as_deref(),
            1,
            256,
        );
        c.opt_len("displayName", self.display_name.as_deref(), 0, 100);
        c.known("status", self.status.is_known(), PresenceStatus::KNOWN);
        c.opt_len("statusText", self.status_text.as_deref(), 0, 200);
        if let Some(key) = &self.public_key {
            c.exact_len("publicKey", key, PUBLIC_KEY_BASE64_LEN);
        }
        c.opt_len("publicKeyId", self.public_key_id.as_deref(), 1, 128);
        for (name, value) in &self.extra {
            if let Value::Array(keys) = value {
                c.count(name, keys.len(), MAX_KEYS);
            }
        }
        c.finish()
    }
}

open_enum!(
    /// `ifArchived` of a session request: an open enum.
    IfArchived {
        /// Wait for the archived session's stream.
        Wait => "wait",
        /// Replace it with a new one.
        Replace => "replace",
    }
);

open_enum!(
    /// `ifMissing` of a session request: an open enum.
    IfMissing {
        /// Create the session.
        Create => "create",
        /// Fail.
        Error => "error",
    }
);

/// `e2e` of a session request: `{ownerKeyId}` (1 to 128).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SessionE2e {
    /// The owner's key the generation-0 wraps go to.
    pub owner_key_id: String,
}

/// `POST bot-runtime/sessions`: creates or links a scratchpad session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct CreateSessionRequest {
    /// `alpha-local` or `delta-channel`.
    pub runtime_kind: RuntimeKind,
    /// 1 to 128.
    pub instance_id: String,
    /// 1 to 256.
    pub runtime_session_id: String,
    /// 1 to 100.
    pub display_name: String,
    /// At most 1000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_cwd: Option<String>,
    /// `auto` or `off`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mode: Option<MemoryMode>,
    /// 1 to 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_name: Option<String>,
    /// At most 10000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Create the session encrypted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e2e: Option<SessionE2e>,
    /// `wait` or `replace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_archived: Option<IfArchived>,
    /// `create` or `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub if_missing: Option<IfMissing>,
}

fn check_session_ids(c: &mut Check, instance_id: &str, runtime_session_id: &str) {
    c.len("instanceId", instance_id, 1, 128);
    c.len("runtimeSessionId", runtime_session_id, 1, 256);
}

impl Validate for CreateSessionRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.known(
            "runtimeKind",
            matches!(
                self.runtime_kind,
                RuntimeKind::AlphaLocal | RuntimeKind::DeltaChannel
            ),
            &["alpha-local", "delta-channel"],
        );
        check_session_ids(&mut c, &self.instance_id, &self.runtime_session_id);
        c.len("displayName", &self.display_name, 1, 100);
        c.opt_len("localCwd", self.local_cwd.as_deref(), 0, 1000);
        if let Some(mode) = &self.memory_mode {
            c.known("memoryMode", mode.is_known(), MemoryMode::KNOWN);
        }
        c.opt_len("labelName", self.label_name.as_deref(), 1, 100);
        c.opt_len("description", self.description.as_deref(), 0, 10_000);
        if let Some(e2e) = &self.e2e {
            c.len(&path("e2e", "ownerKeyId"), &e2e.owner_key_id, 1, 128);
        }
        if let Some(v) = &self.if_archived {
            c.known("ifArchived", v.is_known(), IfArchived::KNOWN);
        }
        if let Some(v) = &self.if_missing {
            c.known("ifMissing", v.is_known(), IfMissing::KNOWN);
        }
        c.finish()
    }
}

/// `POST bot-runtime/sessions/rename`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct RenameSessionRequest {
    /// 1 to 128.
    pub instance_id: String,
    /// 1 to 256.
    pub runtime_session_id: String,
    /// 1 to 100.
    pub display_name: String,
}

impl Validate for RenameSessionRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        check_session_ids(&mut c, &self.instance_id, &self.runtime_session_id);
        c.len("displayName", &self.display_name, 1, 100);
        c.finish()
    }
}

/// `POST bot-runtime/sessions/rebind`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct RebindSessionRequest {
    /// 1 to 128.
    pub link_id: String,
    /// 1 to 128.
    pub instance_id: String,
    /// 1 to 256.
    pub runtime_session_id: String,
    /// 1 to 128.
    pub new_instance_id: String,
}

impl Validate for RebindSessionRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.len("linkId", &self.link_id, 1, 128);
        check_session_ids(&mut c, &self.instance_id, &self.runtime_session_id);
        c.len("newInstanceId", &self.new_instance_id, 1, 128);
        c.finish()
    }
}

/// `POST bot-runtime/sessions/end`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct EndSessionRequest {
    /// 1 to 128.
    pub instance_id: String,
    /// 1 to 256.
    pub runtime_session_id: String,
    /// A pending invocation not to cancel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub except_invocation_id: Option<String>,
}

impl Validate for EndSessionRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        check_session_ids(&mut c, &self.instance_id, &self.runtime_session_id);
        c.finish()
    }
}

/// `POST bot-runtime/sessions/brief`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct BriefRequest {
    /// 1 to 128.
    pub instance_id: String,
    /// 1 to 256.
    pub runtime_session_id: String,
    /// The prompt (required; the spec gives no bound beyond presence).
    pub content: String,
}

impl Validate for BriefRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        check_session_ids(&mut c, &self.instance_id, &self.runtime_session_id);
        c.finish()
    }
}
