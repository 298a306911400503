//! Application layer: protocol detection and streaming parsers for HTTP/1.x, HTTP/2,
//! DNS, TLS, SMTP (with MIME), SMB, DCERPC, FTP and ftp-data, NFS over ONC RPC, TFTP,
//! SIP, MQTT, SSH, Kerberos 5, SNMP and DHCP
//! that turn reassembled stream bytes (and UDP datagrams) into transactions carrying
//! Suricata's named inspection buffers (`http.uri`, `dns.query`, `tls.sni`, ...).
//!
//! One [`AppFlow`] lives in each flow. The flow layer feeds it in-order stream bytes per
//! direction ([`AppFlow::parse`]), holes in the stream ([`AppFlow::gap`]), the end of the
//! flow ([`AppFlow::close`]) and UDP payloads ([`AppFlow::datagram`]). Worker-wide
//! configuration and counters live in an [`AppCtx`], passed to every call, so flows share
//! nothing mutable.
//!
//! Every protocol implements one contract, after Suricata's Rust app-layer: a per-flow
//! state ([`Protocol`]: parse each direction, gaps, close, errors, completion signals)
//! with transactions ([`Transaction`]: id, progress per direction, the inspection
//! buffers it exposes by [`BufferId`], and the EVE object it logs). The detector and
//! the EVE logger only use the contract. Each protocol is one module (`http/`, `dns/`,
//! `tls/`, ...), split as Suricata's Rust parsers are into a zero-copy `parser`
//! (returns "incomplete" instead of failing on short input), a `state` (the per-flow
//! streaming machine and its transactions), its probes, its buffer table and contract
//! implementation (`proto`) and its EVE object (`log`); [`registry`] lists them, one
//! line each.
//!
//! Adding a protocol: a folder under `crates/app/src/` with its parser, state, probe,
//! buffer table, [`Protocol`]/[`Transaction`] implementations and EVE object; an
//! [`AppProto`] value and an [`AppState`] variant; one line in [`registry`].

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod anomaly;
pub mod bittorrent_dht;
mod buffers;
mod counters;
pub mod dcerpc;
pub mod detect;
pub mod dhcp;
pub mod dnp3;
pub mod dns;
pub mod enip;
pub mod events;
pub mod expect;
pub mod files;
mod flow;
pub mod frames;
pub mod ftp;
#[doc(hidden)]
pub mod fuzzing;
pub mod http;
pub mod http2;
pub mod ike;
pub mod krb5;
pub mod log;
pub mod memcap;
pub mod modbus;
pub mod mqtt;
pub mod nfs;
mod proto;
pub mod quic;
pub mod rdp;
pub mod registry;
pub mod rfb;
pub mod rpc;
pub mod sip;
pub mod smb;
pub mod smtp;
pub mod snmp;
pub mod ssh;
pub mod stream_depth;
pub mod tftp;
pub mod tls;
mod util;

pub use anomaly::{Anomalies, AnomalyLayer, AppAnomaly};
pub use buffers::{buffers, BufferDef, BufferId};
pub use counters::{Counter, Counters};
pub use detect::AppProto;
pub use events::Events;
pub use files::{File, FileConfig, FileId, FileState, Files};
pub use flow::{AppCtx, AppFlow, AppState};
pub use proto::{mix_fingerprint, ParseResult, Protocol, Transaction};

/// Direction of data within a flow, relative to the side that opened it (the one
/// direction type of the workspace, declared in `wire`).
pub use wire::Direction;

/// Transport protocol the application data rides on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transport {
    /// TCP: reassembled byte streams.
    Tcp,
    /// UDP: one message per datagram.
    Udp,
}

