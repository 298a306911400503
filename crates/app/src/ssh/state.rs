//! SSH's per-flow state: each direction reads its identification line, then binary
//! packets until its `SSH_MSG_NEWKEYS`; the `SSH_MSG_KEXINIT` of each side is kept for
//! HASSH. Once both sides sent NEWKEYS the rest of the flow is encrypted and nothing
//! more is parsed (Suricata 7 stops inspecting it too). The whole session is one
//! transaction (id 0), complete per side at its NEWKEYS.

use super::parser::{self, Banner, KexInit, MSG_KEXINIT, MSG_NEWKEYS, RECORD_HEADER_LEN};
use crate::{AppCtx, AppProto, Counter, Direction, Events};

/// The longest identification line kept (Suricata's limit); a longer one raises
/// `ssh.long_banner` and is cut there.
pub const MAX_BANNER: usize = 255;

/// The largest KEXINIT packet buffered for HASSH; a larger one is skipped (counted in
/// `osprey.app.ssh.kexinit_too_long`).
pub const MAX_KEXINIT: usize = 64 * 1024;

/// Where one direction is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Phase {
    /// Reading the identification line.
    #[default]
    Banner,
    /// Skipping the rest of an over-long identification line.
    BannerTail,
    /// Reading binary packets: buffering a header, a KEXINIT or skipping `left` bytes
    /// of another packet.
    Records,
    /// NEWKEYS sent: the rest is encrypted.
    Encrypted,
    /// A hole or a parse failure: nothing more is read on this side.
    Lost,
}

/// One direction of the session.
#[derive(Clone, Debug, Default)]
pub struct SshSide {
    phase: Phase,
    line: Vec<u8>,
    /// The identification line's fields, once read.
    pub banner: Option<Banner>,
    /// The bytes of the packet being read (its header, or a whole KEXINIT).
    rec: Vec<u8>,
    /// The packet size wanted in `rec` (0: a header).
    want: usize,
    /// Bytes of the current packet still to skip.
    skip: u64,
    /// The side's KEXINIT algorithm lists.
    pub kexinit: Option<KexInit>,
    /// HASSH string (client) or HASSH-server string, and its hash.
    pub hassh: Option<(Vec<u8>, Vec<u8>)>,
}

impl SshSide {
    /// Whether this side sent NEWKEYS (its handshake is finished).
    pub fn finished(&self) -> bool {
        self.phase == Phase::Encrypted
    }
}

/// The SSH state of one flow; also its one transaction.
#[derive(Clone, Debug, Default)]
pub struct SshState {
    /// The client's side (index 0) and the server's (1).
    pub sides: [SshSide; 2],
    events: Events,
    failed: bool,
}

impl SshState {
    /// Events raised on the flow.
    pub fn events(&self) -> Events {
        self.events
    }

    /// Whether the parser failed (an identification line or packet header that does not
    /// parse).
    pub fn errored(&self) -> bool {
        self.failed
    }

    /// Whether both sides sent NEWKEYS: the session is encrypted from here on.
    pub fn encrypted(&self) -> bool {
        self.sides.iter().all(SshSide::finished)
    }

    fn raise(&mut self, ctx: &mut AppCtx, i: usize) {
        self.events.raise(i);
        ctx.anomalies
            .parser(AppProto::Ssh, super::EVENTS[i], Some(0));
    }

    fn fail(&mut self, ctx: &mut AppCtx, d: usize, event: usize) {
        self.raise(ctx, event);
        self.sides[d].phase = Phase::Lost;
        if !self.failed {
            self.failed = true;
            ctx.counters.incr(Counter::ErrorSsh);
        }
    }

    /// A hole in one direction: that side is no longer read.
    pub fn gap(&mut self, ctx: &mut AppCtx, dir: Direction) {
        ctx.counters.incr(Counter::Gap);
        let s = &mut self.sides[dir.index()];
        if s.phase != Phase::Encrypted {
            s.phase = Phase::Lost;
        }
    }

