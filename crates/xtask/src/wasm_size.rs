//! Where the bytes of the WASM module go: a breakdown of the code section by
//! the name section (what twiggy's `top` gives, grouped), printed by `cargo
//! xtask wasm` for the module cargo built (before wasm-bindgen and
//! wasm-opt, which drop the names: the shares carry over, the totals
//! shrink).
//!
//! Each function is put in the first group whose marker its (mangled) name
//! contains: serde code first, as a wire type's (de)serializer names both
//! serde and the type's crate; then the cryptographic primitives, the
//! Unicode tables' code, base64, the streamseal crates by layer, the
//! wasm-bindgen glue, the standard library, the rest.

use std::collections::BTreeMap;
use std::path::Path;

use crate::cmd::Result;

/// Groups in order of precedence: (label, markers any of which places a
/// function in it).
const GROUPS: &[(&str, &[&str])] = &[
    (
        "serde (wire types' (de)serializers, serde_json, serde-wasm-bindgen, tsify)",
        &["serde", "tsify"],
    ),
    (
        "cryptographic primitives (aes-gcm, x25519, HPKE, Argon2, SHA-2, BLAKE2, XEdDSA, ...)",
        &[
            "aes",
            "ghash",
            "polyval",
            "x25519",
            "curve25519",
            "hpke",
            "argon2",
            "blake2",
            "sha2",
            "xeddsa",
            "hkdf",
            "hmac",
            "subtle",
            "ed25519",
            "zeroize",
            "generic_array",
        ],
    ),
    ("Unicode normalisation (NFC of passphrases)", &["unicode"]),
    ("base64", &["base64"]),
    ("streamseal-crypto", &["streamseal_crypto"]),
    ("streamseal-wire", &["streamseal_wire"]),
    ("streamseal-api", &["streamseal_api"]),
    ("streamseal-sealed", &["streamseal_sealed"]),
    ("streamseal-wasm (the binding)", &["streamseal_wasm"]),
    ("wasm-bindgen, js-sys glue", &["wasm_bindgen", "js_sys"]),
    (
        "standard library (fmt, alloc, collections, ...)",
        &["core", "alloc", "std"],
    ),
];

const EXPORTS: &str = "wasm-bindgen exports (the JS-facing shims)";
const OTHER: &str = "other";

fn leb(bytes: &[u8], at: &mut usize) -> Result<u64> {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = *bytes.get(*at).ok_or("the module ends inside a number")?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Ok(value);
        }
        shift += 7;
        if shift > 63 {
            return Err("a number longer than 64 bits".to_owned());
        }
    }
}

fn usize_of(v: u64) -> Result<usize> {
    usize::try_from(v).map_err(|_| "a size beyond usize".to_owned())
}

fn slice(bytes: &[u8], from: usize, len: usize) -> Result<&[u8]> {
    bytes
        .get(from..from.checked_add(len).ok_or("an overflowing size")?)
        .ok_or_else(|| "a section runs past the module's end".to_owned())
}

/// The module's sections: id (0 for custom) with its name, and contents.
fn sections(bytes: &[u8]) -> Result<Vec<(u8, String, &[u8])>> {
    if bytes.get(..4) != Some(b"\0asm") {
        return Err("not a WASM module".to_owned());
    }
    let mut at = 8;
    let mut out = Vec::new();
    while at < bytes.len() {
        let id = *bytes.get(at).ok_or("a truncated section")?;
        at += 1;
        let size = usize_of(leb(bytes, &mut at)?)?;
        let body = slice(bytes, at, size)?;
        at += size;
        if id == 0 {
            let mut i = 0;
            let len = usize_of(leb(body, &mut i)?)?;
            let name = String::from_utf8_lossy(slice(body, i, len)?).into_owned();
            out.push((0, name, body.get(i + len..).unwrap_or_default()));
        } else {
            out.push((id, String::new(), body));
        }
    }
    Ok(out)
}

fn skip_limits(body: &[u8], at: &mut usize) -> Result {
    let flags = *body.get(*at).ok_or("truncated limits")?;
    *at += 1;
    leb(body, at)?;
    if flags & 1 == 1 {
        leb(body, at)?;
    }
    Ok(())
}

/// How many functions the module imports (they come first in the index space).
fn imported_functions(body: &[u8]) -> Result<u64> {
    let mut at = 0;
    let count = leb(body, &mut at)?;
    let mut functions = 0;
    for _ in 0..count {
        for _ in 0..2 {
            let len = usize_of(leb(body, &mut at)?)?;
            at += len;
        }
        let kind = *body.get(at).ok_or("a truncated import")?;
        at += 1;
        match kind {
            0 => {
                leb(body, &mut at)?;
                functions += 1;
            }
            1 => {
                at += 1; // the element type
                skip_limits(body, &mut at)?;
            }
            2 => skip_limits(body, &mut at)?,
            3 => at += 2, // value type, mutability
            4 => {
                at += 1;
                leb(body, &mut at)?;
            }
            other => return Err(format!("an import of unknown kind {other}")),
        }
    }
    Ok(functions)
}

