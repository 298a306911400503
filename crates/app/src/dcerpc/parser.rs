//! DCERPC PDUs (DCE 1.1 RPC, chapter 12; MS-RPCE): the connection-oriented header and
//! the bodies of bind, bind_ack, alter_context(_resp), request, response and fault, and
//! the connectionless (UDP) header. Parsing is zero-copy and answers `None` on bytes
//! that are not a PDU of the kind asked for; a caller frames PDUs with
//! [`co_frag_length`] first.

/// Bytes of a connection-oriented PDU header.
pub const CO_HDR: usize = 16;
/// Bytes of a connectionless PDU header.
pub const CL_HDR: usize = 80;

/// `pfc_flags`: first fragment of a request or response.
pub const PFC_FIRST_FRAG: u8 = 0x01;
/// `pfc_flags`: last fragment.
pub const PFC_LAST_FRAG: u8 = 0x02;
/// `pfc_flags`: the request carries an object UUID after the opnum.
pub const PFC_OBJECT_UUID: u8 = 0x80;

/// CL `flags1`: last fragment.
pub const CL_LASTFRAG: u8 = 0x02;
/// CL `flags1`: the PDU is a fragment.
pub const CL_FRAG: u8 = 0x04;

/// PDU types (`PTYPE`), connection-oriented and connectionless.
pub mod ptype {
    /// request
    pub const REQUEST: u8 = 0;
    /// ping (connectionless)
    pub const PING: u8 = 1;
    /// response
    pub const RESPONSE: u8 = 2;
    /// fault
    pub const FAULT: u8 = 3;
    /// working (connectionless)
    pub const WORKING: u8 = 4;
    /// nocall (connectionless)
    pub const NOCALL: u8 = 5;
    /// reject (connectionless)
    pub const REJECT: u8 = 6;
    /// ack (connectionless)
    pub const ACK: u8 = 7;
    /// bind
    pub const BIND: u8 = 11;
    /// bind_ack
    pub const BIND_ACK: u8 = 12;
    /// bind_nak
    pub const BIND_NAK: u8 = 13;
    /// alter_context
    pub const ALTER_CONTEXT: u8 = 14;
    /// alter_context_resp
    pub const ALTER_CONTEXT_RESP: u8 = 15;
}

/// The name Suricata's EVE gives PDU type `t` (`REQUEST`, `BINDACK`, ...; an unknown
/// type is its number).
pub fn ptype_name(t: u8) -> std::borrow::Cow<'static, str> {
    let s = match t {
        0 => "REQUEST",
        1 => "PING",
        2 => "RESPONSE",
        3 => "FAULT",
        4 => "WORKING",
        5 => "NOCALL",
        6 => "REJECT",
        7 => "ACK",
        8 => "CL_CANCEL",
        9 => "FACK",
        10 => "CANCEL_ACK",
        11 => "BIND",
        12 => "BINDACK",
        13 => "BINDNAK",
        14 => "ALTER_CONTEXT",
        15 => "ALTER_CONTEXT_RESP",
        16 => "AUTH3",
        17 => "SHUTDOWN",
        18 => "CO_CANCEL",
        19 => "ORPHANED",
        20 => "RTS",
        n => return n.to_string().into(),
    };
    s.into()
}

/// Integer reader in the PDU's data representation.
#[derive(Clone, Copy, Debug)]
struct Rd<'a> {
    b: &'a [u8],
    le: bool,
}

impl<'a> Rd<'a> {
    fn u8(&self, at: usize) -> Option<u8> {
        self.b.get(at).copied()
    }
    fn u16(&self, at: usize) -> Option<u16> {
        let x: [u8; 2] = self.b.get(at..at + 2)?.try_into().ok()?;
        Some(if self.le {
            u16::from_le_bytes(x)
        } else {
            u16::from_be_bytes(x)
        })
    }
    fn u32(&self, at: usize) -> Option<u32> {
        let x: [u8; 4] = self.b.get(at..at + 4)?.try_into().ok()?;
        Some(if self.le {
            u32::from_le_bytes(x)
        } else {
            u32::from_be_bytes(x)
        })
    }
    /// The 16 bytes of a UUID at `at`, as they are on the wire (whatever the PDU's
    /// integer representation: Suricata prints and matches them as little-endian
    /// fields).
    fn uuid(&self, at: usize) -> Option<[u8; 16]> {
        self.b.get(at..at + 16)?.try_into().ok()
    }
}

