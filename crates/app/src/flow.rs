//! Per-flow application state ([`AppFlow`]) and the worker context ([`AppCtx`]).
//!
//! Until the protocol is known, stream bytes are held (in arrival order, both
//! directions, at most [`DETECT_BUFFER`] bytes) and probed; once a probe matches, the
//! held bytes are replayed into the protocol's parser, so the parser always sees each
//! direction from its first byte.

use crate::bittorrent_dht::DhtState;
use crate::dcerpc::DcerpcState;
use crate::detect::{probe_tcp_ports, probe_udp_ports, AppProto, Probe};
use crate::dhcp::DhcpState;
use crate::dnp3::Dnp3State;
use crate::dns::DnsState;
use crate::enip::EnipState;
use crate::ftp::data::FtpDataState;
use crate::ftp::FtpState;
use crate::http::HttpState;
use crate::http2::Http2State;
use crate::ike::IkeState;
use crate::krb5::Krb5State;
use crate::memcap::{Charge, Pool, WorkerUse};
use crate::modbus::ModbusState;
use crate::mqtt::MqttState;
use crate::nfs::NfsState;
use crate::proto::{ParseResult, Protocol, Transaction};
use crate::quic::QuicState;
use crate::rdp::RdpState;
use crate::registry;
use crate::rfb::RfbState;
use crate::sip::SipState;
use crate::smb::SmbState;
use crate::smtp::SmtpState;
use crate::snmp::SnmpState;
use crate::ssh::SshState;
use crate::tftp::TftpState;
use crate::tls::TlsState;
use crate::{Anomalies, Config, Counter, Counters, Direction, Transport};
use std::net::IpAddr;

/// `with_state!`: static dispatch on a flow's protocol state.
#[macro_use]
mod with_state;

/// Bytes held per flow while the protocol is being detected; past this detection fails.
pub const DETECT_BUFFER: usize = 4096;

/// A worker's application-layer context: configuration and counters. One per worker,
/// passed to every call so flows share nothing mutable.
#[derive(Clone, Debug, Default)]
pub struct AppCtx {
    /// Limits.
    pub config: Config,
    /// Counters.
    pub counters: Counters,
    /// Application-layer anomalies raised since the engine last drained them.
    pub anomalies: Anomalies,
    /// What this worker's flows hold against the application-layer memcaps (a clone
    /// shares it: each worker's context is made with [`AppCtx::new`]).
    pub memuse: WorkerUse,
}

impl AppCtx {
    /// A context with `config`.
    pub fn new(config: Config) -> Self {
        AppCtx {
            config,
            counters: Counters::default(),
            anomalies: Anomalies::default(),
            memuse: WorkerUse::default(),
        }
    }

    /// Every counter as `(stats.json name, value)`.
    pub fn counters(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        let memuse = [Pool::Http, Pool::Ftp]
            .into_iter()
            .map(|p| (p.memuse_name(), self.memuse.used(p) as u64));
        self.counters.iter().chain(memuse)
    }
}

/// The protocol parser of a flow, once detected.
#[derive(Debug, Default)]
pub enum AppState {
    /// No parser (not detected yet, or detection failed).
    #[default]
    None,
    /// HTTP/1.x, in a slot of the worker's slab.
    Http(crate::http::HttpBox),
    /// HTTP/2.
    Http2(Box<Http2State>),
    /// DNS (UDP or TCP), in a slot of the worker's slab.
    Dns(slabs::SlabBox<DnsState>),
    /// TLS, in a slot of the worker's slab.
    Tls(slabs::SlabBox<TlsState>),
    /// SIP (UDP).
    Sip(Box<SipState>),
    /// SMB over TCP.
    Smb(Box<SmbState>),
    /// DCERPC over TCP or UDP.
    Dcerpc(Box<DcerpcState>),
    /// SMTP.
    Smtp(Box<SmtpState>),
    /// MQTT.
    Mqtt(Box<MqttState>),
    /// NFS (TCP or UDP).
    Nfs(Box<NfsState>),
    /// TFTP (UDP).
    Tftp(Box<TftpState>),
    /// SSH.
    Ssh(Box<SshState>),
    /// Kerberos 5.
    Krb5(Box<Krb5State>),
    /// SNMP.
    Snmp(Box<SnmpState>),
    /// DHCP.
    Dhcp(Box<DhcpState>),
    /// FTP control channel.
    Ftp(Box<FtpState>),
    /// FTP data connection.
    FtpData(Box<FtpDataState>),
    /// QUIC (UDP).
    Quic(Box<QuicState>),
    /// IKE.
    Ike(Box<IkeState>),
    /// Modbus/TCP.
    Modbus(Box<ModbusState>),
    /// EtherNet/IP.
    Enip(Box<EnipState>),
    /// BitTorrent DHT.
    BittorrentDht(Box<DhtState>),
    /// RFB.
    Rfb(Box<RfbState>),
    /// RDP.
    Rdp(Box<RdpState>),
    /// DNP3.
    Dnp3(Box<Dnp3State>),
}

