//! DCERPC (DCE 1.1 RPC; MS-RPCE): connection-oriented over TCP (and, through the SMB
//! parser, over named pipes) and connectionless over UDP — PDU parsing, fragment
//! reassembly, bound interfaces, one transaction per call, the `dcerpc` EVE object and
//! the `dcerpc.iface` / `dcerpc.opnum` / `dcerpc.stub_data` keywords.
//!
//! # The reusable core (SMB named pipes use it)
//!
//! - [`DcerpcConn`] (`state`): one per TCP connection or per SMB pipe. Feed it the
//!   in-order bytes of each direction with [`DcerpcConn::parse`]`(dir, bytes, max_tx)`
//!   (a pipe write is [`Direction::ToServer`](crate::Direction), a read
//!   [`Direction::ToClient`](crate::Direction); PDUs may be split anywhere). It frames
//!   PDUs by `frag_length`, reassembles request/response fragments by call id
//!   (first/last flags; stub kept up to [`state::MAX_STUB`] bytes, the rest counted),
//!   keeps the interfaces bound per context id ([`DcerpcConn::interfaces`]) and opens
//!   one [`DceTx`] per bind, alter_context or request (an answer with no call opens a
//!   `REQUEST_LOST` one). The returned [`Outcome`] lists the transactions opened or
//!   updated (`touched`, by id: map an SMB command to its call with it), old ones
//!   dropped beyond `max_tx`, stub bytes cut, and whether the stream stopped being
//!   DCERPC (`error`). [`DcerpcConn::gap`] loses a direction;
//!   [`DcerpcConn::txs`] / [`DcerpcConn::tx`] / [`DcerpcConn::free_txs_before`] give
//!   and free the calls.
//! - [`DceTx`]: call id, request and response PDU types (`None`: lost / unreplied),
//!   opnum, context id, fragments and reassembled stub per side ([`Frags`]), the
//!   interfaces a bind offered with the answers, the interface a request's context was
//!   bound to (`iface`), completion per side ([`DceTx::request_done`],
//!   [`DceTx::response_done`]).
//! - [`log::dcerpc_object`]: the object of a `dcerpc` record;
//!   [`log::smb_dcerpc_object`]: the `dcerpc` object SMB records embed (pass the
//!   pipe's bound interfaces to list them on requests).
//! - [`keywords::check`]`(tx, opt, dir)`: `dcerpc.iface` and `dcerpc.opnum` on a call
//!   (an SMB transaction's `Transaction::check` delegates to it);
//!   [`keywords::stub_data`]`(tx, dir)`: the `dcerpc.stub_data` buffer.
//! - [`parser`]: the PDU parsers themselves; [`DcerpcUdp`] (`udp`): connectionless calls.
//!
//! # On the protocol contract
//!
//! `proto`: [`DcerpcState`], the per-flow state over TCP (a [`DcerpcConn`]) or UDP (a
//! [`DcerpcUdp`]), its probes, [`BUFFERS`] and the counters
//! (`app_layer.flow/tx/error.dcerpc_tcp|dcerpc_udp`). Suricata 7 declares no DCERPC
//! app-layer events, so [`EVENTS`] is empty.

pub mod keywords;
pub mod log;
pub mod parser;
mod proto;
pub mod state;
pub mod udp;

pub use proto::DcerpcState;
pub(crate) use proto::{new_state, probe_tcp, probe_udp, BUFFERS, EVENTS};
pub use state::{DceTx, DcerpcConn, Frags, Interface, Outcome};
pub use udp::DcerpcUdp;

#[cfg(test)]
mod tests;
