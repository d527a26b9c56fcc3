//! Reads what each binding really exports and compares it with
//! [`EXPORTS`].
//!
//! Functions, classes, constructors and methods must match exactly in every
//! binding: a name one side has and the list has not fails, and so does a
//! listed name a side lacks. Record and enum types must be present (the
//! UniFFI library's own symbols are compared exactly; the generated
//! languages add machinery types of their own).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

#[cfg(test)]
use super::camel;
use super::{EXPORTS, Export, Kind};
use crate::cmd::{Result, output_in, path_str, root};

/// One exported name as a comparable key: `fn x`, `class X`, `ctor X.y`,
/// `method X.y` or `type X`.
type Names = BTreeSet<String>;

fn key(kind: Kind, owner_spelling: impl Fn(&str) -> String, name: &str) -> String {
    match kind {
        Kind::Function => format!("fn {name}"),
        Kind::Class => format!("class {name}"),
        Kind::Type => format!("type {name}"),
        Kind::Constructor(class) => format!("ctor {}.{name}", owner_spelling(class)),
        Kind::Method(class) => format!("method {}.{name}", owner_spelling(class)),
    }
}

fn is_type(k: &str) -> bool {
    k.starts_with("type ")
}

/// The names the list gives one binding, by `spell`.
fn expected(spell: impl Fn(&Export) -> Option<String>, owner: impl Fn(&str) -> String) -> Names {
    EXPORTS
        .iter()
        .filter_map(|e| spell(e).map(|name| key(e.kind, &owner, &name)))
        .collect()
}

/// Compares `found` with `want`: exact for everything but types, which must
/// only be present unless `exact_types`.
fn compare(binding: &str, want: &Names, found: &Names, exact_types: bool) -> Vec<String> {
    let mut problems = Vec::new();
    for k in want.difference(found) {
        problems.push(format!("{binding}: lacks `{k}`, which the list has"));
    }
    for k in found.difference(want) {
        if exact_types || !is_type(k) {
            problems.push(format!(
                "{binding}: exports `{k}`, which the list lacks (add it to crates/xtask/src/exports.rs)"
            ));
        }
    }
    problems
}

/// `cargo xtask exports [--write]`: checks every binding against the list
/// (from the artifacts `cargo xtask package --consumers` installed), or with
/// `--write` rewrites README.md's table from the list.
pub fn command(args: &[String]) -> Result {
    if args.iter().any(|a| a == "--write") {
        return write_readme();
    }
    test()
}

/// Every check; what `cargo xtask test` runs after the package step.
pub fn test() -> Result {
    let mut problems = Vec::new();
    problems.extend(uniffi_library()?);
    problems.extend(js()?);
    problems.extend(python()?);
    problems.extend(kotlin()?);
    problems.extend(swift()?);
    problems.extend(readme()?);
    if problems.is_empty() {
        eprintln!(
            "xtask: the {} exported names agree in the UniFFI library, JS, Python, Kotlin, Swift and README.md",
            EXPORTS.len()
        );
        Ok(())
    } else {
        for p in &problems {
            eprintln!("  {p}");
        }
        Err(format!(
            "{} disagreement(s) between the bindings and the list of exports",
            problems.len()
        ))
    }
}

// ---- the UniFFI library ------------------------------------------------------

/// Types and classes as the library's metadata symbols spell them.
fn upper(name: &str) -> String {
    name.replace('_', "").to_uppercase()
}

