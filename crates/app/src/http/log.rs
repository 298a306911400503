//! HTTP's EVE object, with Suricata 7's field names and order.

use serde_json::{Map, Value};

use super::HttpTx;
use crate::log::{bytes_str, set_bytes};

/// Parses `bytes START-END/SIZE` (`*` allowed for the range or the size).
fn content_range(raw: &[u8]) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("raw".into(), bytes_str(raw).into());
    let s = String::from_utf8_lossy(raw);
    let s = s.trim();
    let rest = s
        .strip_prefix("bytes")
        .map(str::trim_start)
        .unwrap_or(s)
        .trim_start_matches(['=', ' ']);
    let Some((range, size)) = rest.split_once('/') else {
        return o;
    };
    let mut fields = Map::new();
    if range.trim() != "*" {
        let Some((a, b)) = range.split_once('-') else {
            return o;
        };
        match (a.trim().parse::<u64>(), b.trim().parse::<u64>()) {
            (Ok(a), Ok(b)) => {
                fields.insert("start".into(), a.into());
                fields.insert("end".into(), b.into());
            }
            _ => return o,
        }
    }
    if size.trim() != "*" {
        match size.trim().parse::<u64>() {
            Ok(n) => {
                fields.insert("size".into(), n.into());
            }
            Err(_) => return o,
        }
    }
    o.extend(fields);
    o
}

/// The `http` object of a transaction: hostname, http_port, url, http_user_agent, xff,
/// http_content_type, content_range; with `extended` also http_refer, http_method,
/// protocol, status, redirect and length. An HTTP/2 stream's transaction is written as
/// Suricata writes it ([`crate::http2::log::http2_object`]).
pub fn http_object(tx: &HttpTx, extended: bool) -> Value {
    if let Some(h2) = tx.h2() {
        return crate::http2::log::http2_object(tx, h2);
    }
    let req = tx.request();
    let res = tx.response();
    let mut o = Map::new();
    set_bytes(&mut o, "hostname", tx.host());
    if let Some(p) = tx.port() {
        o.insert("http_port".into(), p.into());
    }
    set_bytes(&mut o, "url", tx.uri_raw());
    set_bytes(&mut o, "http_user_agent", req.header("user-agent"));
    set_bytes(&mut o, "xff", req.header("x-forwarded-for"));
    if let Some(ct) = res.header("content-type") {
        let end = ct.iter().position(|&b| b == b';').unwrap_or(ct.len());
        o.insert("http_content_type".into(), bytes_str(&ct[..end]).into());
    }
    if let Some(cr) = res.header("content-range") {
        o.insert("content_range".into(), Value::Object(content_range(cr)));
    }
    if extended {
        set_bytes(&mut o, "http_refer", req.header("referer"));
        set_bytes(&mut o, "http_method", tx.method());
        set_bytes(
            &mut o,
            "protocol",
            tx.request_protocol().filter(|p| !p.is_empty()),
        );
        if let Some(s) = tx.status() {
            o.insert("status".into(), s.into());
        }
        set_bytes(&mut o, "redirect", res.header("location"));
        o.insert("length".into(), res.body_wire_len().into());
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AppCtx, AppFlow, Direction, Transport};

    #[test]
    fn http_object_fields() {
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Tcp, 39867, 80);
        f.parse(
            &mut ctx,
            Direction::ToServer,
            b"GET /a%20b?x=1 HTTP/1.1\r\nHost: WWW.Example.com:8080\r\nUser-Agent: Wget/1.11.4\r\n\
              X-Forwarded-For: 10.2.2.2\r\nReferer: http://r/\r\n\r\n",
        );
        f.parse(
            &mut ctx,
            Direction::ToClient,
            b"HTTP/1.1 206 Partial\r\nContent-Type: text/html; charset=UTF-8\r\n\
              Content-Range: bytes 500-1000/146515\r\nLocation: /next\r\nContent-Length: 3\r\n\r\nabc",
        );
        let tx = f.http().unwrap().tx(0).unwrap();
        let h = http_object(tx, false);
        let keys: Vec<&str> = h.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "hostname",
                "http_port",
                "url",
                "http_user_agent",
                "xff",
                "http_content_type",
                "content_range"
            ]
        );
        assert_eq!(h["hostname"], "www.example.com");
        assert_eq!(h["http_port"], 8080);
        assert_eq!(h["url"], "/a%20b?x=1");
        assert_eq!(h["http_content_type"], "text/html");
        assert_eq!(
            h["content_range"],
            serde_json::json!({"raw": "bytes 500-1000/146515", "start": 500, "end": 1000, "size": 146515})
        );
        let x = http_object(tx, true);
        assert_eq!(x["http_method"], "GET");
        assert_eq!(x["protocol"], "HTTP/1.1");
        assert_eq!(x["status"], 206);
        assert_eq!(x["redirect"], "/next");
        assert_eq!(x["http_refer"], "http://r/");
        assert_eq!(x["length"], 3);
    }

    #[test]
    fn content_range_variants() {
        let c = content_range(b"bytes */100");
        assert_eq!(c.get("size"), Some(&Value::from(100)));
        assert!(c.get("start").is_none());
        let c = content_range(b"nonsense");
        assert_eq!(c.len(), 1);
    }
}
