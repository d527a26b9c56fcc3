//! `vectors`: regenerate the golden vectors of `tests/vectors/streamseal/`,
//! or check that the committed files have not drifted from the generator.

use std::path::PathBuf;

use clap::Args;

use crate::failure::{Failure, Outcome};

/// Regenerate or check the golden vectors.
#[derive(Args, Debug)]
pub struct Vectors {
    /// The directory of the vector files.
    #[arg(long, default_value = "tests/vectors/streamseal")]
    dir: PathBuf,
    /// Do not write: fail if a committed file differs from what the generator makes.
    #[arg(long)]
    check: bool,
}

impl Vectors {
    pub fn run(&self) -> Outcome {
        let files = streamseal::testing::golden::files()?;
        let mut drifted = Vec::new();
        for (name, text) in &files {
            let path = self.dir.join(name);
            if self.check {
                let committed =
                    std::fs::read_to_string(&path).map_err(|e| Failure::io(path.display(), e))?;
                if committed != *text {
                    drifted.push(*name);
                }
            } else {
                std::fs::create_dir_all(&self.dir)
                    .map_err(|e| Failure::io(self.dir.display(), e))?;
                std::fs::write(&path, text).map_err(|e| Failure::io(path.display(), e))?;
                println!("wrote {}", path.display());
            }
        }
        if !drifted.is_empty() {
            return Err(Failure {
                code: "VECTORS_DRIFTED".into(),
                message: format!(
                    "{} differ from the generator: {}",
                    drifted.len(),
                    drifted.join(", ")
                ),
            });
        }
        if self.check {
            println!("{} vector files match the generator", files.len());
        }
        Ok(())
    }
}