fn uniffi_library() -> Result<Vec<String>> {
    let lib = crate::ffi::release_library()?;
    let symbols = output_in(&root(), "nm", &["-D", "--defined-only", path_str(&lib)?])?;
    let mut found = Names::new();
    for symbol in symbols.lines().filter_map(|l| l.split_whitespace().nth(2)) {
        if let Some(rest) = symbol.strip_prefix("uniffi_streamseal_ffi_fn_") {
            if let Some(name) = rest.strip_prefix("func_") {
                found.insert(format!("fn {name}"));
            } else if let Some((kind, rest)) = rest
                .strip_prefix("constructor_")
                .map(|r| ("ctor", r))
                .or_else(|| rest.strip_prefix("method_").map(|r| ("method", r)))
            {
                let (class, name) = rest.split_once('_').unwrap_or((rest, ""));
                if !name.starts_with("uniffi_trait_") {
                    found.insert(format!("{kind} {class}.{name}"));
                }
            }
        } else if let Some(rest) = symbol.strip_prefix("UNIFFI_META_STREAMSEAL_") {
            // `{CRATE}_{KIND}_{NAME}`: the first kind tag decides (a
            // function named `error_codes` is `FFI_FUNC_ERROR_CODES`).
            let tags = [
                ("_RECORD_", Some("type")),
                ("_ENUM_", Some("type")),
                ("_ERROR_", Some("type")),
                ("_INTERFACE_", Some("class")),
                ("_FUNC_", None),
                ("_METHOD_", None),
                ("_CONSTRUCTOR_", None),
                ("_CUSTOM_TYPE_", None),
                ("_UNIFFI_TRAIT_", None),
            ];
            let first = tags
                .iter()
                .filter_map(|(tag, kind)| rest.find(tag).map(|at| (at, tag.len(), *kind)))
                .min_by_key(|(at, _, _)| *at);
            if let Some((at, len, Some(kind))) = first {
                found.insert(format!("{kind} {}", &rest[at + len..]));
            }
        }
    }
    let want = expected(
        |e| {
            e.uniffi().map(|n| match e.kind {
                Kind::Class | Kind::Type => upper(n),
                _ => n.to_owned(),
            })
        },
        |class| class.to_lowercase(),
    );
    Ok(compare("UniFFI library", &want, &found, true))
}

// ---- JS ----------------------------------------------------------------------

/// Prints `fn x`, `class X`, `ctor X.y` (statics) and `method X.y` for what
/// the package's two entries (`streamseal`, `streamseal/api`) export at run
/// time in Node, where `streamseal` has a bot runtime's calls (the
/// browser's leaves them out: js/test/names.test.mjs).
const JS_NAMES: &str = r#"
const main = await import("streamseal");
// The second module re-exports the one error class and has its own loader.
const api = Object.entries(await import("streamseal/api")).filter(([k]) => !["init", "initSync", "StreamsealError"].includes(k));
const hidden = (n) => n.startsWith("__") || ["free", "constructor", "length", "name", "prototype"].includes(n);
for (const [k, v] of [...Object.entries(main), ...api]) {
  if (typeof v !== "function") { console.log(`value ${k}`); continue; }
  if (!/^[A-Z]/.test(k)) { console.log(`fn ${k}`); continue; }
  console.log(`class ${k}`);
  for (const s of Object.getOwnPropertyNames(v)) if (!hidden(s)) console.log(`ctor ${k}.${s}`);
  for (const s of Object.getOwnPropertyNames(v.prototype ?? {})) if (!hidden(s)) console.log(`method ${k}.${s}`);
}
"#;

/// The installed package when the npm consumer ran, else the package
/// directory itself (Node resolves a package's own name inside it).
fn js_dir() -> PathBuf {
    let consumer = root().join("target/package-consumers/node");
    if consumer.join("node_modules/streamseal").exists() {
        consumer
    } else {
        root().join("js")
    }
}

fn js() -> Result<Vec<String>> {
    let dir = js_dir();
    eprintln!(
        "xtask: the JS names as Node imports them in {}",
        dir.display()
    );
    let printed = output_in(&dir, "node", &["--input-type=module", "-e", JS_NAMES])?;
    let types = js_declared_types(&dir)?;
    let mut found = Names::new();
    for line in printed.lines() {
        if let Some(name) = line.strip_prefix("class ") {
            // An error class (StreamsealError) is a type of the list's.
            let listed_type = EXPORTS
                .iter()
                .any(|e| e.kind == Kind::Type && e.js().as_deref() == Some(name));
            found.insert(if listed_type {
                format!("type {name}")
            } else {
                line.to_owned()
            });
        } else {
            // A `value` export (a constant) is in no list: it fails as an extra.
            found.insert(line.to_owned());
        }
    }
    found.extend(types.constructors);
    for e in EXPORTS.iter().filter(|e| e.kind == Kind::Type) {
        if let Some(name) = e.js().filter(|n| types.names.contains(n)) {
            found.insert(format!("type {name}"));
        }
    }
    let want = expected(Export::js, str::to_owned);
    Ok(compare("JS package", &want, &found, false))
}

