//! Label requests (API §4.7).

use serde::{Deserialize, Serialize};

use crate::label::LabelResourceType;
use crate::requests::{QueryParams, Validate, double_option};
use crate::validate::Check;
use streamseal_crypto::error::Result;

fn check_assignment(
    c: &mut Check,
    name: &str,
    resource_type: &LabelResourceType,
    resource_id: &str,
) {
    c.len("name", name, 1, 100);
    c.known(
        "resourceType",
        resource_type.is_known(),
        LabelResourceType::KNOWN,
    );
    c.len("resourceId", resource_id, 1, 64);
}

/// `POST labels/assignments`: assigns a label by name (created if new).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct AssignLabelRequest {
    /// Label name, 1 to 100.
    pub name: String,
    /// `stream` or `message`.
    pub resource_type: LabelResourceType,
    /// 1 to 64.
    pub resource_id: String,
}

impl Validate for AssignLabelRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        check_assignment(&mut c, &self.name, &self.resource_type, &self.resource_id);
        c.finish()
    }
}

/// Query of `DELETE labels/assignments` (all required).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct RemoveLabelQuery {
    /// Label name, 1 to 100.
    pub name: String,
    /// `stream` or `message`.
    pub resource_type: LabelResourceType,
    /// 1 to 64.
    pub resource_id: String,
}

impl Validate for RemoveLabelQuery {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        check_assignment(&mut c, &self.name, &self.resource_type, &self.resource_id);
        c.finish()
    }
}

impl QueryParams for RemoveLabelQuery {
    fn query_pairs(&self) -> Vec<(&'static str, String)> {
        vec![
            ("name", self.name.clone()),
            ("resourceType", self.resource_type.to_string()),
            ("resourceId", self.resource_id.clone()),
        ]
    }
}

/// `PATCH labels/{labelId}`. Absent fields are kept; `emoji` and
/// `description` take `Some(None)` to clear (sent as `null`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct UpdateLabelRequest {
    /// New name, 1 to 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// New color.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// New emoji, or `Some(None)` to clear.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "double_option"
    )]
    pub emoji: Option<Option<String>>,
    /// New description, or `Some(None)` to clear.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "double_option"
    )]
    pub description: Option<Option<String>>,
}

impl Validate for UpdateLabelRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.opt_len("name", self.name.as_deref(), 1, 100);
        c.finish()
    }
}
