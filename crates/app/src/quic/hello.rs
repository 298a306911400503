//! The TLS 1.3 ClientHello and ServerHello carried in QUIC CRYPTO frames, as Suricata
//! logs them for QUIC: the SNI, each extension with Suricata's name for it and the
//! values it shows (server names, ALPN protocols, signature algorithms, versions), and
//! JA3/JA3S strings computed over the hello as it is: GREASE ciphers and groups kept
//! as they are, GREASE extension types as `0xfafa`, and no
//! trailing point formats for JA3S.

use crate::tls::ja3::Ja3;

/// One extension of a hello.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extension {
    /// The extension type.
    pub ty: u16,
    /// The values Suricata logs for it (empty for the others).
    pub values: Vec<String>,
}

/// A parsed hello.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// A ClientHello (else a ServerHello).
    pub client: bool,
    /// The first host name of the server_name extension.
    pub sni: Option<Vec<u8>>,
    /// The JA3 (ClientHello) or JA3S (ServerHello).
    pub ja3: Ja3,
    /// The extensions, in order.
    pub extensions: Vec<Extension>,
}

/// A fingerprint string with its MD5.
pub(crate) fn fingerprint(string: String) -> Ja3 {
    Ja3::new(string)
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Some(a)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|b| u16::from_be_bytes([b[0], b[1]]))
    }
    fn vec8(&mut self) -> Option<&'a [u8]> {
        let n = self.u8()?;
        self.take(usize::from(n))
    }
    fn vec16(&mut self) -> Option<&'a [u8]> {
        let n = self.u16()?;
        self.take(usize::from(n))
    }
    fn u16s(mut self) -> Vec<u16> {
        std::iter::from_fn(|| self.u16()).collect()
    }
}

/// A TLS version as Suricata names it in `supported_versions` values.
pub fn version_name(v: u16) -> String {
    let name = match v {
        0x0300 => "Ssl30",
        0x0301 => "Tls10",
        0x0302 => "Tls11",
        0x0303 => "Tls12",
        0x0304 => "Tls13",
        0x7f12 => "Tls13Draft18",
        0x7f13 => "Tls13Draft19",
        0x7f14 => "Tls13Draft20",
        0x7f15 => "Tls13Draft21",
        0x7f16 => "Tls13Draft22",
        0x7f17 => "Tls13Draft23",
        0xfeff => "DTls10",
        0xfefe => "DTls11",
        0xfefd => "DTls12",
        _ => return format!("TlsVersion({v} / {v:#06x})"),
    };
    name.to_string()
}

/// Suricata's name for an extension type (IANA's, `alpn` for type 16); `None` for
/// unassigned, private and GREASE types.
pub fn extension_name(t: u16) -> Option<&'static str> {
    const NAMES: [&str; 60] = [
        "server_name",
        "max_fragment_length",
        "client_certificate_url",
        "trusted_ca_keys",
        "truncated_hmac",
        "status_request",
        "user_mapping",
        "client_authz",
        "server_authz",
        "cert_type",
        "supported_groups",
        "ec_point_formats",
        "srp",
        "signature_algorithms",
        "use_srtp",
        "heartbeat",
        "alpn",
        "status_request_v2",
        "signed_certificate_timestamp",
        "client_certificate_type",
        "server_certificate_type",
        "padding",
        "encrypt_then_mac",
        "extended_master_secret",
        "token_binding",
        "cached_info",
        "tls_lts",
        "compress_certificate",
        "record_size_limit",
        "pwd_protect",
        "pwd_clear",
        "password_salt",
        "ticket_pinning",
        "tls_cert_with_extern_psk",
        "delegated_credentials",
        "session_ticket",
        "TLMSP",
        "TLMSP_proxying",
        "TLMSP_delegate",
        "supported_ekt_ciphers",
        "",
        "pre_shared_key",
        "early_data",
        "supported_versions",
        "cookie",
        "psk_key_exchange_modes",
        "",
        "certificate_authorities",
        "oid_filters",
        "post_handshake_auth",
        "signature_algorithms_cert",
        "key_share",
        "transparency_info",
        "connection_id_deprecated",
        "connection_id",
        "external_id_hash",
        "external_session_id",
        "quic_transport_parameters",
        "ticket_request",
        "dnssec_chain",
    ];
    match t {
        13172 => Some("next_protocol_negotiation"),
        0xff01 => Some("renegotiation_info"),
        _ => NAMES.get(usize::from(t)).copied().filter(|n| !n.is_empty()),
    }
}

/// An RFC 8701 GREASE extension type (`0x?a?a`) is logged (and fingerprinted) as
/// `0xfafa`, whichever GREASE value the hello used, as Suricata does.
fn grease_as_fafa(t: u16) -> u16 {
    if t & 0x0f0f == 0x0a0a && t >> 8 == t & 0xff {
        0xfafa
    } else {
        t
    }
}

