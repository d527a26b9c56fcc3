//! `uniffi-bindgen`: generates the Kotlin, Swift and Python sources of
//! `streamseal-ffi` from the built library (library mode). `cargo xtask test`
//! builds it once and reuses the binary.

fn main() {
    uniffi::uniffi_bindgen_main()
}
