//! `inspect`: validate and pretty-print any wire JSON, naming the shape it
//! was read as, its version shape and every bound it breaks.

use clap::Args;
use streamseal_cli::wire_inspect::{Inspection, WireKind, detect, inspect};

use crate::failure::{Failure, Outcome};
use crate::files::read_text;

/// Inspect a wire document.
#[derive(Args, Debug)]
pub struct Inspect {
    /// The JSON file, or `-` for standard input.
    #[arg(default_value = "-")]
    file: String,
    /// Read it as this kind (e.g. `presence-request`, `message-list`); `--as list` names them all.
    #[arg(long = "as", value_name = "KIND")]
    kind: Option<String>,
}

impl Inspect {
    pub fn run(&self) -> Outcome {
        if self.kind.as_deref() == Some("list") {
            for kind in WireKind::ALL {
                println!("{}", kind.name());
            }
            return Ok(());
        }
        let text = read_text(&self.file)?;
        let report = match &self.kind {
            Some(name) => {
                let kind = WireKind::parse(name).ok_or_else(|| {
                    Failure::usage(format!("unknown kind `{name}` (see --as list)"))
                })?;
                inspect(kind, &text)?
            }
            None => detect(&text).into_iter().next().ok_or_else(|| Failure {
                code: "MALFORMED_JSON".into(),
                message: format!("{}: not a document of any known wire shape", self.file),
            })?,
        };
        print_report(&report);
        if report.violations.is_empty() {
            Ok(())
        } else {
            Err(streamseal::Error::ValidationFailed {
                details: report.violations,
            }
            .into())
        }
    }
}

fn print_report(report: &Inspection) {
    println!("kind: {}", report.kind.name());
    println!("version shape: {}", report.version_shape);
    if report.violations.is_empty() {
        println!("bounds: all respected");
    } else {
        println!("bounds broken:");
        for (field, reasons) in &report.violations {
            println!("  {field}: {}", reasons.join("; "));
        }
    }
    println!("{}", report.pretty);
}