/// What the package's declarations add to its run-time names: the type
/// names, and `ctor X.new` for a class whose constructor is public.
struct Declared {
    names: BTreeSet<String>,
    constructors: Names,
}

fn js_declared_types(dir: &Path) -> Result<Declared> {
    let package = if dir.ends_with("js") {
        dir.to_path_buf()
    } else {
        dir.join("node_modules/streamseal")
    };
    let mut names = BTreeSet::new();
    let mut constructors = Names::new();
    // `streamseal` as Node resolves it: the module with a bot runtime's
    // calls (bot.d.ts over index.d.ts), a superset of the browser's.
    for file in [
        "dist/streamseal_bot.d.ts",
        "src/index.d.ts",
        "src/bot.d.ts",
        "dist/streamseal_api.d.ts",
        "src/api.d.ts",
    ] {
        let path = package.join(file);
        let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut class: Option<String> = None;
        for line in text.lines() {
            let words: Vec<&str> = line
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            if line.starts_with("export ") {
                let kinds = ["interface", "type", "class", "enum"];
                if let Some(i) = words.iter().position(|w| kinds.contains(w))
                    && let Some(name) = words.get(i + 1)
                {
                    names.insert((*name).to_owned());
                    class = (words.get(i) == Some(&"class")).then(|| (*name).to_owned());
                }
            } else if line.starts_with('}') {
                class = None;
            } else if let Some(class) = &class
                && line.trim_start().starts_with("constructor(")
            {
                constructors.insert(format!("ctor {class}.new"));
            }
        }
    }
    Ok(Declared {
        names,
        constructors,
    })
}

// ---- Python ------------------------------------------------------------------

/// Prints the wheel's module-level names: `fn x`, `class X` for objects
/// (those with a `XProtocol`), `type X` for other classes, and `ctor X.y` /
/// `method X.y` for each object's static factories and methods.
const PY_NAMES: &str = r#"
import inspect, streamseal
names = {k: getattr(streamseal, k) for k in dir(streamseal) if not k.startswith("_")}
for k, v in sorted(names.items()):
    if inspect.ismodule(v) or k.endswith("Protocol") or k == "InternalError":
        continue
    if not inspect.isclass(v):
        print(("fn " if callable(v) else "value ") + k)
    elif k + "Protocol" in names:
        print("class " + k)
        for n, a in vars(v).items():
            if n.startswith("_"):
                continue
            if isinstance(a, (staticmethod, classmethod)):
                print(f"ctor {k}.{n}")
            elif callable(a):
                print(f"method {k}.{n}")
    else:
        print("type " + k)
"#;

fn python() -> Result<Vec<String>> {
    let venv = root().join("target/package-consumers/python/venv/bin/python");
    if !venv.exists() {
        return Err(format!(
            "{} is missing: run `cargo xtask package --consumers python` first",
            venv.display()
        ));
    }
    let printed = output_in(&root(), path_str(&venv)?, &["-c", PY_NAMES])?;
    let found: Names = printed.lines().map(str::to_owned).collect();
    // Python's primary constructor is `X(...)` (`__init__`), not a name.
    let want: Names = expected(|e| e.uniffi().map(str::to_owned), str::to_owned)
        .into_iter()
        .filter(|k| !(k.starts_with("ctor ") && k.ends_with(".new")))
        .collect();
    Ok(compare("Python wheel", &want, &found, false))
}

// ---- Kotlin and Swift --------------------------------------------------------

/// The Kotlin/Swift names the list gives, with the primary constructor as
/// `new`.
fn kotlin_swift_expected() -> Names {
    expected(
        |e| match e.kind {
            Kind::Constructor(_) if e.name == "new" => e.uniffi().map(str::to_owned),
            _ => e.kotlin_swift(),
        },
        str::to_owned,
    )
}

/// The text between `open class X` and `X`'s FFI converter: the class body
/// (UniFFI's templates do not indent it consistently).
fn class_regions(text: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut regions = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("open class ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name == "RustBuffer" {
            continue;
        }
        // The converter's definition, not a call of it inside the body.
        let converter = format!("FfiConverterType{name}");
        let end = lines
            .get(i..)
            .unwrap_or_default()
            .iter()
            .position(|l| {
                l.starts_with("public ")
                    && l.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .any(|w| w == converter)
            })
            .map_or(lines.len(), |n| i + n);
        regions.push((name, i..end));
    }
    regions
}

