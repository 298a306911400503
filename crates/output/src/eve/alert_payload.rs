//! What the alert options of an `eve-log` output add to an alert record
//! ([`AlertOptions`]): the payload (`payload` in base64, `payload_printable`, with
//! `stream`: 1 when it is stream data, 0 for the packet's payload), the captured frame (`packet`, with
//! `packet_info.linktype`), and the HTTP bodies inside the `http` object
//! (`http_request_body[_printable]`, `http_response_body[_printable]`).

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{Map, Value};

use super::options::AlertOptions;

/// The bytes an alert's options may log.
#[derive(Clone, Copy, Debug, Default)]
pub struct AlertPayload<'a> {
    /// The payload: the packet's, or the stream data the rule matched on.
    pub payload: &'a [u8],
    /// `payload` is stream data (written as `stream: 1`).
    pub stream: bool,
    /// The captured frame (empty for a pseudo-packet).
    pub packet: &'a [u8],
    /// The capture's link type (`packet_info.linktype`).
    pub linktype: u16,
}

/// `b` as Suricata's printable payload: printable ASCII, CR and LF kept, every other
/// byte written as `.`.
pub fn printable(b: &[u8]) -> String {
    b.iter()
        .map(|&c| {
            if c == b'\n' || c == b'\r' || (0x20..0x7f).contains(&c) {
                c as char
            } else {
                '.'
            }
        })
        .collect()
}

impl AlertPayload<'_> {
    /// Adds what `opts` asks for to the alert record `o`.
    pub fn write(&self, opts: &AlertOptions, o: &mut Map<String, Value>) {
        self.write_payload(opts, o);
        self.write_packet(opts, o);
    }

    /// The payload fields `opts` asks for (`payload`, `payload_printable`, `stream`).
    pub fn write_payload(&self, opts: &AlertOptions, o: &mut Map<String, Value>) {
        let payload = &self.payload[..self.payload.len().min(opts.payload_buffer_size)];
        // An empty payload (a SYN, a bare ACK) has no `payload`, as Suricata 7.0.10
        // logs it; `payload_printable` and `stream` are still written (difftest
        // `replace` family in IPS mode).
        if opts.payload && !payload.is_empty() {
            o.insert("payload".into(), STANDARD.encode(payload).into());
        }
        if opts.payload_printable {
            o.insert("payload_printable".into(), printable(payload).into());
        }
        if opts.payload || opts.payload_printable {
            // Suricata writes it with every logged payload: 0 for the packet's own.
            o.insert("stream".into(), u8::from(self.stream).into());
        }
    }

    /// The captured frame, when `opts` asks for it (`packet`, `packet_info`).
    pub fn write_packet(&self, opts: &AlertOptions, o: &mut Map<String, Value>) {
        if opts.packet && !self.packet.is_empty() {
            o.insert("packet".into(), STANDARD.encode(self.packet).into());
            let mut info = Map::new();
            info.insert("linktype".into(), self.linktype.into());
            o.insert("packet_info".into(), Value::Object(info));
        }
    }
}

/// Adds the HTTP bodies `opts` asks for (`http-body`, `http-body-printable`) to an
/// alert's `http` object: `request`/`response` are the bodies seen so far.
pub fn write_http_bodies(
    opts: &AlertOptions,
    request: &[u8],
    response: &[u8],
    http: &mut Map<String, Value>,
) {
    for (name, body) in [
        ("http_request_body", request),
        ("http_response_body", response),
    ] {
        if body.is_empty() {
            continue;
        }
        if opts.http_body_printable {
            http.insert(format!("{name}_printable"), printable(body).into());
        }
        if opts.http_body {
            http.insert(name.into(), STANDARD.encode(body).into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_keeps_line_ends() {
        assert_eq!(printable(b"GET /\r\n\x00\xffx"), "GET /\r\n..x");
    }

    /// A packet without payload: no `payload`, an empty `payload_printable`, `stream`
    /// 0, as Suricata 7.0.10 logs a SYN's alert.
    #[test]
    fn an_empty_payload_has_no_base64_field() {
        let opts = AlertOptions {
            payload: true,
            payload_printable: true,
            ..AlertOptions::default()
        };
        let mut o = Map::new();
        AlertPayload::default().write(&opts, &mut o);
        assert_eq!(
            Value::Object(o).to_string(),
            r#"{"payload_printable":"","stream":0}"#
        );
    }

    #[test]
    fn options_select_the_fields() {
        let p = AlertPayload {
            payload: b"abc\x01",
            stream: true,
            packet: b"\x00\x01\x02",
            linktype: 1,
        };
        let mut o = Map::new();
        p.write(&AlertOptions::default(), &mut o);
        assert!(o.is_empty());
        let opts = AlertOptions {
            payload: true,
            payload_printable: true,
            packet: true,
            payload_buffer_size: 3,
            ..AlertOptions::default()
        };
        p.write(&opts, &mut o);
        assert_eq!(
            Value::Object(o).to_string(),
            r#"{"payload":"YWJj","payload_printable":"abc","stream":1,"packet":"AAEC","packet_info":{"linktype":1}}"#
        );
        let mut o = Map::new();
        AlertPayload { stream: false, ..p }.write(&opts, &mut o);
        assert_eq!(o["stream"], 0);
        let mut h = Map::new();
        let opts = AlertOptions {
            http_body: true,
            http_body_printable: true,
            ..AlertOptions::default()
        };
        write_http_bodies(&opts, b"a=1\n", b"", &mut h);
        assert_eq!(
            Value::Object(h).to_string(),
            r#"{"http_request_body_printable":"a=1\n","http_request_body":"YT0xCg=="}"#
        );
    }
}
