//! A flow changing protocol midway, as Suricata 7 hands an SMTP flow to TLS after an
//! accepted `STARTTLS`: the state asks for it ([`Protocol::switch_to`]); the flow
//! then keeps the old state as its prior state (its transactions are still to be
//! logged: [`AppFlow::prior`], then [`AppFlow::drop_prior`]), remembers the original
//! protocol (EVE `app_proto_orig`), starts the new protocol's state (counted in
//! `app_layer.flow.<proto>` as a detected flow) and gives it the bytes that followed
//! the switch point. A change to [`AppProto::Unknown`] (an HTTP `CONNECT` tunnel)
//! runs protocol detection again on what follows, with the port the state names
//! ([`Protocol::switch_port`]); a flow that ends before it decided has failed
//! detection (`app_proto: failed`, as Suricata).

use super::*;

/// What a flow keeps of a change of protocol.
#[derive(Debug, Default)]
pub(super) struct Switch {
    /// The protocol the flow started as (set at the first change).
    orig: Option<AppProto>,
    /// The state before the change and its protocol, until the engine logged it.
    prior: Option<Box<(AppProto, AppState)>>,
    /// A change happened since [`AppFlow::take_switched`] last asked.
    switched: bool,
    /// The protocol before the last change (TLS's EVE `from_proto`).
    from: Option<AppProto>,
}

impl AppFlow {
    /// Changes protocol if the state asks for it (after each parse call).
    pub(super) fn check_switch(&mut self, ctx: &mut AppCtx) {
        self.switch_if_asked(ctx, false)
    }

    /// Detection again starts with the flow's next bytes (before they are parsed), so
    /// the transaction that asked for it is inspected on the packet that completed it.
    pub(super) fn due_switch(&mut self, ctx: &mut AppCtx) {
        self.switch_if_asked(ctx, true)
    }

    fn switch_if_asked(&mut self, ctx: &mut AppCtx, next_bytes: bool) {
        let Some(to) = self.state.protocol().and_then(Protocol::switch_to) else {
            return;
        };
        if to == AppProto::Unknown && !next_bytes {
            return;
        }
        let port = self.state.protocol().and_then(Protocol::switch_port);
        let mut rest = [Vec::new(), Vec::new()];
        for dir in [Direction::ToServer, Direction::ToClient] {
            rest[dir.index()] = with_state!(mut &mut self.state,
                p => Protocol::take_after_switch(p, dir), None => Vec::new());
        }
        let from = self.proto;
        let old = std::mem::take(&mut self.state);
        self.switch.prior = Some(Box::new((from, old)));
        self.switch.orig.get_or_insert(from);
        self.switch.switched = true;
        self.switch.from = Some(from);
        self.late = Late::Idle;
        self.error_reported = false;
        if to == AppProto::Unknown {
            // Detection again, as on a new flow.
            self.proto = AppProto::Unknown;
            self.probe = [DirProbe::Pending; 2];
            self.held = Vec::new();
            self.held_len = 0;
            if let Some(p) = port {
                self.ports[1] = p;
            }
        } else {
            self.set_proto(ctx, to);
        }
        for dir in [Direction::ToServer, Direction::ToClient] {
            let bytes = std::mem::take(&mut rest[dir.index()]);
            if !bytes.is_empty() {
                self.parse_bytes(ctx, dir, &bytes);
            }
        }
    }

    /// Tells a new TLS state the protocol the flow came from (after a change).
    pub(super) fn note_from_proto(&mut self) {
        if let (Some(from), AppState::Tls(t)) = (self.switch.from, &mut self.state) {
            t.set_from_proto(from);
        }
    }

    /// The flow ended while detecting again after a change: detection failed.
    pub(super) fn close_switch(&mut self, ctx: &mut AppCtx) {
        self.due_switch(ctx);
        if self.switch.orig.is_some() && self.proto == AppProto::Unknown {
            self.fail(ctx);
        }
    }

    /// The protocol the flow started as, when it changed protocol since (EVE
    /// `app_proto_orig`; not when detection found the same protocol again).
    pub fn app_proto_orig(&self) -> Option<AppProto> {
        self.switch.orig.filter(|&o| o != self.proto)
    }