/// Limits and switches of the application layer, with Suricata's defaults
/// (`app-layer.protocols.http.libhtp.default-config` in `suricata.yaml`).
#[derive(Clone, Debug)]
pub struct Config {
    /// `request-body-limit`: request body bytes kept per transaction (100 KiB).
    pub request_body_limit: usize,
    /// `response-body-limit`: response body bytes kept per transaction, after
    /// dechunking and decompression (100 KiB).
    pub response_body_limit: usize,
    /// `request-body-minimal-inspect-size` (32 KiB).
    pub request_body_minimal_inspect_size: usize,
    /// `request-body-inspect-window` (4 KiB).
    pub request_body_inspect_window: usize,
    /// `response-body-minimal-inspect-size` (40 KiB).
    pub response_body_minimal_inspect_size: usize,
    /// `response-body-inspect-window` (16 KiB).
    pub response_body_inspect_window: usize,
    /// `http-body-inline` (`auto`: in IPS mode): HTTP/1 bodies are inspected as they
    /// arrive, the minimal inspect sizes not waited for (HTTP/2 bodies still wait, as
    /// Suricata 7.0.10's do). Off by default.
    pub http_body_inline: bool,
    /// `response-body-decompress-layer-limit`: how many stacked content encodings are
    /// undone (2).
    pub response_body_decompress_layer_limit: usize,
    /// `lzma-enabled`, `lzma-memlimit` and `compression-bomb-limit`: how libhtp undoes
    /// `Content-Encoding: lzma` (off by default, as Suricata).
    pub lzma: http::LzmaLimits,
    /// libhtp's hard field limit: a request/response line or header line longer than
    /// this ends parsing of that direction (18,000 bytes).
    pub field_limit: usize,
    /// Raw header bytes kept per message (`http.header.raw`); beyond it the headers
    /// are still parsed but the raw copy stops growing.
    pub header_raw_limit: usize,
    /// Headers kept per message; further headers are counted and dropped.
    pub max_headers: usize,
    /// Live transactions per flow; the oldest are dropped beyond it (counted).
    pub max_tx: usize,
    /// Handshake bytes buffered per TLS direction while a message spans records.
    pub tls_handshake_limit: usize,
    /// Bytes buffered for one DNS-over-TCP message (the 2-byte length caps it at 65,535).
    pub dns_tcp_limit: usize,
    /// Record application-layer frames for the `frame` rule keyword ([`frames`]); the
    /// engine sets it when a loaded rule uses `frame` (false: nothing is recorded).
    pub frames: bool,
    /// The frame types a loaded rule inspects (the engine sets them with `frames`):
    /// only frames of these types are recorded and numbered, as Suricata 7.0.10 creates
    /// only the frame types a rule uses (the EVE `frame.id` counts them).
    pub frame_types: frames::FrameSet,
    /// How the files transactions carry are tracked (hashes, bytes kept).
    pub files: FileConfig,
    /// `app-layer.protocols.smtp.mime`: how SMTP messages are decoded.
    pub smtp_mime: smtp::mime::MimeConfig,
    /// Registry positions (bits) of the [`registry::opt_in`] protocols the
    /// configuration turned on; the others of them are never detected.
    pub opt_in: u64,
    /// Data connections announced by control flows, shared by every worker (each
    /// clones the configuration, and with it this handle).
    pub expectations: expect::Expectations,
    /// The protocols whose sessions have a stream depth of their own
    /// (`app-layer.protocols.<name>.stream-depth`).
    pub stream_depths: stream_depth::StreamDepths,
    /// `app-layer.protocols.http.memcap` and `ftp.memcap`: budgets shared by every
    /// worker (each clones the configuration, and with it this handle).
    pub memcaps: memcap::AppMemcaps,
}

impl Config {
    /// The minimal inspect size of an HTTP/1 body travelling `dir`: 0 (inspected as
    /// it arrives) with [`Config::http_body_inline`].
    pub fn min_inspect(&self, dir: Direction) -> usize {
        match dir {
            _ if self.http_body_inline => 0,
            Direction::ToServer => self.request_body_minimal_inspect_size,
            Direction::ToClient => self.response_body_minimal_inspect_size,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            request_body_limit: 100 * 1024,
            response_body_limit: 100 * 1024,
            request_body_minimal_inspect_size: 32 * 1024,
            request_body_inspect_window: 4 * 1024,
            response_body_minimal_inspect_size: 40 * 1024,
            http_body_inline: false,
            response_body_inspect_window: 16 * 1024,
            response_body_decompress_layer_limit: 2,
            lzma: http::LzmaLimits::default(),
            field_limit: 18_000,
            header_raw_limit: 64 * 1024,
            max_headers: 1024,
            max_tx: 512,
            tls_handshake_limit: 256 * 1024,
            dns_tcp_limit: 65_535,
            frames: false,
            frame_types: frames::FrameSet::ALL,
            files: FileConfig::default(),
            smtp_mime: smtp::mime::MimeConfig::default(),
            expectations: expect::Expectations::default(),
            opt_in: 0,
            stream_depths: stream_depth::StreamDepths::default(),
            memcaps: memcap::AppMemcaps::default(),
        }
    }
}

#[cfg(test)]
mod config_tests {
    use super::*;

    #[test]
    fn inline_bodies_have_no_minimal_inspect_size() {
        let mut c = Config::default();
        assert_eq!(c.min_inspect(Direction::ToServer), 32 * 1024);
        assert_eq!(c.min_inspect(Direction::ToClient), 40 * 1024);
        c.http_body_inline = true;
        assert_eq!(c.min_inspect(Direction::ToServer), 0);
        assert_eq!(c.min_inspect(Direction::ToClient), 0);
    }
}
