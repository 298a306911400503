//! SSH wire formats read before encryption starts (RFC 4253): the identification
//! string (`SSH-protoversion-softwareversion SP comments`), the binary packet header
//! (`packet_length`, `padding_length`, message code) and the `SSH_MSG_KEXINIT` payload,
//! from which the HASSH fingerprints are made.

use md5::{Digest, Md5};

/// `SSH_MSG_KEXINIT`.
pub const MSG_KEXINIT: u8 = 20;
/// `SSH_MSG_NEWKEYS`: the sender's next packets are encrypted.
pub const MSG_NEWKEYS: u8 = 21;

/// The prefix every identification string starts with.
pub const BANNER_PREFIX: &[u8] = b"SSH-";

/// The two fields of an identification string rules and logs use.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Banner {
    /// `protoversion` (`2.0`, `1.99`, ...).
    pub proto: Vec<u8>,
    /// `softwareversion`, without the comments after the first space.
    pub software: Vec<u8>,
}

/// Parses one identification line (without its line end): `None` when it is not
/// `SSH-<proto>-<software>` with a non-empty protocol version.
pub fn parse_banner(line: &[u8]) -> Option<Banner> {
    let rest = line.strip_prefix(BANNER_PREFIX)?;
    let dash = rest.iter().position(|&b| b == b'-')?;
    let (proto, software) = (&rest[..dash], &rest[dash + 1..]);
    if proto.is_empty() {
        return None;
    }
    let end = software
        .iter()
        .position(|&b| b == b' ')
        .unwrap_or(software.len());
    Some(Banner {
        proto: proto.to_vec(),
        software: software[..end].to_vec(),
    })
}

/// The header of a binary packet: 4-byte length, padding length, message code.
pub const RECORD_HEADER_LEN: usize = 6;

/// A binary packet header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordHeader {
    /// `packet_length`: the bytes after the length field (padding length, payload,
    /// padding).
    pub packet_len: u32,
    /// `padding_length`.
    pub padding_len: u8,
    /// The payload's first byte, the message code.
    pub code: u8,
}

impl RecordHeader {
    /// The whole packet's size on the wire, its length field included (no MAC before
    /// encryption).
    pub fn total_len(&self) -> u64 {
        u64::from(self.packet_len) + 4
    }
}

/// Reads a packet header from its first [`RECORD_HEADER_LEN`] bytes: `None` when
/// `data` is shorter; `Some(Err(()))` when the length cannot hold the padding length
/// and message code, or the padding does not fit in it.
pub fn record_header(data: &[u8]) -> Option<Result<RecordHeader, ()>> {
    let h = data.get(..RECORD_HEADER_LEN)?;
    let packet_len = u32::from_be_bytes([h[0], h[1], h[2], h[3]]);
    let r = RecordHeader {
        packet_len,
        padding_len: h[4],
        code: h[5],
    };
    Some(
        if packet_len < 2 || u32::from(r.padding_len) + 2 > packet_len {
            Err(())
        } else {
            Ok(r)
        },
    )
}

/// The algorithm lists of a `SSH_MSG_KEXINIT` payload the HASSH fingerprints use.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KexInit {
    /// `kex_algorithms`.
    pub kex: Vec<u8>,
    /// `encryption_algorithms_client_to_server` and `..._server_to_client`.
    pub encryption: [Vec<u8>; 2],
    /// `mac_algorithms_client_to_server` and `..._server_to_client`.
    pub mac: [Vec<u8>; 2],
    /// `compression_algorithms_client_to_server` and `..._server_to_client`.
    pub compression: [Vec<u8>; 2],
}

/// Parses a KEXINIT payload after its message code: a 16-byte cookie and ten
/// name-lists (`uint32` length, then the names); `None` when it is truncated.
pub fn parse_kexinit(payload: &[u8]) -> Option<KexInit> {
    let mut rest = payload.get(16..)?;
    let mut lists: [&[u8]; 8] = [&[]; 8];
    for l in lists.iter_mut() {
        let len = usize::try_from(u32::from_be_bytes(rest.get(..4)?.try_into().ok()?)).ok()?;
        *l = rest.get(4..4usize.checked_add(len)?)?;
        rest = &rest[4 + len..];
    }
    let [kex, _host_key, ec, es, mc, ms, cc, cs] = lists;
    Some(KexInit {
        kex: kex.to_vec(),
        encryption: [ec.to_vec(), es.to_vec()],
        mac: [mc.to_vec(), ms.to_vec()],
        compression: [cc.to_vec(), cs.to_vec()],
    })
}