impl AppState {
    /// The state as a [`Protocol`] (`None` before detection or after it failed).
    pub fn protocol(&self) -> Option<&dyn Protocol> {
        Some(match self {
            AppState::None => return None,
            AppState::Http(h) => &**h,
            AppState::Http2(h) => &**h,
            AppState::Dns(d) => &**d,
            AppState::Tls(t) => &**t,
            AppState::Sip(s) => &**s,
            AppState::Smb(s) => &**s,
            AppState::Dcerpc(d) => &**d,
            AppState::Smtp(s) => &**s,
            AppState::Mqtt(s) => &**s,
            AppState::Nfs(n) => &**n,
            AppState::Tftp(t) => &**t,
            AppState::Ssh(s) => &**s,
            AppState::Krb5(k) => &**k,
            AppState::Snmp(s) => &**s,
            AppState::Dhcp(d) => &**d,
            AppState::Ftp(s) => &**s,
            AppState::FtpData(s) => &**s,
            AppState::Quic(q) => &**q,
            AppState::Ike(s) => &**s,
            AppState::Modbus(s) => &**s,
            AppState::Enip(s) => &**s,
            AppState::BittorrentDht(s) => &**s,
            AppState::Rfb(s) => &**s,
            AppState::Rdp(s) => &**s,
            AppState::Dnp3(s) => &**s,
        })
    }
}

/// Detection of the direction that did not decide a TCP flow's protocol: Suricata
/// detects each direction on its own and raises
/// [`ONLY_ONE_DIRECTION`](crate::anomaly::ONLY_ONE_DIRECTION) on the packet whose
/// bytes of that direction it gives up on.
#[derive(Debug, Default)]
enum Late {
    /// Not started (UDP, before detection), or concluded.
    #[default]
    Idle,
    /// Probing the direction's first bytes (kept here, at most [`DETECT_BUFFER`]).
    Probing(Direction, Vec<u8>),
    /// The direction said no before the other decided: raised on its next bytes, or
    /// when the flow closes.
    Due(Direction),
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum DirProbe {
    #[default]
    Pending,
    NoMatch,
}

/// Application-layer state of one flow.
#[derive(Debug)]
pub struct AppFlow {
    transport: Transport,
    /// Client and server port (some protocols are only probed on their ports).
    ports: [u16; 2],
    proto: AppProto,
    probe: [DirProbe; 2],
    held: Vec<(Direction, Vec<u8>)>,
    held_len: usize,
    state: AppState,
    /// The stream parser's failure was reported to the engine.
    error_reported: bool,
    /// The last datagram did not parse (UDP: the next one is parsed again).
    datagram_error: bool,
    /// Detection of the other direction once the protocol is known.
    late: Late,
    /// The flow's id and addresses, once the engine gave them.
    peers: Option<crate::ftp::Peers>,
    /// A change of protocol (SMTP `STARTTLS` to TLS).
    switch: switch::Switch,
    /// What the state holds against its application-layer memcap (HTTP, FTP).
    mem: Option<Charge>,
    /// Frames for the `frame` keyword (only with `Config::frames`).
    frames: Option<Box<crate::frames::FlowFrames>>,
}

impl AppFlow {
    /// State for a new flow over `transport` between `client_port` and `server_port`.
    pub fn new(transport: Transport, client_port: u16, server_port: u16) -> Self {
        AppFlow {
            transport,
            ports: [client_port, server_port],
            proto: AppProto::Unknown,
            probe: [DirProbe::Pending; 2],
            held: Vec::new(),
            held_len: 0,
            state: AppState::None,
            error_reported: false,
            datagram_error: false,
            late: Late::Idle,
            peers: None,
            switch: switch::Switch::default(),
            mem: None,
            frames: None,
        }
    }

    /// A flow whose protocol is `proto` from its first byte, without detection (fuzzing
    /// and tests of one parser); a protocol that does not run over `transport` leaves
    /// the flow without a parser.
    pub fn forced(ctx: &mut AppCtx, transport: Transport, proto: AppProto) -> Self {
        let mut f = AppFlow::new(transport, 0, 0);
        f.set_proto(ctx, proto);
        f
    }

    /// Tells the flow its EVE `flow_id` and its client's and server's addresses (the
    /// engine calls it once, right after [`AppFlow::new`]): a TCP flow an FTP control
    /// flow announced becomes its data connection (`ftp-data`, no probing), and an FTP
    /// control flow announces its data connections with them.
    pub fn set_peers(&mut self, ctx: &mut AppCtx, flow_id: u64, client: IpAddr, server: IpAddr) {
        self.peers = Some(crate::ftp::Peers {
            flow_id,
            client,
            server,
        });
        self.take_expected(ctx);
    }

    /// Makes the flow the data connection a control flow announced, if one matches
    /// (when it is created, and again on its first bytes: the announcement may be
    /// parsed after the connection opened).
    fn take_expected(&mut self, ctx: &mut AppCtx) {
        let Some(p) = self.peers else { return };
        if self.transport != Transport::Tcp || self.proto != AppProto::Unknown {
            return;
        }
        if let Some(e) = ctx
            .config
            .expectations
            .take(p.client, p.server, self.ports[1])
        {
            self.proto = AppProto::FtpData;
            self.state = AppState::FtpData(Box::new(FtpDataState::new(e.parent, e.link)));
            ctx.counters.incr(Counter::FlowFtpData);
        }
    }

