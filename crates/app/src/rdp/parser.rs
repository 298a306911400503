//! RDP's connection sequence on the wire (MS-RDPBCGR 2.2.1): TPKT framing (RFC 1006),
//! the X.224 connection request and confirm with the cookie and the RDP negotiation
//! request, response or failure, X.224 data carrying the MCS Connect Initial and
//! Connect Response (T.125 BER), the GCC Conference Create Request (T.124 PER) inside
//! it with the client's core and network data blocks, and the TLS records that follow
//! when the server selected TLS (the certificate serials). Every reader is bounded by
//! its input and answers `None` on what does not parse.

/// A TPKT header's version byte.
pub const TPKT_VERSION: u8 = 3;

/// One whole TPKT packet at the start of `buf`: its length and its payload (the X.224
/// TPDU); `Ok(None)` while incomplete, `Err(())` when it is not TPKT.
#[allow(clippy::result_unit_err)]
pub fn tpkt(buf: &[u8]) -> Result<Option<(usize, &[u8])>, ()> {
    if buf.len() < 4 {
        return Ok(None);
    }
    if buf[0] != TPKT_VERSION {
        return Err(());
    }
    let len = usize::from(u16::from_be_bytes([buf[2], buf[3]]));
    if len < 7 {
        return Err(());
    }
    if buf.len() < len {
        return Ok(None);
    }
    Ok(Some((len, &buf[4..len])))
}

/// A whole TLS record: its length, content type and body.
pub type TlsRecord<'a> = (usize, u8, &'a [u8]);

/// One TLS record at the start of `buf`; `Ok(None)` while incomplete, `Err(())` when
/// it is not a TLS record.
#[allow(clippy::result_unit_err)]
pub fn tls_record(buf: &[u8]) -> Result<Option<TlsRecord<'_>>, ()> {
    if buf.len() < 5 {
        return Ok(None);
    }
    if !(20..=24).contains(&buf[0]) || buf[1] != 3 {
        return Err(());
    }
    let len = 5 + usize::from(u16::from_be_bytes([buf[3], buf[4]]));
    if buf.len() < len {
        return Ok(None);
    }
    Ok(Some((len, buf[0], &buf[5..len])))
}

/// The client's RDP negotiation request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NegRequest {
    /// Its flags (only the defined bits: a request with others is not kept).
    pub flags: u8,
    /// The security protocols requested.
    pub protocols: u32,
}

/// The server's answer to a negotiation request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NegResponse {
    /// The protocol selected (0 standard RDP, 1 TLS, 2 CredSSP, 4 RDSTLS, 8 CredSSP
    /// with early user authorization) and the server's flags.
    Selected {
        /// The server's flags.
        flags: u8,
        /// The selected protocol.
        protocol: u32,
    },
    /// A negotiation failure code (1 to 6).
    Failure(u32),
}

/// An X.224 TPDU of the connection sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum X224<'a> {
    /// Connection request: the `mstshash` cookie and the negotiation request.
    Request {
        /// The cookie's value.
        cookie: Option<String>,
        /// The negotiation request.
        neg: Option<NegRequest>,
    },
    /// Connection confirm and its negotiation response.
    Confirm(Option<NegResponse>),
    /// Data: the user data it carries.
    Data(&'a [u8]),
    /// Another TPDU (disconnect, error ...).
    Other,
}

/// The negotiation request flags defined (restricted admin mode, redirected
/// authentication mode, correlation info present).
pub const NEG_REQ_FLAGS: u8 = 0x01 | 0x02 | 0x08;
/// The negotiation response flags defined.
pub const NEG_RSP_FLAGS: u8 = 0x1F;

fn u32le(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4)
        .map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]]))
}

fn u16le(b: &[u8], at: usize) -> Option<u16> {
    b.get(at..at + 2).map(|x| u16::from_le_bytes([x[0], x[1]]))
}

/// An 8-byte negotiation structure: type, flags, length (8) and value.
fn neg_struct(b: &[u8]) -> Option<(u8, u8, u32)> {
    (b.len() >= 8 && u16le(b, 2)? == 8).then(|| (b[0], b[1], u32le(b, 4).unwrap_or(0)))
}

