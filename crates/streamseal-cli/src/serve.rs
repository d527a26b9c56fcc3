//! `streamseal serve`: the local stand-in of the service (crate
//! `streamseal-serve`), for development and tests. It prints one line of
//! JSON, the seed (`baseUrl`, `workspaceId`, the user's and the bots' ids
//! and keys), then serves until stopped.

use std::io::Write;

use clap::Args;
use streamseal::wire::version::ApiVersion;
use streamseal_serve::Options;
use streamseal_serve::hostile::Attack;

use crate::failure::{Failure, Outcome};

/// Options of `streamseal serve`.
#[derive(Args, Debug)]
pub struct Serve {
    /// The port on 127.0.0.1 (0: any free one, printed in `baseUrl`).
    #[arg(long, default_value_t = 8787)]
    port: u16,
    /// Requests per API key per window (API §8: 60); 0 turns the limit off.
    #[arg(long, default_value_t = 60)]
    rate_limit: u32,
    /// The rate-limit window in milliseconds.
    #[arg(long, default_value_t = 60_000)]
    window_ms: u64,
    /// Pin every key to this version (default: unpinned, the latest).
    #[arg(long)]
    pin: Option<String>,
    /// How many bots to seed (each with its own key).
    #[arg(long, default_value_t = 1)]
    bots: usize,
    /// Attack the clients as an active server would, from the start:
    /// `mint-generation`, `forge-prompt`, `rollback`, `downgrade` (comma-separated).
    #[arg(long, value_delimiter = ',')]
    hostile: Vec<String>,
}

impl Serve {
    /// Serves until the process is stopped.
    pub fn run(&self) -> Outcome {
        let pinned = self.pin.as_deref().map(ApiVersion::parse).transpose()?;
        let attacks = self
            .hostile
            .iter()
            .map(|name| {
                Attack::parse(name).ok_or_else(|| {
                    Failure::usage(format!(
                        "unknown attack `{name}`; the attacks: {}",
                        Attack::ALL.map(Attack::as_str).join(", ")
                    ))
                })
            })
            .collect::<Outcome<Vec<_>>>()?;
        let options = Options {
            rate_limit: self.rate_limit,
            window_ms: self.window_ms,
            pinned,
            bots: self.bots,
            attacks,
        };
        streamseal_serve::run(self.port, options, |seed, addr| {
            let mut line = seed.to_json();
            if let Some(o) = line.as_object_mut() {
                o.insert("baseUrl".to_owned(), format!("http://{addr}").into());
            }
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
            eprintln!(
                "streamseal serve: a local stand-in of the service for development and tests, on http://{addr} (state in memory)"
            );
        })
        .map_err(|e| Failure::io("serve", e))
    }
}
