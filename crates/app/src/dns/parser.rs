//! DNS message parsing (RFC 1035): header, questions, answer records.
//!
//! Names are rebuilt as Suricata prints them: labels joined by `.`, no trailing dot,
//! the root as an empty name. A name reads at most [`MAX_POINTERS`] labels and
//! compression pointers and at most [`MAX_NAME`] bytes, then stops with what it has, so
//! pointer loops end; a pointer to itself or past the message is a bad name.

use crate::Direction;

/// Most labels and compression pointers read for one name.
pub const MAX_POINTERS: usize = 255;
/// Longest name kept, in bytes (longer names are cut; the message still parses).
pub const MAX_NAME: usize = 1025;
/// Most records of one section parsed (the rest are ignored).
pub const MAX_RECORDS: usize = 256;

/// The fixed 12-byte header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DnsHeader {
    /// Transaction id.
    pub id: u16,
    /// Flags word (QR, opcode, AA, TC, RD, RA, Z, AD, CD, rcode).
    pub flags: u16,
    /// Question count.
    pub qdcount: u16,
    /// Answer count.
    pub ancount: u16,
    /// Authority count.
    pub nscount: u16,
    /// Additional count.
    pub arcount: u16,
}

impl DnsHeader {
    /// Parses the header from the first 12 bytes.
    pub fn parse(b: &[u8]) -> Option<DnsHeader> {
        let w = |i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
        (b.len() >= 12).then(|| DnsHeader {
            id: w(0),
            flags: w(2),
            qdcount: w(4),
            ancount: w(6),
            nscount: w(8),
            arcount: w(10),
        })
    }

    /// Whether this is a response (QR bit).
    pub fn is_response(&self) -> bool {
        self.flags & 0x8000 != 0
    }

    /// The opcode.
    pub fn opcode(&self) -> u8 {
        ((self.flags >> 11) & 0xf) as u8
    }

    /// The response code.
    pub fn rcode(&self) -> u8 {
        (self.flags & 0xf) as u8
    }
}

/// One question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DnsQuery {
    /// The name, labels joined by `.`.
    pub name: Vec<u8>,
    /// Query type.
    pub rrtype: u16,
    /// Query class.
    pub rrclass: u16,
}

/// Record data, decoded for the types Suricata logs by value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RData {
    /// A: an IPv4 address.
    A([u8; 4]),
    /// AAAA: an IPv6 address.
    Aaaa([u8; 16]),
    /// CNAME, NS, PTR, MX (exchange): a name.
    Name(Vec<u8>),
    /// Anything else, raw.
    Other(Vec<u8>),
    /// SOA: the zone's authority.
    Soa(Box<Soa>),
    /// SSHFP: an SSH host key fingerprint (RFC 4255).
    Sshfp {
        /// Key algorithm.
        algo: u8,
        /// Fingerprint type.
        fp_type: u8,
        /// The fingerprint.
        fingerprint: Vec<u8>,
    },
}

/// The data of an SOA record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Soa {
    /// The primary name server.
    pub mname: Vec<u8>,
    /// The responsible mailbox.
    pub rname: Vec<u8>,
    /// Serial, refresh, retry, expire and minimum.
    pub serial: u32,
    /// Refresh interval.
    pub refresh: u32,
    /// Retry interval.
    pub retry: u32,
    /// Expire limit.
    pub expire: u32,
    /// Minimum TTL.
    pub minimum: u32,
}

/// One resource record of the answer section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DnsAnswer {
    /// Owner name.
    pub name: Vec<u8>,
    /// Record type.
    pub rrtype: u16,
    /// Record class.
    pub rrclass: u16,
    /// Time to live.
    pub ttl: u32,
    /// Decoded data.
    pub rdata: RData,
}

/// A parsed message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DnsMessage {
    /// The header.
    pub header: DnsHeader,
    /// The questions.
    pub queries: Vec<DnsQuery>,
    /// The answer records.
    pub answers: Vec<DnsAnswer>,
    /// The authority records.
    pub authorities: Vec<DnsAnswer>,
}

