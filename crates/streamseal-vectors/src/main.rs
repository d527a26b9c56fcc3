//! `streamseal-vectors [--check] [--dir DIR]`: regenerate the golden vectors
//! of `tests/vectors/streamseal/`, or (`--check`) fail if the committed files
//! have drifted from the generator. Errors print one line,
//! `error[CODE]: message`, with exit status 1 (`VECTORS_DRIFTED`, `IO`,
//! `USAGE`, or the library's own code).

use std::path::PathBuf;
use std::process::ExitCode;

use streamseal_vectors::golden;

/// One failure: its code and message.
struct Failure {
    code: String,
    message: String,
}

impl Failure {
    fn new(code: &str, message: impl Into<String>) -> Self {
        Failure {
            code: code.to_owned(),
            message: message.into(),
        }
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("error[{}]: {}", f.code, f.message);
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Failure> {
    let mut check = false;
    let mut dir = PathBuf::from("tests/vectors/streamseal");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--check" => check = true,
            "--dir" => {
                dir = args
                    .next()
                    .map(PathBuf::from)
                    .ok_or_else(|| Failure::new("USAGE", "--dir needs a directory"))?;
            }
            other => {
                return Err(Failure::new(
                    "USAGE",
                    format!(
                        "unknown argument `{other}` (usage: streamseal-vectors [--check] [--dir DIR])"
                    ),
                ));
            }
        }
    }
    let files = golden::files().map_err(|e| Failure::new(e.code().as_str(), e.to_string()))?;
    let io = |path: &std::path::Path, e: std::io::Error| {
        Failure::new("IO", format!("{}: {e}", path.display()))
    };
    let mut drifted = Vec::new();
    for (name, text) in &files {
        let path = dir.join(name);
        if check {
            let committed = std::fs::read_to_string(&path).map_err(|e| io(&path, e))?;
            if committed != *text {
                drifted.push(*name);
            }
        } else {
            std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
            std::fs::write(&path, text).map_err(|e| io(&path, e))?;
            println!("wrote {}", path.display());
        }
    }
    if !drifted.is_empty() {
        return Err(Failure::new(
            "VECTORS_DRIFTED",
            format!(
                "{} differ from the generator: {}",
                drifted.len(),
                drifted.join(", ")
            ),
        ));
    }
    if check {
        println!("{} vector files match the generator", files.len());
    }
    Ok(())
}
