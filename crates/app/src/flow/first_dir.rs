//! The direction a protocol's first data must take: Suricata 7 lets a protocol name it
//! (TLS: to the server) and fails detection of a flow whose first application data
//! went the other way (a server that spoke first, then a client that sent a
//! ClientHello: `app_proto` "failed", as on sv-ether.pcap's 10.4.16.101:50649 -> 465,
//! an SMTP banner answered with TLS).

use super::*;

impl AppFlow {
    /// Whether detecting `p` on bytes of `dir` goes against the direction `p`'s first
    /// data must take (the flow's first data is the oldest held chunk, or these bytes).
    pub(super) fn wrong_first_direction(&self, p: AppProto, dir: Direction) -> bool {
        let first = self.held.first().map_or(dir, |(d, _)| *d);
        p == AppProto::Tls && first != Direction::ToServer
    }
}

#[cfg(test)]
mod tests {
    use crate::tls::parser::tests::{client_hello_msg, records};
    use crate::{AppCtx, AppFlow, AppProto, Counter, Direction, Transport};

    #[test]
    fn tls_after_the_server_spoke_first_fails() {
        let mut ctx = AppCtx::default();
        let ch = records(22, &client_hello_msg("mx.example", &[]), 64);
        let mut f = AppFlow::new(Transport::Tcp, 50649, 465);
        f.parse(&mut ctx, Direction::ToClient, b"220 mx ESMTP Postfix\r\n");
        f.parse(&mut ctx, Direction::ToServer, &ch);
        assert_eq!(f.app_proto(), AppProto::Failed);
        assert_eq!(ctx.counters.get(Counter::FlowFailedTcp), 1);
        assert_eq!(ctx.counters.get(Counter::FlowTls), 0);
        // The client first: TLS.
        let mut f = AppFlow::new(Transport::Tcp, 50650, 465);
        f.parse(&mut ctx, Direction::ToServer, &ch);
        assert_eq!(f.app_proto(), AppProto::Tls);
    }
}
