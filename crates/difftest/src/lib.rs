//! Differential testing against Suricata 7.0.10: thousands of generated rules (each with
//! edge values for some keywords of the registry) and, for each, a flow built to hit or
//! just miss it, on addresses of its own; one capture and one rule file for the whole
//! batch, Suricata run twice (a crash is retried; cases where the two runs disagree are
//! set aside and counted) and Osprey once; alerts compared as multisets on (sid,
//! 5-tuple, pcap_cnt) case by case; every difference written as a minimized corpus-style
//! case folder. Suricata is only a program this crate runs, never a dependency.
//!
//! - [`packet`]: frames of every shape the cases need (IPv4 options and flag bits, IPv6,
//!   TCP, UDP, ICMP/ICMPv6);
//! - [`case`]: one case (rule + flow) and its addresses;
//! - [`rulegen`]: the rule and traffic generator, by keyword family;
//! - [`flows`]: the traffic families beyond plain conversations (fragments, TCP stream
//!   shapes, VLAN and tunnels, DNS cut at any byte, HTTP/1 bodies and every sticky
//!   buffer, TLS handshakes with generated certificates);
//! - [`batch`]: a batch written as one rule file and one capture;
//! - [`oracle`]: running Suricata and Osprey and reading their alerts and rejections;
//! - [`compare`]: the comparison and its summary;
//! - [`minimize`]: one case folder per difference;
//! - [`known`]: the known differences listed in `tests/parity/KNOWN_DIFFERENCES.md`.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod batch;
pub mod case;
pub mod compare;
pub mod flows;
pub mod known;
pub mod minimize;
pub mod oracle;
pub mod packet;
pub mod rulegen;