/// A connection-oriented PDU header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoHeader {
    /// `rpc_vers` (5).
    pub version: u8,
    /// `rpc_vers_minor` (0 or 1).
    pub version_minor: u8,
    /// PDU type (see [`ptype`]).
    pub ptype: u8,
    /// `pfc_flags`.
    pub flags: u8,
    /// Integers are little-endian (`drep[0]` bit 4).
    pub little_endian: bool,
    /// Length of the whole PDU.
    pub frag_length: u16,
    /// Length of the authentication verifier.
    pub auth_length: u16,
    /// Call id.
    pub call_id: u32,
}

impl CoHeader {
    /// Whether the PDU is the first fragment of its call.
    pub fn first_frag(&self) -> bool {
        self.flags & PFC_FIRST_FRAG != 0
    }
    /// Whether the PDU is the last fragment of its call.
    pub fn last_frag(&self) -> bool {
        self.flags & PFC_LAST_FRAG != 0
    }
    /// Bytes at the end of the PDU taken by the authentication trailer (the 8-byte
    /// `sec_trailer` and the verifier), 0 without one.
    pub fn auth_trailer(&self) -> usize {
        if self.auth_length == 0 {
            0
        } else {
            usize::from(self.auth_length) + 8
        }
    }
}

/// `frag_length` of the connection-oriented PDU whose header starts `h` (at least
/// [`CO_HDR`] bytes), if it is one: version 5.0 or 5.1, a known PDU type, integers
/// big- or little-endian, and a length that covers the header.
pub fn co_frag_length(h: &[u8]) -> Option<u16> {
    co_header(h).map(|h| h.frag_length)
}

/// The connection-oriented header at the start of `b`, if it is one (see
/// [`co_frag_length`]).
pub fn co_header(b: &[u8]) -> Option<CoHeader> {
    if b.len() < CO_HDR || b[0] != 5 || b[1] > 1 || b[2] > 20 || b[4] & 0xe0 != 0 {
        return None;
    }
    let r = Rd {
        b,
        le: b[4] & 0x10 != 0,
    };
    let h = CoHeader {
        version: b[0],
        version_minor: b[1],
        ptype: b[2],
        flags: b[3],
        little_endian: r.le,
        frag_length: r.u16(8)?,
        auth_length: r.u16(10)?,
        call_id: r.u32(12)?,
    };
    (usize::from(h.frag_length) >= CO_HDR).then_some(h)
}

/// A request PDU's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request<'a> {
    /// Presentation context id.
    pub ctx_id: u16,
    /// Operation number.
    pub opnum: u16,
    /// Object UUID, when the header's flag says there is one.
    pub object: Option<[u8; 16]>,
    /// The stub data (without the authentication trailer).
    pub stub: &'a [u8],
}

/// A response or fault PDU's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Response<'a> {
    /// Presentation context id.
    pub ctx_id: u16,
    /// The fault's status (faults only).
    pub status: Option<u32>,
    /// The stub data (without the authentication trailer); a response's starts with
    /// the 8 bytes after the common header, as Suricata 7.0.10 inspects it.
    pub stub: &'a [u8],
}

/// One presentation context of a bind or alter_context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Context {
    /// Presentation context id.
    pub ctx_id: u16,
    /// Abstract syntax (interface) UUID, wire order.
    pub uuid: [u8; 16],
    /// Interface major version.
    pub version: u16,
    /// Interface minor version.
    pub version_minor: u16,
}

/// One result of a bind_ack or alter_context_resp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckResult {
    /// 0 acceptance, 1 user rejection, 2 provider rejection, 3 negotiate ack.
    pub result: u16,
    /// The reason given.
    pub reason: u16,
}

/// The stub between `start` and the authentication trailer of a PDU `pdu`.
fn stub<'a>(h: &CoHeader, pdu: &'a [u8], start: usize) -> Option<&'a [u8]> {
    let end = pdu.len().checked_sub(h.auth_trailer())?;
    pdu.get(start..end.max(start))
}

/// The request body of PDU `pdu` (whole, header included).
pub fn request<'a>(h: &CoHeader, pdu: &'a [u8]) -> Option<Request<'a>> {
    let r = Rd {
        b: pdu,
        le: h.little_endian,
    };
    let ctx_id = r.u16(20)?;
    let opnum = r.u16(22)?;
    let (object, start) = if h.flags & PFC_OBJECT_UUID != 0 {
        (Some(r.uuid(24)?), 40)
    } else {
        (None, 24)
    };
    Some(Request {
        ctx_id,
        opnum,
        object,
        stub: stub(h, pdu, start)?,
    })
}

