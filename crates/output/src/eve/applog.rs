//! When application-layer records are written, as Suricata's transaction loggers do:
//! an HTTP transaction once both its request and response are complete (or the flow
//! ended), each DNS message as it arrives (question records for a request, an answer
//! record for a response), a TLS session once its clear-text handshake is over (or the
//! flow ended).

use super::records::{
    dns_alert_object, dns_answer_object, dns_query_objects, event_record, http_object, tls_object,
    EventMeta,
};
use super::types::EveTypes;
use app::AppFlow;
use serde_json::Value;

/// How far a flow's transactions have been logged. One per flow, kept by the caller
/// beside the flow's [`AppFlow`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LogCursor {
    http: u64,
    dns: u64,
    tls: bool,
}

/// Turns a flow's finished transactions into EVE records, for the enabled types.
#[derive(Clone, Copy, Debug, Default)]
pub struct AppLogger {
    types: EveTypes,
}

impl AppLogger {
    /// A logger writing the app-layer types of `types`.
    pub fn new(types: EveTypes) -> Self {
        AppLogger { types }
    }

    /// Whether any app-layer record type is on (if not, [`AppLogger::log`] never writes).
    pub fn enabled(&self) -> bool {
        self.types.any_app()
    }

    /// Writes (through `out`) the records of `app` that became loggable and advances
    /// `cursor`. Their header comes from `meta`, called only when there is something to
    /// write (at most once). With `at_end` (the flow ended) every transaction not yet
    /// logged is written, complete or not.
    pub fn log(
        &self,
        app: &AppFlow,
        cursor: &mut LogCursor,
        at_end: bool,
        meta: &mut dyn FnMut() -> EventMeta,
        out: &mut dyn FnMut(Value),
    ) {
        let mut cached: Option<EventMeta> = None;
        let mut meta = move || -> EventMeta { cached.get_or_insert_with(&mut *meta).clone() };
        if let (true, Some(h)) = (self.types.http, app.http()) {
            let from = cursor.http;
            for tx in h.txs().filter(|t| t.id() >= from) {
                if !at_end && !tx.is_complete() {
                    break;
                }
                out(event_record(
                    &meta(),
                    "http",
                    Some(tx.id()),
                    http_object(tx, self.types.http_extended),
                ));
                cursor.http = tx.id() + 1;
            }
        }
        if let (true, Some(d)) = (self.types.dns, app.dns()) {
            let from = cursor.dns;
            for tx in d.txs().filter(|t| t.id() >= from) {
                for q in dns_query_objects(tx) {
                    out(event_record(&meta(), "dns", None, q));
                }
                if let Some(a) = dns_answer_object(tx) {
                    out(event_record(&meta(), "dns", None, a));
                }
                cursor.dns = tx.id() + 1;
            }
        }
        if let (true, Some(t)) = (self.types.tls, app.tls()) {
            if !cursor.tls && (at_end || t.handshake_done()) {
                cursor.tls = true;
                out(event_record(
                    &meta(),
                    "tls",
                    None,
                    tls_object(t, self.types.tls_extended),
                ));
            }
        }
    }
}

/// The app-layer object an alert record carries (Suricata adds it to alerts raised on
/// a transaction): `("http", ...)` with the extended fields, `("dns", {query|answer})`
/// or `("tls", ...)` with sni and version. `None` when the flow has no such
/// transaction.
pub fn alert_app_object(app: &AppFlow, tx_id: u64) -> Option<(&'static str, Value)> {
    if let Some(h) = app.http() {
        return h.tx(tx_id).map(|tx| ("http", http_object(tx, true)));
    }
    if let Some(d) = app.dns() {
        return d
            .txs()
            .find(|t| t.id() == tx_id)
            .map(|tx| ("dns", dns_alert_object(tx)));
    }
    app.tls().map(|t| ("tls", tls_object(t, true)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::{AppCtx, Direction, Transport};

    fn meta() -> EventMeta {
        EventMeta {
            ts_secs: 0,
            ts_micros: 0,
            flow_id: 1,
            pcap_cnt: Some(1),
            vlan: [0, 0],
            src_ip: "10.0.0.1".parse().unwrap(),
            src_port: 40000,
            dest_ip: "10.0.0.2".parse().unwrap(),
            dest_port: 80,
            proto: 6,
            pkt_src: "wire/pcap",
        }
    }

    fn collect(l: &AppLogger, f: &AppFlow, c: &mut LogCursor, end: bool) -> Vec<Value> {
        let mut v = Vec::new();
        l.log(f, c, end, &mut meta, &mut |r| v.push(r));
        v
    }

    #[test]
    fn http_logged_when_complete_or_at_end() {
        let types = EveTypes::parse_list("http").unwrap();
        let l = AppLogger::new(types);
        assert!(l.enabled());
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Tcp, 40000, 80);
        let mut c = LogCursor::default();
        f.parse(
            &mut ctx,
            Direction::ToServer,
            b"GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n",
        );
        assert!(collect(&l, &f, &mut c, false).is_empty());
        f.parse(
            &mut ctx,
            Direction::ToClient,
            b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        );
        let r = collect(&l, &f, &mut c, false);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0]["http"]["url"], "/1");
        assert_eq!(r[0]["tx_id"], 0);
        // Nothing twice; the unanswered request is logged when the flow ends.
        assert!(collect(&l, &f, &mut c, false).is_empty());
        let r = collect(&l, &f, &mut c, true);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0]["http"]["url"], "/2");
        assert!(collect(&l, &f, &mut c, true).is_empty());
        let (name, obj) = alert_app_object(&f, 0).unwrap();
        assert_eq!(name, "http");
        assert_eq!(obj["http_method"], "GET");
        assert_eq!(obj["status"], 200);
        assert!(alert_app_object(&f, 7).is_none());
        // Types not enabled write nothing.
        let none = AppLogger::new(EveTypes::parse_list("dns,tls").unwrap());
        assert!(collect(&none, &f, &mut LogCursor::default(), true).is_empty());
    }
}