/// Why a message did not parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DnsError {
    /// Shorter than its header or sections claim.
    Truncated,
    /// A name with a bad label or a pointer loop.
    BadName,
}

/// Reads a (possibly compressed) name at `pos`; returns it and the offset after it in
/// the original position's sequence.
pub fn parse_name(msg: &[u8], pos: usize) -> Result<(Vec<u8>, usize), DnsError> {
    // Built in a per-thread buffer, then copied once at its final length (growing the
    // name label by label took a few allocations per name, and left slack).
    let done = NAME_SCRATCH.try_with(|n| {
        let mut n = n.try_borrow_mut().ok()?;
        Some(parse_name_into(msg, pos, &mut n).map(|end| (n.to_vec(), end)))
    });
    match done.ok().flatten() {
        Some(r) => r,
        None => {
            let mut name = Vec::new();
            parse_name_into(msg, pos, &mut name).map(|end| (name, end))
        }
    }
}

thread_local! {
    /// Where [`parse_name`] builds a name (at most [`MAX_NAME`] bytes).
    static NAME_SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`parse_name`] into `name` (emptied first); returns the offset after the name.
fn parse_name_into(msg: &[u8], mut pos: usize, name: &mut Vec<u8>) -> Result<usize, DnsError> {
    name.clear();
    let mut end = None;
    // Labels and pointers followed: as Suricata 7.0.10, a name stops (and keeps what it
    // has) after 255 of them or once longer than MAX_NAME (cut there), so a pointer loop
    // through labels gives a long repeated name (`too_many_labels`, `name_too_long`);
    // the message goes on after the first pointer.
    let mut steps = 0;
    loop {
        let len = *msg.get(pos).ok_or(DnsError::Truncated)?;
        match len & 0xc0 {
            0x00 => {
                if len == 0 {
                    return Ok(end.unwrap_or(pos + 1));
                }
                let l = usize::from(len);
                let label = msg.get(pos + 1..pos + 1 + l).ok_or(DnsError::Truncated)?;
                if !name.is_empty() {
                    name.push(b'.');
                }
                name.extend_from_slice(label);
                pos += 1 + l;
            }
            0xc0 => {
                let lo = *msg.get(pos + 1).ok_or(DnsError::Truncated)?;
                let target = usize::from(u16::from_be_bytes([len & 0x3f, lo]));
                // A pointer past the message or to itself: not a name.
                if target > msg.len() || target == pos {
                    return Err(DnsError::BadName);
                }
                if end.is_none() {
                    end = Some(pos + 2);
                }
                pos = target;
            }
            _ => return Err(DnsError::BadName),
        }
        steps += 1;
        if steps > MAX_POINTERS || name.len() > MAX_NAME {
            name.truncate(MAX_NAME);
            return Ok(end.unwrap_or(pos));
        }
    }
}

fn u16_at(m: &[u8], p: usize) -> Result<u16, DnsError> {
    m.get(p..p + 2)
        .map(|b| u16::from_be_bytes([b[0], b[1]]))
        .ok_or(DnsError::Truncated)
}

fn parse_query(m: &[u8], pos: usize) -> Result<(DnsQuery, usize), DnsError> {
    let (name, p) = parse_name(m, pos)?;
    let q = DnsQuery {
        name,
        rrtype: u16_at(m, p)?,
        rrclass: u16_at(m, p + 2)?,
    };
    Ok((q, p + 4))
}

/// SOA data between `start` and `end`: two names and five numbers.
fn parse_soa(m: &[u8], start: usize, end: usize) -> Result<RData, DnsError> {
    let (mname, p) = parse_name(m, start)?;
    let (rname, p) = parse_name(m, p)?;
    if p + 20 > end {
        return Err(DnsError::Truncated);
    }
    let n = |i: usize| -> Result<u32, DnsError> {
        Ok(u32::from(u16_at(m, p + i)?) << 16 | u32::from(u16_at(m, p + i + 2)?))
    };
    Ok(RData::Soa(Box::new(Soa {
        mname,
        rname,
        serial: n(0)?,
        refresh: n(4)?,
        retry: n(8)?,
        expire: n(12)?,
        minimum: n(16)?,
    })))
}

