//! HTTP/2's EVE object: a stream's transaction logged as Suricata 7 logs it, an `http`
//! record with `version: "2"`, every header field of each side in order
//! (`request_headers`, `response_headers`, pseudo-headers included), the fields taken
//! from them (`http_method`, `url`, `status`, `http_user_agent`, `length`) and the
//! `http2{}` object (`stream_id`, and per side the `priority` weight and the
//! `error_code` of a RST_STREAM).

use serde_json::{Map, Value};

use crate::http::{HttpTx, Message};
use crate::log::{bytes_str, set_bytes};

/// What a stream's transaction keeps beside its HTTP fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct H2Info {
    /// The stream's id.
    pub stream_id: u32,
    /// The priority weight (as sent: weight − 1) of each side, request first.
    pub priority: [Option<u8>; 2],
    /// The error code of a RST_STREAM each side sent.
    pub error_code: [Option<u32>; 2],
}

/// Suricata's name of an HTTP/2 error code (RFC 9113 section 7, without underscores).
pub fn error_name(code: u32) -> String {
    const NAMES: [&str; 14] = [
        "NOERROR",
        "PROTOCOLERROR",
        "INTERNALERROR",
        "FLOWCONTROLERROR",
        "SETTINGSTIMEOUT",
        "STREAMCLOSED",
        "FRAMESIZEERROR",
        "REFUSEDSTREAM",
        "CANCEL",
        "COMPRESSIONERROR",
        "CONNECTERROR",
        "ENHANCEYOURCALM",
        "INADEQUATESECURITY",
        "HTTP11REQUIRED",
    ];
    NAMES
        .get(code as usize)
        .map_or_else(|| code.to_string(), |n| (*n).to_string())
}

fn header_list(m: &Message) -> Value {
    Value::Array(
        m.headers
            .iter()
            .map(|h| {
                let mut o = Map::new();
                o.insert("name".into(), bytes_str(&h.name).into());
                o.insert("value".into(), bytes_str(&h.value).into());
                Value::Object(o)
            })
            .collect(),
    )
}

fn field<'a>(m: &'a Message, name: &[u8]) -> Option<&'a [u8]> {
    m.headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case(name))
        .map(|h| h.value.as_slice())
}

fn side(info: &H2Info, k: usize) -> Value {
    let mut o = Map::new();
    if let Some(p) = info.priority[k] {
        o.insert("priority".into(), p.into());
    }
    if let Some(e) = info.error_code[k] {
        o.insert("error_code".into(), error_name(e).into());
    }
    Value::Object(o)
}

/// The `http` object of an HTTP/2 stream's transaction.
pub fn http2_object(tx: &HttpTx, info: &H2Info) -> Value {
    let (req, res) = (tx.request(), tx.response());
    let mut o = Map::new();
    o.insert("version".into(), "2".into());
    if !req.headers.is_empty() {
        o.insert("request_headers".into(), header_list(req));
    }
    if !res.headers.is_empty() {
        o.insert("response_headers".into(), header_list(res));
    }
    set_bytes(&mut o, "http_method", field(req, b":method"));
    set_bytes(&mut o, "url", field(req, b":path"));
    if let Some(s) = tx.status() {
        o.insert("status".into(), s.into());
    }
    set_bytes(&mut o, "http_user_agent", field(req, b"user-agent"));
    // The last content-length seen, the response's over the request's.
    let length = [res, req]
        .into_iter()
        .filter_map(|m| field(m, b"content-length"))
        .find_map(|v| std::str::from_utf8(v).ok()?.trim().parse::<u64>().ok());
    if let Some(n) = length {
        o.insert("length".into(), n.into());
    }
    let mut h2 = Map::new();
    h2.insert("stream_id".into(), info.stream_id.into());
    h2.insert("request".into(), side(info, 0));
    h2.insert("response".into(), side(info, 1));
    o.insert("http2".into(), Value::Object(h2));
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_names() {
        assert_eq!(error_name(0), "NOERROR");
        assert_eq!(error_name(8), "CANCEL");
        assert_eq!(error_name(13), "HTTP11REQUIRED");
        assert_eq!(error_name(99), "99");
    }
}
