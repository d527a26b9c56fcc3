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
        let (stream, _peer): (_, SocketAddr) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of descriptors, a connection aborted before it was
            // accepted: the stand-in keeps serving the others.
            Err(e) => {
                eprintln!("streamseal serve: accept: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
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
        Err(_) => {
            return Outcome::Answer(to_hyper(
                Response::error(413, "The body is too large"),
                None,
            ));
        }
    };
    let path = parts.uri.path().to_owned();
    let origin = parts
        .headers
        .get("origin")
        .and_then(|v| v.to_str().ok())
        .and_then(loopback_origin);
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
        return Outcome::Answer(to_hyper(r, origin.as_deref()));
    }
    if request.method == "GET" && request.path == "/_serve/events" {
        return Outcome::Answer(to_hyper(events(shared, &request).await, origin.as_deref()));
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
    Outcome::Answer(to_hyper(response, origin.as_deref()))
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

/// A query component: `+` is a space, then percent-decoding.
fn decode_component(text: &str) -> String {
    crate::service::percent_decode(&text.replace('+', " "))
}

/// The `Origin` of a page served from this machine (`http://127.0.0.1`,
/// `http://localhost`, `http://[::1]`, any port), which may read the
/// answers; a page of any other origin may not (it could otherwise read
/// the seeded keys).
fn loopback_origin(origin: &str) -> Option<String> {
    let rest = origin.strip_prefix("http://")?;
    let host = match rest.strip_prefix("[::1]") {
        Some(port) => port,
        None => {
            let (host, port) = rest.split_once(':').unwrap_or((rest, ""));
            if host != "127.0.0.1" && host != "localhost" {
                return None;
            }
            if port.is_empty() { "" } else { port }
        }
    };
    let port_ok = host.is_empty()
        || host
            .trim_start_matches(':')
            .chars()
            .all(|c| c.is_ascii_digit());
    port_ok.then(|| origin.to_owned())
}

/// The answer for hyper; a loopback page may read it, its rate-limit,
/// version and `Date` headers included (a `Retry-After` date is measured
/// against `Date`).
fn to_hyper(response: Response, origin: Option<&str>) -> hyper::Response<Full<Bytes>> {
    let mut builder = hyper::Response::builder().status(response.status);
    if let Some(origin) = origin {
        builder = builder
            .header("Access-Control-Allow-Origin", origin)
            .header("Vary", "Origin")
            .header(
                "Access-Control-Expose-Headers",
                "Date, Service-Version, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After",
            );
    }
    for (name, value) in &response.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    builder
        .body(Full::new(Bytes::from(response.body)))
        .unwrap_or_else(|_| hyper::Response::new(Full::new(Bytes::new())))
}

#[cfg(test)]
mod tests {
    use super::loopback_origin;

    #[test]
    fn only_pages_of_this_machine_may_read_the_answers() {
        for ok in [
            "http://127.0.0.1:5173",
            "http://localhost",
            "http://localhost:8080",
            "http://[::1]:3000",
        ] {
            assert_eq!(loopback_origin(ok).as_deref(), Some(ok));
        }
        for refused in [
            "http://evil.test",
            "http://127.0.0.1.evil.test",
            "http://localhost.evil.test:80",
            "http://localhost:80@evil.test",
            "https://evil.test",
            "null",
        ] {
            assert_eq!(loopback_origin(refused), None, "{refused}");
        }
    }
}
