//! `tls_store` (alias `tls.store`): no condition (a rule with only it matches every
//! packet of a TLS flow, as Suricata's does) but a request, on each match, that the
//! certificate chain of the side the matching packet came from be written by the
//! `tls-store` output. Suricata 7.0.10 keeps the request per direction: a match on a
//! to-client packet asks for the server's chain, one on a to-server packet for the
//! client's. The keyword makes the rule a TLS rule (`alert tcp ... tls_store;` only
//! matches TLS flows) and takes no value.
//!
//! The request lives in the flow's [`FlowDetect`](crate::FlowDetect)
//! ([`FlowDetect::tls_store_requested`](crate::FlowDetect::tls_store_requested)); the
//! engine writes the chain once the handshake allows it.

use crate::sig::{failed, Refusal, Sig};
use rules::ast::Opt;

/// The keyword's canonical name (the rules crate's `tls.store` alias resolves to it).
pub(crate) const NAME: &str = "tls_store";

/// Compiles `tls_store` into `sig`: no value, and the rule's protocol becomes TLS.
pub(crate) fn compile(value: Option<&str>, sig: &mut Sig) -> Result<(), Refusal> {
    if let Some(v) = value {
        return Err(failed(NAME, format!("{NAME}:{v}: takes no value")));
    }
    match sig.app_proto {
        None => sig.app_proto = Some(app::AppProto::Tls),
        Some(app::AppProto::Tls) => {}
        Some(p) => {
            return Err(failed(
                NAME,
                format!("{NAME} in a rule of protocol {}", p.name()),
            ))
        }
    }
    Ok(())
}

/// Whether a rule's options hold `tls_store` (its matches ask for the chain).
pub(crate) fn of_rule(options: &[Opt]) -> bool {
    options
        .iter()
        .any(|o| matches!(o, Opt::Keyword { name, .. } if *name == NAME))
}

/// A flow's `tls_store` requests.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Requests {
    /// The direction of the packet being inspected (to the server: 0); `None` without
    /// a flow. A byte: every open flow holds one.
    current: Option<u8>,
    /// A `tls_store` rule matched a packet of this direction.
    requested: [bool; 2],
}

impl Requests {
    /// A packet of the flow is inspected (`to_server`: its direction, `None` without a
    /// flow).
    pub(crate) fn start_packet(&mut self, to_server: Option<bool>) {
        self.current = to_server.map(|t| u8::from(!t));
    }

    /// A `tls_store` rule matched the packet being inspected.
    pub(crate) fn request(&mut self) {
        if let Some(d) = self.current {
            self.requested[usize::from(d)] = true;
        }
    }

    /// Whether a `tls_store` rule matched a packet going `dir`.
    pub(crate) fn requested(&self, dir: app::Direction) -> bool {
        self.requested[dir.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_follow_the_matching_packet() {
        let mut r = Requests::default();
        r.request();
        assert!(!r.requested(app::Direction::ToServer) && !r.requested(app::Direction::ToClient));
        r.start_packet(Some(true));
        r.request();
        assert!(r.requested(app::Direction::ToServer));
        assert!(!r.requested(app::Direction::ToClient));
        r.start_packet(Some(false));
        r.request();
        assert!(r.requested(app::Direction::ToClient));
        r.start_packet(None);
        r.request();
        assert!(r.requested(app::Direction::ToClient));
    }

    #[test]
    fn of_rule_finds_the_keyword() {
        let rule = |t: &str| rules::parse_rule(t).expect("rule");
        let r = rule("alert tls any any -> any any (tls.store; sid:1;)");
        assert!(of_rule(&r.options));
        let r = rule("alert tls any any -> any any (tls.sni; content:\"a\"; sid:1;)");
        assert!(!of_rule(&r.options));
    }
}