impl KexInit {
    /// The HASSH string of the side that sent it (`client`: HASSH, else
    /// HASSH-server): its key exchange, encryption, MAC and compression lists for
    /// its own direction, joined by `;`.
    pub fn hassh_string(&self, client: bool) -> Vec<u8> {
        let i = usize::from(!client);
        let mut s = self.kex.clone();
        for l in [&self.encryption[i], &self.mac[i], &self.compression[i]] {
            s.push(b';');
            s.extend_from_slice(l);
        }
        s
    }
}

/// The HASSH hash of a HASSH string: its MD5 in lower-case hex.
pub fn hassh_hash(s: &[u8]) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let d = Md5::digest(s);
    // Written digit by digit into one buffer (a string per byte before).
    let mut out = Vec::with_capacity(32);
    for b in d {
        out.extend_from_slice(&[HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn banners() {
        let b = parse_banner(b"SSH-2.0-OpenSSH_8.2p1 Ubuntu-4ubuntu0.3").unwrap();
        assert_eq!(
            (&b.proto[..], &b.software[..]),
            (&b"2.0"[..], &b"OpenSSH_8.2p1"[..])
        );
        let b = parse_banner(b"SSH-1.99-Cisco-1.25").unwrap();
        assert_eq!(
            (&b.proto[..], &b.software[..]),
            (&b"1.99"[..], &b"Cisco-1.25"[..])
        );
        assert_eq!(parse_banner(b"SSH-2.0-").unwrap().software, b"");
        assert!(parse_banner(b"SSH--x").is_none());
        assert!(parse_banner(b"SSH-2.0").is_none());
        assert!(parse_banner(b"HTTP/1.1 200").is_none());
    }

    #[test]
    fn record_headers() {
        assert_eq!(record_header(&[0, 0, 0, 12, 10]), None);
        assert_eq!(
            record_header(&[0, 0, 0, 12, 10, 21]),
            Some(Ok(RecordHeader {
                packet_len: 12,
                padding_len: 10,
                code: MSG_NEWKEYS
            }))
        );
        assert_eq!(record_header(&[0, 0, 0, 1, 0, 21]), Some(Err(())));
        assert_eq!(record_header(&[0, 0, 0, 12, 11, 21]), Some(Err(())));
    }

    /// A KEXINIT payload (after the message code) with the given lists.
    pub(crate) fn kexinit(lists: [&str; 10]) -> Vec<u8> {
        let mut p = vec![0x55; 16];
        for l in lists {
            p.extend_from_slice(&(l.len() as u32).to_be_bytes());
            p.extend_from_slice(l.as_bytes());
        }
        p.extend_from_slice(&[0, 0, 0, 0, 0]);
        p
    }

    #[test]
    fn hassh_of_a_kexinit() {
        // The string layout: the sender's own direction of each list (the real
        // bytes and Suricata's hashes are checked in `state`).
        let k = parse_kexinit(&kexinit([
            "curve25519-sha256,diffie-hellman-group14-sha1",
            "ssh-ed25519",
            "aes128-ctr",
            "aes256-ctr",
            "hmac-sha2-256",
            "hmac-sha1",
            "none,zlib@openssh.com",
            "none",
            "",
            "",
        ]))
        .unwrap();
        assert_eq!(
            k.hassh_string(true),
            b"curve25519-sha256,diffie-hellman-group14-sha1;aes128-ctr;hmac-sha2-256;none,zlib@openssh.com"
        );
        assert_eq!(
            k.hassh_string(false),
            b"curve25519-sha256,diffie-hellman-group14-sha1;aes256-ctr;hmac-sha1;none"
        );
        // md5("") and md5("abc") (RFC 1321's test suite).
        assert_eq!(hassh_hash(b""), b"d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hassh_hash(b"abc"), b"900150983cd24fb0d6963f7d28e17f72");
        let full = kexinit(["a"; 10]);
        for n in 0..full.len() - 5 {
            let _ = parse_kexinit(&full[..n]);
        }
        assert!(parse_kexinit(&full[..20]).is_none());
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = parse_banner(&data);
            let _ = record_header(&data);
            if let Some(k) = parse_kexinit(&data) {
                let s = k.hassh_string(true);
                prop_assert_eq!(hassh_hash(&s).len(), 32);
            }
        }
    }
}
