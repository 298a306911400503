//! Per-flow TLS state: record reassembly per direction, handshake message reassembly
//! across records, and what the clear-text handshake revealed.
//!
//! Suricata counts no TLS transactions in `app_layer.tx.tls` (the whole session is
//! one never-counted transaction), so neither does this parser.

use super::cert::CertInfo;
use super::ja3::{ja3, ja3s, Ja3};
use super::ja4::ja4;
use super::parser::{
    certificates, client_hello, record_header, server_hello, sslv2_record_len, CT_APPLICATION_DATA,
    CT_CHANGE_CIPHER_SPEC, CT_HANDSHAKE, HS_CERTIFICATE, HS_CLIENT_HELLO, HS_SERVER_HELLO,
};
use crate::util::push_capped;
use crate::{AppCtx, Counter, Direction};
use std::sync::Arc;

/// The handshake message kinds `ssl_state` tells apart (bits of its values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HandshakeState(pub u32);

impl HandshakeState {
    /// A ClientHello.
    pub const CLIENT_HELLO: u32 = 1;
    /// A ServerHello.
    pub const SERVER_HELLO: u32 = 2;
    /// A ClientKeyExchange.
    pub const CLIENT_KEYX: u32 = 4;
    /// A ServerKeyExchange.
    pub const SERVER_KEYX: u32 = 8;

    /// The state a handshake message of type `t` leaves (none for the other types).
    fn of(t: u8) -> Self {
        HandshakeState(match t {
            1 => Self::CLIENT_HELLO,
            2 => Self::SERVER_HELLO,
            16 => Self::CLIENT_KEYX,
            12 => Self::SERVER_KEYX,
            _ => 0,
        })
    }
}

#[derive(Debug, Default)]
struct Side {
    /// A partial record (header included).
    rec: Vec<u8>,
    /// Handshake bytes not yet forming a whole message.
    hs: Vec<u8>,
    /// ChangeCipherSpec seen: later handshake records are encrypted.
    encrypted: bool,
    /// Record boundary lost (gap, garbage, limit): nothing more is parsed.
    lost: bool,
    /// A TLS (SSLv3-format) record was seen: SSLv2 headers are no longer accepted.
    v3_seen: bool,
    app_data: bool,
    /// The version of the side's last TLS record header, read from its first three
    /// bytes (`tls.version` and `ssl_version` before the hello is in).
    record_version: Option<u16>,
}

// The states of new TLS flows come from the worker's slab (`slabs`), not a box each.
slabs::slabbed!(TlsState);

/// TLS state of one flow.
#[derive(Debug, Default)]
pub struct TlsState {
    sides: [Side; 2],
    client_version: Option<u16>,
    client_versions: smallvec::SmallVec<[u16; 8]>,
    /// Held inline up to 36 bytes (most names): no allocation per flow.
    sni: Option<smallvec::SmallVec<[u8; 36]>>,
    server_version: Option<u16>,
    /// Subject, issuer, serial, fingerprint and validity of the server's first
    /// certificate (shared with the thread's other flows that saw the same one).
    cert: Option<Arc<CertInfo>>,
    /// The ClientHello's JA3.
    ja3: Option<Ja3>,
    /// The ServerHello's JA3S.
    ja3s: Option<Ja3>,
    /// The ClientHello's JA4.
    ja4: Option<super::cert::ShortText>,
    /// The 32-byte randoms of the ClientHello and of the ServerHello.
    randoms: [Option<[u8; 32]>; 2],
    /// What the last handshake message with a state of the latest parse call was, as
    /// `ssl_state` names it (none when the call had none: a call holding only a
    /// ChangeCipherSpec or encrypted records clears it).
    last_message: HandshakeState,
    /// The DER certificates of the server's Certificate message, in message order,
    /// one after the other in one buffer (one allocation for the chain).
    certs: Vec<u8>,
    /// Where each certificate of `certs` ends.
    cert_ends: smallvec::SmallVec<[u32; 4]>,
    cert_seen: bool,
    /// Suricata's "handshake done" flag, which lets to-client certificate buffers be
    /// inspected: see [`TlsState::certs_inspectable`].
    hs_done: bool,
    /// The session ended (Suricata's "finished" flag).
    finished: bool,
    /// A record header did not parse: Suricata's TLS parser returns an error there.
    error: bool,
    /// The protocol the flow started as, when TLS took over from it (SMTP's
    /// `STARTTLS`): EVE `tls.from_proto`.
    from_proto: Option<crate::AppProto>,
}

impl TlsState {
    /// A fresh state.
    pub fn new() -> Self {
        Self::default()
    }

