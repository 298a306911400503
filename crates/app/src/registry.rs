//! The protocol registry: one line per application protocol, naming its
//! [`AppProto`], its inspection buffers and how a flow's state is made. Adding a
//! protocol is one folder under `crates/app/src/` plus one line here (and its
//! [`AppProto`] value and [`AppState`] variant).

use crate::buffers::BufferDef;
use crate::detect::Probe;
use crate::flow::AppState;
use crate::{AppProto, Counter, Direction, Transport};

/// One registered protocol.
pub struct ProtocolDef {
    /// The protocol.
    pub proto: AppProto,
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
            .field("buffers", &self.buffers.len())
            .field("ports", &self.ports)
            .finish()
    }
}

/// Every protocol, one line each, in probing order (the first match wins).
#[rustfmt::skip]
pub(crate) static PROTOCOLS: [ProtocolDef; 8] = {
    use crate::{dns, framed, http, http2, sip, smtp, tls};
    const ANY: &[u16] = &[];
    [
        ProtocolDef { proto: AppProto::Http, buffers: http::BUFFERS, ports: ANY, probe_tcp: Some(http::probe), probe_udp: None, new: http::new_state },
        ProtocolDef { proto: AppProto::Tls, buffers: tls::BUFFERS, ports: ANY, probe_tcp: Some(tls::probe), probe_udp: None, new: tls::new_state },
        ProtocolDef { proto: AppProto::Http2, buffers: &[], ports: ANY, probe_tcp: Some(http2::probe_tcp), probe_udp: None, new: http2::new_state },
        ProtocolDef { proto: AppProto::Smb, buffers: &[], ports: ANY, probe_tcp: Some(framed::probe_smb_tcp), probe_udp: None, new: framed::new_smb },
        ProtocolDef { proto: AppProto::Dcerpc, buffers: &[], ports: ANY, probe_tcp: Some(framed::probe_dcerpc), probe_udp: None, new: framed::new_dcerpc },
        ProtocolDef { proto: AppProto::Smtp, buffers: &[], ports: ANY, probe_tcp: Some(smtp::probe_tcp), probe_udp: None, new: smtp::new_state },
        ProtocolDef { proto: AppProto::Dns, buffers: dns::BUFFERS, ports: &[53], probe_tcp: Some(dns::probe_tcp), probe_udp: Some(dns::probe_udp), new: dns::new_state },
        ProtocolDef { proto: AppProto::Sip, buffers: &[], ports: &[5060, 5061], probe_tcp: None, probe_udp: Some(sip::probe_udp), new: sip::new_state },
    ]
};

/// Every registered protocol.
pub fn protocols() -> &'static [ProtocolDef] {
    &PROTOCOLS
}

/// The registered protocol `p`, if any.
pub(crate) fn protocol(p: AppProto) -> Option<&'static ProtocolDef> {
    PROTOCOLS.iter().find(|d| d.proto == p)
}
