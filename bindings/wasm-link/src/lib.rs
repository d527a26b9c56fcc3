//! The crate each of the npm package's WebAssembly modules is linked as.
//! It has no code: `cargo xtask wasm` builds it once per module, with the
//! feature that names the module (`first`, `runtime`, `api`), and
//! wasm-bindgen reads the `cdylib` it links.
//!
//! It exists for two reasons (issue 20, measured with `cargo xtask wasm`
//! and `node` side by side in one process; figures in
//! `crates/xtask/src/wasm.rs`):
//!
//! - **Link-time optimisation applies.** Cargo passes `-C lto` only to a
//!   build whose every crate type supports it. The binding crates are
//!   `rlib`s (their tests and each other use them), so the crate linked is
//!   this one, a `cdylib` alone, and the profile's `lto = "fat"` holds.
//! - **LTO runs at this crate's `opt-level`.** After a fat link, LLVM
//!   optimises the merged program once more, at the level of the crate
//!   linked. Linked from the binding crate (`"z"`), the primitives lost
//!   what their own `opt-level = 3` gave them (vectorised, unrolled loops):
//!   a 64 MiB Argon2id unlock took 1.14x-1.20x as long. This crate is at 3
//!   for the modules with the primitives (the root `Cargo.toml`) and holds
//!   no code that level would grow: the serde code is instantiated in the
//!   binding crates, at `"z"`, and LLVM keeps those functions small under
//!   their own `minsize`. The unlock is then as fast as without LTO.

#[cfg(feature = "first")]
use streamseal_wasm as _;
#[cfg(feature = "api")]
use streamseal_wasm_api as _;

/// Each module's allocator: Talc, in place of the standard library's
/// dlmalloc, for its size. Measured beside dlmalloc on the same source
/// (2026-11-29): the first module 175,243 -> 173,143 B gzip -9; in Node, one
/// process, alternating rounds, medians (talc over dlmalloc): open 1 KiB
/// 1.02x, open 64 KiB 1.00x, seal 1 KiB 1.00x, a 1000 x 512 B history 0.99x,
/// a 64 MiB Argon2id unlock 1.00x, and the same 65 MiB of memory after six
/// unlocks. The modules are single-threaded (no `atomics`), which Talc's
/// `WasmDynamicTalc` requires.
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
