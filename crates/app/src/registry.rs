//! The protocol registry: one line per application protocol, naming its
//! [`AppProto`], its inspection buffers and how a flow's state is made. Adding a
//! protocol is one folder under `crates/app/src/` plus one line here (and its
//! [`AppProto`] value and [`AppState`] variant).

use crate::buffers::BufferDef;
use crate::detect::Probe;
use crate::flow::AppState;
use crate::{AppProto, Counter, Direction, Transport};

/// A name rules give a registered protocol (header protocol, `app-layer-protocol`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleName {
    /// The name in rules (`http`, `http1`, `tls`, ...; aliases such as `ssl` are
    /// resolved by the rule parser).
    pub name: &'static str,
    /// The protocol whose flows a rule naming it applies to (see [`rule_covers`]).
    pub proto: AppProto,
    /// The one version of `proto` the name restricts to (`http1`, `http2`), if any.
    pub only: Option<AppProto>,
}

impl RuleName {
    /// `name` for flows of `proto`.
    pub const fn new(name: &'static str, proto: AppProto) -> Self {
        RuleName {
            name,
            proto,
            only: None,
        }
    }

    /// `name` for flows of `proto`'s version `only`.
    pub const fn only(name: &'static str, proto: AppProto, only: AppProto) -> Self {
        RuleName {
            name,
            proto,
            only: Some(only),
        }
    }
}

/// One registered protocol.
pub struct ProtocolDef {
    /// The protocol.
    pub proto: AppProto,
    /// The names rules use for it; empty: rules cannot name it yet.
    pub rule_names: &'static [RuleName],
    /// How a rule naming it in its header matches packets: TCP packets only (`true`, as
    /// Suricata registers TLS, SMB, DCERPC and SMTP), or any IP packet of such a flow.
    pub tcp_only: bool,
    /// The EVE event type its transactions are logged under (`http`, `dns`, ...);
    /// `None` when they are not logged.
    pub eve: Option<&'static str>,
    /// Its EVE records have extended fields (`<type>: extended: yes`).
    pub eve_extended: bool,
    /// The application-layer events its parser raises (Suricata's `app-layer-event`
    /// names); see [`crate::Protocol::events`].
    pub events: &'static [&'static str],
    /// The inspection buffers its transactions expose.
    pub buffers: &'static [BufferDef],
    /// The ports it is probed on (client or server side); empty: any port.
    pub ports: &'static [u16],
    /// Probes the first bytes of a TCP direction; `None`: not over TCP.
    pub(crate) probe_tcp: Option<fn(Direction, &[u8]) -> Probe>,
    /// Probes a UDP payload; `None`: not over UDP.
    pub(crate) probe_udp: Option<fn(Direction, &[u8]) -> Probe>,
    /// The state of a new flow over a transport, with the counter of such flows;
    /// `None` where the protocol does not run over that transport.
    pub(crate) new: fn(Transport) -> Option<(AppState, Counter)>,
}

impl core::fmt::Debug for ProtocolDef {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ProtocolDef")
            .field("proto", &self.proto)
            .field("rule_names", &self.rule_names)
            .field("tcp_only", &self.tcp_only)
            .field("events", &self.events)
            .field("buffers", &self.buffers.len())
            .field("ports", &self.ports)
            .finish()
    }
}

