//! When application-layer records are written, as Suricata's transaction loggers do:
//! each protocol's transactions in order, once the protocol says a transaction is
//! ready ([`app::Transaction::log_ready`]: an HTTP transaction once both its request
//! and response are complete, each DNS message as it arrives, a TLS session once its
//! clear-text handshake is over) or the flow ended. The records' objects come from the
//! protocols ([`app::Transaction::log`]); this module only walks the transactions.

use super::records::{event_record, EventMeta};
use super::types::EveTypes;
use app::AppFlow;
use serde_json::Value;

/// How far a flow's transactions have been logged. One per flow, kept by the caller
/// beside the flow's [`AppFlow`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LogCursor {
    /// The id of the first transaction not logged yet.
    next: u64,
}

impl LogCursor {
    /// The id of the first transaction not logged yet.
    pub fn next(&self) -> u64 {
        self.next
    }
}

/// Turns a flow's finished transactions into EVE records, for the enabled types.
#[derive(Debug, Default)]
pub struct AppLogger {
    types: EveTypes,
    store: Option<crate::filestore::StoreWriter>,
}

impl AppLogger {
    /// A logger writing the app-layer types of `types`.
    pub fn new(types: EveTypes) -> Self {
        AppLogger { types, store: None }
    }

    /// The same, also writing the files to store into `store` (the `file-store`
    /// output) before their `fileinfo` records.
    pub fn with_store(mut self, store: Option<std::sync::Arc<crate::FileStore>>) -> Self {
        self.store = store.map(|store| crate::filestore::StoreWriter {
            store,
            counts: Default::default(),
        });
        self
    }

    /// The file store's counters (`osprey.file_store.*`), when it is on.
    pub fn store_counters(&self) -> Vec<(&'static str, u64)> {
        self.store.iter().flat_map(|s| s.counts.list()).collect()
    }

    /// Whether any app-layer record type (or `fileinfo`) is on (if not,
    /// [`AppLogger::log`] never writes).
    pub fn enabled(&self) -> bool {
        self.types.any_app() || self.types.engine("fileinfo") || self.store.is_some()
    }

    /// Writes (through `out`) the records of `app` that became loggable and advances
    /// `cursor`. Their header comes from `meta`, called only when there is something to
    /// write (at most once). With `at_end` (the flow ended) every transaction not yet
    /// logged is written, complete or not. The `fileinfo` records of files that ended
    /// follow the transactions' records. Files of either direction are logged: see
    /// [`AppLogger::log_packet`] for a packet's view.
    pub fn log(
        &self,
        app: &AppFlow,
        cursor: &mut LogCursor,
        at_end: bool,
        meta: &mut dyn FnMut() -> EventMeta,
        out: &mut dyn FnMut(Value),
    ) {
        self.log_packet(app, cursor, at_end, None, meta, out);
    }

    /// [`AppLogger::log`] for a packet travelling `dir`: as Suricata, the files it
    /// stores and logs are those whose data travel that way (a response's file on the
    /// next packet to the client), and every file when the flow ends.
    pub fn log_packet(
        &self,
        app: &AppFlow,
        cursor: &mut LogCursor,
        at_end: bool,
        dir: Option<app::Direction>,
        meta: &mut dyn FnMut() -> EventMeta,
        out: &mut dyn FnMut(Value),
    ) {
        self.log_packet_skipping(app, cursor, at_end, dir, &mut |_| false, meta, out);
    }

    /// [`AppLogger::log_packet`] skipping the transactions `skip` names (a `config:
    /// logging disable` rule matched them): the transaction loggers pass them by,
    /// ready or not, and write nothing for them; their files are still logged.
    #[allow(clippy::too_many_arguments)]
    pub fn log_packet_skipping(
        &self,
        app: &AppFlow,
        cursor: &mut LogCursor,
        at_end: bool,
        dir: Option<app::Direction>,
        skip: &mut dyn FnMut(&dyn app::Transaction) -> bool,
        meta: &mut dyn FnMut() -> EventMeta,
        out: &mut dyn FnMut(Value),
    ) {
        let dir = dir.filter(|_| !at_end);
        let mut cached: Option<EventMeta> = None;
        let mut meta = move || -> EventMeta { cached.get_or_insert_with(&mut *meta).clone() };
        if let Some(proto) = app.state().protocol() {
            let p = app.app_proto();
            self.log_txs(app, proto, p, cursor, at_end, skip, &mut meta, out);
        }
        if let Some(s) = &self.store {
            s.step(app, at_end, dir, &mut meta);
        }
        if self.types.engine("fileinfo") {
            super::fileinfo::log_files(app, at_end, dir, &mut meta, out);
        }
    }