    /// The protocol the flow started as, when TLS took over from it.
    pub fn from_proto(&self) -> Option<crate::AppProto> {
        self.from_proto
    }

    /// Records that TLS took over the flow from `p` (see [`TlsState::from_proto`]).
    pub fn set_from_proto(&mut self, p: crate::AppProto) {
        self.from_proto = Some(p);
    }

    /// `tls.sni`: the server name of the ClientHello.
    pub fn sni(&self) -> Option<&[u8]> {
        self.sni.as_deref()
    }

    /// The ClientHello's `legacy_version`.
    pub fn client_version(&self) -> Option<u16> {
        self.client_version
    }

    /// The ClientHello's supported_versions list.
    pub fn client_supported_versions(&self) -> &[u16] {
        &self.client_versions
    }

    /// The negotiated version (ServerHello, supported_versions for TLS 1.3).
    pub fn version(&self) -> Option<u16> {
        self.server_version
    }

    /// `tls.cert_subject` of the server's first certificate.
    pub fn cert_subject(&self) -> Option<&str> {
        self.cert.as_deref().map(|c| c.subject.as_str())
    }

    /// `tls.cert_issuer` of the server's first certificate.
    pub fn cert_issuer(&self) -> Option<&str> {
        self.cert.as_deref().map(|c| c.issuer.as_str())
    }

    /// Serial, fingerprint and validity of the server's first certificate.
    pub fn cert_info(&self) -> Option<&CertInfo> {
        self.cert.as_deref()
    }

    /// The ClientHello's JA3 (`ja3.hash`, `ja3.string`).
    pub fn ja3(&self) -> Option<&Ja3> {
        self.ja3.as_ref()
    }

    /// The ServerHello's JA3S (`ja3s.hash`, `ja3s.string`).
    pub fn ja3s(&self) -> Option<&Ja3> {
        self.ja3s.as_ref()
    }

    /// The ClientHello's JA4 (`ja4.hash`).
    pub fn ja4(&self) -> Option<&str> {
        self.ja4.as_deref()
    }

    /// The 32-byte random of the hello sent in `dir` (`tls.random`: the ClientHello's
    /// to the server, the ServerHello's to the client).
    pub fn random(&self, dir: Direction) -> Option<&[u8; 32]> {
        self.randoms[dir.index()].as_ref()
    }

    /// What the last handshake message parsed was (`ssl_state`).
    pub fn last_message(&self) -> HandshakeState {
        self.last_message
    }

    /// The version a side announced (`tls.version`, `ssl_version`): the client's
    /// highest supported_versions entry (GREASE left out) or its ClientHello version,
    /// the server's negotiated version.
    /// Before the side's hello is parsed, the version of its last record header, as
    /// Suricata 7.0.10 reads it from a record's first three bytes (a ClientHello cut
    /// over two packets matches `ssl_version` on the first; difftest
    /// `tls/client-ssl_version` in IPS mode).
    pub fn side_version(&self, dir: Direction) -> Option<u16> {
        let record = self.sides[dir.index()].record_version;
        match dir {
            Direction::ToServer => {
                let Some(v) = self.client_version else {
                    return record;
                };
                Some(
                    self.client_versions
                        .iter()
                        .copied()
                        .filter(|&v| v & 0x0f0f != 0x0a0a)
                        .max()
                        .unwrap_or(v),
                )
            }
            Direction::ToClient => self.server_version.or(record),
        }
    }

    /// The number of certificates in the server's Certificate message (0 before or
    /// without one).
    pub fn cert_chain_len(&self) -> usize {
        self.cert_ends.len()
    }

    /// `tls.certs`: the DER certificates of the server's Certificate message, the
    /// server's own first (empty until the message has been parsed).
    pub fn certs(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let starts = std::iter::once(0).chain(self.cert_ends.iter().copied());
        starts
            .zip(self.cert_ends.iter().copied())
            .map(|(a, b)| &self.certs[a as usize..b as usize])
    }

    /// Whether the to-client certificate buffers (`tls.cert_subject`,
    /// `tls.cert_issuer`, `tls.certs`) may be inspected, as Suricata's TLS progress
    /// allows: once its "handshake done" flag is set or the session ended. The flag is
    /// set by an application data record, or at the end of a parse call (the bytes one
    /// packet made available in one direction) that did not stop inside a record, once
    /// the server certificate's subject and issuer are known. So a certificate whose
    /// Certificate message is followed by a record that the same segment only starts
    /// waits until that record is complete.
    pub fn certs_inspectable(&self) -> bool {
        self.hs_done || self.finished
    }

    /// The session ended: the certificate buffers are inspectable from now on.
    pub fn close(&mut self) {
        self.finished = true;
    }