    /// The `flow_id` of the flow that announced this one (EVE `parent_id`: an FTP data
    /// connection's control flow).
    pub fn parent_id(&self) -> Option<u64> {
        match &self.state {
            AppState::FtpData(d) => Some(d.parent()).filter(|&p| p != 0),
            _ => None,
        }
    }

    /// The detected protocol (Suricata's `app_proto`).
    pub fn app_proto(&self) -> AppProto {
        self.proto
    }

    /// The protocol parser's state.
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Calls `f` with each live transaction of the flow, oldest first.
    pub fn each_tx(&self, f: &mut dyn FnMut(&dyn Transaction)) {
        if let Some(p) = self.state.protocol() {
            p.each_tx(f)
        }
    }

    /// The current protocol's transactions with an id of `from` or more, oldest first
    /// ([`Protocol::each_tx_from`]).
    pub fn each_tx_from(&self, from: u64, f: &mut dyn FnMut(&dyn Transaction)) {
        if let Some(p) = self.state.protocol() {
            p.each_tx_from(from, f)
        }
    }

    /// The current protocol's transactions, oldest first, until `f` returns false
    /// ([`Protocol::each_tx_while`]).
    pub fn each_tx_while(&self, f: &mut dyn FnMut(&dyn Transaction) -> bool) {
        if let Some(p) = self.state.protocol() {
            p.each_tx_while(f)
        }
    }

    /// Frees the current protocol's transactions with an id below `id` (see
    /// [`Protocol::free_txs_before`]), counting their truncated files first; the prior
    /// state's are left alone.
    pub fn free_txs_before(&mut self, ctx: &mut AppCtx, id: u64) {
        crate::files::count_freed(self, ctx, id);
        with_state!(mut &mut self.state, p => Protocol::free_txs_before(p, id), None => {});
        self.account(ctx);
    }

    /// Whether an application message of `dir` completed since the last call (HTTP
    /// requests and responses, DCERPC PDUs): raw stream inspection of that direction is
    /// due.
    pub fn take_completed(&mut self, dir: Direction) -> bool {
        with_state!(mut &mut self.state, p => Protocol::take_completed(p, dir), None => false)
    }

    /// Whether the parser failed since the last call, where Suricata's parser returns
    /// an error (`APP_LAYER_ERROR`: a TLS record header that does not parse, a
    /// DNS-over-TCP message that does not parse, an HTTP line over the field limit, a
    /// SIP datagram that is not the message its direction expects). The engine applies
    /// `app-layer.error-policy` to the packet that fed the failing bytes. On a TCP flow
    /// the app layer then stops for good (true once); a UDP flow's next datagram is
    /// parsed again.
    pub fn take_error(&mut self) -> bool {
        if std::mem::take(&mut self.datagram_error) {
            return true;
        }
        let failed = self.failed();
        let new = failed && !self.error_reported;
        self.error_reported = failed;
        new
    }

    /// The flow's frames (`None` until one was recorded).
    pub fn frames(&self) -> Option<&crate::frames::FlowFrames> {
        self.frames.as_deref()
    }

    /// Whether the stream parser failed: nothing more is parsed.
    fn failed(&self) -> bool {
        with_state!(ref &self.state, p => Protocol::errored(p), None => false)
            || self.mem.as_ref().is_some_and(Charge::refused)
    }

    /// Measures again what the state holds against its memcap ([`crate::memcap`]); a
    /// growth the cap refuses stops the parser (counted once: it parses no more).
    fn account(&mut self, ctx: &mut AppCtx) {
        let (pool, bytes) = match &self.state {
            AppState::Http(s) => (Pool::Http, s.heap_bytes()),
            AppState::Ftp(s) => (Pool::Ftp, s.heap_bytes()),
            AppState::FtpData(s) => (Pool::Ftp, s.heap_bytes()),
            _ => {
                self.mem = None;
                return;
            }
        };
        let charge = match &mut self.mem {
            Some(c) if c.pool() == pool => c,
            slot => slot.insert(Charge::new(&ctx.config.memcaps, &ctx.memuse, pool)),
        };
        let before = charge.refused();
        if !charge.set(bytes) && !before {
            let (hit, error) = match pool {
                Pool::Http => (Counter::HttpMemcap, Counter::ErrorHttpAlloc),
                Pool::Ftp => (Counter::FtpMemcap, Counter::ErrorFtpAlloc),
            };
            ctx.counters.incr(hit);
            ctx.counters.incr(error);
        }
    }

    /// In-order (acknowledged) stream bytes of one TCP direction, split anywhere.
    pub fn parse(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        if ctx.config.frames && !data.is_empty() {
            // Frames' stream offsets count every byte of the direction.
            let f = self.frames.get_or_insert_with(Default::default);
            f.received(dir, data.len() as u64);
        }
        self.parse_bytes(ctx, dir, data);
    }