    /// Writes the transactions not logged yet of the state `app` had before it
    /// changed protocol ([`AppFlow::prior`]: SMTP before `STARTTLS`), all of them as
    /// at the end of a flow, and restarts `cursor` for the new protocol's
    /// transactions. The caller then drops the prior state. Suricata writes these
    /// records on a pseudo-packet (`meta`: `pkt_src` "stream (detect/log)", no
    /// `pcap_cnt`).
    pub fn log_prior(
        &self,
        app: &AppFlow,
        cursor: &mut LogCursor,
        meta: &mut dyn FnMut() -> EventMeta,
        out: &mut dyn FnMut(Value),
    ) {
        self.log_prior_skipping(app, cursor, &mut |_| false, meta, out);
    }

    /// [`AppLogger::log_prior`] skipping the transactions `skip` names.
    pub fn log_prior_skipping(
        &self,
        app: &AppFlow,
        cursor: &mut LogCursor,
        skip: &mut dyn FnMut(&dyn app::Transaction) -> bool,
        meta: &mut dyn FnMut() -> EventMeta,
        out: &mut dyn FnMut(Value),
    ) {
        if let Some((p, proto)) = app.prior() {
            let mut cached: Option<EventMeta> = None;
            let mut meta = move || cached.get_or_insert_with(&mut *meta).clone();
            self.log_txs(app, proto, p, cursor, true, skip, &mut meta, out);
        }
        *cursor = LogCursor::default();
    }

    /// The id below which the loggers are done with `app`'s transactions (Suricata's
    /// logger progress, which bounds when a transaction may be freed): the first
    /// transaction whose record is not written yet (when its protocol is logged), or
    /// whose files still wait for their `fileinfo` record or keep content for the file
    /// store;
    /// `u64::MAX` when nothing waits.
    pub fn done_before(&self, app: &AppFlow, cursor: &LogCursor) -> u64 {
        if !self.enabled() {
            return u64::MAX;
        }
        let Some(proto) = app.state().protocol() else {
            return u64::MAX;
        };
        let logged = app::registry::index(app.app_proto())
            .and_then(|i| self.types.get_index(i))
            .is_some()
            && app::registry::event_type(app.app_proto()).is_some();
        let mut bound = if logged { cursor.next } else { u64::MAX };
        let fileinfo = self.types.engine("fileinfo");
        let mut stop = false;
        proto.each_tx(&mut |tx| {
            if stop || tx.id() >= bound {
                stop = true;
                return;
            }
            let waits = tx.files().is_some_and(|files| {
                files
                    .iter()
                    .any(|f| (fileinfo && !f.logged()) || f.store_state().keeping())
            });
            if waits {
                bound = tx.id();
                stop = true;
            }
        });
        bound
    }

