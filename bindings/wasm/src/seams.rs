//! The fixed-randomness seam of the core (`streamseal::testing`), in the
//! test build flavour only (feature `test-seams`, `js/dist-test`): lets the
//! JS tests reproduce the golden vectors byte for byte. Never in the
//! shipped package.

use wasm_bindgen::prelude::*;

/// Queues `bytes` as the only randomness until `clearFixedRandomness`.
#[wasm_bindgen(js_name = setFixedRandomness)]
pub fn set_fixed_randomness(bytes: &[u8]) {
    streamseal::testing::set_fixed_randomness(bytes);
}

/// Removes the fixed randomness queue.
#[wasm_bindgen(js_name = clearFixedRandomness)]
pub fn clear_fixed_randomness() {
    streamseal::testing::clear_fixed_randomness();
}

/// How many queued bytes are left (`undefined` without a queue).
#[wasm_bindgen(js_name = remainingFixedRandomness)]
pub fn remaining_fixed_randomness() -> Option<u32> {
    streamseal::testing::remaining_fixed_randomness().map(|n| u32::try_from(n).unwrap_or(u32::MAX))
}
