//! HTTP/1.1 over TCP (hyper): reads each request whole (bounded), hands it
//! to the [`Service`] under one lock, writes the answer, or closes the
//! connection unanswered when a fault asked for a lost response. The
//! events long-poll waits here, outside the lock.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio::net::TcpListener;
use tokio::sync::{Mutex, Notify};

use crate::service::{Request, Response, Service};

/// The largest request body read (the API's own largest, a webhook, is
/// 256 KB; sealed messages are larger, bounded by the core's 1 MiB
/// plaintext).
const MAX_BODY: usize = 4 * 1024 * 1024;

/// The longest a `GET /_serve/events` waits for an event.
const MAX_WAIT_MS: u64 = 30_000;

/// The clock, in Unix milliseconds.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

struct Shared {
    service: Mutex<Service>,
    events: Notify,
}

/// Serves `service` on `listener` until the process ends.
///
/// # Errors
///
/// The listener's accept error.
pub async fn serve(listener: TcpListener, service: Service) -> std::io::Result<()> {
    let shared = Arc::new(Shared {
        service: Mutex::new(service),
        events: Notify::new(),
    });
    loop {
        let (stream, _peer): (_, SocketAddr) = listener.accept().await?;
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let io = TokioIo::new(stream);
            // A lost answer: the request's handler says so here, and the
            // connection is dropped (closed) before hyper writes anything.
            let (lose, mut lost) = tokio::sync::mpsc::channel::<()>(1);
            let svc = service_fn(move |req| {
                let shared = Arc::clone(&shared);
                let lose = lose.clone();
                async move {
                    match read_and_handle(&shared, req).await {
                        Outcome::Answer(r) => Ok::<_, Infallible>(r),
                        Outcome::Drop => {
                            let _ = lose.send(()).await;
                            std::future::pending().await
                        }
                    }
                }
            });
            let connection = http1::Builder::new().serve_connection(io, svc);
            // A connection the client or a fault closed is not an error of
            // the stand-in's.
            tokio::select! {
                _ = connection => {}
                _ = lost.recv() => {}
            }
        });
    }
}

enum Outcome {
    Answer(hyper::Response<Full<Bytes>>),
    Drop,
}

async fn read_and_handle(shared: &Shared, req: hyper::Request<Incoming>) -> Outcome {
    let (parts, body) = req.into_parts();
    let body = match Limited::new(body, MAX_BODY).collect().await {
        Ok(b) => b.to_bytes().to_vec(),
        Err(_) => return Outcome::Answer(to_hyper(Response::error(413, "The body is too large"))),
    };
    let path = parts.uri.path().to_owned();
    let query: Vec<(String, String)> = parts
        .uri
        .query()
        .map(|q| {
            q.split('&')
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (k, v) = p.split_once('=').unwrap_or((p, ""));
                    (decode_component(k), decode_component(v))
                })
                .collect()
        })
        .unwrap_or_default();
    let headers: Vec<(String, String)> = parts
        .headers
        .iter()
        .filter_map(|(n, v)| {
            v.to_str()
                .ok()
                .map(|v| (n.as_str().to_owned(), v.to_owned()))
        })
        .collect();
    let request = Request {
        method: parts.method.as_str().to_owned(),
        path,
        query,
        headers,
        body,
    };
    if request.method == "OPTIONS" {
        // A browser's preflight: a web front end on another local origin may call.
        let mut r = Response::error(204, "");
        r.body.clear();
        r.headers = vec![
            (
                "Access-Control-Allow-Methods".to_owned(),
                "GET, POST, PUT, PATCH, DELETE".to_owned(),
            ),
            (
                "Access-Control-Allow-Headers".to_owned(),
                "Authorization, Content-Type, Service-Version, X-Service-Callback-Token".to_owned(),
            ),
            ("Access-Control-Max-Age".to_owned(), "600".to_owned()),
        ];
        return Outcome::Answer(to_hyper(r));
    }
    if request.method == "GET" && request.path == "/_serve/events" {
        return Outcome::Answer(to_hyper(events(shared, &request).await));
    }
    let response = {
        let mut service = shared.service.lock().await;
        service.handle(&request, now_ms())
    };
    // Anything may have produced an event: wake the long polls to look.
    shared.events.notify_waiters();
    if response.drop_connection {
        return Outcome::Drop;
    }
    Outcome::Answer(to_hyper(response))
}

/// `GET /_serve/events?after=N&waitMs=M`: the caller's events after `N`,
/// waiting up to `M` ms (at most 30 s) for one to come.
async fn events(shared: &Shared, request: &Request) -> Response {
    let param = |name: &str| {
        request
            .query
            .iter()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.parse::<u64>().ok())
    };
    let after = param("after").unwrap_or(0);
    let wait = param("waitMs").unwrap_or(0).min(MAX_WAIT_MS);
    let key = request
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("authorization"))
        .and_then(|(_, v)| v.strip_prefix("Bearer "))
        .unwrap_or_default()
        .to_owned();
    let deadline = tokio::time::Instant::now() + Duration::from_millis(wait);
    loop {
        let notified = shared.events.notified();
        let found = shared.service.lock().await.events_for(&key, after);
        match found {
            None => return Response::error(401, "Invalid API key"),
            Some((list, next)) if !list.is_empty() || tokio::time::Instant::now() >= deadline => {
                return Response::json(200, &json!({"data": list, "next": next}));
            }
            Some(_) => {
                if tokio::time::timeout_at(deadline, notified).await.is_err() {
                    let (list, next) = shared
                        .service
                        .lock()
                        .await
                        .events_for(&key, after)
                        .unwrap_or_default();
                    return Response::json(200, &json!({"data": list, "next": next}));
                }
            }
        }
    }
}

fn decode_component(text: &str) -> String {
    let spaced = text.replace('+', " ");
    let bytes = spaced.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b, hex) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Every answer may be read by a page of any origin (a development tool on
/// loopback), its rate-limit and version headers included.
fn to_hyper(response: Response) -> hyper::Response<Full<Bytes>> {
    let mut builder = hyper::Response::builder()
        .status(response.status)
        .header("Access-Control-Allow-Origin", "*")
        .header(
            "Access-Control-Expose-Headers",
            "Service-Version, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After",
        );
    for (name, value) in &response.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    builder
        .body(Full::new(Bytes::from(response.body)))
        .unwrap_or_else(|_| hyper::Response::new(Full::new(Bytes::new())))
}
