//! The `frame` object of an alert raised by a `frame` rule (Suricata 7's
//! application-layer frames): the frame's type, id, direction, stream offset, length,
//! bytes and transaction, in Suricata 7.0.10's key order.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{Map, Value};

use super::alert_payload::printable;

/// Bytes of a TCP stream frame an alert logs (Suricata 7.0.10 logs the first 4,095
/// bytes of longer frames: checked on smb.pcap's 4,384-byte SMB frames).
pub const STREAM_FRAME_PAYLOAD_MAX: usize = 4095;

/// Bytes of a datagram's frame an alert logs (Suricata 7.0.10 logs the first 256:
/// checked on issue24b.pcap's SIP datagrams).
pub const DATAGRAM_FRAME_PAYLOAD_MAX: usize = 256;

/// The frame a `frame` rule matched, as the alert's EVE `frame` object writes it.
#[derive(Clone, Copy, Debug)]
pub struct AlertFrame<'a> {
    /// The type's name within its protocol (`pdu`, `nbss.hdr`, `request`).
    pub ty: &'a str,
    /// Its id: its number among its direction's frames.
    pub id: u64,
    /// It went to the server.
    pub to_server: bool,
    /// Offset of its first byte in the direction's TCP stream; `None` for a
    /// datagram's frame (written without `stream_offset`).
    pub stream_offset: Option<u64>,
    /// Its length on the wire.
    pub len: u64,
    /// Its length is known and all its bytes came (`complete`).
    pub complete: bool,
    /// Its transaction (HTTP/1 messages).
    pub tx_id: Option<u64>,
    /// Its bytes (the first of them: the object logs at most
    /// [`STREAM_FRAME_PAYLOAD_MAX`] or [`DATAGRAM_FRAME_PAYLOAD_MAX`]).
    pub payload: &'a [u8],
}

impl AlertFrame<'_> {
    /// The `frame` object: `type`, `id`, `direction`, `stream_offset`, `length`,
    /// `payload`, `payload_printable`, `complete`, `tx_id` for a stream's frame;
    /// `type`, `id`, `direction`, `length`, `complete`, `payload`, `payload_printable`
    /// for a datagram's, as Suricata 7.0.10 writes them.
    pub fn to_eve(&self) -> Value {
        let mut o = Map::new();
        o.insert("type".into(), self.ty.into());
        o.insert("id".into(), self.id.into());
        let dir = if self.to_server {
            "toserver"
        } else {
            "toclient"
        };
        o.insert("direction".into(), dir.into());
        let payload = |o: &mut Map<String, Value>, max: usize| {
            let p = &self.payload[..self.payload.len().min(max)];
            o.insert("payload".into(), STANDARD.encode(p).into());
            o.insert("payload_printable".into(), printable(p).into());
        };
        match self.stream_offset {
            Some(off) => {
                o.insert("stream_offset".into(), off.into());
                o.insert("length".into(), self.len.into());
                payload(&mut o, STREAM_FRAME_PAYLOAD_MAX);
                o.insert("complete".into(), self.complete.into());
                if let Some(tx) = self.tx_id {
                    o.insert("tx_id".into(), tx.into());
                }
            }
            None => {
                o.insert("length".into(), self.len.into());
                o.insert("complete".into(), self.complete.into());
                payload(&mut o, DATAGRAM_FRAME_PAYLOAD_MAX);
            }
        }
        Value::Object(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TLS record's frame and a SIP datagram's, as Suricata 7.0.10 wrote them on
    /// smtp-starttls.pcap and issue24b.pcap (payloads shortened).
    #[test]
    fn objects_as_suricata_writes_them() {
        let tls = AlertFrame {
            ty: "pdu",
            id: 2,
            to_server: true,
            stream_offset: Some(31),
            len: 517,
            complete: true,
            tx_id: None,
            payload: b"\x16\x03\x01\x02\x00",
        };
        assert_eq!(
            tls.to_eve().to_string(),
            r#"{"type":"pdu","id":2,"direction":"toserver","stream_offset":31,"length":517,"payload":"FgMBAgA=","payload_printable":".....","complete":true}"#
        );
        let http = AlertFrame {
            ty: "request",
            tx_id: Some(1),
            payload: b"GET / HTTP/1.1\r\n",
            ..tls
        };
        let v = http.to_eve();
        assert_eq!(v["tx_id"], 1);
        assert_eq!(v["payload_printable"], "GET / HTTP/1.1\r\n");
        let long = [b'a'; 5000];
        let sip = AlertFrame {
            ty: "pdu",
            id: 1,
            to_server: false,
            stream_offset: None,
            len: 5000,
            complete: true,
            tx_id: None,
            payload: &long,
        };
        let v = sip.to_eve();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "type",
                "id",
                "direction",
                "length",
                "complete",
                "payload",
                "payload_printable"
            ]
        );
        assert_eq!(v["payload_printable"].as_str().unwrap().len(), 256);
        let v = AlertFrame {
            stream_offset: Some(0),
            ..sip
        }
        .to_eve();
        assert_eq!(v["payload_printable"].as_str().unwrap().len(), 4095);
    }
}
