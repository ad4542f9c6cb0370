//! The metrics endpoint: `/metrics` (OpenMetrics text), `/health` (liveness), `/ready`
//! (readiness) over HTTP/1.1, served by hyper on the tokio runtime.
//!
//! Contract: GET or HEAD only (405 otherwise), 404 for other paths. `/health` answers 200 while
//! the process serves at all; `/ready` answers 200 once the catalog is loaded and input is being
//! read, 503 with the reason (`starting`, `stopping`) otherwise. A connection's failure is
//! logged at debug level and never affects the others or the pipeline. The endpoint holds at
//! most [`MAX_CONNECTIONS`] connections (more wait in the listen queue), each closed when its
//! headers are slow ([`HEADER_TIMEOUT`]) or after [`CONNECTION_LIFETIME`]: idle or hostile
//! clients cannot take the descriptors and memory the pipeline needs.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

use super::Metrics;

/// OpenMetrics content type: what `prometheus_client`'s text encoder writes, and what
/// Prometheus negotiates first.
const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
/// Connections served at once: Prometheus and a probe or two need a handful; 20,400 idle ones
/// once took every descriptor (and checkpoints with them).
pub const MAX_CONNECTIONS: usize = 64;
/// A request's headers must arrive within this (slowloris), and a kept-alive connection must
/// send its next request within it.
pub const HEADER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
/// Longest life of one connection: a scraper reconnects; a client that holds one does not keep
/// it.
pub const CONNECTION_LIFETIME: std::time::Duration = std::time::Duration::from_secs(60);

/// Bind `addr` now (a bad or busy address fails here, at start) and serve on a thread of its
/// own with a one-thread runtime: the endpoint answers even while the pipeline is blocked on a
/// full output, and it is the same in every mode.
pub fn spawn(addr: std::net::SocketAddr, metrics: Arc<Metrics>) -> std::io::Result<std::net::SocketAddr> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let listener = rt.block_on(tokio::net::TcpListener::bind(addr))?;
    let local = listener.local_addr()?;
    std::thread::Builder::new().name("annotail-metrics".into()).spawn(move || rt.block_on(serve(listener, metrics)))?;
    Ok(local)
}

/// Serve until the task is aborted.
pub async fn serve(listener: tokio::net::TcpListener, metrics: Arc<Metrics>) {
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    loop {
        // At the cap, nothing more is accepted: new clients wait in the kernel's queue.
        let Ok(permit) = slots.clone().acquire_owned().await else { return };
        let (stream, peer) = match listener.accept().await {
            Ok(s) => s,
            Err(e) => {
                // Out of descriptors and the like: wait a little rather than spin.
                tracing::warn!(cause = %e, "metrics endpoint: accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                continue;
            }
        };
        let metrics = metrics.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let service = hyper::service::service_fn(move |req| {
                let metrics = metrics.clone();
                async move { Ok::<_, Infallible>(respond(&req, &metrics).await) }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .max_buf_size(64 << 10)
                .serve_connection(TokioIo::new(stream), service);
            match tokio::time::timeout(CONNECTION_LIFETIME, conn).await {
                Ok(Err(e)) => tracing::debug!(%peer, cause = %e, "metrics endpoint: connection ended with an error"),
                Err(_) => tracing::debug!(%peer, "metrics endpoint: connection closed at its lifetime"),
                Ok(Ok(())) => {}
            }
        });
    }
}

async fn respond(req: &Request<Incoming>, metrics: &Arc<Metrics>) -> Response<Full<Bytes>> {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return text(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD\n");
    }
    match req.uri().path() {
        "/metrics" => {
            // Encoding walks every series and may call the refresh hook (file system stats).
            let m = metrics.clone();
            let body = tokio::task::spawn_blocking(move || m.encode()).await.unwrap_or_default();
            let mut r = Response::new(Full::new(Bytes::from(body)));
            r.headers_mut().insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static(CONTENT_TYPE));
            r
        }
        "/health" => text(StatusCode::OK, "ok\n"),
        "/ready" => match metrics.not_ready() {
            None => text(StatusCode::OK, "ready\n"),
            Some(why) => text(StatusCode::SERVICE_UNAVAILABLE, &format!("not ready: {why}\n")),
        },
        _ => text(StatusCode::NOT_FOUND, "not found; try /metrics, /health or /ready\n"),
    }
}

fn text(status: StatusCode, body: &str) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(body.to_owned())));
    *r.status_mut() = status;
    r.headers_mut().insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("text/plain"));
    r
}
