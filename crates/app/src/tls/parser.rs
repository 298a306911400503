//! Zero-copy TLS record and handshake parsers. Every function returns `None` on
//! malformed input; incomplete input is the caller's business (it buffers whole
//! records and whole handshake messages first).

use smallvec::SmallVec;

/// Record content type: change_cipher_spec.
pub const CT_CHANGE_CIPHER_SPEC: u8 = 20;
/// Record content type: alert.
pub const CT_ALERT: u8 = 21;
/// Record content type: handshake.
pub const CT_HANDSHAKE: u8 = 22;
/// Record content type: application_data.
pub const CT_APPLICATION_DATA: u8 = 23;

/// Handshake type: client_hello.
pub const HS_CLIENT_HELLO: u8 = 1;
/// Handshake type: server_hello.
pub const HS_SERVER_HELLO: u8 = 2;
/// Handshake type: certificate.
pub const HS_CERTIFICATE: u8 = 11;

/// Largest record fragment allowed (2^14 plus expansion room, RFC 5246 6.2.3).
pub const MAX_RECORD: usize = 16384 + 2048;

/// A record header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordHeader {
    /// Content type.
    pub content_type: u8,
    /// Record-layer version.
    pub version: u16,
    /// Fragment length.
    pub len: usize,
}

/// Parses a 5-byte record header (`None` if shorter or implausible).
pub fn record_header(b: &[u8]) -> Option<RecordHeader> {
    let h = b.get(..5)?;
    let ct = h[0];
    if !(20..=24).contains(&ct) || h[1] != 3 {
        return None;
    }
    let len = usize::from(u16::from_be_bytes([h[3], h[4]]));
    (len <= MAX_RECORD).then_some(RecordHeader {
        content_type: ct,
        version: u16::from_be_bytes([h[1], h[2]]),
        len,
    })
}

/// The whole length (header included) of a record with SSLv2's two-byte header (high bit
/// of the first byte set), or `None` if fewer than two bytes are there.
pub fn sslv2_record_len(b: &[u8]) -> Option<usize> {
    let h = b.get(..2)?;
    Some(2 + (usize::from(h[0] & 0x7f) << 8 | usize::from(h[1])))
}

struct Reader<'a> {
    b: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.b.len() < n {
            return None;
        }
        let (a, rest) = self.b.split_at(n);
        self.b = rest;
        Some(a)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u16(&mut self) -> Option<u16> {
        let b = self.take(2)?;
        Some(u16::from_be_bytes([b[0], b[1]]))
    }
    fn u24(&mut self) -> Option<usize> {
        let b = self.take(3)?;
        Some(usize::from(b[0]) << 16 | usize::from(b[1]) << 8 | usize::from(b[2]))
    }
    fn vec8(&mut self) -> Option<&'a [u8]> {
        let n = usize::from(self.u8()?);
        self.take(n)
    }
    fn vec16(&mut self) -> Option<&'a [u8]> {
        let n = usize::from(self.u16()?);
        self.take(n)
    }
    fn vec24(&mut self) -> Option<&'a [u8]> {
        let n = self.u24()?;
        self.take(n)
    }
}

/// What a ClientHello says. Its lists are held inline up to the sizes common hellos
/// have (a hello is parsed once per flow and lives only while its fingerprints are
/// computed), so parsing one does not allocate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientHello<'a> {
    /// `legacy_version`.
    pub version: u16,
    /// The host_name of the server_name extension.
    pub sni: Option<&'a [u8]>,
    /// The supported_versions extension, if present.
    pub supported_versions: SmallVec<[u16; 8]>,
    /// The cipher suites offered, in order.
    pub ciphers: SmallVec<[u16; 64]>,
    /// The extension types, in order.
    pub extensions: SmallVec<[u16; 32]>,
    /// The supported_groups (elliptic curves) extension's list.
    pub curves: SmallVec<[u16; 16]>,
    /// The ec_point_formats extension's list.
    pub point_formats: SmallVec<[u8; 8]>,
    /// The first protocol of the application_layer_protocol_negotiation extension.
    pub alpn_first: Option<&'a [u8]>,
    /// The signature_algorithms extension's list, in order.
    pub signature_algorithms: SmallVec<[u16; 32]>,
}

/// What a ServerHello says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerHello {
    /// `legacy_version`.
    pub version: u16,
    /// The supported_versions extension (TLS 1.3's real version).
    pub selected_version: Option<u16>,
    /// The cipher suite chosen.
    pub cipher: u16,
    /// The extension types, in order.
    pub extensions: SmallVec<[u16; 16]>,
}

