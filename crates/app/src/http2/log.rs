//! HTTP/2's EVE object: a stream's transaction logged as Suricata 7 logs it, an `http`
//! record with `version: "2"`, every header field of each side in order
//! (`request_headers`, `response_headers`, pseudo-headers included), the fields taken
//! from them (`http_method`, `url`, `status`, `http_user_agent`, `length`) and the
//! `http2{}` object (`stream_id`, and per side the `priority` weight and the
//! `error_code` of a RST_STREAM); `hostname` comes from a `host` header only.

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
    /// Per side, the HPACK dynamic table size updates: (number of header fields
    /// before it, new size), logged in the header list as `{"table_size_update": N}`.
    pub size_updates: [Vec<(usize, usize)>; 2],
    /// A connection-level transaction (stream 0): the SETTINGS each side sent
    /// (identifier, value).
    pub settings: [Vec<(u16, u32)>; 2],
    /// A connection-level transaction: the error code of a GOAWAY each side sent.
    pub goaway: [Option<u32>; 2],
    /// Per side, the types of the frames seen (bit `1 << type` for types 0 to 15;
    /// bit 15 also stands for every higher type) (`http2.frametype`).
    pub frames: [u16; 2],
    /// Per side, the first WINDOW_UPDATE increments (`http2.window`).
    pub windows: [Vec<u32>; 2],
    /// Per side, the error codes `http2.errorcode` sees, [`H2Info::MAX_WINDOWS`] at
    /// most: every RST_STREAM's code, and for a GOAWAY the first four bytes of its
    /// payload (Suricata 7.0.10 reads the last-stream-id word as the error code: a
    /// GOAWAY with last stream 1 and code 12 matches `http2.errorcode:1`, not `:12`).
    pub error_codes: [Vec<u32>; 2],
}

impl H2Info {
    /// How many WINDOW_UPDATE increments a side keeps.
    pub const MAX_WINDOWS: usize = 32;

    /// Notes a frame of type `ty` sent by side `d`.
    pub fn note_frame(&mut self, d: usize, ty: u8) {
        self.frames[d] |= 1 << ty.min(15);
    }
}

/// Suricata's name of a SETTINGS identifier (RFC 9113 section 6.5.2).
pub fn settings_name(id: u16) -> String {
    const NAMES: [&str; 6] = [
        "SETTINGSHEADERTABLESIZE",
        "SETTINGSENABLEPUSH",
        "SETTINGSMAXCONCURRENTSTREAMS",
        "SETTINGSINITIALWINDOWSIZE",
        "SETTINGSMAXFRAMESIZE",
        "SETTINGSMAXHEADERLISTSIZE",
    ];
    usize::from(id)
        .checked_sub(1)
        .and_then(|i| NAMES.get(i))
        .map_or_else(|| id.to_string(), |n| (*n).to_string())
}

/// Suricata's name of the error code of a GOAWAY (RFC 9113 section 7, in the spelling
/// Suricata 7.0.10 logs: `NOERROR`).
pub fn goaway_error_name(code: u32) -> String {
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

/// Suricata's name of the error code of a RST_STREAM (RFC 9113 section 7, in the
/// spelling Suricata 7.0.10 logs: `Cancel`).
pub fn rst_error_name(code: u32) -> String {
    const NAMES: [&str; 14] = [
        "NoError",
        "ProtocolError",
        "InternalError",
        "FlowControlError",
        "SettingsTimeout",
        "StreamClosed",
        "FrameSizeError",
        "RefusedStream",
        "Cancel",
        "CompressionError",
        "ConnectError",
        "EnhanceYourCalm",
        "InadequateSecurity",
        "Http11Required",
    ];
    NAMES
        .get(code as usize)
        .map_or_else(|| code.to_string(), |n| (*n).to_string())
}

fn header_list(m: &Message, updates: &[(usize, usize)]) -> Value {
    let mut v = Vec::with_capacity(m.headers.len() + updates.len());
    let mut updates = updates.iter().peekable();
    for (i, h) in m.headers.iter().enumerate() {
        while let Some((_, size)) = updates.next_if(|(at, _)| *at <= i) {
            v.push(size_update(*size));
        }
        let mut o = Map::new();
        o.insert("name".into(), bytes_str(&h.name).into());
        o.insert("value".into(), bytes_str(&h.value).into());
        v.push(Value::Object(o));
    }
    v.extend(updates.map(|(_, size)| size_update(*size)));
    Value::Array(v)
}

fn size_update(size: usize) -> Value {
    let mut o = Map::new();
    o.insert("table_size_update".into(), size.into());
    Value::Object(o)
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
        o.insert("error_code".into(), rst_error_name(e).into());
    }
    if !info.settings[k].is_empty() {
        let list = info.settings[k]
            .iter()
            .map(|&(id, v)| {
                let mut s = Map::new();
                s.insert("settings_id".into(), settings_name(id).into());
                s.insert("settings_value".into(), v.into());
                Value::Object(s)
            })
            .collect();
        o.insert("settings".into(), Value::Array(list));
    }
    if let Some(e) = info.goaway[k] {
        o.insert("error_code".into(), goaway_error_name(e).into());
    }
    Value::Object(o)
}