/// The identifier after `marker` in `line` (backticks skipped).
fn ident_after(line: &str, marker: &str) -> Option<String> {
    let at = line.find(marker)? + marker.len();
    let name: String = line[at..]
        .trim_start_matches('`')
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

fn read_all(dir: &Path, ext: &str) -> Result<Vec<String>> {
    let mut texts = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))? {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == ext) {
                texts.push(
                    fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?,
                );
            }
        }
    }
    if texts.is_empty() {
        return Err(format!("no .{ext} file under {}", dir.display()));
    }
    Ok(texts)
}

fn kotlin() -> Result<Vec<String>> {
    let dir = root().join("target/package-build/jvm/kotlin");
    let mut found = Names::new();
    for text in read_all(&dir, "kt")? {
        let lines: Vec<&str> = text.lines().collect();
        let regions = class_regions(&text);
        let mut in_class = vec![false; lines.len()];
        for (class, range) in &regions {
            found.insert(format!("class {class}"));
            for line in lines.get(range.clone()).unwrap_or_default() {
                in_class_mark(line, class, &mut found);
            }
            for flag in in_class.get_mut(range.clone()).unwrap_or_default() {
                *flag = true;
            }
        }
        let mut interface = false;
        for (i, line) in lines.iter().enumerate() {
            if line.starts_with("public interface ") {
                interface = true;
            } else if interface && line.starts_with('}') {
                interface = false;
            }
            for prefix in ["data class ", "enum class ", "sealed class "] {
                if let Some(name) = line.strip_prefix(prefix).and_then(|l| ident_after(l, "")) {
                    // UniFFI's Kotlin spells an error type `...Exception`.
                    let name = match name.strip_suffix("Exception") {
                        Some(stem) if line.contains("kotlin.Exception") => format!("{stem}Error"),
                        _ => name,
                    };
                    found.insert(format!("type {name}"));
                }
            }
            if !in_class.get(i).copied().unwrap_or(false)
                && !interface
                && line.contains("fun `")
                && let Some(name) = ident_after(line, "fun ")
            {
                found.insert(format!("fn {name}"));
            }
        }
    }
    return Ok(compare(
        "Kotlin (jar)",
        &kotlin_swift_expected(),
        &found,
        false,
    ));

    fn in_class_mark(line: &str, class: &str, found: &mut Names) {
        if line.contains("override fun `") || line.contains("override suspend fun `") {
            if let Some(name) = ident_after(line, "fun ") {
                found.insert(format!("method {class}.{name}"));
            }
        } else if line.contains("fun `") {
            if let Some(name) = ident_after(line, "fun ") {
                found.insert(format!("ctor {class}.{name}"));
            }
        } else if line.trim_start().starts_with("constructor(`") {
            found.insert(format!("ctor {class}.new"));
        }
    }
}

fn swift() -> Result<Vec<String>> {
    let dir = root().join("bindings/uniffi/swift/Sources/Streamseal");
    let mut found = Names::new();
    for text in read_all(&dir, "swift")? {
        let lines: Vec<&str> = text.lines().collect();
        for (class, range) in class_regions(&text) {
            found.insert(format!("class {class}"));
            for line in lines.get(range).unwrap_or_default() {
                let trimmed = line.trim_start();
                if let Some(name) = trimmed
                    .strip_prefix("open func ")
                    .and_then(|l| ident_after(l, ""))
                {
                    found.insert(format!("method {class}.{name}"));
                } else if let Some(name) = trimmed
                    .strip_prefix("public static func ")
                    .and_then(|l| ident_after(l, ""))
                {
                    found.insert(format!("ctor {class}.{name}"));
                } else if trimmed.starts_with("public convenience init(") {
                    found.insert(format!("ctor {class}.new"));
                }
            }
        }
        for line in &lines {
            if let Some(name) = line
                .strip_prefix("public func ")
                .and_then(|l| ident_after(l, ""))
                && !name.starts_with("FfiConverter")
                && !name.starts_with("uniffiEnsure")
            {
                found.insert(format!("fn {name}"));
            }
            for prefix in ["public struct ", "public enum ", "enum "] {
                if let Some(name) = line.strip_prefix(prefix).and_then(|l| ident_after(l, "")) {
                    found.insert(format!("type {name}"));
                }
            }
        }
    }
    Ok(compare(
        "Swift (committed; regenerate with STREAMSEAL_UPDATE_SWIFT=1 cargo xtask ffi)",
        &kotlin_swift_expected(),
        &found,
        false,
    ))
}