/// Every protocol, one line each, in probing order (the first match wins).
#[rustfmt::skip]
pub(crate) static PROTOCOLS: [ProtocolDef; 25] = {
    use crate::{bittorrent_dht, dcerpc, dhcp, dns, enip, ftp, http, http2, ike, krb5, modbus, mqtt, nfs, quic, rdp, rfb, sip, smb, smtp, snmp, ssh, tftp, tls, dnp3};
    use AppProto::{BittorrentDht, Dcerpc, Dhcp, Dns, Enip, Ftp, FtpData, Http, Http2, Ike, Krb5, Modbus, Mqtt, Nfs, Quic, Rdp, Rfb, Sip, Smb, Smtp, Snmp, Ssh, Tftp, Tls, Dnp3};
    const ANY: &[u16] = &[];
    [
        ProtocolDef { proto: Http, rule_names: &[RuleName::new("http", Http), RuleName::only("http1", Http, Http)], tcp_only: false, eve: Some("http"), eve_extended: true, events: http::EVENTS, buffers: http::BUFFERS, ports: ANY, probe_tcp: Some(http::probe), probe_udp: None, new: http::new_state },
        ProtocolDef { proto: Tls, rule_names: &[RuleName::new("tls", Tls)], tcp_only: true, eve: Some("tls"), eve_extended: true, events: &[], buffers: tls::BUFFERS, ports: ANY, probe_tcp: Some(tls::probe), probe_udp: None, new: tls::new_state },
        ProtocolDef { proto: Http2, rule_names: &[RuleName::only("http2", Http, Http2)], tcp_only: false, eve: Some("http"), eve_extended: false, events: &[], buffers: &[], ports: ANY, probe_tcp: Some(http2::probe_tcp), probe_udp: None, new: http2::new_state },
        ProtocolDef { proto: Smb, rule_names: &[RuleName::new("smb", Smb)], tcp_only: true, eve: Some("smb"), eve_extended: false, events: smb::EVENTS, buffers: smb::BUFFERS, ports: ANY, probe_tcp: Some(smb::probe_tcp), probe_udp: None, new: smb::new_state },
        ProtocolDef { proto: Dcerpc, rule_names: &[RuleName::new("dcerpc", Dcerpc)], tcp_only: true, eve: Some("dcerpc"), eve_extended: false, events: dcerpc::EVENTS, buffers: dcerpc::BUFFERS, ports: ANY, probe_tcp: Some(dcerpc::probe_tcp), probe_udp: Some(dcerpc::probe_udp), new: dcerpc::new_state },
        ProtocolDef { proto: Smtp, rule_names: &[RuleName::new("smtp", Smtp)], tcp_only: true, eve: Some("smtp"), eve_extended: false, events: smtp::EVENTS, buffers: smtp::BUFFERS, ports: ANY, probe_tcp: Some(smtp::probe_tcp), probe_udp: None, new: smtp::new_state },
        ProtocolDef { proto: Dns, rule_names: &[RuleName::new("dns", Dns)], tcp_only: false, eve: Some("dns"), eve_extended: false, events: dns::EVENTS, buffers: dns::BUFFERS, ports: &[53], probe_tcp: Some(dns::probe_tcp), probe_udp: Some(dns::probe_udp), new: dns::new_state },
        ProtocolDef { proto: Sip, rule_names: &[RuleName::new("sip", Sip)], tcp_only: false, eve: Some("sip"), eve_extended: false, events: &[], buffers: sip::BUFFERS, ports: &[5060, 5061], probe_tcp: None, probe_udp: Some(sip::probe_udp), new: sip::new_state },
        ProtocolDef { proto: Mqtt, rule_names: &[RuleName::new("mqtt", Mqtt)], tcp_only: true, eve: Some("mqtt"), eve_extended: false, events: mqtt::EVENTS, buffers: mqtt::BUFFERS, ports: &[1883], probe_tcp: Some(mqtt::probe_tcp), probe_udp: None, new: mqtt::new_state },
        ProtocolDef { proto: Nfs, rule_names: &[RuleName::new("nfs", Nfs)], tcp_only: false, eve: Some("nfs"), eve_extended: false, events: nfs::EVENTS, buffers: nfs::BUFFERS, ports: &[2049], probe_tcp: Some(nfs::probe_tcp), probe_udp: Some(nfs::probe_udp), new: nfs::new_state },
        ProtocolDef { proto: Tftp, rule_names: &[RuleName::new("tftp", Tftp)], tcp_only: false, eve: Some("tftp"), eve_extended: false, events: &[], buffers: &[], ports: &[69], probe_tcp: None, probe_udp: Some(tftp::probe_udp), new: tftp::new_state },
        ProtocolDef { proto: Ssh, rule_names: &[RuleName::new("ssh", Ssh)], tcp_only: true, eve: Some("ssh"), eve_extended: false, events: ssh::EVENTS, buffers: ssh::BUFFERS, ports: ANY, probe_tcp: Some(ssh::probe_tcp), probe_udp: None, new: ssh::new_state },
        ProtocolDef { proto: Krb5, rule_names: &[RuleName::new("krb5", Krb5)], tcp_only: false, eve: Some("krb5"), eve_extended: false, events: krb5::EVENTS, buffers: krb5::BUFFERS, ports: &[88], probe_tcp: Some(krb5::probe_tcp), probe_udp: Some(krb5::probe_udp), new: krb5::new_state },
        ProtocolDef { proto: Snmp, rule_names: &[RuleName::new("snmp", Snmp)], tcp_only: false, eve: Some("snmp"), eve_extended: false, events: snmp::EVENTS, buffers: snmp::BUFFERS, ports: &[161, 162], probe_tcp: None, probe_udp: Some(snmp::probe_udp), new: snmp::new_state },
        ProtocolDef { proto: Dhcp, rule_names: &[RuleName::new("dhcp", Dhcp)], tcp_only: false, eve: Some("dhcp"), eve_extended: false, events: dhcp::EVENTS, buffers: &[], ports: &[67, 68], probe_tcp: None, probe_udp: Some(dhcp::probe_udp), new: dhcp::new_state },
        ProtocolDef { proto: Ftp, rule_names: &[RuleName::new("ftp", Ftp)], tcp_only: true, eve: Some("ftp"), eve_extended: false, events: ftp::EVENTS, buffers: &[], ports: ANY, probe_tcp: Some(ftp::probe_tcp), probe_udp: None, new: ftp::new_state },
        ProtocolDef { proto: FtpData, rule_names: &[RuleName::new("ftp-data", FtpData)], tcp_only: true, eve: Some("ftp_data"), eve_extended: false, events: &[], buffers: ftp::DATA_BUFFERS, ports: ANY, probe_tcp: None, probe_udp: None, new: ftp::new_data_state },
        ProtocolDef { proto: Quic, rule_names: &[RuleName::new("quic", Quic)], tcp_only: false, eve: Some("quic"), eve_extended: false, events: quic::EVENTS, buffers: quic::BUFFERS, ports: &[443], probe_tcp: None, probe_udp: Some(quic::probe_udp), new: quic::new_state },
        ProtocolDef { proto: Ike, rule_names: &[RuleName::new("ike", Ike)], tcp_only: false, eve: Some("ike"), eve_extended: false, events: ike::EVENTS, buffers: ike::BUFFERS, ports: &[500, 4500], probe_tcp: None, probe_udp: Some(ike::probe_udp), new: ike::new_state },
        ProtocolDef { proto: Modbus, rule_names: &[RuleName::new("modbus", Modbus)], tcp_only: true, eve: Some("modbus"), eve_extended: false, events: modbus::EVENTS, buffers: &[], ports: &[502], probe_tcp: Some(modbus::probe_tcp), probe_udp: None, new: modbus::new_state },
        ProtocolDef { proto: Enip, rule_names: &[RuleName::new("enip", Enip)], tcp_only: false, eve: None, eve_extended: false, events: enip::EVENTS, buffers: &[], ports: &[44818], probe_tcp: Some(enip::probe_tcp), probe_udp: Some(enip::probe_udp), new: enip::new_state },
        ProtocolDef { proto: BittorrentDht, rule_names: &[RuleName::new("bittorrent-dht", BittorrentDht)], tcp_only: false, eve: Some("bittorrent_dht"), eve_extended: false, events: bittorrent_dht::EVENTS, buffers: &[], ports: ANY, probe_tcp: None, probe_udp: Some(bittorrent_dht::probe_udp), new: bittorrent_dht::new_state },
        ProtocolDef { proto: Rfb, rule_names: &[RuleName::new("rfb", Rfb)], tcp_only: true, eve: Some("rfb"), eve_extended: false, events: rfb::EVENTS, buffers: rfb::BUFFERS, ports: rfb::PORTS, probe_tcp: Some(rfb::probe_tcp), probe_udp: None, new: rfb::new_state },
        ProtocolDef { proto: Rdp, rule_names: &[RuleName::new("rdp", Rdp)], tcp_only: true, eve: Some("rdp"), eve_extended: false, events: &[], buffers: &[], ports: rdp::PORTS, probe_tcp: Some(rdp::probe_tcp), probe_udp: None, new: rdp::new_state },
        ProtocolDef { proto: Dnp3, rule_names: &[RuleName::new("dnp3", Dnp3)], tcp_only: true, eve: Some("dnp3"), eve_extended: false, events: dnp3::EVENTS, buffers: dnp3::BUFFERS, ports: &[20000], probe_tcp: Some(dnp3::probe_tcp), probe_udp: None, new: dnp3::new_state },
    ]
};

