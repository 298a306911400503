//! The logon details a session setup's security blob carries: the NTLMSSP
//! `AUTHENTICATE` message (domain, user, host and the client's version) or the
//! Kerberos ticket of an `AP-REQ` (realm and service names), each found inside the
//! SPNEGO/GSS-API wrapping (RFC 4178, RFC 4121) with a small DER reader.

use super::bytes::{slice, u16_at, u32_at, u8_at, utf16};
use memchr::memmem;

/// An NTLMSSP `AUTHENTICATE` message's names (MS-NLMP 2.2.1.3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ntlmssp {
    /// `DomainName`.
    pub domain: Vec<u8>,
    /// `UserName`.
    pub user: Vec<u8>,
    /// `Workstation`.
    pub host: Vec<u8>,
    /// The client's version (`major.minor build ntlm-revision`), when sent.
    pub version: Option<String>,
}

/// What a security blob told about the logon.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Auth {
    /// NTLMSSP.
    Ntlmssp(Ntlmssp),
    /// A Kerberos ticket: realm and service principal name parts.
    Kerberos {
        /// The ticket's realm.
        realm: Vec<u8>,
        /// The ticket's service name parts (`cifs`, `host.example.org`).
        snames: Vec<Vec<u8>>,
    },
}

/// An NTLMSSP `AUTHENTICATE` message that does not parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MalformedNtlmssp;

/// The result of looking at a blob: the logon found, or a malformed NTLMSSP message.
pub fn parse(blob: &[u8]) -> Result<Option<Auth>, MalformedNtlmssp> {
    if let Some(i) = memmem::find(blob, b"NTLMSSP\0") {
        return match ntlmssp(&blob[i..]) {
            Some(Some(n)) => Ok(Some(Auth::Ntlmssp(n))),
            Some(None) => Ok(None),
            None => Err(MalformedNtlmssp),
        };
    }
    Ok(kerberos(blob))
}

/// An NTLMSSP message: `Some(None)` for a message other than `AUTHENTICATE`, `None`
/// when an `AUTHENTICATE` message is malformed.
fn ntlmssp(m: &[u8]) -> Option<Option<Ntlmssp>> {
    let kind = u32_at(m, 8)?;
    if kind != 3 {
        return Some(None);
    }
    let flags = u32_at(m, 60)?;
    let unicode = flags & 1 != 0;
    let field = |at: usize| -> Option<Vec<u8>> {
        let len = usize::from(u16_at(m, at)?);
        let off = u32_at(m, at + 4)? as usize;
        let b = if len == 0 {
            &[][..]
        } else {
            slice(m, off, len)?
        };
        Some(if unicode { utf16(b) } else { b.to_vec() })
    };
    // The version follows the flags when NTLMSSP_NEGOTIATE_VERSION is set and the
    // payload starts after it.
    let first_payload = [28usize, 36, 44]
        .iter()
        .filter_map(|&at| u32_at(m, at + 4))
        .min()
        .unwrap_or(0);
    let version = (flags & 0x0200_0000 != 0 && first_payload >= 72)
        .then(|| slice(m, 64, 8))
        .flatten()
        .map(|v| {
            let build = u16::from_le_bytes([v[2], v[3]]);
            format!("{}.{} build {} rev {}", v[0], v[1], build, v[7])
        });
    Some(Some(Ntlmssp {
        domain: field(28)?,
        user: field(36)?,
        host: field(44)?,
        version,
    }))
}

/// One DER TLV at the start of `b`: tag, content, rest.
fn tlv(b: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let tag = u8_at(b, 0)?;
    let first = u8_at(b, 1)?;
    let (len, hl) = if first < 0x80 {
        (usize::from(first), 2)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 {
            return None;
        }
        let mut len = 0usize;
        for &c in slice(b, 2, n)? {
            len = len << 8 | usize::from(c);
        }
        (len, 2 + n)
    };
    let content = slice(b, hl, len)?;
    Some((tag, content, &b[hl + len..]))
}

/// The content of the field tagged `tag` in the sequence content `b`.
fn field(mut b: &[u8], tag: u8) -> Option<&[u8]> {
    while !b.is_empty() {
        let (t, c, rest) = tlv(b)?;
        if t == tag {
            return Some(c);
        }
        b = rest;
    }
    None
}

/// The Kerberos OIDs (RFC 4121 and Microsoft's) as DER.
const KRB5_OIDS: [&[u8]; 2] = [
    b"\x06\x09\x2a\x86\x48\x86\xf7\x12\x01\x02\x02",
    b"\x06\x09\x2a\x86\x48\x82\xf7\x12\x01\x02\x02",
];