/// The response or fault body of PDU `pdu` (whole, header included).
pub fn response<'a>(h: &CoHeader, pdu: &'a [u8]) -> Option<Response<'a>> {
    let r = Rd {
        b: pdu,
        le: h.little_endian,
    };
    let ctx_id = r.u16(20)?;
    if h.ptype == ptype::FAULT {
        let status = r.u32(24)?;
        return Some(Response {
            ctx_id,
            status: Some(status),
            stub: stub(h, pdu, 32).unwrap_or(&[]),
        });
    }
    // Suricata 7.0.10 inspects a response's stub from the end of the common header:
    // alloc_hint, p_cont_id, cancel_count and the reserved byte come first (checked
    // with rules on sv-ether's calls: `dce_stub_data; content:"|04 00 00 00|";
    // startswith;` matches a response whose alloc_hint is 4).
    if pdu.len() < 24 {
        return None;
    }
    Some(Response {
        ctx_id,
        status: None,
        stub: stub(h, pdu, 16)?,
    })
}

/// The presentation contexts of a bind or alter_context PDU `pdu` (at most `max`;
/// the rest are left out).
pub fn bind_contexts(h: &CoHeader, pdu: &[u8], max: usize) -> Option<Vec<Context>> {
    let r = Rd {
        b: pdu,
        le: h.little_endian,
    };
    let n = usize::from(r.u8(24)?);
    let mut at = 28;
    let mut out = Vec::with_capacity(n.min(max));
    for _ in 0..n {
        let ctx_id = r.u16(at)?;
        let n_syntax = usize::from(r.u8(at + 2)?);
        let uuid = r.uuid(at + 4)?;
        let version = r.u16(at + 20)?;
        let version_minor = r.u16(at + 22)?;
        if out.len() < max {
            out.push(Context {
                ctx_id,
                uuid,
                version,
                version_minor,
            });
        }
        at += 24 + 20 * n_syntax;
    }
    Some(out)
}

/// The results of a bind_ack or alter_context_resp PDU `pdu` (at most `max`).
pub fn bind_ack_results(h: &CoHeader, pdu: &[u8], max: usize) -> Option<Vec<AckResult>> {
    let r = Rd {
        b: pdu,
        le: h.little_endian,
    };
    let sec_len = usize::from(r.u16(24)?);
    // The secondary address, then padding to a 4-byte boundary of the PDU.
    let at = (26 + sec_len).div_ceil(4) * 4;
    let n = usize::from(r.u8(at)?);
    let mut out = Vec::with_capacity(n.min(max));
    for i in 0..n.min(max) {
        let p = at + 4 + 24 * i;
        out.push(AckResult {
            result: r.u16(p)?,
            reason: r.u16(p + 2)?,
        });
    }
    Some(out)
}

/// A connectionless PDU header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClHeader {
    /// `rpc_vers` (4).
    pub version: u8,
    /// PDU type (see [`ptype`]).
    pub ptype: u8,
    /// `flags1`.
    pub flags1: u8,
    /// Integers are little-endian.
    pub little_endian: bool,
    /// Interface UUID, wire order.
    pub if_id: [u8; 16],
    /// Activity UUID, wire order.
    pub activity: [u8; 16],
    /// Interface major version (low 16 bits of `if_vers`).
    pub if_version: u32,
    /// Sequence number.
    pub seqnum: u32,
    /// Operation number.
    pub opnum: u16,
    /// Body length.
    pub len: u16,
    /// Fragment number.
    pub fragnum: u16,
}

/// The connectionless header at the start of datagram `b`, if it is one: version 4, a
/// connectionless PDU type (0 to 10), and a body length that fits the datagram.
pub fn cl_header(b: &[u8]) -> Option<ClHeader> {
    if b.len() < CL_HDR || b[0] != 4 || b[1] > 10 || b[4] & 0xe0 != 0 {
        return None;
    }
    let r = Rd {
        b,
        le: b[4] & 0x10 != 0,
    };
    let h = ClHeader {
        version: b[0],
        ptype: b[1],
        flags1: b[2],
        little_endian: r.le,
        if_id: r.uuid(24)?,
        activity: r.uuid(40)?,
        if_version: r.u32(60)?,
        seqnum: r.u32(64)?,
        opnum: r.u16(68)?,
        len: r.u16(74)?,
        fragnum: r.u16(76)?,
    };
    (CL_HDR + usize::from(h.len) <= b.len()).then_some(h)
}

/// A UUID in its wire order (little-endian fields) as text:
/// `e1af8308-5d1f-11c9-91a4-08002b14a0fa`.
pub fn uuid_string(u: &[u8; 16]) -> String {
    format!(
        "{:08x}-{:04x}-{:04x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
        u32::from_le_bytes([u[0], u[1], u[2], u[3]]),
        u16::from_le_bytes([u[4], u[5]]),
        u16::from_le_bytes([u[6], u[7]]),
        u[8],
        u[9],
        u[10],
        u[11],
        u[12],
        u[13],
        u[14],
        u[15]
    )
}