    /// [`AppFlow::parse`] of bytes the stream offsets already count (those after a
    /// change of protocol, given again to the new protocol).
    pub(super) fn parse_bytes(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        if data.is_empty() || self.failed() {
            return;
        }
        self.due_switch(ctx);
        if self.proto == AppProto::Unknown && self.held.is_empty() {
            self.take_expected(ctx);
        }
        match self.proto {
            AppProto::Failed => {}
            AppProto::Unknown => self.detect_stream(ctx, dir, data),
            _ => {
                self.late_detect(ctx, dir, data);
                self.feed(ctx, dir, data)
            }
        }
    }

    /// Detection of the direction that did not decide, on its new bytes `data`.
    fn late_detect(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        let gave_up = match &mut self.late {
            Late::Due(d) if *d == dir => true,
            Late::Probing(d, buf) if *d == dir => {
                let take = &data[..data.len().min(DETECT_BUFFER - buf.len())];
                let held = buf.len() + take.len();
                // Nothing kept yet (the usual case: the direction's first bytes decide):
                // the new bytes are probed where they are, and kept only when the probe
                // needs more.
                let probe = if buf.is_empty() {
                    probe_tcp_ports(dir, take, self.ports, ctx.config.opt_in)
                } else {
                    buf.extend_from_slice(take);
                    probe_tcp_ports(dir, buf, self.ports, ctx.config.opt_in)
                };
                match probe {
                    Probe::Match(p) => {
                        self.late = Late::Idle;
                        let http = |p: AppProto| matches!(p, AppProto::Http | AppProto::Http2);
                        if p != self.proto && !(http(p) && http(self.proto)) {
                            // Suricata keeps the first direction's protocol and says so.
                            self.raise_detect(ctx, crate::anomaly::MISMATCH_BOTH_DIRECTIONS);
                        }
                        return;
                    }
                    Probe::NeedMore if held < DETECT_BUFFER => {
                        if buf.len() < held {
                            buf.extend_from_slice(take);
                        }
                        return;
                    }
                    Probe::NeedMore | Probe::NoMatch => true,
                }
            }
            _ => false,
        };
        if gave_up {
            self.late = Late::Idle;
            self.raise_detect(ctx, crate::anomaly::ONLY_ONE_DIRECTION);
        }
    }

    /// A protocol-detection anomaly of the flow (no transaction).
    fn raise_detect(&self, ctx: &mut AppCtx, event: &'static str) {
        ctx.anomalies.push(crate::AppAnomaly {
            proto: self.proto,
            layer: crate::AnomalyLayer::ProtoDetect,
            event,
            tx_id: None,
        });
    }

    /// One UDP payload.
    pub fn datagram(&mut self, ctx: &mut AppCtx, dir: Direction, payload: &[u8]) {
        if self.proto == AppProto::Unknown {
            // Suricata probes a direction's first datagram only: one that is not
            // recognised ends that direction's detection (dnsedge/udp-cut).
            if self.probe[dir.index()] == DirProbe::NoMatch {
                return;
            }
            match probe_udp_ports(dir, payload, self.ports, ctx.config.opt_in) {
                Probe::Match(p) => self.set_proto(ctx, p),
                _ => {
                    // Each datagram stands alone: a DNS flow may start with a response
                    // we cannot match, so only fail once both sides said no.
                    self.probe[dir.index()] = DirProbe::NoMatch;
                    if self.probe.iter().all(|p| *p == DirProbe::NoMatch) {
                        self.fail(ctx);
                    }
                    return;
                }
            }
        }
        let r = with_state!(mut &mut self.state, p => Protocol::datagram(p, ctx, dir, payload),
            None => ParseResult::Ok);
        self.datagram_error = r == ParseResult::Error;
        if ctx.config.frames && !matches!(self.state, AppState::None) {
            let f = self.frames.get_or_insert_with(Default::default);
            f.datagram(ctx, self.proto, dir, payload, r != ParseResult::Error);
        }
    }

    /// A hole of `len` bytes in one TCP direction.
    pub fn gap(&mut self, ctx: &mut AppCtx, dir: Direction, len: u64) {
        if ctx.config.frames {
            let f = self.frames.get_or_insert_with(Default::default);
            f.received(dir, len);
            if !matches!(self.state, AppState::None) {
                f.gap(dir, len);
            }
        }
        let detecting = with_state!(mut &mut self.state, p => {
            Protocol::gap(p, ctx, dir, len);
            false
        }, None => self.proto == AppProto::Unknown);
        self.account(ctx);
        if detecting {
            // Detection cannot look past a hole in this direction.
            self.held.retain(|(d, _)| *d != dir);
            self.held_len = self.held.iter().map(|(_, b)| b.len()).sum();
            self.probe[dir.index()] = DirProbe::NoMatch;
            if self.probe.iter().all(|p| *p == DirProbe::NoMatch) {
                self.fail(ctx);
            }
        }
    }

