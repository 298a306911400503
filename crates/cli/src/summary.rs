//! The end-of-run summary printed on standard output.

use engine::RunReport;
use std::fmt::Write;

/// Protocol counters shown in the summary, in this order.
const PROTOCOLS: &[&str] = &[
    "ethernet",
    "vlan",
    "ipv4",
    "ipv6",
    "tcp",
    "udp",
    "icmpv4",
    "icmpv6",
    "sctp",
    "gre",
    "erspan",
    "vxlan",
    "geneve",
    "teredo",
    "ipv4_in_ipv6",
    "ipv6_in_ipv6",
    "mpls",
    "pppoe",
    "ppp",
    "arp",
    "esp",
];

/// Renders the summary of `report`: packets, bytes, per-protocol counts and decode
/// problems by kind.
pub fn render(report: &RunReport) -> String {
    let s = &report.stats;
    let get = |name: &str| s.get(name).unwrap_or(0);
    let mut out = String::new();
    let secs = report.elapsed.as_secs_f64();
    let pkts = get("decoder.pkts");
    let bytes = get("decoder.bytes");
    let _ = writeln!(
        out,
        "packets: {pkts}  bytes: {bytes}  time: {secs:.3} s  ({:.0} pkt/s)",
        if secs > 0.0 { pkts as f64 / secs } else { 0.0 }
    );
    let mut line = String::from("protocols:");
    for proto in PROTOCOLS {
        let n = get(&format!("decoder.{proto}"));
        if n > 0 {
            let _ = write!(line, " {proto}={n}");
        }
    }
    let _ = writeln!(out, "{line}");
    let _ = writeln!(
        out,
        "decode problems: invalid={} unknown_ethertype={} too_many_layers={}",
        get("decoder.invalid"),
        get("decoder.unknown_ethertype"),
        get("decoder.too_many_layers")
    );
    let mut events: Vec<(String, u64)> = Vec::new();
    collect_leaves(&s.to_json()["decoder"]["event"], "", &mut events);
    events.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    for (name, n) in events.iter().filter(|(_, n)| *n > 0) {
        let _ = writeln!(out, "  {name}: {n}");
    }
    let c = &report.capture;
    if c.truncated + c.oversize + c.bad_blocks + c.unknown_link > 0 {
        let _ = writeln!(
            out,
            "capture problems: truncated={} oversize={} bad_blocks={} unknown_link={}",
            c.truncated, c.oversize, c.bad_blocks, c.unknown_link
        );
    }
    if c.files + c.file_errors > 1 || c.file_errors > 0 {
        let _ = writeln!(out, "files: {} read, {} unreadable", c.files, c.file_errors);
    }
    if c.filtered > 0 {
        let _ = writeln!(out, "left out by the capture filter: {}", c.filtered);
    }
    let dropped = get("osprey.checksum.invalid");
    if dropped > 0 {
        let _ = writeln!(out, "not inspected (bad checksum, -k all): {dropped}");
    }
    out
}

fn collect_leaves(v: &serde_json::Value, prefix: &str, out: &mut Vec<(String, u64)>) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                let name = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                collect_leaves(v, &name, out);
            }
        }
        serde_json::Value::Number(n) => out.push((prefix.to_string(), n.as_u64().unwrap_or(0))),
        _ => {}
    }
}