/// Parses an X.224 TPDU (the payload of a TPKT packet).
pub fn x224(p: &[u8]) -> Option<X224<'_>> {
    let li = usize::from(*p.first()?);
    let code = *p.get(1)? & 0xF0;
    match code {
        0xE0 | 0xD0 => {
            if li < 6 || p.len() < 7 {
                return None;
            }
            let var = &p[7..p.len().min(li + 1).max(7)];
            if code == 0xD0 {
                let neg = neg_struct(var).and_then(|(t, flags, v)| match t {
                    2 if flags & !NEG_RSP_FLAGS == 0 && matches!(v, 0 | 1 | 2 | 4 | 8) => {
                        Some(NegResponse::Selected { flags, protocol: v })
                    }
                    3 if (1..=6).contains(&v) => Some(NegResponse::Failure(v)),
                    _ => None,
                });
                return Some(X224::Confirm(neg));
            }
            let (cookie, rest) = cookie(var)?;
            let neg = neg_struct(rest).and_then(|(t, flags, protocols)| {
                (t == 1 && flags & !NEG_REQ_FLAGS == 0).then_some(NegRequest { flags, protocols })
            });
            Some(X224::Request { cookie, neg })
        }
        0xF0 => {
            if li != 2 || p.len() < 3 {
                return None;
            }
            Some(X224::Data(&p[3..]))
        }
        _ => Some(X224::Other),
    }
}

/// The `Cookie: mstshash=` value (or a routing token, skipped) at the start of a
/// connection request's variable part, and what follows; `None` when a cookie line
/// does not end.
fn cookie(var: &[u8]) -> Option<(Option<String>, &[u8])> {
    const PREFIX: &[u8] = b"Cookie: ";
    if !var.starts_with(PREFIX) {
        return Some((None, var));
    }
    let end = var.windows(2).position(|w| w == b"\r\n")?;
    let line = &var[PREFIX.len()..end];
    let value = line
        .strip_prefix(b"mstshash=")
        .map(|v| String::from_utf8_lossy(v).into_owned());
    Some((value, &var[end + 2..]))
}

/// A BER tag (one or two bytes) and length at the start of `b`: the header length and
/// the content length.
fn ber_header(b: &[u8]) -> Option<(usize, usize)> {
    let mut at = 1;
    if *b.first()? & 0x1F == 0x1F {
        at += 1;
    }
    let first = *b.get(at)?;
    at += 1;
    if first < 0x80 {
        return Some((at, usize::from(first)));
    }
    let n = usize::from(first & 0x7F);
    if n == 0 || n > 4 {
        return None;
    }
    let mut len = 0usize;
    for _ in 0..n {
        len = (len << 8) | usize::from(*b.get(at)?);
        at += 1;
    }
    Some((at, len))
}

/// An MCS PDU carried by X.224 data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mcs<'a> {
    /// Connect Initial: its GCC user data.
    ConnectInitial(&'a [u8]),
    /// Connect Response.
    ConnectResponse,
    /// Anything else (domain PDUs).
    Other,
}

/// Reads the MCS PDU of X.224 data.
pub fn mcs(d: &[u8]) -> Option<Mcs<'_>> {
    match d.get(..2)? {
        [0x7F, 0x65] => {}
        [0x7F, 0x66] => return Some(Mcs::ConnectResponse),
        _ => return Some(Mcs::Other),
    }
    let (h, len) = ber_header(d)?;
    let mut body = d.get(h..)?;
    body = &body[..len.min(body.len())];
    // callingDomainSelector, calledDomainSelector, upwardFlag and the three domain
    // parameters, then userData.
    for _ in 0..6 {
        let (h, len) = ber_header(body)?;
        body = body.get(h + len..)?;
    }
    if *body.first()? != 0x04 {
        return None;
    }
    let (h, len) = ber_header(body)?;
    let data = body.get(h..)?;
    Some(Mcs::ConnectInitial(&data[..len.min(data.len())]))
}

/// The client data blocks of a GCC Conference Create Request (the T.124 key, the PER
/// connect PDU and the `Duca` H.221 key skipped).
pub fn gcc_blocks(u: &[u8]) -> Option<&[u8]> {
    let key_len = usize::from(*u.get(1)?);
    let rest = u.get(2 + key_len..)?;
    let window = &rest[..rest.len().min(24)];
    let at = window.windows(4).position(|w| w == b"Duca")? + 4;
    let rest = &rest[at..];
    let first = *rest.first()?;
    let (h, len) = if first & 0x80 == 0 {
        (1, usize::from(first))
    } else {
        (
            2,
            usize::from(first & 0x3F) << 8 | usize::from(*rest.get(1)?),
        )
    };
    let blocks = rest.get(h..)?;
    Some(&blocks[..len.min(blocks.len())])
}

