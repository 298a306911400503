//! `--metrics-listen ADDR`: the run's counters for Prometheus.
//!
//! `GET /metrics` answers the Prometheus text exposition format (version 0.0.4): every
//! numeric counter of the live snapshot (the tree `dump-counters` and stats.json show)
//! as `osprey_<path with dots and dashes as underscores>`, each with its `# HELP` and
//! `# TYPE` lines (`counter`, or `gauge` for sizes and levels such as `uptime` or
//! `*.memuse`). Anything else gets 404 (405 for a method other than GET/HEAD); a request
//! head over [`MAX_REQUEST`] bytes gets 431. One small thread accepts; each connection
//! is answered on a thread of its own with a read timeout, so a slow client delays
//! nobody and never the engine.

use crate::socket::commands::Context;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The largest request head read (bytes).
pub const MAX_REQUEST: usize = 8 * 1024;
/// Connections answered at once; more are closed.
const MAX_CONNECTIONS: usize = 16;

/// Stops the endpoint when dropped.
pub struct MetricsGuard {
    done: Arc<AtomicBool>,
}

impl Drop for MetricsGuard {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
    }
}

/// Listens on `addr` (`127.0.0.1:9090`, `[::]:9100`, ...) for metric scrapes.
pub fn serve(addr: &str, ctx: Arc<Context>) -> Result<MetricsGuard, String> {
    let listener = TcpListener::bind(addr).map_err(|e| format!("--metrics-listen {addr}: {e}"))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("--metrics-listen {addr}: {e}"))?;
    let done = Arc::new(AtomicBool::new(false));
    let stop = done.clone();
    let open = Arc::new(AtomicUsize::new(0));
    std::thread::Builder::new()
        .name("osprey-metrics".into())
        .spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let Ok((stream, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                };
                if open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                    open.fetch_sub(1, Ordering::SeqCst);
                    continue;
                }
                let (ctx, count) = (ctx.clone(), open.clone());
                let spawned = std::thread::Builder::new()
                    .name("osprey-metrics-client".into())
                    .spawn(move || {
                        let _ = answer(stream, &ctx);
                        count.fetch_sub(1, Ordering::SeqCst);
                    });
                if spawned.is_err() {
                    open.fetch_sub(1, Ordering::SeqCst);
                }
            }
        })
        .map_err(|e| format!("metrics thread: {e}"))?;
    eprintln!("osprey: metrics on http://{addr}/metrics");
    Ok(MetricsGuard { done })
}

/// Reads one request head and answers it.
fn answer(mut stream: TcpStream, ctx: &Context) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    let complete = loop {
        if head.windows(4).any(|w| w == b"\r\n\r\n") || head.windows(2).any(|w| w == b"\n\n") {
            break true;
        }
        if head.len() > MAX_REQUEST {
            break false;
        }
        let n = stream.read(&mut buf)?;
        if n == 0 {
            break !head.is_empty();
        }
        head.extend_from_slice(&buf[..n]);
    };
    let (status, body) = if !complete {
        ("431 Request Header Fields Too Large", String::new())
    } else {
        route(&head, || render(&ctx.counters().to_json()))
    };
    let head_only = head.starts_with(b"HEAD ");
    let reply = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        if status.starts_with("200") {
            "text/plain; version=0.0.4; charset=utf-8"
        } else {
            "text/plain; charset=utf-8"
        },
        body.len()
    );
    stream.write_all(reply.as_bytes())?;
    if !head_only {
        stream.write_all(body.as_bytes())?;
    }
    stream.flush()?;
    if !complete {
        // Read (a bounded amount of) what is still coming, so that the client gets
        // the answer rather than a reset.
        let _ = stream.shutdown(std::net::Shutdown::Write);
        stream.set_read_timeout(Some(Duration::from_millis(200)))?;
        let mut left = 1usize << 20;
        while let Ok(n @ 1..) = stream.read(&mut buf) {
            left = left.saturating_sub(n);
            if left == 0 {
                break;
            }
        }
    }
    Ok(())
}

/// The status and body for a request head; `metrics` renders the page.
fn route(head: &[u8], metrics: impl FnOnce() -> String) -> (&'static str, String) {
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = target.split('?').next().unwrap_or("");
    match (method, path) {
        ("GET" | "HEAD", "/metrics") => ("200 OK", metrics()),
        (_, "/metrics") => ("405 Method Not Allowed", "method not allowed\n".into()),
        _ => ("404 Not Found", "not found: try /metrics\n".into()),
    }
}

/// The counters tree in the text exposition format.
pub fn render(tree: &Value) -> String {
    let mut out = String::new();
    walk(tree, &mut String::new(), &mut out);
    out
}

fn walk(v: &Value, name: &mut String, out: &mut String) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                let len = name.len();
                if !name.is_empty() {
                    name.push('.');
                }
                name.push_str(k);
                walk(child, name, out);
                name.truncate(len);
            }
        }
        Value::Number(n) => {
            let metric = metric_name(name);
            let kind = if is_gauge(name) { "gauge" } else { "counter" };
            out.push_str(&format!(
                "# HELP {metric} Osprey counter {name}.\n# TYPE {metric} {kind}\n{metric} {n}\n"
            ));
        }
        // Lists (detect.engines) and strings carry no sample.
        _ => {}
    }
}

/// `decoder.pkts` → `osprey_decoder_pkts`: characters outside `[a-zA-Z0-9_]` become `_`.
fn metric_name(path: &str) -> String {
    let mut s = String::with_capacity(path.len() + 7);
    s.push_str("osprey_");
    s.extend(path.chars().map(|c| {
        if c.is_ascii_alphanumeric() || c == '_' {
            c
        } else {
            '_'
        }
    }));
    s
}

/// Values that go up and down (sizes, levels) rather than counting events.
fn is_gauge(path: &str) -> bool {
    let last = path.rsplit('.').next().unwrap_or(path);
    path == "uptime"
        || last.contains("memuse")
        || last.starts_with("active")
        || last.starts_with("avg_")
        || last.starts_with("max_")
        || last == "memcap"
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn exposition_format() {
        let t = json!({"uptime": 3, "decoder": {"pkts": 78, "avg_pkt_size": 320},
                       "app_layer": {"flow": {"dns-udp": 4}},
                       "detect": {"engines": [{"id": 0}]}});
        let text = render(&t);
        assert!(text.contains("# TYPE osprey_decoder_pkts counter\nosprey_decoder_pkts 78\n"));
        assert!(text.contains("# HELP osprey_decoder_pkts Osprey counter decoder.pkts.\n"));
        assert!(text.contains("# TYPE osprey_uptime gauge\nosprey_uptime 3\n"));
        assert!(text.contains("# TYPE osprey_decoder_avg_pkt_size gauge\n"));
        assert!(text.contains("osprey_app_layer_flow_dns_udp 4\n"));
        assert!(!text.contains("engines"));
    }

    #[test]
    fn routes() {
        let page = || "x 1\n".to_string();
        assert_eq!(route(b"GET /metrics HTTP/1.1\r\n\r\n", page).0, "200 OK");
        assert_eq!(route(b"GET /metrics?a=b HTTP/1.1\r\n\r\n", page).1, "x 1\n");
        assert_eq!(route(b"GET / HTTP/1.1\r\n\r\n", page).0, "404 Not Found");
        assert!(route(b"POST /metrics HTTP/1.1\r\n\r\n", page)
            .0
            .starts_with("405"));
        assert_eq!(route(b"\xff\xfe garbage", page).0, "404 Not Found");
    }
}