/// [`parse_name`] into `buf`: a buffer that already has room (a recycled record's) is
/// filled in place; an empty one gets the name at its exact length.
fn parse_name_reuse(m: &[u8], pos: usize, buf: &mut Vec<u8>) -> Result<usize, DnsError> {
    if buf.capacity() == 0 {
        let (name, end) = parse_name(m, pos)?;
        *buf = name;
        Ok(end)
    } else {
        parse_name_into(m, pos, buf)
    }
}

/// The record data `name`-typed data replaces: a recycled record's name buffer.
fn old_name(rdata: &mut RData) -> Vec<u8> {
    match std::mem::replace(rdata, RData::A([0; 4])) {
        RData::Name(b) => b,
        _ => Vec::new(),
    }
}

/// Parses the resource record at `pos` into `a` (whose buffers are reused); returns the
/// offset after it. On an error `a` holds a part of the record.
fn parse_rr_into(m: &[u8], pos: usize, a: &mut DnsAnswer) -> Result<usize, DnsError> {
    let p = parse_name_reuse(m, pos, &mut a.name)?;
    let rrtype = u16_at(m, p)?;
    let rrclass = u16_at(m, p + 2)?;
    let ttl = u32::from(u16_at(m, p + 4)?) << 16 | u32::from(u16_at(m, p + 6)?);
    let rdlen = usize::from(u16_at(m, p + 8)?);
    let start = p + 10;
    let data = m.get(start..start + rdlen).ok_or(DnsError::Truncated)?;
    a.rrtype = rrtype;
    a.rrclass = rrclass;
    a.ttl = ttl;
    a.rdata = match (rrtype, rdlen) {
        (1, 4) => RData::A([data[0], data[1], data[2], data[3]]),
        (28, 16) => {
            let mut b = [0u8; 16];
            b.copy_from_slice(data);
            RData::Aaaa(b)
        }
        (2 | 5 | 12, _) => {
            let mut b = old_name(&mut a.rdata);
            parse_name_reuse(m, start, &mut b)?;
            RData::Name(b)
        }
        (15, n) if n >= 3 => {
            let mut b = old_name(&mut a.rdata);
            parse_name_reuse(m, start + 2, &mut b)?;
            RData::Name(b)
        }
        (6, _) => {
            parse_soa(m, start, start + rdlen).unwrap_or_else(|_| RData::Other(data.to_vec()))
        }
        (44, n) if n >= 2 => RData::Sshfp {
            algo: data[0],
            fp_type: data[1],
            fingerprint: data[2..].to_vec(),
        },
        _ => match std::mem::replace(&mut a.rdata, RData::A([0; 4])) {
            RData::Other(mut b) if b.capacity() > 0 => {
                b.clear();
                b.extend_from_slice(data);
                RData::Other(b)
            }
            _ => RData::Other(data.to_vec()),
        },
    };
    Ok(start + rdlen)
}

/// An empty record to parse into.
fn blank_rr() -> DnsAnswer {
    DnsAnswer {
        name: Vec::new(),
        rrtype: 0,
        rrclass: 0,
        ttl: 0,
        rdata: RData::A([0; 4]),
    }
}

/// Parses one whole message. Questions must parse; answers of a response must parse
/// too (as Suricata, which drops a malformed response). Section counts beyond
/// [`MAX_RECORDS`] are not parsed.
pub fn parse_message(m: &[u8]) -> Result<DnsMessage, DnsError> {
    let mut msg = DnsMessage::default();
    parse_message_into(m, &mut msg)?;
    Ok(msg)
}