/// Parses a ClientHello body (after the 4-byte handshake header).
pub fn client_hello(body: &[u8]) -> Option<ClientHello<'_>> {
    let mut r = Reader { b: body };
    let version = r.u16()?;
    r.take(32)?;
    r.vec8()?;
    let mut suites = Reader { b: r.vec16()? };
    r.vec8()?;
    let mut ch = ClientHello {
        version,
        ..Default::default()
    };
    // Every list below is sized once from its byte length (pushes grew each a few
    // times per ClientHello).
    ch.ciphers.reserve_exact(suites.b.len() / 2);
    while let Some(c) = suites.u16() {
        ch.ciphers.push(c);
    }
    if r.b.is_empty() {
        return Some(ch);
    }
    let mut ext = Reader { b: r.vec16()? };
    // At most one extension per 4 bytes (the list lives only as long as the hello).
    ch.extensions.reserve_exact(ext.b.len() / 4);
    while !ext.b.is_empty() {
        let t = ext.u16()?;
        let data = ext.vec16()?;
        ch.extensions.push(t);
        let mut d = Reader { b: data };
        match t {
            0 => {
                let mut list = Reader { b: d.vec16()? };
                while !list.b.is_empty() {
                    let kind = list.u8()?;
                    let name = list.vec16()?;
                    if kind == 0 && ch.sni.is_none() {
                        ch.sni = Some(name);
                    }
                }
            }
            10 => {
                let mut list = Reader { b: d.vec16()? };
                ch.curves.reserve_exact(list.b.len() / 2);
                while let Some(v) = list.u16() {
                    ch.curves.push(v);
                }
            }
            11 => ch.point_formats = SmallVec::from_slice(d.vec8()?),
            // Read for JA4 only: a malformed list is left out, not an error.
            13 => {
                let mut list = Reader {
                    b: d.vec16().unwrap_or_default(),
                };
                ch.signature_algorithms.reserve_exact(list.b.len() / 2);
                while let Some(v) = list.u16() {
                    ch.signature_algorithms.push(v);
                }
            }
            16 => {
                let mut list = Reader {
                    b: d.vec16().unwrap_or_default(),
                };
                if ch.alpn_first.is_none() {
                    ch.alpn_first = list.vec8().filter(|p| !p.is_empty());
                }
            }
            43 => {
                let mut list = Reader { b: d.vec8()? };
                ch.supported_versions.reserve_exact(list.b.len() / 2);
                while let Some(v) = list.u16() {
                    ch.supported_versions.push(v);
                }
            }
            _ => {}
        }
    }
    Some(ch)
}

/// Parses a ServerHello body. A TLS 1.3 draft before 22 (`0x7f00 | n`, or `0x0304`
/// in the version field, which the final TLS 1.3 keeps at `0x0303`) has neither
/// session id nor compression method.
pub fn server_hello(body: &[u8]) -> Option<ServerHello> {
    let mut r = Reader { b: body };
    let version = r.u16()?;
    let early_draft = version == 0x0304 || (version >> 8 == 0x7f && version & 0xff < 22);
    r.take(32)?;
    if !early_draft {
        r.vec8()?;
    }
    let cipher = r.u16()?;
    if !early_draft {
        r.u8()?;
    }
    let mut sh = ServerHello {
        version,
        selected_version: None,
        cipher,
        extensions: SmallVec::new(),
    };
    if r.b.is_empty() {
        return Some(sh);
    }
    let mut ext = Reader { b: r.vec16()? };
    sh.extensions.reserve_exact(ext.b.len() / 4);
    while !ext.b.is_empty() {
        let t = ext.u16()?;
        let data = ext.vec16()?;
        sh.extensions.push(t);
        if t == 43 && data.len() == 2 {
            sh.selected_version = Some(u16::from_be_bytes([data[0], data[1]]));
        }
    }
    Some(sh)
}

/// The DER certificates of a (TLS 1.2 style) Certificate message body (a chain of up
/// to 8 held inline: no allocation per handshake).
pub fn certificates(body: &[u8]) -> Option<SmallVec<[&[u8]; 8]>> {
    let mut r = Reader { b: body };
    let mut list = Reader { b: r.vec24()? };
    let mut v = SmallVec::new();
    while !list.b.is_empty() {
        v.push(list.vec24()?);
    }
    Some(v)
}

/// Subject and issuer of a DER certificate, formatted as Suricata logs them
/// (`C=US, O=Org, CN=name`).
pub fn cert_names(der: &[u8]) -> Option<(String, String)> {
    let cert = super::cert::parse_x509(der)?;
    Some((
        super::cert::name_string(cert.subject()),
        super::cert::name_string(cert.issuer()),
    ))
}

