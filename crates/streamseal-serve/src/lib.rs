//! `streamseal serve`: a local stand-in of the workspace messaging service
//! on 127.0.0.1, over real HTTP, for development and tests. **It is a test
//! double, not the service**: state lives in memory and is gone when it
//! stops; it answers the endpoints a sealed-stream app and a bot runtime
//! use ([`service::SERVED`]) and 501 `NOT_IMPLEMENTED` to the others.
//!
//! What it does as the API says (API §4, §7, §8, §9):
//!
//! - requests routed by the core's catalogue and read by the core's
//!   decoder, so that a request the library refuses to build is a 400 with
//!   the same `details`;
//! - `Authorization: Bearer` keys of one seeded user and its bots; per-key
//!   rolling-window rate limits with `RateLimit-*` headers and a 429 body
//!   with `Retry-After`; `Service-Version` pinning, `INVALID_API_VERSION`
//!   and the version echo;
//! - sealed scratchpad sessions, key wraps (current generation only, once),
//!   messages with `clientMessageId` idempotency, presence with machine
//!   keys, invocations summoned by the owner's messages, claim, renew,
//!   steps, sealed steps, sealed messages, sealed and plain completion,
//!   failure.
//!
//! What the real service does elsewhere, served under `/_serve/` (not part
//! of the API):
//!
//! - `GET /_serve/seed`: who is who (also printed on start);
//! - `PUT /_serve/e2e-key`: the user sets up their key (the app's settings);
//! - `POST /_serve/streams/{id}/key-wraps`: the owner's app posts a
//!   generation's wraps (the first, or the next: a roll);
//! - `POST /_serve/streams/{id}/remove-bot`: the owner removes the bot
//!   (its wraps deleted, `bot:e2e_revoke` sent);
//! - `GET /_serve/events?after=N&waitMs=M`: the caller's events
//!   (`bot_invocation:available`, `bot:e2e_revoke`) as a long poll, where
//!   the service uses its realtime channel;
//! - `POST /_serve/hostile` `{attacks: [...]}`: which of the active
//!   server's attacks it performs from now on ([`hostile`]; `--hostile` at
//!   start);
//! - `POST /_serve/faults` `{endpoint, status?, retryAfter?, times?}`: the
//!   next calls of `endpoint` answer `status` (with `Retry-After`), or,
//!   without a status, do the work and lose the answer (the connection
//!   closes unanswered).
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use streamseal_serve::{Options, Service, serve, now_ms};
//!
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let service = Service::new(Options::default(), now_ms());
//! println!("{}", service.seed().to_json());
//! serve(listener, service).await
//! # }
//! ```

pub mod hostile;
mod http;
pub mod service;

pub use http::{now_ms, serve};
pub use service::{Options, Request, Response, Seed, Service};

/// Binds `127.0.0.1:port` (0: any free port), tells `ready` the seed and
/// the address, and serves until the process ends, on a runtime of its own
/// (what `streamseal serve` runs).
///
/// # Errors
///
/// The runtime's, the bind's or the listener's I/O error.
pub fn run(
    port: u16,
    options: Options,
    ready: impl FnOnce(&Seed, std::net::SocketAddr),
) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
        let service = Service::new(options, now_ms());
        ready(service.seed(), listener.local_addr()?);
        serve(listener, service).await
    })
}
