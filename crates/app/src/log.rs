//! Helpers the protocols' EVE objects share: bytes and addresses written as Suricata
//! writes them.

use serde_json::{Map, Value};
use std::fmt::Write;
use std::net::IpAddr;

/// Bytes as Suricata writes them into JSON: valid UTF-8 as is, otherwise ASCII as is
/// and every other byte as `\xNN`.
pub fn bytes_str(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) => s.to_string(),
        Err(_) => {
            let mut out = String::with_capacity(b.len() + 8);
            for &c in b {
                if c < 0x80 {
                    out.push(c as char);
                } else {
                    let _ = write!(out, "\\x{c:02x}");
                }
            }
            out
        }
    }
}

/// An address as Suricata writes it: IPv4 dotted, IPv6 as eight 4-digit groups.
pub fn ip_string(ip: IpAddr) -> String {
    let mut s = String::with_capacity(if ip.is_ipv4() { 15 } else { 39 });
    write_ip(&mut s, ip);
    s
}

/// [`ip_string`] appended to `out` (no string of its own).
pub fn write_ip(out: &mut String, ip: IpAddr) {
    match ip {
        IpAddr::V4(v4) => {
            let _ = write!(out, "{v4}");
        }
        IpAddr::V6(v6) => {
            for (i, seg) in v6.segments().iter().enumerate() {
                if i > 0 {
                    out.push(':');
                }
                let _ = write!(out, "{seg:04x}");
            }
        }
    }
}

/// Sets `k` to `v` written by [`bytes_str`], when there is a value.
pub(crate) fn set_bytes(o: &mut Map<String, Value>, k: &str, v: Option<&[u8]>) {
    if let Some(v) = v {
        o.insert(k.into(), bytes_str(v).into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_as_suricata_writes_them() {
        assert_eq!(bytes_str(b"abc"), "abc");
        assert_eq!(bytes_str("é".as_bytes()), "é");
        assert_eq!(
            bytes_str(b"VACKD\x03\xc5\xe9\x01"),
            "VACKD\u{3}\\xc5\\xe9\u{1}"
        );
    }
}