/// The ticket of a Kerberos `AP-REQ` wrapped in the blob: after the Kerberos OID of
/// the GSS-API token header comes the token id `01 00` and the `AP-REQ`.
fn kerberos(blob: &[u8]) -> Option<Auth> {
    // The OIDs also appear in SPNEGO's list of mechanisms: take the one followed by
    // the token id.
    let at = KRB5_OIDS
        .iter()
        .flat_map(|o| memmem::find_iter(blob, o).map(|i| i + o.len()))
        .find(|&i| blob.get(i..i + 2) == Some(b"\x01\x00"))?;
    let (tag, apreq, _) = tlv(&blob[at + 2..])?;
    if tag != 0x6e {
        return None;
    }
    let (_, seq, _) = tlv(apreq)?;
    let (tag, ticket, _) = tlv(field(seq, 0xa3)?)?;
    if tag != 0x61 {
        return None;
    }
    let (_, tseq, _) = tlv(ticket)?;
    let (_, realm, _) = tlv(field(tseq, 0xa1)?)?;
    let (_, pname, _) = tlv(field(tseq, 0xa2)?)?;
    let (_, names, _) = tlv(field(pname, 0xa1)?)?;
    let mut snames = Vec::new();
    let mut rest = names;
    while let Some((_, n, r)) = tlv(rest) {
        snames.push(n.to_vec());
        rest = r;
        if snames.len() >= 16 {
            break;
        }
    }
    Some(Auth::Kerberos {
        realm: realm.to_vec(),
        snames,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn der(tag: u8, content: &[u8]) -> Vec<u8> {
        let mut v = vec![tag];
        if content.len() < 0x80 {
            v.push(content.len() as u8);
        } else {
            v.push(0x82);
            v.extend_from_slice(&(content.len() as u16).to_be_bytes());
        }
        v.extend_from_slice(content);
        v
    }

    #[test]
    fn kerberos_ticket_names() {
        let names = [der(0x1b, b"cifs"), der(0x1b, b"dc1.contoso.local")].concat();
        let pname = [der(0xa0, &der(2, &[2])), der(0xa1, &der(0x30, &names))].concat();
        let tseq = [
            der(0xa0, &der(2, &[5])),
            der(0xa1, &der(0x1b, b"CONTOSO.LOCAL")),
            der(0xa2, &der(0x30, &pname)),
            der(0xa3, &der(0x30, &[0u8; 200])),
        ]
        .concat();
        let ticket = der(0x61, &der(0x30, &tseq));
        let apreq = der(
            0x6e,
            &der(
                0x30,
                &[der(0xa0, &der(2, &[5])), der(0xa3, &ticket)].concat(),
            ),
        );
        let mut blob = b"\x60\x82\x01\x00".to_vec();
        // SPNEGO's mechanism list names the OID first.
        blob.extend_from_slice(KRB5_OIDS[0]);
        blob.extend_from_slice(KRB5_OIDS[0]);
        blob.extend_from_slice(b"\x01\x00");
        blob.extend_from_slice(&apreq);
        assert_eq!(
            parse(&blob),
            Ok(Some(Auth::Kerberos {
                realm: b"CONTOSO.LOCAL".to_vec(),
                snames: vec![b"cifs".to_vec(), b"dc1.contoso.local".to_vec()],
            }))
        );
        assert_eq!(parse(&blob[..blob.len() - 10]), Ok(None));
    }

    #[test]
    fn ntlmssp_authenticate() {
        let mut m = b"NTLMSSP\0\x03\0\0\0".to_vec();
        m.resize(72, 0);
        let payload: Vec<u8> = "DOMuserHOST"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let put = |m: &mut Vec<u8>, at: usize, off: usize, len: usize| {
            m[at..at + 2].copy_from_slice(&(len as u16).to_le_bytes());
            m[at + 4..at + 8].copy_from_slice(&(off as u32).to_le_bytes());
        };
        put(&mut m, 28, 72, 6);
        put(&mut m, 36, 78, 8);
        put(&mut m, 44, 86, 8);
        m[60..64].copy_from_slice(&0x0200_0001u32.to_le_bytes());
        m[64..72].copy_from_slice(&[10, 0, 0x61, 0x4a, 0, 0, 0, 15]);
        m.extend_from_slice(&payload);
        let Ok(Some(Auth::Ntlmssp(n))) = parse(&m) else {
            panic!("not parsed");
        };
        assert_eq!(
            (n.domain, n.user, n.host),
            (b"DOM".to_vec(), b"user".to_vec(), b"HOST".to_vec())
        );
        assert_eq!(n.version.as_deref(), Some("10.0 build 19041 rev 15"));
        assert_eq!(parse(&m[..40]), Err(MalformedNtlmssp));
        // A NEGOTIATE message is no logon.
        assert_eq!(parse(b"NTLMSSP\0\x01\0\0\0"), Ok(None));
    }
}
