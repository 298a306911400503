//! HTTP `CONNECT` tunnels as a change of protocol, as Suricata 7 does it: when the
//! flow's first request is a `CONNECT` and its response is a 2xx, the rest of the flow
//! goes to protocol detection again (TLS through a proxy is then logged and inspected
//! as TLS, EVE `app_proto_orig: http`), with the port the `CONNECT` named as the
//! server port for the port-bound probes. A `CONNECT` later in the flow opens a tunnel
//! that is not looked into; the bytes of the chunks that carried the request and the
//! response past their end are the tunnel's, and are not replayed (as in Suricata,
//! only the data that follows is detected). The change itself happens on the tunnel's
//! next bytes (`AppFlow::due_switch`), after the `CONNECT` transaction was inspected.

use super::{HttpState, Progress};
use crate::Direction;

impl HttpState {
    /// The tunnel the flow's first request opened: `Some(port)` (the port its target
    /// names, if it names one) once a `CONNECT` as the flow's only transaction got its
    /// complete 2xx response; `None` otherwise.
    pub fn connect_tunnel(&self) -> Option<Option<u16>> {
        if self.tx_count() != 1 {
            return None;
        }
        let tx = self.tx(0)?;
        let connect = tx.method()?.eq_ignore_ascii_case(b"CONNECT");
        let ok = tx.status().is_some_and(|s| (200..300).contains(&s));
        let done = tx.progress(Direction::ToClient) == Progress::Complete;
        (connect && ok && done).then_some(tx.port())
    }
}

#[cfg(test)]
mod tests {
    use crate::tls::parser::tests::{client_hello_msg, records};
    use crate::{AppCtx, AppFlow, AppProto, Counter, Direction, Transport};

    const C: Direction = Direction::ToServer;
    const S: Direction = Direction::ToClient;

    fn connect(ctx: &mut AppCtx, target: &[u8], status: &[u8]) -> AppFlow {
        let mut f = AppFlow::new(Transport::Tcp, 40000, 8080);
        let mut req = b"CONNECT ".to_vec();
        req.extend_from_slice(target);
        req.extend_from_slice(b" HTTP/1.1\r\nHost: x\r\n\r\n");
        f.parse(ctx, C, &req);
        f.parse(ctx, S, status);
        f
    }

    #[test]
    fn a_tunnel_is_detected_again_as_tls() {
        let mut ctx = AppCtx::default();
        let mut f = connect(
            &mut ctx,
            b"a.example:443",
            b"HTTP/1.1 200 Connection established\r\n\r\n",
        );
        // The change waits for the tunnel's first bytes: the packet that completed the
        // CONNECT inspects it as HTTP.
        assert_eq!(f.app_proto(), AppProto::Http);
        assert!(!f.take_switched());
        let ch = records(22, &client_hello_msg("a.example", &[]), 64);
        f.parse(&mut ctx, C, &ch);
        assert!(f.take_switched());
        let (p, prior) = f.prior().expect("the HTTP state waits to be logged");
        assert_eq!(p, AppProto::Http);
        let mut n = 0;
        prior.each_tx(&mut |_| n += 1);
        assert_eq!(n, 1);
        assert_eq!(f.app_proto(), AppProto::Tls);
        assert_eq!(f.app_proto_orig(), Some(AppProto::Http));
        let tls = f.tls().expect("TLS state");
        assert_eq!(tls.sni(), Some(&b"a.example"[..]));
        assert_eq!(tls.from_proto(), Some(AppProto::Http));
        assert_eq!(ctx.counters.get(Counter::FlowHttp), 1);
        assert_eq!(ctx.counters.get(Counter::FlowTls), 1);
    }

    #[test]
    fn http_inside_a_tunnel_starts_a_new_http_state() {
        // Suricata logs the inner request as transaction 0 and the flow as plain
        // `http` (no `app_proto_orig`: the protocol did not change).
        let mut ctx = AppCtx::default();
        let mut f = connect(&mut ctx, b"b.example:80", b"HTTP/1.1 200 OK\r\n\r\n");
        f.parse(&mut ctx, C, b"GET /inner HTTP/1.1\r\nHost: b\r\n\r\n");
        assert_eq!(f.app_proto(), AppProto::Http);
        assert_eq!(f.app_proto_orig(), None);
        let tx = f.http().unwrap().tx(0).unwrap();
        assert_eq!(tx.uri_raw(), Some(&b"/inner"[..]));
    }

    #[test]
    fn a_tunnel_that_ends_undetected_fails() {
        let mut ctx = AppCtx::default();
        let mut f = connect(&mut ctx, b"/", b"HTTP/1.1 200 OK\r\n\r\n");
        f.close(&mut ctx);
        assert_eq!(f.app_proto(), AppProto::Failed);
        assert_eq!(f.app_proto_orig(), Some(AppProto::Http));
        assert_eq!(ctx.counters.get(Counter::FlowFailedTcp), 1);
        // So does one that carries no protocol Osprey knows.
        let mut f = connect(&mut ctx, b"d.example:443", b"HTTP/1.1 200 OK\r\n\r\n");
        f.parse(&mut ctx, C, &[0u8, 1, 2, 3].repeat(20));
        f.parse(&mut ctx, S, &b"zzzz".repeat(20));
        assert_eq!(f.app_proto(), AppProto::Failed);
        assert_eq!(f.app_proto_orig(), Some(AppProto::Http));
    }

    #[test]
    fn only_the_first_request_opens_a_detected_tunnel() {
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Tcp, 40000, 8080);
        f.parse(&mut ctx, C, b"GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n");
        f.parse(&mut ctx, S, b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        f.parse(&mut ctx, C, b"CONNECT a:443 HTTP/1.1\r\nHost: a\r\n\r\n");
        f.parse(&mut ctx, S, b"HTTP/1.1 200 OK\r\n\r\n");
        f.parse(&mut ctx, C, &records(22, &client_hello_msg("a", &[]), 64));
        assert_eq!(f.app_proto(), AppProto::Http);
        assert!(!f.take_switched());
        // Refused: HTTP goes on.
        let mut f = connect(
            &mut ctx,
            b"e.example:443",
            b"HTTP/1.1 403 No\r\nContent-Length: 0\r\n\r\n",
        );
        f.parse(&mut ctx, C, b"GET /e HTTP/1.1\r\nHost: e\r\n\r\n");
        assert_eq!(f.app_proto(), AppProto::Http);
        assert_eq!(f.http().unwrap().tx_count(), 2);
    }
}
