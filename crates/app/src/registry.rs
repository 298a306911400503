//! The protocol registry: one line per application protocol, naming its
//! [`AppProto`], its inspection buffers and how a flow's state is made. Adding a
//! protocol is one folder under `crates/app/src/` plus one line here (and its
//! [`AppProto`] value and [`AppState`] variant).

use crate::buffers::BufferDef;
use crate::flow::AppState;
use crate::{AppProto, Counter, Transport};

/// One registered protocol.
pub struct ProtocolDef {
    /// The protocol.
    pub proto: AppProto,
    /// The inspection buffers its transactions expose.
    pub buffers: &'static [BufferDef],
    /// The state of a new flow over a transport, with the counter of such flows;
    /// `None` where the protocol does not run over that transport.
    pub(crate) new: fn(Transport) -> Option<(AppState, Counter)>,
}

impl core::fmt::Debug for ProtocolDef {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ProtocolDef")
            .field("proto", &self.proto)
            .field("buffers", &self.buffers.len())
            .finish()
    }
}

/// Every protocol, one line each.
pub(crate) static PROTOCOLS: [ProtocolDef; 8] = [
    ProtocolDef {
        proto: AppProto::Http,
        buffers: crate::http::BUFFERS,
        new: crate::http::new_state,
    },
    ProtocolDef {
        proto: AppProto::Http2,
        buffers: &[],
        new: crate::http2::new_state,
    },
    ProtocolDef {
        proto: AppProto::Dns,
        buffers: crate::dns::BUFFERS,
        new: crate::dns::new_state,
    },
    ProtocolDef {
        proto: AppProto::Tls,
        buffers: crate::tls::BUFFERS,
        new: crate::tls::new_state,
    },
    ProtocolDef {
        proto: AppProto::Sip,
        buffers: &[],
        new: crate::sip::new_state,
    },
    ProtocolDef {
        proto: AppProto::Smb,
        buffers: &[],
        new: crate::framed::new_smb,
    },
    ProtocolDef {
        proto: AppProto::Dcerpc,
        buffers: &[],
        new: crate::framed::new_dcerpc,
    },
    ProtocolDef {
        proto: AppProto::Smtp,
        buffers: &[],
        new: crate::smtp::new_state,
    },
];

/// Every registered protocol.
pub fn protocols() -> &'static [ProtocolDef] {
    &PROTOCOLS
}

/// The registered protocol `p`, if any.
pub(crate) fn protocol(p: AppProto) -> Option<&'static ProtocolDef> {
    PROTOCOLS.iter().find(|d| d.proto == p)
}