    /// The TCP session closed with the FIN handshake (the flow itself ends later):
    /// [`AppFlow::close`], the protocol told through [`Protocol::session_closed`].
    pub fn close_session(&mut self, ctx: &mut AppCtx) {
        self.close_as(ctx, false)
    }

    /// The flow ended (FIN/RST seen in both directions, or timeout).
    pub fn close(&mut self, ctx: &mut AppCtx) {
        self.close_as(ctx, true)
    }

    fn close_as(&mut self, ctx: &mut AppCtx, flow_end: bool) {
        // Bytes of the other direction still undecided, or refused before the protocol
        // was known: detection gives up on them now (Suricata looks at a direction's
        // undetected bytes again until the stream ends).
        if matches!(&self.late, Late::Probing(_, buf) if !buf.is_empty())
            || matches!(self.late, Late::Due(_))
        {
            self.raise_detect(ctx, crate::anomaly::ONLY_ONE_DIRECTION);
        }
        self.late = Late::Idle;
        self.close_switch(ctx);
        with_state!(mut &mut self.state, p => if flow_end {
            Protocol::close(p, ctx)
        } else {
            Protocol::session_closed(p, ctx)
        }, None => {});
        if let (Some(f), AppState::Http(h)) = (&mut self.frames, &mut self.state) {
            // Messages the end of the flow completed.
            for dir in [Direction::ToServer, Direction::ToClient] {
                f.http(ctx, dir, &[], &h.take_ends(dir));
            }
        }
        self.account(ctx);
        self.held = Vec::new();
        crate::files::count_flow_end(self, ctx);
    }

    fn feed(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        if self.failed() {
            return;
        }
        // A failure shows in `failed` (the state remembers it).
        let _ = with_state!(mut &mut self.state, p => Protocol::parse(p, ctx, dir, data),
            None => ParseResult::Ok);
        if ctx.config.frames && !matches!(self.state, AppState::None) {
            let f = self.frames.get_or_insert_with(Default::default);
            match &mut self.state {
                AppState::Http(h) => f.http(ctx, dir, data, &h.take_ends(dir)),
                AppState::Rfb(r) => f.rfb(ctx, dir, data.len(), r.take_pdus()),
                _ => f.stream(ctx, self.proto, dir, data),
            }
        }
        self.check_switch(ctx);
        self.account(ctx);
    }

    fn set_proto(&mut self, ctx: &mut AppCtx, p: AppProto) {
        self.proto = p;
        let Some((state, counter)) = registry::protocol(p).and_then(|d| (d.new)(self.transport))
        else {
            return;
        };
        ctx.counters.incr(counter);
        self.state = state;
        self.note_from_proto();
        if let AppState::Ftp(s) = &mut self.state {
            s.peers = self.peers;
        }
    }

    fn fail(&mut self, ctx: &mut AppCtx) {
        self.proto = AppProto::Failed;
        self.held = Vec::new();
        self.held_len = 0;
        ctx.counters.incr(match self.transport {
            Transport::Tcp => Counter::FlowFailedTcp,
            Transport::Udp => Counter::FlowFailedUdp,
        });
    }

    fn detect_stream(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        let d = dir.index();
        if self.probe[d] == DirProbe::NoMatch {
            // This side said no; keep its bytes in case the other side decides.
            self.hold(ctx, dir, data);
            return;
        }
        // Everything held for this direction, then the new bytes (copied together only
        // when something is held).
        let joined: Vec<u8>;
        let first = if self.held.iter().any(|(hd, _)| *hd == dir) {
            let mut v = Vec::new();
            for (hd, b) in &self.held {
                if *hd == dir {
                    v.extend_from_slice(b);
                }
            }
            v.extend_from_slice(data);
            joined = v;
            &joined[..]
        } else {
            data
        };
        match probe_tcp_ports(dir, first, self.ports, ctx.config.opt_in) {
            Probe::Match(p) if self.wrong_first_direction(p, dir) => self.fail(ctx),
            Probe::Match(p) => {
                self.set_proto(ctx, p);
                self.start_late(dir);
                let held = std::mem::take(&mut self.held);
                self.held_len = 0;
                for (hd, b) in held {
                    self.feed(ctx, hd, &b);
                }
                self.feed(ctx, dir, data);
            }
            Probe::NeedMore => self.hold(ctx, dir, data),
            Probe::NoMatch => {
                self.probe[d] = DirProbe::NoMatch;
                if self.probe.iter().all(|p| *p == DirProbe::NoMatch) {
                    self.fail(ctx);
                } else {
                    self.hold(ctx, dir, data);
                }
            }
        }
    }

    /// Starts detection of the other direction after `decided` decided the protocol
    /// (HTTP/2's server side is not judged: its frames are not probed).
    fn start_late(&mut self, decided: Direction) {
        let other = decided.reverse();
        self.late = if self.transport != Transport::Tcp || self.proto == AppProto::Http2 {
            Late::Idle
        } else if self.probe[other.index()] == DirProbe::NoMatch {
            Late::Due(other)
        } else {
            let mut buf = Vec::new();
            for (d, b) in &self.held {
                if *d == other {
                    buf.extend_from_slice(b);
                }
            }
            Late::Probing(other, buf)
        };
    }

