//! `streamseal`: the command line of the streamseal library.
//!
//! `streamseal demo` runs the whole sealed-stream story in one process; the
//! other commands are tools for developers working with the format and the
//! wire. Errors print one line, `error[CODE]: message`, and exit with status 1
//! (2 for usage errors).

mod demo;
mod demo_http;
mod failure;
mod files;
mod inspect;
mod passphrase;
mod serve;
mod tools;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Sealed streams of the workspace messaging API, from the command line.
#[derive(Parser, Debug)]
#[command(name = "streamseal", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the end-to-end sealed-stream demo (owner, bot runtime on two machines, removal, attacks).
    Demo {
        /// Print a machine-readable JSON transcript instead of the narrated one.
        #[arg(long)]
        json: bool,
        /// Run over HTTP against `streamseal serve` at this URL (e.g. http://127.0.0.1:8787)
        /// instead of in process.
        #[arg(long)]
        server: Option<String>,
    },
    /// Generate an X25519 identity key (a key file holding the secret key).
    Keygen(tools::Keygen),
    /// Create or open a passphrase-protected private-key bundle.
    #[command(subcommand)]
    Bundle(tools::Bundle),
    /// Create a keyring file for a root stream.
    #[command(subcommand)]
    Keyring(tools::KeyringCmd),
    /// Wrap a stream key to a recipient's public key (HPKE auth mode, from a sender's key file).
    Wrap(tools::Wrap),
    /// Open a key wrap with a key file into a keyring file, from an accepted sender only.
    Unwrap(tools::Unwrap),
    /// Seal a plaintext into a slot with a keyring file, signed by the sender's key file (`--from`, `--as`).
    Seal(tools::SealArgs),
    /// Open a sealed payload bound to an expected slot, from an accepted sender; says who sealed it.
    Open(tools::OpenArgs),
    /// Validate and pretty-print wire JSON: its shape, version shape and broken bounds.
    Inspect(inspect::Inspect),
    /// Run a local stand-in of the service on 127.0.0.1 over HTTP (a test double, in memory).
    Serve(serve::Serve),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match &cli.command {
        Command::Demo { json, server: None } => demo::run(*json),
        Command::Demo {
            json,
            server: Some(url),
        } => demo_http::run(url, *json),
        Command::Keygen(c) => c.run(),
        Command::Bundle(c) => c.run(),
        Command::Keyring(c) => c.run(),
        Command::Wrap(c) => c.run(),
        Command::Unwrap(c) => c.run(),
        Command::Seal(c) => c.run(),
        Command::Open(c) => c.run(),
        Command::Inspect(c) => c.run(),
        Command::Serve(c) => c.run(),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("{failure}");
            ExitCode::FAILURE
        }
    }
}