/// Each `(type, body)` of a run of client data blocks (stops at one that does not fit).
pub fn blocks(mut b: &[u8]) -> impl Iterator<Item = (u16, &[u8])> {
    std::iter::from_fn(move || {
        let kind = u16le(b, 0)?;
        let len = usize::from(u16le(b, 2)?);
        if len < 4 || len > b.len() {
            return None;
        }
        let body = &b[4..len];
        b = &b[len..];
        Some((kind, body))
    })
}

/// The client core data block (TS_UD_CS_CORE).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientCore {
    /// RDP version (`0x00080004` ...).
    pub version: u32,
    /// Desktop width.
    pub desktop_width: u16,
    /// Desktop height.
    pub desktop_height: u16,
    /// The colour depth the client uses, in bits per pixel (from the high colour
    /// depth, the post-beta2 colour depth or the colour depth, the first valid).
    pub color_depth: Option<u16>,
    /// Keyboard layout (a Windows locale identifier).
    pub keyboard_layout: u32,
    /// Client build number.
    pub build: u32,
    /// Client name.
    pub client_name: String,
    /// Keyboard type.
    pub keyboard_type: u32,
    /// Keyboard subtype.
    pub keyboard_subtype: u32,
    /// Function keys.
    pub function_keys: u32,
    /// Input method editor file name.
    pub ime: String,
    /// Client product id.
    pub product_id: Option<u16>,
    /// Serial number.
    pub serial_number: Option<u32>,
    /// Early capability flags (only the defined bits; `None` with others).
    pub capabilities: Option<u16>,
    /// Client's digital product id.
    pub id: Option<String>,
    /// Connection type.
    pub connection_type: Option<u8>,
    /// The physical desktop fields.
    pub physical: Option<Physical>,
}

/// The client core data's physical desktop fields (present together from the width
/// and height on).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Physical {
    /// Physical width in millimetres.
    pub width: u32,
    /// Physical height in millimetres.
    pub height: u32,
    /// Desktop orientation (degrees).
    pub orientation: Option<u16>,
    /// Desktop scale factor (percent).
    pub scale: Option<u32>,
    /// Device scale factor (percent).
    pub device_scale: Option<u32>,
}

/// The early capability flags defined (0x0001 to 0x0400).
pub const EARLY_CAPABILITIES: u16 = 0x07FF;

fn utf16z(b: &[u8]) -> String {
    let units: Vec<u16> = b
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|&u| u != 0)
        .collect();
    String::from_utf16_lossy(&units)
}

fn color(code: u16) -> Option<u16> {
    match code {
        0xCA00 => Some(4),
        0xCA01 => Some(8),
        0xCA02 => Some(15),
        0xCA03 => Some(16),
        0xCA04 => Some(24),
        _ => None,
    }
}

/// Parses a client core data block's body (after its header).
pub fn client_core(b: &[u8]) -> Option<ClientCore> {
    if b.len() < 128 {
        return None;
    }
    let mut c = ClientCore {
        version: u32le(b, 0)?,
        desktop_width: u16le(b, 4)?,
        desktop_height: u16le(b, 6)?,
        keyboard_layout: u32le(b, 12)?,
        build: u32le(b, 16)?,
        client_name: utf16z(&b[20..52]),
        keyboard_type: u32le(b, 52)?,
        keyboard_subtype: u32le(b, 56)?,
        function_keys: u32le(b, 60)?,
        ime: utf16z(&b[64..128]),
        ..ClientCore::default()
    };
    let base = color(u16le(b, 8)?);
    let post_beta2 = u16le(b, 128).and_then(color);
    c.product_id = u16le(b, 130);
    c.serial_number = u32le(b, 132);
    let high = u16le(b, 136).filter(|d| matches!(d, 4 | 8 | 15 | 16 | 24));
    c.color_depth = high.or(post_beta2).or(base);
    let flags = u16le(b, 140);
    if flags.is_some_and(|f| f & !EARLY_CAPABILITIES != 0) {
        return Some(c);
    }
    c.capabilities = flags;
    c.id = b.get(142..206).map(utf16z);
    c.connection_type = b.get(206).copied();
    if let (Some(w), Some(h)) = (u32le(b, 212), u32le(b, 216)) {
        c.physical = Some(Physical {
            width: w,
            height: h,
            orientation: u16le(b, 220),
            scale: u32le(b, 222),
            device_scale: u32le(b, 226),
        });
    }
    Some(c)
}