    fn hold(&mut self, ctx: &mut AppCtx, dir: Direction, data: &[u8]) {
        if self.held_len + data.len() > DETECT_BUFFER {
            self.fail(ctx);
            return;
        }
        self.held_len += data.len();
        match self.held.last_mut() {
            Some((d, b)) if *d == dir => b.extend_from_slice(data),
            _ => self.held.push((dir, data.to_vec())),
        }
    }
}

// After `with_state!`, which it uses.
mod switch;
mod typed;

mod first_dir;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::HttpBuffer;

    #[test]
    fn a_parser_state_is_a_tag_and_a_pointer() {
        // Every open flow holds one: every protocol's state is boxed.
        assert!(std::mem::size_of::<AppState>() <= 16);
    }

    #[test]
    fn http_detected_on_any_port_and_replayed() {
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Tcp, 40000, 8081);
        f.parse(&mut ctx, Direction::ToServer, b"GE");
        assert_eq!(f.app_proto(), AppProto::Unknown);
        f.parse(
            &mut ctx,
            Direction::ToServer,
            b"T /x HTTP/1.1\r\nHost: h\r\n\r\n",
        );
        assert_eq!(f.app_proto(), AppProto::Http);
        f.parse(
            &mut ctx,
            Direction::ToClient,
            b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        );
        let tx = f.http().unwrap().tx(0).unwrap();
        assert_eq!(
            tx.buffer(HttpBuffer::Uri, Direction::ToServer).unwrap(),
            b"/x"
        );
        assert!(tx.is_complete());
        assert_eq!(ctx.counters.get(Counter::FlowHttp), 1);
    }

    #[test]
    fn parser_error_is_reported_once_and_stops_the_flow() {
        let mut ctx = AppCtx::default();
        ctx.config.field_limit = 64;
        let mut f = AppFlow::new(Transport::Tcp, 40000, 80);
        f.parse(
            &mut ctx,
            Direction::ToServer,
            b"GET / HTTP/1.1\r\nHost: h\r\n\r\n",
        );
        assert!(!f.take_error());
        f.parse(&mut ctx, Direction::ToServer, &[b'A'; 100]);
        assert!(f.take_error(), "a line over the field limit");
        assert!(!f.take_error(), "reported once");
        // Nothing more is parsed, either direction.
        f.parse(&mut ctx, Direction::ToClient, b"HTTP/1.1 200 OK\r\n\r\n");
        let tx = f.http().unwrap().tx(0).unwrap();
        assert_eq!(
            tx.progress(Direction::ToClient),
            crate::http::Progress::None
        );
        assert_eq!(ctx.counters.get(Counter::ErrorHttp), 1);
    }

    #[test]
    fn server_first_then_client_decides() {
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Tcp, 40000, 8081);
        f.parse(
            &mut ctx,
            Direction::ToClient,
            b"HTTP/1.0 200 OK\r\n\r\nbody",
        );
        assert_eq!(f.app_proto(), AppProto::Http);
        let tx = f.http().unwrap().tx(0).unwrap();
        assert_eq!(tx.status(), Some(200));
    }

    #[test]
    fn framed_protocols_ask_for_raw_inspection_per_pdu() {
        let mut ctx = AppCtx::default();
        // A DCERPC bind (72 bytes, little-endian) split over two segments.
        let mut bind = vec![5, 0, 11, 3, 0x10, 0, 0, 0, 72, 0, 0, 0, 2, 0, 0, 0];
        bind.resize(72, 0);
        let mut f = AppFlow::new(Transport::Tcp, 49283, 135);
        f.parse(&mut ctx, Direction::ToServer, &bind[..40]);
        assert_eq!(f.app_proto(), AppProto::Dcerpc);
        assert!(!f.take_completed(Direction::ToServer));
        f.parse(&mut ctx, Direction::ToServer, &bind[40..]);
        assert!(f.take_completed(Direction::ToServer));
        assert!(!f.take_completed(Direction::ToServer));
        assert_eq!(ctx.counters.get(Counter::FlowDcerpcTcp), 1);
        // SMB is detected from either side; its records do not trigger inspection
        // (Suricata's SMB parser leaves raw inspection to the stream chunks).
        let mut f = AppFlow::new(Transport::Tcp, 49455, 445);
        f.parse(
            &mut ctx,
            Direction::ToServer,
            b"\0\0\0\x08\xffSMB\x72\0\0\0",
        );
        assert_eq!(f.app_proto(), AppProto::Smb);
        assert!(!f.take_completed(Direction::ToServer));
        assert_eq!(ctx.counters.get(Counter::FlowSmb), 1);
    }

    #[test]
    fn one_sided_detection_is_an_anomaly_on_the_other_sides_bytes() {
        let one = |first: Direction, a: &[u8], b: &[u8]| {
            let mut ctx = AppCtx::default();
            ctx.anomalies.set_enabled(true);
            let mut f = AppFlow::new(Transport::Tcp, 40000, 25);
            f.parse(&mut ctx, first, a);
            let before = ctx.anomalies.drain().count();
            f.parse(&mut ctx, first.reverse(), b);
            let after: Vec<_> = ctx.anomalies.drain().collect();
            (f.app_proto(), before, after)
        };
        // The client spoke HTTP, the server answers something no protocol knows (not
        // an SSH banner: SSH is detected on either side): raised on the server's
        // bytes, on no transaction.
        let (p, before, after) = one(
            Direction::ToServer,
            b"GET / HTTP/1.0\r\n\r\n",
            b"+OK POP3 ready\r\n",
        );
        assert_eq!((p, before), (AppProto::Http, 0));
        assert_eq!(after.len(), 1);
        assert_eq!(after[0].event, crate::anomaly::ONLY_ONE_DIRECTION);
        assert_eq!(
            (after[0].layer, after[0].tx_id),
            (crate::AnomalyLayer::ProtoDetect, None)
        );
        // A server that answers HTTP raises nothing.
        let (_, _, after) = one(
            Direction::ToServer,
            b"GET / HTTP/1.0\r\n\r\n",
            b"HTTP/1.1 200 OK\r\n",
        );
        assert!(after.is_empty());
        // SMTP: the server's banner says no first; the event comes with its next bytes.
        let mut ctx = AppCtx::default();
        ctx.anomalies.set_enabled(true);
        let mut f = AppFlow::new(Transport::Tcp, 40000, 25);
        f.parse(&mut ctx, Direction::ToClient, b"220 mail ESMTP\r\n");
        // (Two commands: each of the two replies below answers one.)
        f.parse(&mut ctx, Direction::ToServer, b"EHLO me\r\nNOOP\r\n");
        assert_eq!(f.app_proto(), AppProto::Smtp);
        assert!(ctx.anomalies.is_empty());
        f.parse(&mut ctx, Direction::ToClient, b"250 ok\r\n");
        assert_eq!(ctx.anomalies.drain().count(), 1);
        f.parse(&mut ctx, Direction::ToClient, b"250 ok\r\n");
        assert!(ctx.anomalies.is_empty(), "once per flow");
    }

    #[test]
    fn unknown_protocols_fail() {
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Tcp, 40000, 110);
        f.parse(&mut ctx, Direction::ToClient, b"+OK POP3 server ready\r\n");
        assert_eq!(f.app_proto(), AppProto::Unknown);
        f.parse(&mut ctx, Direction::ToServer, b"CAPA\r\n");
        assert_eq!(f.app_proto(), AppProto::Failed);
        assert_eq!(ctx.counters.get(Counter::FlowFailedTcp), 1);
        // FTP: a greeting other than vsftpd's says nothing, the client's USER decides.
        let mut f = AppFlow::new(Transport::Tcp, 40000, 21);
        f.parse(&mut ctx, Direction::ToClient, b"220 ftp ready\r\n");
        assert_eq!(f.app_proto(), AppProto::Unknown);
        f.parse(&mut ctx, Direction::ToServer, b"USER x\r\n");
        assert_eq!(f.app_proto(), AppProto::Ftp);
        assert_eq!(ctx.counters.get(Counter::FlowFtp), 1);
        // SMTP: the server's banner says nothing, the client's EHLO decides.
        let mut f = AppFlow::new(Transport::Tcp, 40000, 25);
        f.parse(&mut ctx, Direction::ToClient, b"220 mail ESMTP\r\n");
        assert_eq!(f.app_proto(), AppProto::Unknown);
        f.parse(&mut ctx, Direction::ToServer, b"EHLO x\r\n");
        assert_eq!(f.app_proto(), AppProto::Smtp);
        assert_eq!(ctx.counters.get(Counter::FlowSmtp), 1);
        // Too many undecided bytes fail too.
        let mut f = AppFlow::new(Transport::Tcp, 40000, 80);
        f.parse(&mut ctx, Direction::ToServer, b"GET");
        for _ in 0..10 {
            f.parse(&mut ctx, Direction::ToClient, &[b'H'; 1000]);
        }
        assert_eq!(f.app_proto(), AppProto::Failed);
    }

    #[test]
    fn ftp_data_connections_are_announced_not_probed() {
        let mut ctx = AppCtx::default();
        let (c, s): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let mut ctl = AppFlow::new(Transport::Tcp, 40000, 21);
        ctl.set_peers(&mut ctx, 77, c, s);
        ctl.parse(&mut ctx, Direction::ToClient, b"220 (vsFTPd 2.3.5)\r\n");
        assert_eq!(ctl.app_proto(), AppProto::Ftp);
        ctl.parse(&mut ctx, Direction::ToServer, b"PASV\r\n");
        ctl.parse(
            &mut ctx,
            Direction::ToClient,
            b"227 Entering Passive Mode (10,0,0,2,195,80).\r\n",
        );
        // Another port, or the wrong way round, is not it.
        let mut other = AppFlow::new(Transport::Tcp, 40001, 50001);
        other.set_peers(&mut ctx, 78, c, s);
        assert_eq!(other.app_proto(), AppProto::Unknown);
        ctl.parse(&mut ctx, Direction::ToServer, b"RETR a.txt\r\n");
        let mut data = AppFlow::new(Transport::Tcp, 40002, 50000);
        data.set_peers(&mut ctx, 79, c, s);
        assert_eq!(data.app_proto(), AppProto::FtpData);
        assert_eq!(data.parent_id(), Some(77));
        assert_eq!(ctl.parent_id(), None);
        data.parse(&mut ctx, Direction::ToClient, b"hello");
        data.close(&mut ctx);
        let mut n = 0;
        data.each_tx(&mut |t| {
            n += 1;
            let f = t.files().unwrap().iter().next().unwrap();
            assert_eq!((f.name(), f.size()), (&b"a.txt"[..], 5));
            assert!(t.log_ready(false));
            let mut logged = Vec::new();
            t.log(false, &mut |id, v| logged.push((id, v)));
            assert_eq!(logged.len(), 1);
            assert_eq!(logged[0].1["command"], "RETR");
        });
        assert_eq!(n, 1);
        assert_eq!(ctx.counters.get(Counter::FlowFtpData), 1);
        // A connection opened before its announcement was parsed is taken on its
        // first bytes.
        let mut early = AppFlow::new(Transport::Tcp, 40003, 50001);
        early.set_peers(&mut ctx, 80, c, s);
        assert_eq!(early.app_proto(), AppProto::Unknown);
        ctl.parse(&mut ctx, Direction::ToClient, b"226 Transfer complete.\r\n");
        ctl.parse(&mut ctx, Direction::ToServer, b"PASV\r\n");
        ctl.parse(
            &mut ctx,
            Direction::ToClient,
            b"227 Entering Passive Mode (10,0,0,2,195,81).\r\n",
        );
        ctl.parse(&mut ctx, Direction::ToServer, b"STOR b.txt\r\n");
        early.parse(&mut ctx, Direction::ToClient, b"data");
        assert_eq!(early.app_proto(), AppProto::FtpData);
        assert_eq!(early.parent_id(), Some(77));
    }

    #[test]
    fn dns_udp_and_tcp() {
        use crate::dns::parser::tests::{answer_a, query};
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Udp, 5353, 53);
        f.datagram(&mut ctx, Direction::ToServer, &query(9, "example.org", 1));
        f.datagram(
            &mut ctx,
            Direction::ToClient,
            &answer_a(9, "example.org", [9, 9, 9, 9]),
        );
        assert_eq!(f.app_proto(), AppProto::Dns);
        assert_eq!(f.dns().unwrap().tx_count(), 2);
        assert_eq!(ctx.counters.get(Counter::FlowDnsUdp), 1);
        assert_eq!(ctx.counters.get(Counter::TxDnsUdp), 2);
        let mut f = AppFlow::new(Transport::Udp, 5000, 5001);
        f.datagram(&mut ctx, Direction::ToServer, &query(9, "example.org", 1));
        f.datagram(&mut ctx, Direction::ToClient, b"x");
        assert_eq!(f.app_proto(), AppProto::Failed);
        let mut f = AppFlow::new(Transport::Tcp, 40000, 53);
        let q = query(3, "tcp.example", 1);
        let mut s = (q.len() as u16).to_be_bytes().to_vec();
        s.extend_from_slice(&q);
        for b in s.chunks(3) {
            f.parse(&mut ctx, Direction::ToServer, b);
        }
        assert_eq!(f.app_proto(), AppProto::Dns);
        let names: Vec<_> = f.dns().unwrap().txs().flat_map(|t| t.queries()).collect();
        assert_eq!(names, vec![&b"tcp.example"[..]]);
        assert_eq!(ctx.counters.get(Counter::TxDnsTcp), 1);
    }

    #[test]
    fn tls_on_any_port() {
        use crate::tls::parser::tests::{client_hello_msg, records};
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Tcp, 40000, 8443);
        let ch = records(22, &client_hello_msg("sni.example", &[]), 64);
        for b in ch.chunks(2) {
            f.parse(&mut ctx, Direction::ToServer, b);
        }
        assert_eq!(f.app_proto(), AppProto::Tls);
        assert_eq!(f.tls().unwrap().sni(), Some(&b"sni.example"[..]));
        assert_eq!(ctx.counters.get(Counter::FlowTls), 1);
    }

    #[test]
    fn gap_before_detection() {
        let mut ctx = AppCtx::default();
        let mut f = AppFlow::new(Transport::Tcp, 40000, 80);
        f.gap(&mut ctx, Direction::ToServer, 10);
        f.parse(&mut ctx, Direction::ToClient, b"HTTP/1.1 200 OK\r\n\r\n");
        assert_eq!(f.app_proto(), AppProto::Http);
        let mut f = AppFlow::new(Transport::Tcp, 40000, 80);
        f.gap(&mut ctx, Direction::ToServer, 10);
        f.gap(&mut ctx, Direction::ToClient, 10);
        assert_eq!(f.app_proto(), AppProto::Failed);
    }
}