/// Prints the breakdown of `module` (a module cargo built, with its names)
/// and returns its functions' names.
pub fn breakdown(module: &Path) -> Result<Vec<String>> {
    let bytes = std::fs::read(module).map_err(|e| format!("{}: {e}", module.display()))?;
    let sections = sections(&bytes)?;
    let body = |id: u8, name: &str| {
        sections
            .iter()
            .find(|(i, n, _)| *i == id && n == name)
            .map(|(_, _, b)| *b)
    };
    let (Some(code), Some(names)) = (body(10, ""), body(0, "name")) else {
        return Err(format!(
            "{} has no code or no name section",
            module.display()
        ));
    };
    let first = body(2, "").map_or(Ok(0), imported_functions)?;
    let data = body(11, "").map_or(0, <[u8]>::len);

    // The name of each function, by index (subsection 1 of the name section).
    let mut function_names = BTreeMap::new();
    let mut at = 0;
    while at < names.len() {
        let sub = *names.get(at).ok_or("a truncated name section")?;
        at += 1;
        let size = usize_of(leb(names, &mut at)?)?;
        let end = at + size;
        if sub == 1 {
            let count = leb(names, &mut at)?;
            for _ in 0..count {
                let index = leb(names, &mut at)?;
                let len = usize_of(leb(names, &mut at)?)?;
                function_names.insert(
                    index,
                    String::from_utf8_lossy(slice(names, at, len)?).into_owned(),
                );
                at += len;
            }
        }
        at = end;
    }

    let mut groups: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut at = 0;
    let count = leb(code, &mut at)?;
    let mut total = 0;
    for k in 0..count {
        let size = usize_of(leb(code, &mut at)?)?;
        at += size;
        total += size;
        let name = function_names.get(&(first + k)).map_or("", String::as_str);
        let group = group_of(name);
        let entry = groups.entry(group).or_default();
        entry.0 += size;
        entry.1 += 1;
    }
    let mut rows: Vec<_> = groups.into_iter().collect();
    rows.sort_by_key(|row| std::cmp::Reverse(row.1.0));
    eprintln!(
        "xtask: where the code goes ({total} bytes of code in {count} functions, {data} bytes of data; before wasm-bindgen and wasm-opt):"
    );
    for (group, (size, functions)) in rows {
        #[allow(clippy::cast_precision_loss)]
        let share = 100.0 * size as f64 / total.max(1) as f64;
        eprintln!("  {share:5.1}%  {size:>9} bytes  {functions:>5} functions  {group}");
    }
    Ok(function_names.into_values().collect())
}

/// What names the standard library's address-seeded hashing
/// (`std::hash::RandomState`, SipHash-1-3) in a function's mangled name,
/// legacy or v0.
const SEEDED_HASHING: &[&str] = &["RandomState", "DefaultHasher", "hash..sip", "4hash3sip"];

/// Fails when a function of `module` hashes with `std::hash::RandomState`.
/// On wasm32-unknown-unknown the standard library seeds it from two memory
/// addresses ("not particularly secure", `std/src/sys/random/unsupported.rs`):
/// a hash map keyed by what a server sends (a key wrap's `enc`, a message
/// id) could be flooded by a server that predicted them. The sealed code
/// uses B-trees instead (`streamseal_crypto::hazmat::PlatformDh`).
pub fn check_no_seeded_hashing(module: &str, function_names: &[String]) -> Result {
    match function_names
        .iter()
        .find(|name| SEEDED_HASHING.iter().any(|m| name.contains(m)))
    {
        Some(name) => Err(format!(
            "{module} hashes with std's RandomState ({name}), which WebAssembly seeds from memory addresses: use a BTreeMap or BTreeSet"
        )),
        None => Ok(()),
    }
}

fn group_of(name: &str) -> &'static str {
    for (label, markers) in GROUPS {
        if markers.iter().any(|m| name.contains(m)) {
            return label;
        }
    }
    // wasm-bindgen's exported shims are named `<jsName>_<hash>`, unmangled.
    if !name.starts_with('_') && name.contains('_') {
        return EXPORTS;
    }
    OTHER
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_goes_to_its_first_group() {
        let ser = "_ZN100_$LT$$RF$mut$u20$serde_json..ser..Serializer$LT$W$C$F$GT$$u20$as$u20$serde_core..ser..Serializer$GT$16serialize_struct17h1305fd53b7324275E";
        assert!(group_of(ser).starts_with("serde"));
        assert!(group_of("_ZN7aes_gcm4open17habcE").starts_with("cryptographic"));
        assert_eq!(group_of("buildRequest_ddb169f036ea4edb"), EXPORTS);
        assert!(group_of("_RNvXsK_NtCsgXGp5Oqx2Ny_4core3fmt").starts_with("standard"));
        assert_eq!(group_of("memcpy"), OTHER);
    }

    #[test]
    fn std_hashing_fails_a_module_and_hashbrown_alone_does_not() {
        // Names from the first module before it moved to B-trees.
        let sip = "_ZN71_$LT$core..hash..sip..Hasher$LT$S$GT$$u20$as$u20$core..hash..Hasher$GT$5write17hf162b27f3b9c1edfE";
        let default = "_RNvXs2_NtNtCsebHcaeoSrxy_3std4hash6randomNtB5_13DefaultHasherNtNtCsgXGp5Oqx2Ny_4core4hash6Hasher5write";
        // js-sys's cache of interned strings: hashbrown, keyed by addresses in the module.
        let table = "_ZN9hashbrown3raw21RawTable$LT$T$C$A$GT$14reserve_rehash17heb6e225040e2a3d4E";
        for name in [sip, default] {
            let names = vec![table.to_owned(), name.to_owned()];
            assert!(
                check_no_seeded_hashing("m", &names)
                    .unwrap_err()
                    .contains(name)
            );
        }
        assert!(check_no_seeded_hashing("m", &[table.to_owned()]).is_ok());
    }
}
