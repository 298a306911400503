//! SSH on the protocol contract: the session is one transaction (id 0), complete per
//! side at that side's NEWKEYS, logged once both identification lines are read (or
//! when the flow ends).
//! Suricata counts no SSH transactions (`app_layer.tx.ssh` stays 0): neither does this.

use serde_json::Value;

use super::SshState;
use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::proto::{mix_fingerprint as mix, ParseResult, Protocol, Transaction};
use crate::{AppCtx, AppProto, BufferId, Counter, Direction, Transport};

/// SSH's inspection buffers: the identification line's fields of the side the rule
/// looks at, and each side's HASSH.
pub(crate) static BUFFERS: &[BufferDef] = &[
    BufferDef::new("ssh.proto", None),
    BufferDef::new("ssh.software", None),
    BufferDef::new("ssh.hassh", Some(Direction::ToServer)),
    BufferDef::new("ssh.hassh.string", Some(Direction::ToServer)),
    BufferDef::new("ssh.hassh.server", Some(Direction::ToClient)),
    BufferDef::new("ssh.hassh.server.string", Some(Direction::ToClient)),
];

/// SSH's application-layer events (Suricata's `ssh-events.rules`).
pub(crate) static EVENTS: &[&str] = &[
    "ssh.invalid_banner",
    "ssh.long_banner",
    "ssh.invalid_record",
];

/// An identification line that is not `SSH-<proto>-<software>`.
pub(crate) const INVALID_BANNER: usize = 0;
/// An identification line longer than [`super::state::MAX_BANNER`].
pub(crate) const LONG_BANNER: usize = 1;
/// A binary packet header whose lengths do not hold together.
pub(crate) const INVALID_RECORD: usize = 2;

/// The state of a new SSH flow (TCP only).
pub(crate) fn new_state(t: Transport) -> Option<(AppState, Counter)> {
    (t == Transport::Tcp).then(|| (AppState::Ssh(Box::default()), Counter::FlowSsh))
}

impl Protocol for SshState {
    fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) -> ParseResult {
        SshState::parse(self, ctx, dir, data);
        if self.errored() {
            ParseResult::Error
        } else {
            ParseResult::Ok
        }
    }

    fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, _len: u64) {
        SshState::gap(self, ctx, dir)
    }

    fn errored(&self) -> bool {
        SshState::errored(self)
    }

    fn events(&self, f: &mut dyn FnMut(&'static str)) {
        SshState::events(self).each(EVENTS, f)
    }

    fn each_tx(&self, f: &mut dyn FnMut(&dyn Transaction)) {
        f(self)
    }

    fn find_tx(&self, id: u64) -> Option<&dyn Transaction> {
        (id == 0).then_some(self as &dyn Transaction)
    }
}

impl Transaction for SshState {
    fn id(&self) -> u64 {
        0
    }

    fn proto(&self) -> AppProto {
        AppProto::Ssh
    }

    /// A side is complete once it sent NEWKEYS.
    fn complete(&self, dir: Direction) -> bool {
        self.sides[dir.index()].finished()
    }

    /// Logged once both identification lines are read (Suricata logs SSH at "banner
    /// done"), or when the flow ends.
    fn log_ready(&self, at_end: bool) -> bool {
        at_end || self.sides.iter().all(|s| s.banner.is_some())
    }

    fn fingerprint(&self) -> (u64, u64) {
        let mut h = 0;
        for s in &self.sides {
            h = mix(h, u64::from(s.banner.is_some()));
            h = mix(h, u64::from(s.hassh.is_some()));
            h = mix(h, u64::from(s.finished()));
        }
        (h, 0)
    }

    /// `ssh.proto` and `ssh.software` of the side travelling `dir`; the HASSH buffers
    /// of their side (the client's KEXINIT for `ssh.hassh*`, the server's for
    /// `ssh.hassh.server*`).
    fn buffers(&self, b: BufferId, dir: Direction, f: &mut dyn FnMut(&[u8])) {
        let side = |d: Direction| &self.sides[d.index()];
        match b.local() {
            0 => side(dir).banner.as_ref().map(|b| f(&b.proto)),
            1 => side(dir).banner.as_ref().map(|b| f(&b.software)),
            2 => side(Direction::ToServer).hassh.as_ref().map(|h| f(&h.1)),
            3 => side(Direction::ToServer).hassh.as_ref().map(|h| f(&h.0)),
            4 => side(Direction::ToClient).hassh.as_ref().map(|h| f(&h.1)),
            5 => side(Direction::ToClient).hassh.as_ref().map(|h| f(&h.0)),
            _ => None,
        };
    }

    /// `ssh.protoversion` (`2_compat`: any 2.x or 1.99; else the exact version) and
    /// `ssh.softwareversion` (the exact software version), on the banner of the side
    /// travelling `dir`.
    fn check(&self, opt: &rules::AppOpt, dir: Direction) -> bool {
        let Some(b) = self.sides[dir.index()].banner.as_ref() else {
            return false;
        };
        let hit = match (&opt.value, opt.name) {
            (rules::AppValue::Text(v), "ssh.protoversion") if v == "2_compat" => {
                b.proto.starts_with(b"2.") || b.proto == b"2" || b.proto == b"1.99"
            }
            (rules::AppValue::Text(v), "ssh.protoversion") => b.proto == v.as_bytes(),
            (rules::AppValue::Text(v), "ssh.softwareversion") => b.software == v.as_bytes(),
            _ => return false,
        };
        hit != opt.negated
    }

    /// As Suricata writes it with the stock configuration (no `hassh`).
    fn log(&self, _extended: bool, out: &mut dyn FnMut(Option<u64>, Value)) {
        out(Some(0), super::log::ssh_object(self, false));
    }

    fn alert_object(&self) -> Value {
        super::log::ssh_object(self, false)
    }
}