/// [`parse_message`] into `msg`, a message parsed before (or empty) whose lists and
/// name buffers are reused: a recycled message makes parsing the next one allocate
/// nothing while its records fit. The result equals [`parse_message`]'s (buffers may
/// have more room); on an error `msg` holds a part of the message.
pub fn parse_message_into(m: &[u8], msg: &mut DnsMessage) -> Result<(), DnsError> {
    let header = DnsHeader::parse(m).ok_or(DnsError::Truncated)?;
    msg.header = header;
    let mut pos = 12;
    let qd = usize::from(header.qdcount).min(MAX_RECORDS);
    msg.queries.truncate(qd);
    for i in 0..qd {
        if i == msg.queries.len() {
            msg.queries.push(DnsQuery {
                name: Vec::new(),
                rrtype: 0,
                rrclass: 0,
            });
        }
        let q = &mut msg.queries[i];
        let p = parse_name_reuse(m, pos, &mut q.name)?;
        q.rrtype = u16_at(m, p)?;
        q.rrclass = u16_at(m, p + 2)?;
        pos = p + 4;
    }
    let an = usize::from(header.ancount).min(MAX_RECORDS);
    msg.answers.truncate(an);
    let mut n = 0;
    while n < an {
        if n == msg.answers.len() {
            msg.answers.push(blank_rr());
        }
        match parse_rr_into(m, pos, &mut msg.answers[n]) {
            Ok(p) => {
                n += 1;
                pos = p;
            }
            Err(e) if header.is_response() => return Err(e),
            Err(_) => break,
        }
    }
    msg.answers.truncate(n);
    // Authority records of a response; one that does not parse ends the section.
    let ns = if header.is_response() {
        usize::from(header.nscount).min(MAX_RECORDS)
    } else {
        0
    };
    msg.authorities.truncate(ns);
    let mut n = 0;
    while n < ns {
        if n == msg.authorities.len() {
            msg.authorities.push(blank_rr());
        }
        let Ok(p) = parse_rr_into(m, pos, &mut msg.authorities[n]) else {
            break;
        };
        n += 1;
        pos = p;
    }
    msg.authorities.truncate(n);
    Ok(())
}

/// Whether `b` starts with a plausible DNS header for direction `dir`, for a message
/// `len` bytes long (`b` may hold only its start). As Suricata 7.0.10 probes: the
/// message must have room for two bytes per record its header counts (checked at
/// every cut of a query: a datagram shorter than that is not DNS, a longer one cut
/// short is), and when `b` is the whole message (`whole`) its first question must
/// parse or run past the end (a bad label rejects it).
pub fn probe_header(b: &[u8], dir: Direction, whole: bool, len: usize) -> bool {
    let Some(h) = DnsHeader::parse(b) else {
        return false;
    };
    if dir == Direction::ToServer && h.is_response() {
        return false;
    }
    let records = [h.qdcount, h.ancount, h.nscount, h.arcount]
        .iter()
        .map(|&n| usize::from(n))
        .sum::<usize>();
    if 12 + 2 * records > len {
        return false;
    }
    if h.qdcount == 0 {
        return dir == Direction::ToClient && h.is_response();
    }
    !whole || !matches!(parse_query(b, 12), Err(DnsError::BadName))
}

/// Suricata's name for a record type (`rrtype` in EVE), `None` when it prints the
/// number.
pub fn rrtype_name(t: u16) -> Option<&'static str> {
    Some(match t {
        1 => "A",
        2 => "NS",
        5 => "CNAME",
        6 => "SOA",
        10 => "NULL",
        12 => "PTR",
        13 => "HINFO",
        15 => "MX",
        16 => "TXT",
        17 => "RP",
        24 => "SIG",
        25 => "KEY",
        28 => "AAAA",
        29 => "LOC",
        33 => "SRV",
        35 => "NAPTR",
        39 => "DNAME",
        41 => "OPT",
        43 => "DS",
        44 => "SSHFP",
        46 => "RRSIG",
        47 => "NSEC",
        48 => "DNSKEY",
        50 => "NSEC3",
        51 => "NSEC3PARAM",
        52 => "TLSA",
        64 => "SVCB",
        65 => "HTTPS",
        99 => "SPF",
        249 => "TKEY",
        250 => "TSIG",
        251 => "IXFR",
        252 => "AXFR",
        255 => "ANY",
        256 => "URI",
        257 => "CAA",
        _ => return None,
    })
}

