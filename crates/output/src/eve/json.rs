//! A JSON object writer that appends straight to a byte buffer, with the bytes
//! `serde_json::Value::to_string` gives for the same object (compact, keys in the order
//! written, strings escaped by serde_json itself): EVE records written this way need no
//! intermediate `Value` tree, whose every key and string is a heap allocation.
//!
//! Integers are written as `Display` writes them (serde_json's own digits); addresses
//! and timestamps, which never need escaping, are written in place without a `String`.

use std::io::Write;
use std::net::IpAddr;

use serde_json::Value;

/// One JSON object being written into `buf`: [`Obj::open`] writes `{`, every field
/// its key and value, [`Obj::close`] the `}`.
pub(crate) struct Obj<'a> {
    buf: &'a mut Vec<u8>,
    first: bool,
}

/// Appends `s` as a JSON string, escaped as serde_json escapes it.
pub(crate) fn write_str(buf: &mut Vec<u8>, s: &str) {
    // Writing into a `Vec` cannot fail.
    let _ = serde_json::to_writer(&mut *buf, s);
}

/// Appends `ip` as a JSON string in Suricata's spelling ([`app::log::ip_string`]:
/// IPv6 as eight groups of four hex digits).
pub(crate) fn write_ip(buf: &mut Vec<u8>, ip: IpAddr) {
    buf.push(b'"');
    match ip {
        IpAddr::V4(v4) => {
            let _ = write!(buf, "{v4}");
        }
        IpAddr::V6(v6) => {
            for (i, seg) in v6.segments().iter().enumerate() {
                if i > 0 {
                    buf.push(b':');
                }
                let _ = write!(buf, "{seg:04x}");
            }
        }
    }
    buf.push(b'"');
}

impl<'a> Obj<'a> {
    /// Starts an object at the end of `buf`.
    pub(crate) fn open(buf: &'a mut Vec<u8>) -> Obj<'a> {
        buf.push(b'{');
        Obj { buf, first: true }
    }

    /// Writes the key `k` (escaped) and its colon; the caller writes the value into
    /// the returned buffer.
    pub(crate) fn key(&mut self, k: &str) -> &mut Vec<u8> {
        if !self.first {
            self.buf.push(b',');
        }
        self.first = false;
        write_str(self.buf, k);
        self.buf.push(b':');
        self.buf
    }

    /// A string field.
    pub(crate) fn str(&mut self, k: &str, v: &str) {
        write_str(self.key(k), v);
    }

    /// An unsigned integer field.
    pub(crate) fn uint(&mut self, k: &str, v: u64) {
        let _ = write!(self.key(k), "{v}");
    }

    /// A boolean field.
    pub(crate) fn bool(&mut self, k: &str, v: bool) {
        let b: &[u8] = if v { b"true" } else { b"false" };
        self.key(k).extend_from_slice(b);
    }

    /// An address field ([`write_ip`]).
    pub(crate) fn ip(&mut self, k: &str, ip: IpAddr) {
        write_ip(self.key(k), ip);
    }

    /// An EVE timestamp field ([`crate::time::eve_timestamp`]).
    pub(crate) fn timestamp(&mut self, k: &str, secs: i64, micros: u32) {
        let buf = self.key(k);
        buf.push(b'"');
        crate::time::write_eve_timestamp(buf, secs, micros);
        buf.push(b'"');
    }

    /// A field holding `v` serialised.
    pub(crate) fn value(&mut self, k: &str, v: &Value) {
        let _ = serde_json::to_writer(self.key(k), v);
    }

    /// A nested object: `k` and the object's writer (close it before using `self`
    /// again).
    pub(crate) fn obj(&mut self, k: &str) -> Obj<'_> {
        Obj::open(self.key(k))
    }

    /// Writes the `}`.
    pub(crate) fn close(self) {
        self.buf.push(b'}');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map};

    #[test]
    fn bytes_equal_serde_jsons() {
        let awkward = "q\"b\\s/\n\t\r\u{8}\u{c}\u{1}\u{1f}\u{7f} é ☃ 😀";
        let mut buf = Vec::new();
        let mut o = Obj::open(&mut buf);
        o.str("s", awkward);
        o.str(awkward, "key escaped too");
        o.uint("n", u64::MAX);
        o.uint("z", 0);
        o.bool("t", true);
        o.bool("f", false);
        o.ip("v4", "10.0.0.255".parse().unwrap());
        o.ip("v6", "2001:db8::1".parse().unwrap());
        o.timestamp("ts", 1_210_953_054, 42);
        o.value("v", &json!({"a": [1, "x", null, {"b": false}], "c": {}}));
        let mut inner = o.obj("inner");
        inner.uint("x", 7);
        inner.close();
        let empty = o.obj("empty");
        empty.close();
        o.close();

        let mut m = Map::new();
        m.insert("s".into(), awkward.into());
        m.insert(awkward.into(), "key escaped too".into());
        m.insert("n".into(), u64::MAX.into());
        m.insert("z".into(), 0.into());
        m.insert("t".into(), true.into());
        m.insert("f".into(), false.into());
        m.insert("v4".into(), "10.0.0.255".into());
        m.insert(
            "v6".into(),
            app::log::ip_string("2001:db8::1".parse().unwrap()).into(),
        );
        m.insert(
            "ts".into(),
            crate::time::eve_timestamp(1_210_953_054, 42).into(),
        );
        m.insert(
            "v".into(),
            json!({"a": [1, "x", null, {"b": false}], "c": {}}),
        );
        m.insert("inner".into(), json!({"x": 7}));
        m.insert("empty".into(), json!({}));
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            Value::Object(m).to_string()
        );
    }
}