fn join(v: impl IntoIterator<Item = impl ToString>) -> String {
    v.into_iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join("-")
}

/// Parses a handshake message (type, 24-bit length, body): a ClientHello or a
/// ServerHello; `None` for another message or a malformed one.
pub fn parse(msg: &[u8]) -> Option<Hello> {
    let mut r = Reader(msg);
    let ty = r.u8()?;
    let len = r.take(3)?;
    let len = usize::from(len[0]) << 16 | usize::from(len[1]) << 8 | usize::from(len[2]);
    let mut r = Reader(r.take(len)?);
    let client = match ty {
        1 => true,
        2 => false,
        _ => return None,
    };
    let version = r.u16()?;
    r.take(32)?;
    r.vec8()?;
    let ciphers = if client {
        Reader(r.vec16()?).u16s()
    } else {
        vec![r.u16()?]
    };
    let _compression = if client { r.vec8()? } else { r.take(1)? };
    let mut h = Hello {
        client,
        sni: None,
        ja3: fingerprint(String::new()),
        extensions: Vec::new(),
    };
    let (mut curves, mut formats) = (Vec::new(), Vec::new());
    let mut ext = Reader(if r.0.is_empty() { &[] } else { r.vec16()? });
    while !ext.0.is_empty() {
        let ty = grease_as_fafa(ext.u16()?);
        let mut d = Reader(ext.vec16()?);
        let values = match ty {
            0 => {
                let mut list = Reader(d.vec16()?);
                let mut names = Vec::new();
                while !list.0.is_empty() {
                    let kind = list.u8()?;
                    let name = list.vec16()?;
                    if kind == 0 {
                        h.sni.get_or_insert_with(|| name.to_vec());
                    }
                    names.push(String::from_utf8_lossy(name).into_owned());
                }
                names
            }
            10 => {
                curves = Reader(d.vec16()?).u16s();
                Vec::new()
            }
            11 => {
                formats = d.vec8()?.to_vec();
                Vec::new()
            }
            13 => Reader(d.vec16()?)
                .u16s()
                .iter()
                .map(u16::to_string)
                .collect(),
            16 => {
                let mut list = Reader(d.vec16()?);
                std::iter::from_fn(|| list.vec8())
                    .map(|p| String::from_utf8_lossy(p).into_owned())
                    .collect()
            }
            43 if client => Reader(d.vec8()?)
                .u16s()
                .into_iter()
                .map(version_name)
                .collect(),
            43 => vec![version_name(d.u16()?)],
            _ => Vec::new(),
        };
        h.extensions.push(Extension { ty, values });
    }
    let types = join(h.extensions.iter().map(|e| e.ty));
    h.ja3 = fingerprint(if client {
        format!(
            "{version},{},{types},{},{}",
            join(&ciphers),
            join(&curves),
            join(&formats)
        )
    } else {
        format!("{version},{},{types}", ciphers[0])
    });
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(extension_name(0), Some("server_name"));
        assert_eq!(extension_name(16), Some("alpn"));
        assert_eq!(extension_name(57), Some("quic_transport_parameters"));
        assert_eq!(extension_name(0xff01), Some("renegotiation_info"));
        assert_eq!(extension_name(40), None);
        assert_eq!(extension_name(17513), None);
        assert_eq!(version_name(0x0304), "Tls13");
        assert_eq!(version_name(0x7f1c), "TlsVersion(32540 / 0x7f1c)");
        assert_eq!(version_name(0xfafa), "TlsVersion(64250 / 0xfafa)");
        assert_eq!(grease_as_fafa(0x5a5a), 0xfafa);
        assert_eq!(grease_as_fafa(0x0a0a), 0xfafa);
        assert_eq!(grease_as_fafa(0x5a4a), 0x5a4a);
    }

    #[test]
    fn server_hello_ja3s() {
        // A TLS 1.3 ServerHello: version, random, session id, cipher, compression,
        // extensions key_share (51) then supported_versions (43).
        let mut body = vec![0x03, 0x03];
        body.extend([0u8; 32]);
        body.extend([0, 0x13, 0x01, 0]);
        let ext = [0, 51, 0, 2, 0, 29, 0, 43, 0, 2, 3, 4];
        body.extend((ext.len() as u16).to_be_bytes());
        body.extend(ext);
        let mut msg = vec![2, 0, 0, body.len() as u8];
        msg.extend(&body);
        let h = parse(&msg).unwrap();
        assert!(!h.client);
        assert_eq!(h.ja3.string, "771,4865,51-43");
        assert_eq!(h.ja3.hash, "eb1d94daa7e0344597e756a1fb6e7054");
        assert_eq!(h.extensions[1].values, ["Tls13"]);
        assert!(parse(&msg[..msg.len() - 1]).is_none());
        msg[0] = 4;
        assert!(parse(&msg).is_none());
    }
}
