//! What the engine hands to [`crate::Detector::inspect`] and what comes back.

use rules::Action;

/// The flow context of a packet, as the flow tracker knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowInfo {
    /// The packet goes from the client to the server (`flow:to_server`); false for
    /// to-client packets.
    pub to_server: bool,
    /// The flow is established (TCP: three-way handshake seen; UDP/other: packets seen
    /// in both directions), as Suricata's `flow:established` means it.
    pub established: bool,
    /// The packet's payload is part of a TCP stream that will be inspected reassembled
    /// (Suricata's `PKT_STREAM_ADD`): stream-capable payload rules then skip the packet
    /// payload and match the stream chunk when the engine passes it
    /// ([`Input::stream`]). False for UDP, for packets the stream engine did not add
    /// (before the handshake completes, out of window), and for pseudo packets.
    pub payload_in_stream: bool,
    /// The flow's application protocol (`app_proto`), `Unknown` until detected.
    pub app_proto: app::AppProto,
    /// The flow's counters after this packet (`stream_size`, `flow.age`).
    pub counts: FlowCounts,
}

/// What the flow tracker counted on a flow, up to and including the current packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FlowCounts {
    /// Capture time of the flow's first packet, seconds.
    pub first_secs: u64,
    /// TCP only: bytes of sequence space each side used, `[client, server]`, from its
    /// initial sequence number to the next one expected (SYN and FIN included, as
    /// Suricata's `stream_size` counts them); `None` without a TCP session.
    pub stream: Option<[u32; 2]>,
    /// Microseconds of the first packet's capture time (below [`Self::first_secs`]).
    pub first_usecs: u32,
    /// Packets seen `[to server, to client]` (the Lua `SCFlowStats`).
    pub pkts: [u32; 2],
    /// Bytes seen `[to server, to client]`.
    pub bytes: [u64; 2],
    /// The TCP stream events the tracker raised on this packet (`stream-event`).
    pub stream_events: wire::StreamEvents,
}

/// One detection call: the packet the alerts will land on and the data to inspect.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// Decoded packet metadata (header fields, addresses, ports, timestamp).
    pub packet: &'a wire::Packet,
    /// The bytes the packet was decoded from (frame or reassembled datagram).
    pub frame: &'a [u8],
    /// Flow context; `None` for packets outside any flow.
    pub flow: Option<FlowInfo>,
    /// Run packet rules (header, options, and payload rules over this packet's payload).
    /// False for pseudo packets that only carry stream or app-layer data.
    pub packet_rules: bool,
    /// A reassembled raw stream chunk of the packet's flow to inspect with
    /// stream-capable payload rules (Suricata's raw stream inspection).
    pub stream: Option<&'a [u8]>,
    /// The flow's application-layer state: every live transaction is inspected with the
    /// rules of the packet's direction (request-side rules on to-server packets,
    /// response-side rules on to-client packets), each rule at most once per
    /// transaction.
    pub app: Option<&'a app::AppFlow>,
    /// An end-of-flow pseudo-packet of a TCP session still open (established, not
    /// closed): rules of an app-layer protocol without buffers (`alert http any any
    /// ...`) match it, as on Suricata's stream-end pseudo-packets.
    pub eof_open: bool,
    /// Inspect the flow's transactions ([`Input::app`]) on this call. False for an
    /// inline (IPS) TCP packet that gave its own direction's app layer no data:
    /// Suricata 7.0.10 inspects a direction's transactions only on a packet that
    /// updated the app layer, which inline means the packet's own data (an ACK
    /// alone does not inspect the transactions a reply just completed).
    pub txs: bool,
}

impl<'a> Input<'a> {
    /// A packet-only call: packet rules over the packet's own payload, no stream or
    /// app-layer data.
    pub fn packet(packet: &'a wire::Packet, frame: &'a [u8], flow: Option<FlowInfo>) -> Self {
        Input {
            packet,
            frame,
            flow,
            packet_rules: true,
            stream: None,
            app: None,
            eof_open: false,
            txs: true,
        }
    }
}

/// What an alert matched on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatchedOn {
    /// The packet (header options and/or its payload).
    Packet,
    /// The reassembled stream chunk.
    Stream,
    /// An application-layer transaction (HTTP, DNS, TLS) with its id.
    Tx(u64),
    /// An application-layer frame (`frame` rules): the alert's EVE `frame` object
    /// describes it ([`app::frames::FlowFrames::get`]).
    Frame(FrameHit),
}

/// The frame a `frame` rule matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FrameHit {
    /// Its direction is to the server.
    pub to_server: bool,
    /// Its id in that direction ([`app::frames::Frame::id`]).
    pub id: u64,
    /// It came in a datagram (UDP), not a TCP stream.
    pub datagram: bool,
}

impl FrameHit {
    /// The frame's direction.
    pub fn dir(self) -> app::Direction {
        if self.to_server {
            app::Direction::ToServer
        } else {
            app::Direction::ToClient
        }
    }
}

/// One alert raised by [`crate::Detector::inspect`]. Text fields (msg, classtype,
/// metadata) are looked up with [`crate::Detector::rule`] by `rule`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alert {
    /// Index of the rule in the rule set given to [`crate::Detector::build`].
    pub rule: u32,
    /// Signature id.
    pub sid: u32,
    /// Generator id.
    pub gid: u32,
    /// Revision.
    pub rev: u32,
    /// The rule's action (`alert`, `drop`, `reject`...; `pass` never alerts).
    pub action: Action,
    /// Priority (1 highest), from the rule, its classtype, or 3.
    pub priority: u32,
    /// What matched.
    pub matched_on: MatchedOn,
    /// A threshold check to make in capture order across workers before the alert is
    /// written (only with [`crate::Scratch::share_thresholds`]).
    pub deferred: Option<crate::threshold::Deferred>,
}