/// The channel names of a client network data block's body.
pub fn channels(b: &[u8]) -> Vec<String> {
    let n = u32le(b, 0).unwrap_or(0) as usize;
    b.get(4..)
        .unwrap_or_default()
        .chunks_exact(12)
        .take(n)
        .map(|c| {
            let name = &c[..8];
            let end = name.iter().position(|&x| x == 0).unwrap_or(8);
            String::from_utf8_lossy(&name[..end]).into_owned()
        })
        .collect()
}

/// The serial numbers (lowercase hex, without leading zeros) of the certificates of a
/// TLS Certificate handshake message's body; `None` when it does not parse.
pub fn certificate_serials(body: &[u8]) -> Option<Vec<String>> {
    let u24 = |b: &[u8], at: usize| -> Option<usize> {
        let x = b.get(at..at + 3)?;
        Some(usize::from(x[0]) << 16 | usize::from(x[1]) << 8 | usize::from(x[2]))
    };
    let total = u24(body, 0)?;
    let mut list = body.get(3..3 + total)?;
    let mut out = Vec::new();
    while !list.is_empty() {
        let len = u24(list, 0)?;
        let der = list.get(3..3 + len)?;
        if let Ok((_, cert)) = x509_parser::parse_x509_certificate(der) {
            out.push(cert.tbs_certificate.serial.to_str_radix(16));
        }
        list = &list[3 + len..];
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first client and server TPDUs of the RDP flow of sv-ether.pcap.
    const CR: &str = "030000241fe00000000000436f6f6b69653a206d737473686173683d4137303036370d0a";
    const CC: &str = "0300000b06d00000123400";

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn connection_request_and_confirm() {
        let cr = unhex(CR);
        assert_eq!(tpkt(&cr[..10]), Ok(None));
        let (len, p) = tpkt(&cr).unwrap().unwrap();
        assert_eq!(len, cr.len());
        assert_eq!(
            x224(p),
            Some(X224::Request {
                cookie: Some("A70067".into()),
                neg: None
            })
        );
        let cc = unhex(CC);
        let (_, p) = tpkt(&cc).unwrap().unwrap();
        assert_eq!(x224(p), Some(X224::Confirm(None)));
        assert_eq!(tpkt(b"GET / HTTP/1.1"), Err(()));
    }

    #[test]
    fn negotiation() {
        let mut p = vec![0x0e, 0xe0, 0, 0, 0, 0, 0];
        p.extend_from_slice(&[1, 1, 8, 0, 3, 0, 0, 0]);
        assert_eq!(
            x224(&p),
            Some(X224::Request {
                cookie: None,
                neg: Some(NegRequest {
                    flags: 1,
                    protocols: 3
                })
            })
        );
        p[8] = 0x10;
        assert_eq!(
            x224(&p),
            Some(X224::Request {
                cookie: None,
                neg: None
            })
        );
        let rsp = [0x0e, 0xd0, 0, 0, 0, 0, 0, 2, 0x1f, 8, 0, 1, 0, 0, 0];
        assert_eq!(
            x224(&rsp),
            Some(X224::Confirm(Some(NegResponse::Selected {
                flags: 0x1f,
                protocol: 1
            })))
        );
        let fail = [0x0e, 0xd0, 0, 0, 0, 0, 0, 3, 0, 8, 0, 5, 0, 0, 0];
        assert_eq!(
            x224(&fail),
            Some(X224::Confirm(Some(NegResponse::Failure(5))))
        );
        // A cookie line that does not end.
        assert_eq!(x224(b"\x10\xe0\0\0\0\0\0Cookie: mstsh"), None);
    }

    #[test]
    fn hostile_lengths() {
        assert_eq!(tpkt(&[3, 0, 0, 2]), Err(()));
        assert_eq!(x224(&[]), None);
        assert_eq!(x224(&[2, 0xf0]), None);
        assert_eq!(mcs(&[0x7f, 0x65, 0x84, 0xff, 0xff, 0xff, 0xff]), None);
        assert_eq!(mcs(&[0x7f, 0x65, 0x85]), None);
        assert_eq!(gcc_blocks(&[0, 200]), None);
        assert_eq!(blocks(&[1, 0xc0, 0xff, 0xff]).count(), 0);
        assert_eq!(client_core(&[0; 127]), None);
        assert!(channels(&[0xff, 0xff, 0xff, 0xff, 1]).is_empty());
        assert_eq!(certificate_serials(&[0, 0, 9, 0, 0, 5]), None);
    }
}