// ---- README.md ---------------------------------------------------------------

const BEGIN: &str =
    "<!-- exports: written by `cargo xtask exports --write` from crates/xtask/src/exports.rs -->";
const END: &str = "<!-- /exports -->";

/// The README table, one row per export.
fn table() -> String {
    let mut out = String::new();
    out.push_str(BEGIN);
    out.push_str("\n\n| | JS | Kotlin, Swift | Python | why apart |\n|---|---|---|---|---|\n");
    let cell = |name: Option<String>, owner: Option<&str>| match name {
        Some(n) => match owner {
            Some(o) => format!("`{o}.{n}`"),
            None => format!("`{n}`"),
        },
        None => "—".to_owned(),
    };
    for e in EXPORTS {
        let what = match e.kind {
            Kind::Function => "function",
            Kind::Class => "class",
            Kind::Constructor(_) => "constructor",
            Kind::Method(_) => "method",
            Kind::Type => "type",
        };
        let kotlin_swift = match e.kind {
            Kind::Constructor(_) if e.name == "new" => e.uniffi().map(|_| "init".to_owned()),
            _ => e.kotlin_swift(),
        };
        let js = match e.kind {
            Kind::Constructor(_) if e.name == "new" => e.js().map(|_| "new".to_owned()),
            _ => e.js(),
        };
        let python = match e.kind {
            Kind::Constructor(_) if e.name == "new" => e.uniffi().map(|_| "__init__".to_owned()),
            _ => e.uniffi().map(str::to_owned),
        };
        out.push_str(&format!(
            "| {what} | {} | {} | {} | {} |\n",
            cell(js, e.owner()),
            cell(kotlin_swift, e.owner()),
            cell(python, e.owner()),
            e.note
        ));
    }
    out.push('\n');
    out.push_str(END);
    out
}

fn readme_parts() -> Result<(String, usize, usize)> {
    let path = root().join("README.md");
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let start = text
        .find(BEGIN)
        .ok_or_else(|| format!("README.md has no `{BEGIN}` line"))?;
    let end = text[start..]
        .find(END)
        .map(|n| start + n + END.len())
        .ok_or_else(|| format!("README.md has no `{END}` line"))?;
    Ok((text, start, end))
}

fn readme() -> Result<Vec<String>> {
    let (text, start, end) = readme_parts()?;
    Ok(if text[start..end] == table() {
        Vec::new()
    } else {
        vec![
            "README.md: the table of exports differs from the list (`cargo xtask exports --write`)"
                .to_owned(),
        ]
    })
}

fn write_readme() -> Result {
    let (text, start, end) = readme_parts()?;
    let path = root().join("README.md");
    let new = format!("{}{}{}", &text[..start], table(), &text[end..]);
    fs::write(&path, new).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!(
        "xtask: README.md's table lists the {} exports",
        EXPORTS.len()
    );
    Ok(())
}

/// `camel` is the spelling every JS, Kotlin and Swift name takes from the list.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_on_one_side_only_is_reported_and_types_may_be_extra() {
        let want: Names = ["fn a", "type T"].iter().map(|s| (*s).to_owned()).collect();
        let found: Names = ["fn b", "type T", "type U"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let loose = compare("x", &want, &found, false);
        assert_eq!(loose.len(), 2, "{loose:?}");
        assert_eq!(compare("x", &want, &found, true).len(), 3);
        assert_eq!(camel("a_b"), "aB");
    }

    #[test]
    fn a_class_body_runs_to_its_converter() {
        let text = "open class K: X {\nopen func a() { FfiConverterTypeK.lift() }\n}\npublic func b() {}\npublic struct FfiConverterTypeK {\n}\n";
        let regions = class_regions(text);
        assert_eq!(regions, vec![("K".to_owned(), 0..4)]);
        assert_eq!(
            ident_after("    override fun `sealCount`(", "fun "),
            Some("sealCount".to_owned())
        );
    }
}