    /// The id below which the transaction loggers are done with `app`'s transactions
    /// (written or skipped): the cursor when the flow's protocol is logged, else
    /// `u64::MAX` (none ever will be).
    pub fn txs_logged_before(&self, app: &AppFlow, cursor: &LogCursor) -> u64 {
        let logged = app::registry::index(app.app_proto())
            .and_then(|i| self.types.get_index(i))
            .is_some()
            && app::registry::event_type(app.app_proto()).is_some();
        if logged && app.state().protocol().is_some() {
            cursor.next
        } else {
            u64::MAX
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn log_txs(
        &self,
        app: &AppFlow,
        proto: &dyn app::Protocol,
        app_proto: app::AppProto,
        cursor: &mut LogCursor,
        at_end: bool,
        skip: &mut dyn FnMut(&dyn app::Transaction) -> bool,
        meta: &mut dyn FnMut() -> EventMeta,
        out: &mut dyn FnMut(Value),
    ) {
        let Some(index) = app::registry::index(app_proto) else {
            return;
        };
        let Some(extended) = self.types.get_index(index) else {
            return;
        };
        let Some(event_type) = app::registry::protocols()[index].eve else {
            return;
        };
        let mut stopped = false;
        proto.each_tx(&mut |tx| {
            let id = tx.id();
            if stopped || id < cursor.next {
                return;
            }
            // `config: logging disable`: passed by, as done (Suricata's transaction
            // loop checks the flag before the transaction's progress).
            if skip(tx) {
                cursor.next = id + 1;
                return;
            }
            // Transactions are logged in order: one not ready holds back the next.
            if !tx.log_ready(at_end) {
                stopped = true;
                return;
            }
            let siblings = tx.log_siblings(extended);
            let reversed = tx.log_reversed();
            tx.log(extended, &mut |tx_id, obj| {
                let mut m = meta();
                if reversed {
                    std::mem::swap(&mut m.src_ip, &mut m.dest_ip);
                    std::mem::swap(&mut m.src_port, &mut m.dest_port);
                }
                let mut r = event_record(&m, event_type, tx_id, obj);
                if let Some(parent) = app.parent_id() {
                    r = super::records::with_parent_id(r, parent);
                }
                if let Some(o) = r.as_object_mut() {
                    o.extend(siblings.iter().map(|(k, v)| ((*k).into(), v.clone())));
                }
                out(r)
            });
            cursor.next = id + 1;
        });
    }
}

/// The app-layer object an alert record carries (Suricata adds it to alerts raised on
/// a transaction): the protocol's event type and its object for the transaction
/// ([`app::Transaction::alert_object`]: `http` with the extended fields, `dns` with
/// `query` or `answer`, `tls` with sni and version). `None` when the flow has no such
/// transaction or its protocol is not logged.
pub fn alert_app_object(app: &AppFlow, tx_id: u64) -> Option<(&'static str, Value)> {
    let proto = app.state().protocol()?;
    let event_type = app::registry::event_type(app.app_proto())?;
    let tx = proto.find_tx(tx_id)?;
    Some((event_type, tx.alert_object()))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use app::{AppCtx, Direction, Transport};

    /// A record header for logger tests: 10.0.0.1:40000 -> 10.0.0.2:80 over TCP.
    pub(crate) fn meta() -> EventMeta {
        EventMeta {
            ts_secs: 0,
            ts_micros: 0,
            flow_id: 1,
            pcap_cnt: Some(1),
            vlan: [0, 0, 0],
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

    #[test]
    fn skipped_transactions_are_passed_by_unlogged() {
        let l = AppLogger::new(EveTypes::parse_list("http").unwrap());
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Tcp, 40000, 80);
        let mut c = LogCursor::default();
        f.parse(
            &mut ctx,
            Direction::ToServer,
            b"GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n",
        );
        let mut v = Vec::new();
        let mut seen = Vec::new();
        let mut skip = |tx: &dyn app::Transaction| {
            seen.push(tx.id());
            tx.id() == 0
        };
        // Skipped while incomplete: it holds nothing back.
        l.log_packet_skipping(&f, &mut c, false, None, &mut skip, &mut meta, &mut |r| {
            v.push(r)
        });
        assert!(v.is_empty());
        assert_eq!(c.next(), 1);
        assert_eq!(l.txs_logged_before(&f, &c), 1);
        let r = collect(&l, &f, &mut c, true);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0]["http"]["url"], "/2");
        assert_eq!(seen, [0, 1]);
        // A protocol not logged: every transaction is done with.
        let dns = AppLogger::new(EveTypes::parse_list("dns").unwrap());
        assert_eq!(dns.txs_logged_before(&f, &LogCursor::default()), u64::MAX);
    }

    #[test]
    fn prior_state_logged_at_the_switch_then_the_new_protocol_from_tx_0() {
        let l = AppLogger::new(EveTypes::parse_list("smtp,tls").unwrap());
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Tcp, 40000, 25);
        let mut c = LogCursor::default();
        f.parse(&mut ctx, Direction::ToClient, b"220 mx\r\n");
        f.parse(
            &mut ctx,
            Direction::ToServer,
            b"EHLO me.example\r\nSTARTTLS\r\n",
        );
        f.parse(&mut ctx, Direction::ToClient, b"250 mx\r\n220 go\r\n");
        assert_eq!(f.app_proto(), app::AppProto::Tls);
        let mut v = Vec::new();
        l.log_prior(&f, &mut c, &mut meta, &mut |r| v.push(r));
        assert_eq!(v.len(), 1);
        assert_eq!(v[0]["event_type"], "smtp");
        assert_eq!(v[0]["smtp"]["helo"], "me.example");
        assert_eq!(c, LogCursor::default(), "restarted for TLS");
        f.drop_prior();
        // The TLS session is logged from its transaction 0 (here at the end).
        let r = collect(&l, &f, &mut c, true);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0]["event_type"], "tls");
        assert_eq!(r[0]["tls"]["from_proto"], "smtp");
    }

    #[test]
    fn done_before_waits_for_records_and_fileinfo() {
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Tcp, 40000, 80);
        f.parse(
            &mut ctx,
            Direction::ToServer,
            b"GET /a HTTP/1.1\r\nHost: a\r\n\r\n",
        );
        f.parse(
            &mut ctx,
            Direction::ToClient,
            b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc",
        );
        let mut c = LogCursor::default();
        // Nothing logged: nothing may go.
        let both = AppLogger::new(EveTypes::parse_list("http,fileinfo").unwrap());
        assert_eq!(both.done_before(&f, &c), 0);
        // The http record written on a packet to the server; the response's file waits
        // for a packet to the client.
        let mut n = 0;
        both.log_packet(
            &f,
            &mut c,
            false,
            Some(Direction::ToServer),
            &mut meta,
            &mut |_| n += 1,
        );
        assert_eq!((n, c.next()), (1, 1));
        assert_eq!(both.done_before(&f, &c), 0);
        both.log_packet(
            &f,
            &mut c,
            false,
            Some(Direction::ToClient),
            &mut meta,
            &mut |_| n += 1,
        );
        assert_eq!(n, 2);
        assert_eq!(both.done_before(&f, &c), 1);
        // A logger of neither type waits for nothing.
        let none = AppLogger::new(EveTypes::parse_list("dns").unwrap());
        assert_eq!(none.done_before(&f, &LogCursor::default()), u64::MAX);
    }
}
