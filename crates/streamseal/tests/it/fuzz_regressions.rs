//! Inputs the fuzz targets of `tests/fuzz` found, kept as plain tests so that
//! the normal suite guards the fix. Each names the target and what broke.

use serde_json::Value;
use streamseal::wire::events::HelloAck;
use streamseal::wire::slots::Slots;

/// A number serde_json's default (fast, not correctly rounded) float parser
/// reads one ulp off: 3.3333299999999996e38 instead of 3.33333e38.
const INEXACT_NUMBER: &str = "333333000000000000006830523030426004138";

/// `slot_keys` (crash-d277ed09): a `slots` map with an unknown-status value
/// holding that number changed on the first write, so a value kept "as it
/// came" did not serialise back unchanged. Fixed by serde_json's
/// `float_roundtrip` (correctly rounded parsing) in the workspace.
#[test]
fn slot_values_kept_raw_round_trip_their_numbers() {
    let json = format!(
        r#"{{"shared:msg_01J80000000000000000000023":{{"nested":{{"status":"ok","version":{INEXACT_NUMBER},"to":18}}}}}}"#
    );
    let slots: Slots = serde_json::from_str(&json).unwrap();
    let written = serde_json::to_string(&slots).unwrap();
    let again: Slots = serde_json::from_str(&written).unwrap();
    assert_eq!(again, slots, "{written}");
    assert_eq!(serde_json::to_string(&again).unwrap(), written);
}

/// The same number in the unknown fields every tolerant type keeps (here
/// the socket's hello acknowledgement) and in a bare JSON value.
#[test]
fn unknown_fields_keep_their_numbers() {
    let json = format!(r#"{{"e2eGrantedStreamIds":[],"later":{INEXACT_NUMBER}}}"#);
    let ack: HelloAck = serde_json::from_str(&json).unwrap();
    let again: HelloAck = serde_json::from_str(&serde_json::to_string(&ack).unwrap()).unwrap();
    assert_eq!(again, ack);

    let value: Value = serde_json::from_str(INEXACT_NUMBER).unwrap();
    // Correctly rounded, it is the double nearest 3.33333e38.
    assert_eq!(value.as_f64(), Some(3.33333e38));
}