/// Suricata's name for a protocol version (`version` in EVE tls records).
pub fn version_name(v: u16) -> &'static str {
    match v {
        0x0200 => "SSLv2",
        0x0300 => "SSLv3",
        0x0301 => "TLSv1",
        0x0302 => "TLS 1.1",
        0x0303 => "TLS 1.2",
        0x0304 => "TLS 1.3",
        _ => "UNDETERMINED",
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A ClientHello handshake message (with header) for `sni`.
    pub(crate) fn client_hello_msg(sni: &str, versions: &[u16]) -> Vec<u8> {
        let mut body = vec![3, 3];
        body.extend_from_slice(&[7; 32]);
        body.push(0);
        body.extend_from_slice(&[0, 2, 0x13, 0x01]);
        body.extend_from_slice(&[1, 0]);
        let mut ext = vec![];
        let mut sn = vec![0];
        sn.extend_from_slice(&(sni.len() as u16).to_be_bytes());
        sn.extend_from_slice(sni.as_bytes());
        ext.extend_from_slice(&[0, 0]);
        ext.extend_from_slice(&((sn.len() + 2) as u16).to_be_bytes());
        ext.extend_from_slice(&(sn.len() as u16).to_be_bytes());
        ext.extend_from_slice(&sn);
        if !versions.is_empty() {
            ext.extend_from_slice(&[0, 43]);
            ext.extend_from_slice(&((versions.len() * 2 + 1) as u16).to_be_bytes());
            ext.push((versions.len() * 2) as u8);
            for v in versions {
                ext.extend_from_slice(&v.to_be_bytes());
            }
        }
        body.extend_from_slice(&(ext.len() as u16).to_be_bytes());
        body.extend_from_slice(&ext);
        let mut m = vec![HS_CLIENT_HELLO];
        m.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
        m.extend_from_slice(&body);
        m
    }

    /// A ServerHello handshake message choosing `v` (via supported_versions if `ext`).
    pub(crate) fn server_hello_msg(v: u16, ext: bool) -> Vec<u8> {
        let mut body = vec![3, 3];
        body.extend_from_slice(&[9; 32]);
        body.push(0);
        body.extend_from_slice(&[0x13, 0x01, 0]);
        if ext {
            body.extend_from_slice(&[0, 6, 0, 43, 0, 2]);
            body.extend_from_slice(&v.to_be_bytes());
        } else {
            body[0..2].copy_from_slice(&v.to_be_bytes());
        }
        let mut m = vec![HS_SERVER_HELLO];
        m.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
        m.extend_from_slice(&body);
        m
    }

    /// Wraps handshake bytes in records of at most `max` bytes.
    pub(crate) fn records(ct: u8, data: &[u8], max: usize) -> Vec<u8> {
        let mut v = vec![];
        for c in data.chunks(max) {
            v.extend_from_slice(&[ct, 3, 1]);
            v.extend_from_slice(&(c.len() as u16).to_be_bytes());
            v.extend_from_slice(c);
        }
        v
    }

    #[test]
    fn hellos() {
        let m = client_hello_msg("www.example.org", &[0x0304, 0x0303]);
        let ch = client_hello(&m[4..]).unwrap();
        assert_eq!(ch.sni, Some(&b"www.example.org"[..]));
        assert_eq!(ch.version, 0x0303);
        assert_eq!(ch.supported_versions[..], [0x0304, 0x0303]);
        for n in 0..m.len() - 4 {
            // Cut anywhere inside: no panic (a cut right after the compression methods
            // is a valid extension-less hello).
            let _ = client_hello(&m[4..4 + n]);
        }
        let sh = server_hello(&server_hello_msg(0x0304, true)[4..]).unwrap();
        assert_eq!(sh.selected_version, Some(0x0304));
        let sh = server_hello(&server_hello_msg(0x0301, false)[4..]).unwrap();
        assert_eq!((sh.version, sh.selected_version), (0x0301, None));
        // A TLS 1.3 draft-19 ServerHello (no session id, no compression method).
        let mut d19 = vec![0x7f, 0x13];
        d19.extend_from_slice(&[5; 32]);
        d19.extend_from_slice(&[0x13, 0x02, 0, 8, 0, 40, 0, 0, 0, 41, 0, 0]);
        let sh = server_hello(&d19).unwrap();
        assert_eq!((sh.version, sh.cipher), (0x7f13, 0x1302));
        assert_eq!(sh.extensions[..], [40, 41]);
        assert_eq!(super::super::ja3::ja3s(&sh).string, "32531,4866,40-41");
        assert_eq!(version_name(0x0303), "TLS 1.2");
    }

    #[test]
    fn record_headers() {
        assert_eq!(
            record_header(&[22, 3, 1, 0, 5]),
            Some(RecordHeader {
                content_type: 22,
                version: 0x0301,
                len: 5
            })
        );
        assert_eq!(record_header(&[22, 3, 1, 0xff, 0xff]), None);
        assert_eq!(record_header(&[1, 3, 1, 0, 5]), None);
        assert_eq!(record_header(&[22, 3]), None);
    }
}
