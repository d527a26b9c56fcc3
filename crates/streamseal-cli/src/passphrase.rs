//! Passphrases come from a prompt, standard input or an environment
//! variable: never from the command line, where other users and shell
//! history would see them.

use std::io::{BufRead as _, IsTerminal as _};
use std::time::{Duration, Instant};

use clap::Args;
use streamseal::kdf::KdfParams;

use crate::failure::{Failure, Outcome};

/// Where to read a passphrase from.
#[derive(Args, Debug, Clone, Default)]
pub struct PassphraseSource {
    /// Read the passphrase from this environment variable.
    #[arg(long, value_name = "VAR", conflicts_with = "passphrase_stdin")]
    pub passphrase_env: Option<String>,
    /// Read the passphrase from the first line of standard input.
    #[arg(long)]
    pub passphrase_stdin: bool,
}

impl PassphraseSource {
    /// Reads the passphrase; prompts on a terminal when no source is given.
    pub fn read(&self, prompt: &str) -> Outcome<String> {
        if let Some(var) = &self.passphrase_env {
            return std::env::var(var)
                .map_err(|_| Failure::usage(format!("environment variable {var} is not set")));
        }
        if self.passphrase_stdin {
            let mut line = String::new();
            std::io::stdin()
                .lock()
                .read_line(&mut line)
                .map_err(|e| Failure::io("standard input", e))?;
            return Ok(line.trim_end_matches(['\r', '\n']).to_owned());
        }
        if !std::io::stdin().is_terminal() {
            return Err(Failure::usage(
                "no passphrase: use --passphrase-env VAR or --passphrase-stdin, or run on a terminal",
            ));
        }
        rpassword::prompt_password(prompt).map_err(|e| Failure::io("passphrase prompt", e))
    }
}

/// Runs `work` (an Argon2 derivation) while showing progress on standard
/// error when it is a terminal. When it is not (a script or a pipe), nothing
/// is printed, so a failed command's standard error is its one
/// `error[CODE]: ...` line.
pub fn with_progress<T>(params: &KdfParams, work: impl FnOnce() -> T) -> T {
    if !std::io::stderr().is_terminal() {
        return work();
    }
    let label = format!(
        "deriving the key with Argon2id (m = {} KiB, t = {}, p = {})",
        params.m, params.t, params.p
    );
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let started = Instant::now();
    let ticker = std::thread::spawn(move || {
        let frames = ['|', '/', '-', '\\'];
        let mut i = 0usize;
        while done_rx.recv_timeout(Duration::from_millis(120)).is_err() {
            let frame = frames.get(i % frames.len()).copied().unwrap_or('|');
            eprint!("\r{frame} {label} {:.1}s", started.elapsed().as_secs_f64());
            i = i.wrapping_add(1);
        }
        eprintln!("\r  {label}: {:.1}s", started.elapsed().as_secs_f64());
    });
    let out = work();
    let _ = done_tx.send(());
    let _ = ticker.join();
    out
}