    /// The state the flow had before it changed protocol, with its protocol, until
    /// [`AppFlow::drop_prior`]: its transactions not logged yet are due.
    pub fn prior(&self) -> Option<(AppProto, &dyn Protocol)> {
        let (p, s) = &**self.switch.prior.as_ref()?;
        Some((*p, s.protocol()?))
    }

    /// Frees the prior state (once its transactions were logged).
    pub fn drop_prior(&mut self) {
        self.switch.prior = None;
    }

    /// Whether the flow changed protocol since the last call: the detector starts
    /// over with the new protocol's transactions.
    pub fn take_switched(&mut self) -> bool {
        std::mem::take(&mut self.switch.switched)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tls::parser::tests::{client_hello_msg, records};
    use crate::{Counter, Transport};

    const C: Direction = Direction::ToServer;
    const S: Direction = Direction::ToClient;

    /// An SMTP session up to `STARTTLS`, answered with `reply`.
    fn starttls(ctx: &mut AppCtx, reply: &[u8]) -> AppFlow {
        let mut f = AppFlow::new(Transport::Tcp, 40000, 25);
        f.parse(ctx, S, b"220 mx ESMTP\r\n");
        f.parse(ctx, C, b"EHLO client.example\r\n");
        f.parse(ctx, S, b"250-mx\r\n250 STARTTLS\r\n");
        f.parse(ctx, C, b"STARTTLS\r\n");
        f.parse(ctx, S, reply);
        f
    }

    #[test]
    fn accepted_starttls_hands_the_flow_to_tls() {
        let mut ctx = AppCtx::default();
        let mut f = starttls(&mut ctx, b"220 2.0.0 Ready to start TLS\r\n");
        assert_eq!(f.app_proto(), AppProto::Tls);
        assert_eq!(f.app_proto_orig(), Some(AppProto::Smtp));
        assert!(f.take_switched());
        assert!(!f.take_switched(), "told once");
        assert_eq!(ctx.counters.get(Counter::FlowSmtp), 1);
        assert_eq!(ctx.counters.get(Counter::FlowTls), 1);
        // The SMTP transaction waits in the prior state until it is logged.
        let (p, prior) = f.prior().expect("prior state kept");
        assert_eq!(p, AppProto::Smtp);
        let mut ids = Vec::new();
        prior.each_tx(&mut |t| ids.push((t.id(), t.proto())));
        assert_eq!(ids, [(0, AppProto::Smtp)]);
        f.drop_prior();
        assert!(f.prior().is_none());
        // What follows is TLS's.
        let ch = records(22, &client_hello_msg("mx.example", &[]), 64);
        f.parse(&mut ctx, C, &ch);
        let tls = f.tls().expect("TLS state");
        assert_eq!(tls.sni(), Some(&b"mx.example"[..]));
        assert_eq!(tls.from_proto(), Some(AppProto::Smtp));
        let obj = crate::tls::log::tls_object(tls, false);
        assert_eq!(obj["from_proto"], "smtp");
        assert!(!f.take_error());
    }

    #[test]
    fn bytes_after_the_reply_in_the_same_chunk_go_to_tls() {
        // A server that sends its ServerHello right behind its 220: the SMTP parser
        // says where it stopped, so the TLS parser gets those bytes.
        use crate::tls::parser::tests::server_hello_msg;
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Tcp, 40000, 25);
        f.parse(&mut ctx, S, b"220 mx ESMTP\r\n");
        f.parse(&mut ctx, C, b"EHLO c\r\nSTARTTLS\r\n");
        let mut chunk = b"250 mx\r\n220 go ahead\r\n".to_vec();
        chunk.extend_from_slice(&records(22, &server_hello_msg(0x0304, true), 512));
        f.parse(&mut ctx, S, &chunk);
        assert_eq!(f.app_proto(), AppProto::Tls);
        assert_eq!(f.tls().unwrap().version(), Some(0x0304));
        assert!(!f.take_error());
    }

    #[test]
    fn rejected_starttls_stays_smtp() {
        let mut ctx = AppCtx::default();
        let mut f = starttls(&mut ctx, b"454 4.7.0 TLS not available\r\n");
        assert_eq!(f.app_proto(), AppProto::Smtp);
        assert_eq!(f.app_proto_orig(), None);
        assert!(!f.take_switched());
        assert!(f.prior().is_none());
        f.parse(&mut ctx, C, b"QUIT\r\n");
        assert_eq!(ctx.counters.get(Counter::FlowTls), 0);
    }
}