    /// Whether the ClientHello has been parsed.
    pub fn client_hello_done(&self) -> bool {
        self.client_version.is_some()
    }

    /// Whether the ServerHello has been parsed.
    pub fn server_hello_done(&self) -> bool {
        self.server_version.is_some()
    }

    /// Whether the server's Certificate message has been seen (in the clear).
    pub fn certificate_done(&self) -> bool {
        self.cert_seen
    }

    /// Whether a record header did not parse (an invalid record type or version, where
    /// Suricata's TLS parser returns an error, which ends the flow's app layer). A
    /// handshake message that does not parse is only counted: Suricata's parser accepts
    /// more variants (TLS 1.3 drafts, ...) than this one reads.
    pub fn errored(&self) -> bool {
        self.error
    }

    /// Whether both directions went encrypted (the clear-text handshake is over).
    pub fn handshake_done(&self) -> bool {
        self.sides
            .iter()
            .all(|s| s.encrypted || s.app_data || s.lost)
    }

    /// Feeds in-order stream bytes of one direction.
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        // `ssl_state` sees what the latest parse call parsed (as Suricata's "current"
        // handshake flags).
        self.last_message = HandshakeState::default();
        let d = dir.index();
        if self.sides[d].lost {
            return;
        }
        self.parse_records(ctx, dir, data);
        let s = &self.sides[d];
        // Suricata's parser returns "incomplete" (and so skips its end-of-call checks)
        // when the input ends inside a record whose header it has read.
        let inside_record = s.rec.len() >= 5 && record_header(&s.rec).is_some();
        if !s.lost && !self.error && !inside_record && self.cert.is_some() {
            self.hs_done = true;
        }
    }

    fn parse_records(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        let d = dir.index();
        let mut input = data;
        if self.sides[d].rec.is_empty() {
            // Zero-copy path: whole records straight from the input.
            loop {
                match self.take_record(ctx, dir, input) {
                    Err(()) => return self.malformed(ctx, d),
                    Ok(None) => break,
                    Ok(Some(n)) => input = &input[n..],
                }
                if self.sides[d].lost {
                    return;
                }
            }
        }
        if input.is_empty() {
            return;
        }
        let mut rec = std::mem::take(&mut self.sides[d].rec);
        if rec.capacity() == 0 {
            // A kept buffer with room for the record when there is one.
            rec = take_rec(record_room(&rec, input).unwrap_or(0));
        }
        // Room for the whole record the bytes start (its header says how long it is),
        // so a record cut over several segments takes one allocation, not a doubling
        // growth per segment.
        reserve_record(&mut rec, input);
        rec.extend_from_slice(input);
        let mut off = 0;
        loop {
            match self.take_record(ctx, dir, &rec[off..]) {
                Err(()) => return self.malformed(ctx, d),
                Ok(None) => break,
                Ok(Some(n)) => off += n,
            }
            if self.sides[d].lost {
                return;
            }
        }
        rec.drain(..off);
        if rec.is_empty() {
            // Nothing held between records: the buffer serves the thread's next cut
            // record, on this flow or another.
            give_rec(rec);
            return;
        }
        reserve_record(&mut rec, &[]);
        self.sides[d].rec = rec;
    }

    /// Handles the whole record at the start of `b`: its length, `None` when `b` holds
    /// only part of it, an error when its header is not a TLS record header. Until the
    /// first TLS record of a direction, a record with SSLv2's two-byte header (an old
    /// client's SSLv2-compatible ClientHello, which Suricata also accepts) is skipped.
    fn take_record(
        &mut self,
        ctx: &mut AppCtx,
        dir: Direction,
        b: &[u8],
    ) -> Result<Option<usize>, ()> {
        let d = dir.index();
        if !self.sides[d].v3_seen && b.first().is_some_and(|x| x & 0x80 != 0) {
            return Ok(sslv2_record_len(b).filter(|&n| b.len() >= n));
        }
        if let [20..=24, 3, minor, ..] = *b {
            self.sides[d].record_version = Some(0x0300 | u16::from(minor));
        }
        if b.len() < 5 {
            return Ok(None);
        }
        let h = record_header(b).ok_or(())?;
        if b.len() < 5 + h.len {
            return Ok(None);
        }
        self.sides[d].v3_seen = true;
        self.record(ctx, dir, h.content_type, &b[5..5 + h.len]);
        Ok(Some(5 + h.len))
    }

    /// A hole in one direction: its record boundaries are lost.
    pub fn gap(&mut self, ctx: &mut AppCtx, dir: Direction) {
        ctx.counters.incr(Counter::Gap);
        let s = &mut self.sides[dir.index()];
        s.lost = true;
        s.rec = Vec::new();
        s.hs = Vec::new();
    }

    /// A record header that is not one: counted, a parser error (Suricata's TLS parser
    /// fails on an invalid record type or version), and this direction stops.
    fn malformed(&mut self, ctx: &mut AppCtx, d: usize) {
        ctx.counters.incr(Counter::TlsMalformed);
        if !self.error {
            ctx.counters.incr(Counter::ErrorTls);
            self.error = true;
        }
        let s = &mut self.sides[d];
        s.lost = true;
        s.rec = Vec::new();
        s.hs = Vec::new();
    }

    fn record(&mut self, ctx: &mut AppCtx, dir: Direction, ct: u8, frag: &[u8]) {
        let d = dir.index();
        match ct {
            CT_CHANGE_CIPHER_SPEC => {
                self.sides[d].encrypted = true;
                self.sides[d].hs = Vec::new();
            }
            CT_APPLICATION_DATA => {
                self.sides[d].app_data = true;
                self.hs_done = true;
            }
            CT_HANDSHAKE if !self.sides[d].encrypted => {
                if self.sides[d].hs.is_empty() {
                    let rest = self.handshakes(ctx, dir, frag);
                    if !rest.is_empty() {
                        self.buffer_handshake(ctx, d, rest);
                    }
                } else {
                    let mut hs = std::mem::take(&mut self.sides[d].hs);
                    hs.extend_from_slice(frag);
                    let rest_len = self.handshakes(ctx, dir, &hs).len();
                    let start = hs.len() - rest_len;
                    hs.drain(..start);
                    if !self.sides[d].lost && !self.sides[d].encrypted {
                        self.sides[d].hs = hs;
                    }
                }
            }
            _ => {}
        }
    }

    fn buffer_handshake(&mut self, ctx: &mut AppCtx, d: usize, rest: &[u8]) {
        let limit = ctx.config.tls_handshake_limit;
        if push_capped(&mut self.sides[d].hs, rest, limit) {
            ctx.counters.incr(Counter::TlsHandshakeLimit);
            self.sides[d].lost = true;
            self.sides[d].hs = Vec::new();
        }
    }

    /// Handles every whole handshake message in `b`; returns the partial tail.
    fn handshakes<'a>(&mut self, ctx: &mut AppCtx, dir: Direction, mut b: &'a [u8]) -> &'a [u8] {
        while b.len() >= 4 {
            let len = usize::from(b[1]) << 16 | usize::from(b[2]) << 8 | usize::from(b[3]);
            if len > ctx.config.tls_handshake_limit {
                ctx.counters.incr(Counter::TlsHandshakeLimit);
                self.sides[dir.index()].lost = true;
                return &[];
            }
            if b.len() < 4 + len {
                break;
            }
            self.handshake(ctx, dir, b[0], &b[4..4 + len]);
            b = &b[4 + len..];
        }
        b
    }

    fn handshake(&mut self, ctx: &mut AppCtx, dir: Direction, t: u8, body: &[u8]) {
        // The last message with a state names the call's state: one without
        // (Certificate, ServerHelloDone, Finished, an unknown type) keeps the state of the
        // message before it, a ServerKeyExchange after a ServerHello replaces it
        // (Suricata 7.0.10, RESULTS "TLS records after ChangeCipherSpec").
        let st = HandshakeState::of(t);
        if st.0 != 0 {
            self.last_message = st;
        }
        if matches!(t, HS_CLIENT_HELLO | HS_SERVER_HELLO) {
            if let Some(r) = body.get(2..34).and_then(|r| <[u8; 32]>::try_from(r).ok()) {
                self.randoms[dir.index()] = Some(r);
            }
        }
        match (dir, t) {
            (Direction::ToServer, HS_CLIENT_HELLO) => match client_hello(body) {
                Some(ch) => {
                    self.ja3 = Some(ja3(&ch));
                    self.ja4 = Some(ja4(&ch, 't'));
                    self.client_version = Some(ch.version);
                    self.client_versions = ch.supported_versions;
                    self.sni = ch.sni.map(smallvec::SmallVec::from_slice);
                }
                None => ctx.counters.incr(Counter::TlsMalformed),
            },
            (Direction::ToClient, HS_SERVER_HELLO) => match server_hello(body) {
                Some(sh) => {
                    self.ja3s = Some(ja3s(&sh));
                    self.server_version = Some(sh.selected_version.unwrap_or(sh.version));
                }
                None => ctx.counters.incr(Counter::TlsMalformed),
            },
            (Direction::ToClient, HS_CERTIFICATE) if !self.cert_seen => {
                self.cert_seen = true;
                match certificates(body) {
                    Some(certs) => {
                        if let Some(c) = certs.first().and_then(|c| CertInfo::parse_cached(c)) {
                            self.cert = Some(c);
                        }
                        // The message is far shorter than 4 GiB (a handshake message's
                        // length has 24 bits).
                        self.certs = Vec::with_capacity(certs.iter().map(|c| c.len()).sum());
                        self.cert_ends.clear();
                        for c in certs {
                            self.certs.extend_from_slice(c);
                            self.cert_ends.push(self.certs.len() as u32);
                        }
                    }
                    None => ctx.counters.incr(Counter::TlsMalformed),
                }
            }
            _ => {}
        }
    }
}