/// Suricata's name for a response code (`rcode` in EVE).
pub fn rcode_name(r: u8) -> Option<&'static str> {
    Some(match r {
        0 => "NOERROR",
        1 => "FORMERR",
        2 => "SERVFAIL",
        3 => "NXDOMAIN",
        4 => "NOTIMP",
        5 => "REFUSED",
        6 => "YXDOMAIN",
        7 => "YXRRSET",
        8 => "NXRRSET",
        9 => "NOTAUTH",
        10 => "NOTZONE",
        _ => return None,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A query for `name` of type `t` with id `id`.
    pub(crate) fn query(id: u16, name: &str, t: u16) -> Vec<u8> {
        let mut m = vec![];
        m.extend_from_slice(&id.to_be_bytes());
        m.extend_from_slice(&[1, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
        for l in name.split('.').filter(|l| !l.is_empty()) {
            m.push(l.len() as u8);
            m.extend_from_slice(l.as_bytes());
        }
        m.push(0);
        m.extend_from_slice(&t.to_be_bytes());
        m.extend_from_slice(&[0, 1]);
        m
    }

    /// The response to `query(id, name, 1)` with one A record (compressed owner name).
    pub(crate) fn answer_a(id: u16, name: &str, ip: [u8; 4]) -> Vec<u8> {
        let mut m = query(id, name, 1);
        m[2] = 0x81;
        m[3] = 0x80;
        m[7] = 1;
        m.extend_from_slice(&[0xc0, 12, 0, 1, 0, 1, 0, 0, 1, 44, 0, 4]);
        m.extend_from_slice(&ip);
        m
    }

    /// A response to `name` with a CNAME to `target`, an opaque TXT record and an A
    /// record, and `ns` authority records of type NS.
    fn answer_mixed(name: &str, target: &str, ns: u16) -> Vec<u8> {
        let mut m = query(7, name, 1);
        m[2] = 0x81;
        m[3] = 0x80;
        m[7] = 3;
        m[9] = ns as u8;
        let mut t = Vec::new();
        for l in target.split('.') {
            t.push(l.len() as u8);
            t.extend_from_slice(l.as_bytes());
        }
        t.push(0);
        m.extend_from_slice(&[0xc0, 12, 0, 5, 0, 1, 0, 0, 0, 9, 0, t.len() as u8]);
        m.extend_from_slice(&t);
        m.extend_from_slice(&[0xc0, 12, 0, 16, 0, 1, 0, 0, 0, 9, 0, 4, 3, b'a', b'b', b'c']);
        m.extend_from_slice(&[0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 9, 0, 4, 10, 0, 0, 1]);
        for _ in 0..ns {
            m.extend_from_slice(&[0xc0, 12, 0, 2, 0, 1, 0, 0, 0, 9, 0, 2, 0xc0, 12]);
        }
        m
    }

    #[test]
    fn a_reused_message_parses_as_a_fresh_one() {
        let msgs = [
            answer_mixed("www.example.org", "edge.cdn.example.net", 2),
            query(1, "a.b", 28),
            answer_a(2, "short.example", [1, 2, 3, 4]),
            answer_mixed("x.y", "z", 0),
            answer_mixed("much.longer.name.than.before.example.com", "t", 3),
            // Cut inside the answers: an error, then the next parse starts afresh.
            answer_mixed("cut.example", "c.example", 1)[..60].to_vec(),
            query(3, "after.cut.example", 1),
        ];
        let mut reused = DnsMessage::default();
        for (i, m) in msgs.iter().enumerate() {
            let fresh = parse_message(m);
            let again = parse_message_into(m, &mut reused);
            match fresh {
                Ok(f) => {
                    assert_eq!(again, Ok(()), "message {i}");
                    assert_eq!(reused, f, "message {i}");
                }
                Err(e) => assert_eq!(again, Err(e), "message {i}"),
            }
        }
        // Names went into the buffers already there: the lists did not grow.
        let q = reused.queries[0].name.as_ptr();
        let cap = reused.queries.capacity();
        parse_message_into(&query(4, "other.example", 1), &mut reused).unwrap();
        assert_eq!(reused.queries[0].name.as_ptr(), q);
        assert_eq!(reused.queries.capacity(), cap);
    }

    #[test]
    fn parses_query_and_answer() {
        let q = parse_message(&query(7, "www.example.com", 28)).unwrap();
        assert_eq!(q.header.id, 7);
        assert!(!q.header.is_response());
        assert_eq!(q.queries[0].name, b"www.example.com");
        assert_eq!(q.queries[0].rrtype, 28);
        let a = parse_message(&answer_a(7, "a.b", [1, 2, 3, 4])).unwrap();
        assert!(a.header.is_response());
        assert_eq!(a.header.rcode(), 0);
        assert_eq!(a.answers.len(), 1);
        assert_eq!(a.answers[0].name, b"a.b");
        assert_eq!(a.answers[0].ttl, 300);
        assert_eq!(a.answers[0].rdata, RData::A([1, 2, 3, 4]));
    }

    #[test]
    fn root_and_bad_names() {
        let q = parse_message(&query(1, ".", 2)).unwrap();
        assert_eq!(q.queries[0].name, b"");
        // A pointer to itself loops: rejected, not hung.
        let mut m = query(1, "a", 1);
        m.truncate(12);
        m.extend_from_slice(&[0xc0, 12, 0, 1, 0, 1]);
        assert_eq!(parse_message(&m), Err(DnsError::BadName));
        // A pointer past the message: rejected.
        let mut m = query(1, "a", 1);
        m.truncate(12);
        m.extend_from_slice(&[0xc0, 0xff, 0, 1, 0, 1]);
        assert_eq!(parse_message(&m), Err(DnsError::BadName));
        // A loop through labels (`ab`, then back to the start): the name stops after
        // 255 labels and pointers, as Suricata 7.0.10 (128 labels), and the question
        // goes on after the pointer (dnsedge/ptr-loop-start).
        let mut m = query(1, "a", 1);
        m.truncate(12);
        m.extend_from_slice(&[2, b'a', b'b', 0xc0, 12, 0, 28, 0, 1]);
        let q = parse_message(&m).unwrap();
        assert_eq!(q.queries[0].name.len(), 128 * 3 - 1);
        assert_eq!(q.queries[0].rrtype, 28);
        // Longer labels: cut at MAX_NAME bytes.
        let mut m = query(1, "a", 1);
        m.truncate(12);
        m.push(40);
        m.extend_from_slice(&[b'x'; 40]);
        m.extend_from_slice(&[0xc0, 12, 0, 1, 0, 1]);
        let q = parse_message(&m).unwrap();
        assert_eq!(q.queries[0].name.len(), MAX_NAME);
        // Reserved label type.
        let mut m = query(1, "a", 1);
        m[12] = 0x40;
        assert!(parse_message(&m).is_err());
        // Truncated.
        let m = query(1, "abc.def", 1);
        for n in 0..m.len() {
            assert!(parse_message(&m[..n]).is_err(), "{n}");
        }
    }

    #[test]
    fn probe_of_a_query_cut_short() {
        // Two questions: Suricata 7.0.10 takes the datagram as DNS from 16 bytes on
        // (12 + 2 per counted record), wherever the cut (tests/parity/cases/dns-udp-cut).
        let mut q = query(1, "www.example.com", 1);
        q[5] = 2;
        let question = q[12..].to_vec();
        q.extend_from_slice(&question);
        for n in 0..=q.len() {
            let b = &q[..n];
            assert_eq!(
                probe_header(b, Direction::ToServer, true, n),
                n >= 16,
                "{n}"
            );
        }
        // A bad label is not DNS; a partial TCP message is judged by its header.
        let mut bad = q.clone();
        bad[12] = 0x40;
        assert!(!probe_header(&bad, Direction::ToServer, true, bad.len()));
        assert!(probe_header(&q[..12], Direction::ToServer, false, q.len()));
        assert!(!probe_header(&q[..12], Direction::ToServer, false, 15));
    }

    #[test]
    fn names() {
        assert_eq!(rrtype_name(28), Some("AAAA"));
        assert_eq!(rrtype_name(9999), None);
        assert_eq!(rcode_name(3), Some("NXDOMAIN"));
    }
}
