//! Zero-copy, bounds-checked packet decoding for Osprey.
//!
//! Two layers, as in smoltcp's `wire`:
//!
//! - [`proto`]: typed views (`Ipv4Packet<T: AsRef<[u8]>>`, `TcpPacket`, ...) over header
//!   bytes, each with `check_len()` after which no accessor can panic;
//! - [`Decoder`]: walks a captured frame from its [`LinkType`] down to L4, tunnels
//!   included, and fills compact [`Packet`] metadata (≤ 128 bytes) plus per-worker
//!   [`DecodeStats`] named as Suricata's stats.json.
//!
//! An IDS must see everything: nothing is rejected for bad checksums, odd flags or zero
//! ports; malformed input is classified as a Suricata [`Event`] and counted, never a
//! panic. No allocation per packet.
//!
//! ```
//! use wire::{Decoded, Decoder, DecoderConfig, LinkType, Timestamp};
//!
//! let mut dec = Decoder::new(DecoderConfig::default());
//! let mut out = Decoded::new();
//! let frame = [0u8; 10]; // too short for Ethernet
//! dec.decode(LinkType::ETHERNET, &frame, Timestamp(0), 10, &mut out);
//! assert!(out.outer().has(wire::flags::INVALID));
//! assert_eq!(dec.stats().get(wire::Counter::Invalid), 1);
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod checksum;
mod decode;
mod event;
pub mod fuzzing;
mod link;
mod packet;
pub mod proto;
pub mod reject;
mod stats;
mod stream_event;
mod vocab;

pub use decode::{Decoded, Decoder, DecoderConfig, TunnelPorts, MAX_PACKETS};
pub use event::Event;
pub use link::LinkType;
pub use packet::{flags, Packet, Timestamp, Tunnel, COUNTED_EVENTS, MAX_EVENTS};
pub use stats::{Counter, DecodeStats};
pub use stream_event::{StreamEvent, StreamEvents};
pub use vocab::{has_ports, ip_addr, ip_proto, is_icmp, tcp_flags, Direction};
