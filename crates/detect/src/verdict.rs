//! What the rules decided for a packet, with Suricata's IPS semantics; the engine
//! applies it only in IPS mode (`--simulate-ips`, inline capture).
//!
//! - `drop` (and Snort's `sdrop`) drops the packet; `reject*` drops it and answers
//!   with a TCP reset or an ICMP unreachable.
//! - `pass` stops the alerts of lower-priority rules on the packet.
//! - The scope is the rest of the flow when the rule is header-only (no payload,
//!   packet options or `flow` keyword; ports and app-layer protocol allowed) or matched
//!   the reassembled stream or a transaction; the packet alone when it matched the
//!   packet's own payload or options (`dsize`, `flow:stateless`, content on a SYN).
//!
//! Learned from the reference cases (`util-action-*`, `flow-drop-iponly-*`,
//! `bug-5464-verdict-*`, `threshold-config-rate-filter-*`): a packet-scope drop leaves
//! the flow open, a flow-scope drop ends all inspection and logging of the flow, and a
//! drop that `packet-alert-max` keeps out of the log still takes effect.

use rules::Action;

/// Which reset or unreachable a `reject` rule asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reject {
    /// `reject`, `rejectsrc`: answer the packet's source.
    Src,
    /// `rejectdst`: answer the packet's destination.
    Dst,
    /// `rejectboth`: answer both ends.
    Both,
}

/// The verdict of one [`crate::Detector::inspect`] call, read with
/// [`crate::Scratch::verdict`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Verdict {
    /// A `drop` or `reject` rule matched (thresholds and rate filters applied): in
    /// IPS mode the packet does not go through.
    pub drop: bool,
    /// The drop also covers the rest of the flow.
    pub drop_flow: bool,
    /// The first rule that dropped was a `reject`: the reset/unreachable to send.
    pub reject: Option<Reject>,
    /// A `pass` rule matched: the packet is accepted without further alerts.
    pub pass: bool,
    /// The pass covers the rest of the flow (no more detection on it).
    pub pass_flow: bool,
}

impl Verdict {
    /// Records the effective `action` of a matching rule (`flow_scope`: IP-only or
    /// application-layer rule with a flow). Returns true for `pass`, after which the
    /// lower-priority rules are not considered.
    pub(crate) fn add(&mut self, action: Action, flow_scope: bool) -> bool {
        match action {
            Action::Pass => {
                self.pass = true;
                self.pass_flow |= flow_scope;
                return true;
            }
            Action::Drop | Action::Sdrop => {}
            Action::Reject | Action::RejectSrc => self.set_reject(Reject::Src),
            Action::RejectDst => self.set_reject(Reject::Dst),
            Action::RejectBoth => self.set_reject(Reject::Both),
            Action::Alert | Action::Log => return false,
        }
        self.drop = true;
        self.drop_flow |= flow_scope;
        false
    }

    fn set_reject(&mut self, r: Reject) {
        if !self.drop {
            self.reject = Some(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_scope_and_first_reject() {
        let mut v = Verdict::default();
        assert!(!v.add(Action::Alert, true));
        assert_eq!(v, Verdict::default());
        assert!(!v.add(Action::Drop, false));
        assert!(v.drop && !v.drop_flow && v.reject.is_none());
        // A reject after a drop does not turn the drop into a reject.
        v.add(Action::RejectBoth, true);
        assert!(v.drop_flow && v.reject.is_none());
        let mut r = Verdict::default();
        r.add(Action::RejectDst, false);
        assert_eq!(r.reject, Some(Reject::Dst));
    }

    #[test]
    fn pass_stops_and_scopes() {
        let mut v = Verdict::default();
        assert!(v.add(Action::Pass, false));
        assert!(v.pass && !v.pass_flow && !v.drop);
        assert!(v.add(Action::Pass, true));
        assert!(v.pass_flow);
    }
}
