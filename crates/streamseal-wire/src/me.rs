//! `GET /me` (API §4.1): who the key acts as, and its API version.
//!
//! `data` is a union on `kind`: `user` carries `workspaceId` and `userId`;
//! the fields of `bot` are not shown in the spec, so they are kept as raw
//! JSON; a kind this library does not know is kept with its fields.
//!
//! ```
//! use streamseal_wire::me::{Me, MeIdentity};
//!
//! let me: Me = serde_json::from_str(r#"{"kind":"user","workspaceId":"ws_1","userId":"usr_1",
//!   "apiVersion":{"pinned":null,"resolved":"2026-07-24","current":"2026-08-21",
//!   "supported":["2026-07-12","2026-07-22","2026-07-24","2026-08-21"]}}"#).unwrap();
//! assert!(matches!(me.identity, MeIdentity::User { .. }));
//! assert!(me.api_version.newer_version_exists());
//! ```

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::ExtraJson as _;
use crate::extra::{self, Extra};
use crate::version::ApiVersionInfo;

/// The `data` of `GET /me`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Me {
    /// Who the key acts as.
    pub identity: MeIdentity,
    /// `apiVersion`: `{pinned, resolved, current, supported}`.
    pub api_version: ApiVersionInfo,
    /// Fields this library does not know beside a `user` identity's, kept
    /// as raw JSON and written back unchanged (API §9.6). Empty for the
    /// `bot` and unknown kinds, whose `fields` keep everything.
    pub extra: Extra,
}

/// The `kind` union of `GET /me`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MeIdentity {
    /// `kind: "user"`: a personal key.
    User {
        /// The workspace.
        workspace_id: String,
        /// The user.
        user_id: String,
    },
    /// `kind: "bot"`: a bot key. Its fields are not shown in the spec and are
    /// kept as raw JSON (everything but `kind` and `apiVersion`).
    Bot {
        /// The other fields, as they came.
        fields: Map<String, Value>,
    },
    /// A kind this library does not know, with its other fields.
    Other {
        /// The `kind` value.
        kind: String,
        /// The other fields, as they came.
        fields: Map<String, Value>,
    },
}

#[derive(Deserialize, crate::shape::WireShape)]
#[serde(rename_all = "camelCase")]
struct MeWire {
    kind: String,
    api_version: ApiVersionInfo,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

ts_decl!(
    "export type Me = { kind: string; apiVersion: ApiVersionInfo; [field: string]: unknown };"
);

impl Serialize for Me {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (kind, rest) = match &self.identity {
            MeIdentity::User {
                workspace_id,
                user_id,
            } => {
                let mut rest = Map::new();
                rest.insert("workspaceId".into(), Value::String(workspace_id.clone()));
                rest.insert("userId".into(), Value::String(user_id.clone()));
                ("user".to_owned(), rest)
            }
            MeIdentity::Bot { fields } => ("bot".to_owned(), fields.clone()),
            MeIdentity::Other { kind, fields } => (kind.clone(), fields.clone()),
        };
        // The identity's fields and the unknown ones beside them, as one
        // map (an unknown key never replaces a field of the identity); the
        // unknown ones keyed as `Extra` keys its own.
        let mut all = rest.clone();
        for (key, value) in self.extra.to_json_map() {
            all.entry(key).or_insert(value);
        }
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("kind", &kind)?;
        map.serialize_entry("apiVersion", &self.api_version)?;
        for (key, value) in &all {
            if rest.contains_key(key) {
                map.serialize_entry(key, value)?;
            } else {
                map.serialize_entry(&extra::Key(key), value)?;
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Me {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let MeWire {
            kind,
            api_version,
            mut rest,
        } = MeWire::deserialize(d)?;
        let mut extra = Extra::default();
        let identity = match kind.as_str() {
            "user" => {
                let mut take = |name: &'static str| match rest.remove(name) {
                    Some(Value::String(s)) => Ok(s),
                    _ => Err(serde::de::Error::missing_field(name)),
                };
                let identity = MeIdentity::User {
                    workspace_id: take("workspaceId")?,
                    user_id: take("userId")?,
                };
                extra = Extra::from_json_map(rest);
                identity
            }
            "bot" => MeIdentity::Bot { fields: rest },
            _ => MeIdentity::Other { kind, fields: rest },
        };
        Ok(Me {
            identity,
            api_version,
            extra,
        })
    }
}