/// The `http` object of an HTTP/2 stream's transaction.
pub fn http2_object(tx: &HttpTx, info: &H2Info) -> Value {
    let (req, res) = (tx.request(), tx.response());
    let mut o = Map::new();
    o.insert("version".into(), "2".into());
    if !req.headers.is_empty() || !info.size_updates[0].is_empty() {
        o.insert(
            "request_headers".into(),
            header_list(req, &info.size_updates[0]),
        );
    }
    if !res.headers.is_empty() || !info.size_updates[1].is_empty() {
        o.insert(
            "response_headers".into(),
            header_list(res, &info.size_updates[1]),
        );
    }
    set_bytes(&mut o, "hostname", field(req, b"host"));
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
    fn stream_object_as_suricata_writes_it() {
        use crate::{AppCtx, Direction};
        // A request with a dynamic table size update and a PRIORITY weight, its
        // response with a content-length, in Suricata 7.0.10's layout.
        let mut st = crate::http2::Http2State::new();
        let mut ctx = AppCtx::default();
        let mut c = crate::http2::frame::PREFACE.to_vec();
        let mut block = vec![0x3f, 0xe1, 0x1f]; // size update to 4096
        block.extend(crate::http2::hpack::tests::literal_block(&[
            (":method", "GET"),
            (":path", "/x"),
            ("user-agent", "UA"),
        ]));
        let mut p = vec![0, 0, 0, 0, 146];
        p.extend(block);
        c.extend(crate::http2::frame::frame(
            crate::http2::frame::FrameType::HEADERS,
            0x4 | 0x1 | 0x20,
            1,
            &p,
        ));
        st.parse(&mut ctx, Direction::ToServer, &c);
        let resp = crate::http2::hpack::tests::literal_block(&[
            (":status", "404"),
            ("content-length", "12"),
        ]);
        let f = crate::http2::frame::frame(crate::http2::frame::FrameType::HEADERS, 0x5, 1, &resp);
        st.parse(&mut ctx, Direction::ToClient, &f);
        let tx = st.tx(0).unwrap();
        let o = http2_object(tx, tx.h2().unwrap());
        assert_eq!(
            o.to_string(),
            r#"{"version":"2","request_headers":[{"table_size_update":4096},{"name":":method","value":"GET"},{"name":":path","value":"/x"},{"name":"user-agent","value":"UA"}],"response_headers":[{"name":":status","value":"404"},{"name":"content-length","value":"12"}],"http_method":"GET","url":"/x","status":404,"http_user_agent":"UA","length":12,"http2":{"stream_id":1,"request":{"priority":146},"response":{}}}"#
        );
        // The same object is what the http record and an alert carry.
        assert_eq!(crate::http::log::http_object(tx, false), o);
    }

    #[test]
    fn error_names() {
        assert_eq!(rst_error_name(0), "NoError");
        assert_eq!(rst_error_name(8), "Cancel");
        assert_eq!(rst_error_name(99), "99");
        assert_eq!(goaway_error_name(0), "NOERROR");
        assert_eq!(settings_name(1), "SETTINGSHEADERTABLESIZE");
        assert_eq!(settings_name(6), "SETTINGSMAXHEADERLISTSIZE");
        assert_eq!(settings_name(0x99), "153");
    }
}