/// Every registered protocol.
pub fn protocols() -> &'static [ProtocolDef] {
    &PROTOCOLS
}

/// The protocol rules call `name` (`http`, `http2`, `tls`, ...), with whether a rule
/// naming it in its header matches TCP packets only; `None` when no registered protocol
/// answers to it (the rule is unsupported).
pub fn rule_name(name: &str) -> Option<(RuleName, bool)> {
    PROTOCOLS.iter().find_map(|d| {
        d.rule_names
            .iter()
            .find(|r| r.name == name)
            .map(|r| (*r, d.tcp_only))
    })
}

/// Whether a rule for protocol `rule` (restricted to version `only`, see [`RuleName`])
/// applies to a flow of protocol `flow`: `http` covers HTTP/1 and HTTP/2 unless the
/// rule names one version, and `dcerpc` covers SMB flows (see [`AppProto::covers`]).
pub fn rule_covers(rule: AppProto, only: Option<AppProto>, flow: AppProto) -> bool {
    match (rule, flow) {
        (AppProto::Http, AppProto::Http | AppProto::Http2) => only.is_none_or(|o| o == flow),
        _ => rule.covers(flow),
    }
}

/// The EVE event type the transactions of protocol `p` are logged under, if any.
pub fn event_type(p: AppProto) -> Option<&'static str> {
    protocol(p).and_then(|d| d.eve)
}

