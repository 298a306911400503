//! `fast.log` lines, as Suricata writes them: local time, the rule, its classification
//! and priority, the protocol and the endpoints (`ip:port`; for ICMP, `ip:type` and
//! `ip:code`).

use crate::alert::{proto_static_name, AlertRecord};
use crate::time::write_fast_timestamp;
use std::fmt::Write;
use std::net::IpAddr;

/// What Suricata writes for a missing message or classification (C's `"%s"` of NULL).
const NULL: &str = "(null)";

/// Room for a fast.log line besides the rule's message and classification: timestamp,
/// drop mark, rule ids, the fixed words, priority, protocol and two IPv6 endpoints with
/// ports.
const FAST_LINE_ROOM: usize = 256;

impl AlertRecord<'_> {
    /// The `fast.log` line of this alert (without the newline), written into one
    /// string with room for a usual line (one allocation).
    pub fn to_fast(&self) -> String {
        let mut s =
            String::with_capacity(FAST_LINE_ROOM + self.signature.len() + self.category.len());
        write_fast_timestamp(&mut s, self.ts_secs, self.ts_micros);
        // A blocked packet (IPS drop, or reject) is marked as Suricata marks it.
        let drop = if self.action == "blocked" {
            "[Drop] "
        } else {
            ""
        };
        let _ = write!(
            s,
            "  {drop}[**] [{}:{}:{}] {} [**] [Classification: {}] [Priority: {}] {{",
            self.gid,
            self.sid,
            self.rev,
            or_null(self.signature),
            or_null(self.category),
            self.severity,
        );
        // The protocol's name, or its number, written in place (no string of its own).
        match proto_static_name(self.proto) {
            Some(name) => s.push_str(name),
            None => {
                let _ = write!(s, "{}", self.proto);
            }
        }
        s.push_str("} ");
        // ICMP has no ports: Suricata writes the type in the source's place and the code
        // in the destination's.
        let (sp, dp) = match self.icmp {
            Some((ty, code)) => (Some(u16::from(ty)), Some(u16::from(code))),
            None => (self.src_port, self.dest_port),
        };
        push_endpoint(&mut s, self.src_ip, sp);
        s.push_str(" -> ");
        push_endpoint(&mut s, self.dest_ip, dp);
        s
    }
}

fn or_null(v: &str) -> &str {
    if v.is_empty() {
        NULL
    } else {
        v
    }
}

fn push_endpoint(s: &mut String, ip: IpAddr, port: Option<u16>) {
    app::log::write_ip(s, ip);
    if let Some(p) = port {
        let _ = write!(s, ":{p}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::alert::tests::record;

    #[test]
    fn fast_line() {
        assert_eq!(
            record().to_fast(),
            "05/16/2008-15:50:54.000042  [**] [1:1000002:1] OSPREY SAMPLE Syncer statistics \
             upload [**] [Classification: Potential Corporate Privacy Violation] [Priority: 1] \
             {TCP} 192.168.2.16:1578 -> 75.126.203.78:80"
        );
    }

    #[test]
    fn icmp_type_and_code_in_place_of_ports() {
        // As Suricata 7.0.10 writes suricata-verify's detect-icmp-id-01 (a rule without
        // msg or classtype).
        let r = AlertRecord {
            ts_secs: 1_666_995_255,
            ts_micros: 683_070,
            src_ip: "192.168.1.5".parse().unwrap(),
            src_port: None,
            dest_ip: "192.168.1.1".parse().unwrap(),
            dest_port: None,
            proto: 1,
            sid: 1,
            rev: 0,
            signature: "",
            category: "",
            severity: 3,
            icmp: Some((8, 0)),
            ..record()
        };
        assert_eq!(
            r.to_fast(),
            "10/28/2022-22:14:15.683070  [**] [1:1:0] (null) [**] [Classification: (null)] \
             [Priority: 3] {ICMP} 192.168.1.5:8 -> 192.168.1.1:0"
        );
        let v6 = AlertRecord {
            src_ip: "fe80::1".parse().unwrap(),
            dest_ip: "ff02::1".parse().unwrap(),
            proto: 58,
            icmp: Some((134, 0)),
            ..r
        };
        assert!(v6.to_fast().ends_with(
            "{IPv6-ICMP} fe80:0000:0000:0000:0000:0000:0000:0001:134 -> \
             ff02:0000:0000:0000:0000:0000:0000:0001:0"
        ));
        // The longest line but for message and classification fits the room it
        // starts with (one allocation per line).
        let long = AlertRecord {
            action: "blocked",
            gid: u32::MAX,
            sid: u32::MAX,
            rev: u32::MAX,
            severity: u32::MAX,
            proto: 58,
            icmp: None,
            src_port: Some(65535),
            dest_port: Some(65535),
            signature: "a message",
            category: "a classification",
            ..v6
        };
        let line = long.to_fast();
        assert_eq!(
            line.capacity(),
            FAST_LINE_ROOM + long.signature.len() + long.category.len(),
            "{} bytes: {line}",
            line.len()
        );
    }

    #[test]
    fn blocked_packets_are_marked_drop() {
        // As Suricata 7.0.10 writes a `drop` rule's alert under --simulate-ips.
        let r = AlertRecord {
            action: "blocked",
            ..record()
        };
        assert!(r
            .to_fast()
            .starts_with("05/16/2008-15:50:54.000042  [Drop] [**] [1:1000002:1] OSPREY SAMPLE"));
    }

    #[test]
    fn portless_protocols_have_bare_addresses() {
        let r = AlertRecord {
            src_port: None,
            dest_port: None,
            proto: 47,
            ..record()
        };
        assert!(r.to_fast().ends_with("{GRE} 192.168.2.16 -> 75.126.203.78"));
    }
}
