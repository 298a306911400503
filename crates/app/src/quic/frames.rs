//! The frames of a decrypted Initial packet (RFC 9000 §19: the types an Initial may
//! carry) and the Google QUIC frames of an unprotected handshake packet, from which
//! the client's CHLO (its tags SNI, UAID and the tag list) is read.

use super::header::varint;
use super::hello::fingerprint;
use crate::tls::ja3::Ja3;

/// One CRYPTO frame: an offset in the handshake stream and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crypto<'a> {
    /// The offset of `data` in the stream.
    pub offset: u64,
    /// The bytes.
    pub data: &'a [u8],
}

/// The CRYPTO frames of an Initial packet's plaintext, in packet order; `None` when a
/// frame is malformed or of a type an Initial packet may not carry.
pub fn crypto_frames(p: &[u8]) -> Option<Vec<Crypto<'_>>> {
    let mut at = 0;
    let mut out = Vec::new();
    while at < p.len() {
        match varint(p, &mut at)? {
            0x00 | 0x01 => {}
            t @ (0x02 | 0x03) => {
                varint(p, &mut at)?;
                varint(p, &mut at)?;
                let ranges = varint(p, &mut at)?;
                varint(p, &mut at)?;
                for _ in 0..ranges {
                    varint(p, &mut at)?;
                    varint(p, &mut at)?;
                }
                if t == 0x03 {
                    for _ in 0..3 {
                        varint(p, &mut at)?;
                    }
                }
            }
            0x06 => {
                let offset = varint(p, &mut at)?;
                let len = usize::try_from(varint(p, &mut at)?).ok()?;
                let data = p.get(at..at.checked_add(len)?)?;
                at += len;
                out.push(Crypto { offset, data });
            }
            t @ (0x1c | 0x1d) => {
                varint(p, &mut at)?;
                if t == 0x1c {
                    varint(p, &mut at)?;
                }
                let len = usize::try_from(varint(p, &mut at)?).ok()?;
                at = at.checked_add(len).filter(|&a| a <= p.len())?;
            }
            _ => return None,
        }
    }
    Some(out)
}

/// What a Google QUIC client hello (CHLO) says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chlo {
    /// The `SNI` tag.
    pub sni: Option<Vec<u8>>,
    /// The `UAID` tag (user agent).
    pub ua: Option<Vec<u8>>,
    /// The CYU fingerprint: `<version>,<tag-tag-...>` and its MD5.
    pub cyu: Option<Ja3>,
}

/// The CHLO in the Google QUIC frames `p` (after the 12-byte message hash) of a
/// packet of `version` (`Q046`): the first STREAM frame that starts with `CHLO`.
pub fn chlo(version: u32, p: &[u8]) -> Option<Chlo> {
    let mut at = 0;
    while let Some(&t) = p.get(at) {
        at += 1;
        if t & 0x80 == 0 {
            // PADDING ends the packet; the other frames are not needed here.
            return None;
        }
        let off_len = match (t >> 2) & 7 {
            0 => 0,
            n => usize::from(n) + 1,
        };
        at += usize::from(t & 3) + 1 + off_len;
        let data = if t & 0x20 != 0 {
            let l = p.get(at..at + 2)?;
            at += 2;
            let n = usize::from(u16::from_be_bytes([l[0], l[1]]));
            let d = p.get(at..at + n)?;
            at += n;
            d
        } else {
            let d = p.get(at..)?;
            at = p.len();
            d
        };
        if data.starts_with(b"CHLO") {
            return parse_chlo(version, data);
        }
    }
    None
}

fn parse_chlo(version: u32, m: &[u8]) -> Option<Chlo> {
    let n = usize::from(u16::from_le_bytes([*m.get(4)?, *m.get(5)?]));
    let entries = m.get(8..8 + n * 8)?;
    let values = &m[8 + n * 8..];
    let mut c = Chlo::default();
    let mut tags = Vec::with_capacity(n);
    let mut start = 0usize;
    for e in entries.chunks_exact(8) {
        let end = u32::from_le_bytes([e[4], e[5], e[6], e[7]]) as usize;
        let v = values.get(start..end)?;
        start = end;
        let tag = &e[..4];
        let name = tag.iter().position(|&b| b == 0).map_or(tag, |z| &tag[..z]);
        tags.push(String::from_utf8_lossy(name).into_owned());
        match tag {
            b"SNI\0" => c.sni = Some(v.to_vec()),
            b"UAID" => c.ua = Some(v.to_vec()),
            _ => {}
        }
    }
    let digits: String = version.to_be_bytes()[1..]
        .iter()
        .map(|&d| char::from(d))
        .collect();
    let v = digits.trim_start_matches('0');
    c.cyu = Some(fingerprint(format!("{v},{}", tags.join("-"))));
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_frames() {
        // PADDING, PING, ACK(largest 1, delay 0, 0 ranges, first 0), CRYPTO(5, "ab").
        let p = b"\x00\x01\x02\x01\x00\x00\x00\x06\x05\x02ab\x00\x00";
        let f = crypto_frames(p).unwrap();
        assert_eq!(
            f,
            [Crypto {
                offset: 5,
                data: b"ab"
            }]
        );
        assert!(crypto_frames(b"\x06\x00\x05ab").is_none());
        assert!(crypto_frames(b"\x08\x00").is_none());
        // CONNECTION_CLOSE with a reason.
        assert_eq!(crypto_frames(b"\x1c\x0a\x06\x02hi").unwrap(), []);
    }

    #[test]
    fn a_chlo_in_a_stream_frame() {
        let mut m = b"CHLO\x02\x00\x00\x00SNI\x00\x03\x00\x00\x00UAID\x07\x00\x00\x00".to_vec();
        m.extend(b"a.bUA/1");
        let mut p = vec![0xa0, 0x01];
        p.extend((m.len() as u16).to_be_bytes());
        p.extend(&m);
        p.push(0);
        let c = chlo(u32::from_be_bytes(*b"Q046"), &p).unwrap();
        assert_eq!(c.sni.as_deref(), Some(&b"a.b"[..]));
        assert_eq!(c.ua.as_deref(), Some(&b"UA/1"[..]));
        assert_eq!(c.cyu.unwrap().string, "46,SNI-UAID");
        // A value past the end does not parse.
        p[4 + 12] = 0x40;
        assert!(chlo(u32::from_be_bytes(*b"Q046"), &p).is_none());
    }
}