    /// In-order bytes of one direction.
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, mut data: &[u8]) {
        let d = dir.index();
        while !data.is_empty() && !self.failed {
            data = match self.sides[d].phase {
                Phase::Banner | Phase::BannerTail => self.banner(ctx, d, data),
                Phase::Records => self.records(ctx, d, data),
                Phase::Encrypted | Phase::Lost => return,
            };
        }
    }

    /// Reads identification-line bytes; returns the bytes after the line.
    fn banner<'a>(&mut self, ctx: &mut AppCtx, d: usize, data: &'a [u8]) -> &'a [u8] {
        let nl = memchr::memchr(b'\n', data);
        let chunk = &data[..nl.unwrap_or(data.len())];
        let s = &mut self.sides[d];
        if s.phase == Phase::Banner {
            let room = MAX_BANNER - s.line.len();
            s.line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if chunk.len() > room {
                s.phase = Phase::BannerTail;
                self.raise(ctx, super::LONG_BANNER);
            }
        }
        let Some(nl) = nl else {
            return &[];
        };
        let s = &mut self.sides[d];
        let line = std::mem::take(&mut s.line);
        let line = line.strip_suffix(b"\r").unwrap_or(&line);
        match parser::parse_banner(line) {
            Some(b) => {
                s.banner = Some(b);
                s.phase = Phase::Records;
            }
            None => self.fail(ctx, d, super::INVALID_BANNER),
        }
        &data[nl + 1..]
    }

    /// Reads binary-packet bytes; returns what is left of `data`.
    fn records<'a>(&mut self, ctx: &mut AppCtx, d: usize, data: &'a [u8]) -> &'a [u8] {
        let s = &mut self.sides[d];
        if s.skip > 0 {
            let n = usize::try_from(s.skip).map_or(data.len(), |k| k.min(data.len()));
            s.skip -= n as u64;
            return &data[n..];
        }
        let want = if s.want == 0 {
            RECORD_HEADER_LEN
        } else {
            s.want
        };
        let n = (want - s.rec.len()).min(data.len());
        s.rec.extend_from_slice(&data[..n]);
        let rest = &data[n..];
        if s.rec.len() < want {
            return rest;
        }
        if s.want == 0 {
            let Some(Ok(h)) = parser::record_header(&s.rec) else {
                self.fail(ctx, d, super::INVALID_RECORD);
                return &[];
            };
            match h.code {
                MSG_NEWKEYS => {
                    s.rec.clear();
                    s.phase = Phase::Encrypted;
                }
                MSG_KEXINIT if h.total_len() <= MAX_KEXINIT as u64 => {
                    s.want = h.total_len() as usize;
                }
                code => {
                    if code == MSG_KEXINIT {
                        ctx.counters.incr(Counter::SshKexinitTooLong);
                    }
                    s.rec.clear();
                    s.skip = h.total_len() - RECORD_HEADER_LEN as u64;
                }
            }
            return rest;
        }
        // A whole KEXINIT: its payload is after the header, before the padding.
        let pad = usize::from(s.rec[4]);
        let payload = &s.rec[RECORD_HEADER_LEN..s.rec.len() - pad];
        if let Some(k) = parser::parse_kexinit(payload) {
            let string = k.hassh_string(d == 0);
            let hash = parser::hassh_hash(&string);
            s.hassh = Some((string, hash));
            s.kexinit = Some(k);
        }
        s.rec.clear();
        s.want = 0;
        rest
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Transaction;

    /// sv-ether.pcap, 192.168.0.30:42116 -> 192.168.0.123:22: each side's bytes from
    /// its identification line to its NEWKEYS, and 64 encrypted bytes after it.
    const CLIENT: &[u8] = include_bytes!("testdata/client.bin");
    const SERVER: &[u8] = include_bytes!("testdata/server.bin");

    fn feed(s: &mut SshState, ctx: &mut AppCtx, step: usize) {
        let (mut c, mut v) = (CLIENT, SERVER);
        while !c.is_empty() || !v.is_empty() {
            let (a, b) = c.split_at(step.min(c.len()));
            s.parse(ctx, Direction::ToServer, a);
            c = b;
            let (a, b) = v.split_at(step.min(v.len()));
            s.parse(ctx, Direction::ToClient, a);
            v = b;
        }
    }

    #[test]
    fn a_real_handshake_in_any_split() {
        for step in [1, 7, 100, 4096] {
            let mut ctx = AppCtx::default();
            let mut s = SshState::default();
            feed(&mut s, &mut ctx, step);
            assert!(!s.errored() && s.events().is_empty());
            assert!(s.encrypted());
            assert!(s.is_final());
            // Suricata 7.0.10 with `hassh: yes` on the same flow.
            let o = super::super::log::ssh_object(&s, true);
            assert_eq!(o["client"]["proto_version"], "2.0");
            assert_eq!(o["client"]["software_version"], "OpenSSH_8.2p1");
            assert_eq!(o["server"]["software_version"], "OpenSSH_7.9p1");
            assert_eq!(
                o["client"]["hassh"]["hash"],
                "ae8bd7dd09970555aa4c6ed22adbbf56"
            );
            assert_eq!(
                o["server"]["hassh"]["hash"],
                "b12d2871a1189eff20364cf5333619ee"
            );
            assert!(o["server"]["hassh"]["string"]
                .as_str()
                .unwrap()
                .ends_with(",hmac-sha2-256,hmac-sha2-512,hmac-sha1;none,zlib@openssh.com"));
            // The stock configuration logs no hassh.
            assert_eq!(
                super::super::log::ssh_object(&s, false).to_string(),
                r#"{"client":{"proto_version":"2.0","software_version":"OpenSSH_8.2p1"},"server":{"proto_version":"2.0","software_version":"OpenSSH_7.9p1"}}"#
            );
        }
    }

    #[test]
    fn encrypted_bytes_are_not_parsed() {
        let mut ctx = AppCtx::default();
        let mut s = SshState::default();
        feed(&mut s, &mut ctx, 4096);
        // Garbage that would be an invalid packet header in the clear.
        s.parse(&mut ctx, Direction::ToServer, &[0, 0, 0, 0, 0, 0, 0, 0]);
        assert!(!s.errored() && s.events().is_empty());
    }

    #[test]
    fn bad_input_raises_events() {
        let mut ctx = AppCtx::default();
        let mut s = SshState::default();
        s.parse(
            &mut ctx,
            Direction::ToServer,
            b"SSH-2.0-x\r\n\0\0\0\x01\0\x14",
        );
        assert!(s.errored());
        assert!(s.events().has(super::super::INVALID_RECORD));
        assert_eq!(ctx.counters.get(Counter::ErrorSsh), 1);
        let mut ctx = AppCtx::default();
        let mut s = SshState::default();
        s.parse(&mut ctx, Direction::ToClient, b"SSH-nodash\n");
        assert!(s.errored() && s.events().has(super::super::INVALID_BANNER));
        let mut ctx = AppCtx::default();
        let mut s = SshState::default();
        let mut long = b"SSH-2.0-".to_vec();
        long.resize(1000, b'a');
        s.parse(&mut ctx, Direction::ToServer, &long);
        s.parse(&mut ctx, Direction::ToServer, b"\r\n");
        assert!(!s.errored() && s.events().has(super::super::LONG_BANNER));
        let b = s.sides[0].banner.as_ref().unwrap();
        assert_eq!(b.software.len(), MAX_BANNER - 8);
        // A gap ends reading that side, without an error.
        s.gap(&mut ctx, Direction::ToServer);
        s.parse(&mut ctx, Direction::ToServer, &[0; 6]);
        assert!(!s.errored());
    }

    #[test]
    fn an_oversized_kexinit_is_skipped_and_counted() {
        let mut ctx = AppCtx::default();
        let mut s = SshState::default();
        s.parse(&mut ctx, Direction::ToServer, b"SSH-2.0-x\r\n");
        let len = (MAX_KEXINIT as u32) + 10;
        let mut p = len.to_be_bytes().to_vec();
        p.extend_from_slice(&[4, MSG_KEXINIT]);
        s.parse(&mut ctx, Direction::ToServer, &p);
        s.parse(&mut ctx, Direction::ToServer, &vec![0; len as usize - 2]);
        s.parse(
            &mut ctx,
            Direction::ToServer,
            &[0, 0, 0, 12, 10, MSG_NEWKEYS],
        );
        assert!(s.sides[0].finished() && s.sides[0].hassh.is_none());
        assert_eq!(ctx.counters.get(Counter::SshKexinitTooLong), 1);
    }
}