/// Most record buffers kept per thread (see [`take_rec`]): at most about 290 KiB.
const MAX_KEPT_RECS: usize = 16;

thread_local! {
    /// Emptied buffers of records that were cut over segments, for the next cut record
    /// (every worker is one thread: its own). A flow holds one only while a record is
    /// incomplete.
    static RECS: std::cell::RefCell<Vec<Vec<u8>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// An empty buffer for a record of `want` bytes: the smallest kept one with that room,
/// else the largest kept one, else a new one (no allocation until it is filled).
fn take_rec(want: usize) -> Vec<u8> {
    RECS.try_with(|r| {
        let mut r = r.try_borrow_mut().ok()?;
        let i = r
            .iter()
            .enumerate()
            .filter(|(_, b)| b.capacity() >= want)
            .min_by_key(|(_, b)| b.capacity())
            .or_else(|| r.iter().enumerate().max_by_key(|(_, b)| b.capacity()))?
            .0;
        Some(r.swap_remove(i))
    })
    .ok()
    .flatten()
    .unwrap_or_default()
}

/// Keeps an emptied record buffer for [`take_rec`] while there is room.
fn give_rec(mut rec: Vec<u8>) {
    if rec.capacity() == 0 || rec.capacity() > 5 + super::parser::MAX_RECORD {
        return;
    }
    rec.clear();
    let _ = RECS.try_with(|r| {
        if let Ok(mut r) = r.try_borrow_mut() {
            if r.len() < MAX_KEPT_RECS {
                r.push(rec);
            }
        }
    });
}

impl Drop for Side {
    /// The flow is gone: a record buffer it held goes back to the thread's kept ones.
    fn drop(&mut self) {
        give_rec(std::mem::take(&mut self.rec));
    }
}

/// The room the record that `rec` then `more` start needs (header included), when its
/// header is in and is a TLS record header.
fn record_room(rec: &[u8], more: &[u8]) -> Option<usize> {
    let mut h = [0u8; 5];
    let n = h
        .iter_mut()
        .zip(rec.iter().chain(more))
        .map(|(slot, &b)| *slot = b)
        .count();
    if n < 5 {
        return None;
    }
    super::parser::record_header(&h).map(|h| 5 + h.len)
}

/// Gives `rec` (held bytes of a record cut short, to be followed by `more`) room for
/// the whole record they start when its header is in: one allocation of the record's
/// length (at most the largest record a header may announce) instead of growth by
/// doubling as its segments arrive. Nothing changes when the header is not complete or
/// not a TLS record header.
fn reserve_record(rec: &mut Vec<u8>, more: &[u8]) {
    if let Some(room) = record_room(rec, more) {
        let want = room.max(rec.len() + more.len());
        if want > rec.capacity() {
            rec.reserve_exact(want - rec.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parser::tests::{client_hello_msg, records, server_hello_msg};
    use super::super::parser::CT_HANDSHAKE;
    use super::*;

    #[test]
    fn a_record_cut_over_segments_is_held_in_one_allocation_of_its_length() {
        // The header split over the held bytes and the new ones.
        let mut rec = vec![22, 3];
        reserve_record(&mut rec, &[3, 0x10, 0x00, 1, 2]);
        assert_eq!(rec.capacity(), 5 + 0x1000);
        // Not a record header, or not complete yet: nothing reserved.
        let mut rec = vec![];
        reserve_record(&mut rec, &[22, 3, 3, 0x10]);
        assert_eq!(rec.capacity(), 0);
        reserve_record(&mut rec, &[0x80, 3, 3, 0x10, 0]);
        assert_eq!(rec.capacity(), 0);
        // A length over the largest record: no header, nothing reserved.
        reserve_record(&mut rec, &[23, 3, 3, 0xff, 0xff]);
        assert_eq!(rec.capacity(), 0);
        // A handshake record fed a few bytes at a time keeps its first buffer.
        let ch = client_hello_msg("one.example", &[0x0303]);
        let stream = records(CT_HANDSHAKE, &ch, 10_000);
        let mut ctx = AppCtx::default();
        let mut s = TlsState::new();
        s.parse(&mut ctx, Direction::ToServer, &stream[..9]);
        let at = s.sides[0].rec.as_ptr();
        assert!(s.sides[0].rec.capacity() >= stream.len());
        for c in stream[9..stream.len() - 1].chunks(7) {
            s.parse(&mut ctx, Direction::ToServer, c);
            assert_eq!(s.sides[0].rec.as_ptr(), at);
        }
        s.parse(&mut ctx, Direction::ToServer, &stream[stream.len() - 1..]);
        assert_eq!(s.sni(), Some(&b"one.example"[..]));
        // The record complete, the flow holds no buffer: the next flow's cut record
        // takes the same one.
        assert_eq!(s.sides[0].rec.capacity(), 0);
        let mut t = TlsState::new();
        t.parse(&mut ctx, Direction::ToServer, &stream[..9]);
        assert_eq!(t.sides[0].rec.as_ptr(), at);
        t.parse(&mut ctx, Direction::ToServer, &stream[9..]);
        assert_eq!(t.sni(), Some(&b"one.example"[..]));
        // A flow dropped inside a record gives its buffer back too.
        let mut u = TlsState::new();
        u.parse(&mut ctx, Direction::ToServer, &stream[..9]);
        assert_eq!(u.sides[0].rec.as_ptr(), at);
        drop(u);
        let again = take_rec(stream.len());
        assert_eq!(again.as_ptr(), at);
    }

    #[test]
    fn the_record_header_gives_the_version_until_the_hello_is_in() {
        // dt-2-431 (IPS mode): a ClientHello cut after its first packet matches
        // `ssl_version` there, from the record header's version (Suricata 7.0.10).
        let ch = client_hello_msg("a.example", &[0x0303]);
        let stream = records(CT_HANDSHAKE, &ch, 10_000);
        assert_eq!(
            stream[1..3],
            [3, 1],
            "record version 3.1, hello version 3.3"
        );
        let mut ctx = AppCtx::default();
        let mut s = TlsState::new();
        s.parse(&mut ctx, Direction::ToServer, &stream[..2]);
        assert_eq!(s.side_version(Direction::ToServer), None);
        s.parse(&mut ctx, Direction::ToServer, &stream[2..3]);
        assert_eq!(s.side_version(Direction::ToServer), Some(0x0301));
        s.parse(&mut ctx, Direction::ToServer, &stream[3..]);
        assert_eq!(s.side_version(Direction::ToServer), Some(0x0303));
        assert_eq!(s.side_version(Direction::ToClient), None);
        let sh = records(CT_HANDSHAKE, &server_hello_msg(0x0303, false), 10_000);
        s.parse(&mut ctx, Direction::ToClient, &sh[..4]);
        assert_eq!(s.side_version(Direction::ToClient), Some(0x0301));
        s.parse(&mut ctx, Direction::ToClient, &sh[4..]);
        assert_eq!(s.side_version(Direction::ToClient), Some(0x0303));
    }

    #[test]
    fn sni_and_version_any_split_and_fragmentation() {
        let ch = client_hello_msg("login.example.net", &[0x0304, 0x0303]);
        for frag in [7, 50, 10_000] {
            let stream = records(CT_HANDSHAKE, &ch, frag);
            for split in [1, 2, 3, 5, 11, stream.len()] {
                let mut ctx = AppCtx::default();
                let mut s = TlsState::new();
                for c in stream.chunks(split) {
                    s.parse(&mut ctx, Direction::ToServer, c);
                }
                assert_eq!(
                    s.sni(),
                    Some(&b"login.example.net"[..]),
                    "frag {frag} split {split}"
                );
                assert_eq!(s.client_supported_versions(), &[0x0304, 0x0303]);
            }
        }
        let mut ctx = AppCtx::default();
        let mut s = TlsState::new();
        let mut resp = records(CT_HANDSHAKE, &server_hello_msg(0x0304, true), 100);
        resp.extend_from_slice(&[20, 3, 3, 0, 1, 1]);
        s.parse(&mut ctx, Direction::ToClient, &resp);
        assert_eq!(s.version(), Some(0x0304));
        assert!(s.server_hello_done());
        assert!(!s.handshake_done());
    }

    #[test]
    fn certificate_subject_and_issuer() {
        let der = include_bytes!("testdata/cert.der");
        let mut list = vec![];
        list.extend_from_slice(&(der.len() as u32).to_be_bytes()[1..]);
        list.extend_from_slice(der);
        let mut body = (list.len() as u32).to_be_bytes()[1..].to_vec();
        body.extend_from_slice(&list);
        let mut msg = vec![11];
        msg.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
        msg.extend_from_slice(&body);
        let mut stream = records(CT_HANDSHAKE, &server_hello_msg(0x0303, false), 1000);
        stream.extend(records(CT_HANDSHAKE, &msg, 100));
        for split in [1, 9, stream.len()] {
            let mut ctx = AppCtx::default();
            let mut s = TlsState::new();
            for c in stream.chunks(split) {
                s.parse(&mut ctx, Direction::ToClient, c);
            }
            assert_eq!(s.version(), Some(0x0303));
            assert!(s.certificate_done());
            assert_eq!(
                s.cert_subject(),
                Some("C=US, O=Osprey Test, CN=test.example")
            );
            assert_eq!(
                s.cert_issuer(),
                Some("C=US, O=Osprey Test, CN=test.example")
            );
        }
    }

    /// The `O=XX` server flight of sv-ether (see `testdata/README.md`).
    const O_XX_FLIGHT: &[u8] = include_bytes!("testdata/o_xx_server_flight.bin");
    /// Where sv-ether's first segment of that flight ends.
    const O_XX_FIRST_SEGMENT: usize = 1206;

    #[test]
    fn certificates_inspectable_once_a_parse_call_ends_between_records() {
        // The first segment holds the whole Certificate message but ends inside the next
        // record: Suricata's parser returns "incomplete" and does not set its
        // handshake-done flag until the segment that ends that record is parsed.
        let (first, rest) = O_XX_FLIGHT.split_at(O_XX_FIRST_SEGMENT);
        let mut ctx = AppCtx::default();
        let mut s = TlsState::new();
        s.parse(&mut ctx, Direction::ToClient, first);
        assert!(s.certificate_done());
        assert!(s.cert_subject().unwrap().contains("O=XX"));
        assert!(s.cert_issuer().unwrap().contains("O=XX"));
        assert_eq!(s.certs().count(), 1);
        assert!(!s.certs_inspectable());
        s.parse(&mut ctx, Direction::ToClient, rest);
        assert!(s.certs_inspectable());

        // Both segments acknowledged at once: one call, inspectable right away.
        let mut s = TlsState::new();
        s.parse(&mut ctx, Direction::ToClient, O_XX_FLIGHT);
        assert!(s.certs_inspectable());

        // A call that ends in a record header (fewer than 5 bytes) is not "incomplete".
        let mut s = TlsState::new();
        s.parse(&mut ctx, Direction::ToClient, &first[..1069 + 3]);
        assert!(s.certs_inspectable());

        // Application data, or the end of the session, also make them inspectable.
        let mut s = TlsState::new();
        s.parse(&mut ctx, Direction::ToClient, first);
        s.parse(&mut ctx, Direction::ToServer, &[23, 3, 3, 0, 1, 0]);
        assert!(s.certs_inspectable());
        let mut s = TlsState::new();
        s.parse(&mut ctx, Direction::ToClient, first);
        s.close();
        assert!(s.certs_inspectable());
        assert_eq!(ctx.counters.get(Counter::TlsMalformed), 0);
    }

    #[test]
    fn certificate_chain_in_message_order() {
        let flight = include_bytes!("testdata/sliver_server_flight.bin");
        for split in [1, 100, flight.len()] {
            let mut ctx = AppCtx::default();
            let mut s = TlsState::new();
            for c in flight.chunks(split) {
                s.parse(&mut ctx, Direction::ToClient, c);
            }
            let certs: Vec<&[u8]> = s.certs().collect();
            assert_eq!(certs.len(), 1, "split {split}");
            // DER: a SEQUENCE with a two-byte length, whose subject names Scottsdale.
            assert_eq!(&certs[0][..2], &[0x30, 0x82]);
            assert!(certs[0].windows(10).any(|w| w == b"Scottsdale"));
            assert!(s.certs_inspectable());
        }
        // The synthetic certificate message: the DER bytes exactly.
        let der = include_bytes!("testdata/cert.der");
        let mut list = (der.len() as u32).to_be_bytes()[1..].to_vec();
        list.extend_from_slice(der);
        list.extend_from_slice(&(der.len() as u32).to_be_bytes()[1..]);
        list.extend_from_slice(der);
        let mut body = (list.len() as u32).to_be_bytes()[1..].to_vec();
        body.extend_from_slice(&list);
        let mut msg = vec![HS_CERTIFICATE];
        msg.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
        msg.extend_from_slice(&body);
        let mut ctx = AppCtx::default();
        let mut s = TlsState::new();
        s.parse(
            &mut ctx,
            Direction::ToClient,
            &records(CT_HANDSHAKE, &msg, 300),
        );
        assert_eq!(s.certs().collect::<Vec<_>>(), [&der[..], &der[..]]);
    }

    #[test]
    fn ssl_state_is_the_last_message_with_a_state_of_a_parse_call() {
        // ServerHello, then a message that leaves no state (ServerHelloDone) in the same
        // record: `ssl_state:server_hello` still matches (Suricata 7.0.10 alerts on such
        // a flight; difftest case dt-1956495344-6735, RESULTS).
        let sh = server_hello_msg(0x0303, false);
        let skx = [12, 0, 0, 2, 3, 0];
        let shd = [14, 0, 0, 0];
        let state = |msgs: &[&[u8]], split: usize| {
            let mut ctx = AppCtx::default();
            let mut s = TlsState::new();
            s.parse(
                &mut ctx,
                Direction::ToClient,
                &records(CT_HANDSHAKE, &msgs.concat(), split),
            );
            s.last_message()
        };
        let (sh_state, skx_state) = (
            HandshakeState(HandshakeState::SERVER_HELLO),
            HandshakeState(HandshakeState::SERVER_KEYX),
        );
        for split in [7, 300] {
            assert_eq!(state(&[&sh, &shd], split), sh_state);
            // A later message with a state replaces the earlier one, in one record or
            // several (Suricata: ServerHello, ServerKeyExchange matches server_keyx
            // only; the other order server_hello only).
            assert_eq!(state(&[&sh, &skx, &shd], split), skx_state);
            assert_eq!(state(&[&skx, &sh, &shd], split), sh_state);
        }
        // The next call starts over, whatever it holds: a message without a state, a
        // ChangeCipherSpec, the first bytes of a record.
        for next in [
            &records(CT_HANDSHAKE, &shd, 300)[..],
            &[20, 3, 3, 0, 1, 1],
            &[23, 3],
        ] {
            let mut ctx = AppCtx::default();
            let mut s = TlsState::new();
            s.parse(
                &mut ctx,
                Direction::ToClient,
                &records(CT_HANDSHAKE, &sh, 300),
            );
            assert_eq!(s.last_message(), sh_state);
            s.parse(&mut ctx, Direction::ToClient, next);
            assert_eq!(s.last_message(), HandshakeState::default());
        }
    }

    #[test]
    fn garbage_stops_direction() {
        let mut ctx = AppCtx::default();
        let mut s = TlsState::new();
        assert!(!s.errored());
        s.parse(&mut ctx, Direction::ToServer, b"GET / HTTP/1.1\r\n\r\n");
        assert_eq!(ctx.counters.get(Counter::TlsMalformed), 1);
        assert!(s.errored(), "a bad record header is a parser error");
        assert_eq!(ctx.counters.get(Counter::ErrorTls), 1);
        let ch = records(CT_HANDSHAKE, &client_hello_msg("x", &[]), 100);
        s.parse(&mut ctx, Direction::ToServer, &ch);
        assert_eq!(s.sni(), None);
        assert_eq!(ctx.counters.get(Counter::ErrorTls), 1, "counted once");
    }

    #[test]
    fn sslv2_client_hello_then_tls_records() {
        let mut ctx = AppCtx::default();
        let mut s = TlsState::new();
        // An SSLv2-format ClientHello (two-byte header, length 9), as sv-ether has.
        let v2 = [0x80, 0x09, 1, 3, 1, 0, 0, 0, 0, 0, 0];
        s.parse(&mut ctx, Direction::ToServer, &v2);
        assert!(!s.errored());
        let sh = records(CT_HANDSHAKE, &server_hello_msg(0x0303, false), 100);
        s.parse(&mut ctx, Direction::ToClient, &sh);
        assert_eq!(s.version(), Some(0x0303));
        // After a TLS record, a byte with the high bit set is no header.
        s.parse(&mut ctx, Direction::ToClient, &v2);
        assert!(s.errored());
        assert_eq!(ctx.counters.get(Counter::ErrorTls), 1);
    }

    #[test]
    fn oversized_handshake_is_limited() {
        let mut ctx = AppCtx::default();
        ctx.config.tls_handshake_limit = 1000;
        let mut s = TlsState::new();
        let mut msg = vec![11, 0, 0x10, 0];
        msg.extend(std::iter::repeat_n(0, 0x1000));
        s.parse(
            &mut ctx,
            Direction::ToClient,
            &records(CT_HANDSHAKE, &msg, 500),
        );
        assert_eq!(ctx.counters.get(Counter::TlsHandshakeLimit), 1);
    }
}