/// The name suricata.yaml's `eve-log: types:` turns the records of protocol `d` on
/// with: its EVE event type, except for HTTP/2 (`http2`), whose records are `http`
/// events, and FTP data connections (`ftp_data` records, turned on with `ftp`), as in
/// Suricata.
pub fn config_type(d: &ProtocolDef) -> Option<&'static str> {
    match d.proto {
        AppProto::Http2 => d.eve.map(|_| "http2"),
        AppProto::FtpData => d.eve.map(|_| "ftp"),
        AppProto::BittorrentDht => d.eve.map(|_| "bittorrent-dht"),
        _ => d.eve,
    }
}

/// Every name `eve-log: types:` accepts for a registered protocol's records
/// ([`config_type`]), in registry order.
pub fn event_types() -> impl Iterator<Item = &'static str> {
    PROTOCOLS.iter().filter_map(config_type)
}

/// The position of protocol `p` in the registry (a small dense index, e.g. a bit in a
/// per-protocol set), if it is registered.
pub fn index(p: AppProto) -> Option<usize> {
    PROTOCOLS.iter().position(|d| d.proto == p)
}

/// The registry position of the first protocol logged under EVE event type `name`,
/// and whether its records have extended fields ([`event_type_mask`] for all of them).
pub fn event_type_index(name: &str) -> Option<(usize, bool)> {
    PROTOCOLS
        .iter()
        .position(|d| d.eve == Some(name))
        .map(|i| (i, PROTOCOLS[i].eve_extended))
}

/// The registry positions (as bits) of the protocols whose records `eve-log: types:`
/// turns on with `name` ([`config_type`]), and whether their records have extended
/// fields; `None` if no protocol's records go by that name.
pub fn event_type_mask(name: &str) -> Option<(u64, bool)> {
    let mut mask = 0u64;
    let mut extended = false;
    for (i, d) in PROTOCOLS.iter().enumerate().take(64) {
        if config_type(d) == Some(name) {
            mask |= 1 << i;
            extended |= d.eve_extended;
        }
    }
    (mask != 0).then_some((mask, extended))
}

/// Whether the records of protocol `p` take the direction of the packet that made them
/// loggable (Suricata's Kerberos, SNMP and DHCP loggers), not the flow's.
pub fn logs_packet_direction(p: AppProto) -> bool {
    matches!(
        p,
        AppProto::Krb5
            | AppProto::Snmp
            | AppProto::Dhcp
            | AppProto::Ike
            | AppProto::BittorrentDht
            | AppProto::Rdp
    )
}

/// Whether protocol `p` extracts files (declares a `file.data` buffer).
pub fn has_files(p: AppProto) -> bool {
    protocol(p).is_some_and(|d| d.buffers.iter().any(|b| b.file))
}

/// The registered protocol `p`, if any.
pub(crate) fn protocol(p: AppProto) -> Option<&'static ProtocolDef> {
    PROTOCOLS.iter().find(|d| d.proto == p)
}

/// Whether protocol `p` is off unless the configuration turns it on
/// (`app-layer.protocols.<name>.enabled: yes`), as Suricata's industrial protocols
/// (Modbus, ENIP, DNP3);
/// see [`crate::Config::opt_in`].
pub fn opt_in(p: AppProto) -> bool {
    matches!(p, AppProto::Modbus | AppProto::Enip | AppProto::Dnp3)
}
