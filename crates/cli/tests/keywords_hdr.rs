//! The header sticky buffers (`ipv4.hdr`, `ipv6.hdr`, `tcp.hdr`, `udp.hdr`,
//! `icmpv4.hdr`, `icmpv6.hdr`) and the address buffers (`ip.src`, `ip.dst`, with
//! datasets of type `ipv4` and `ip`) on 51 packets cut from sv-ether.pcap: TCP with
//! options, IPv4 options, IPv6 with hop-by-hop, AH, fragment headers (fragments and
//! atomic fragments, some truncated), ICMPv4 timestamp and router advertisement
//! messages, ICMPv6, UDP, and an IPv4 packet whose options broke its decoding.
//!
//! The alerts (rule, packet, protocol name, addresses) are Suricata 7.0.10's on the same
//! capture (`data/hdr-buffers.suricata.jsonl`), and a live Suricata run is compared too
//! when it is installed. On the whole of sv-ether.pcap (`-S data/hdr-buffers.rules`)
//! every alert on a captured packet is Suricata's but for the GTP-U packets 183281 and
//! 183283, whose outer UDP header Osprey does not inspect (it does not match `alert
//! udp` there at all); and Suricata also inspects header buffers on the pseudo-packets
//! of TCP flows still open at the end (their headers are built by Suricata), which
//! Osprey does not.

mod common;

use serde_json::Value;

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - alert\n";

/// `sid pcap_cnt proto src dst` of every alert of an EVE text (or of the saved lines,
/// whose `sid` is top level), sorted.
fn keys(eve: &str) -> Vec<String> {
    let mut out: Vec<String> = eve
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON line"))
        .filter(|o| o.get("event_type").is_none() || o["event_type"] == "alert")
        .map(|o| {
            let sid = o["alert"]["signature_id"].as_u64().or(o["sid"].as_u64());
            let s = |k: &str| o[k].as_str().unwrap_or("-").to_string();
            format!(
                "{} {} {} {} {}",
                sid.unwrap_or(0),
                o["pcap_cnt"].as_u64().map_or("-".into(), |c| c.to_string()),
                s("proto"),
                s("src_ip"),
                s("dest_ip")
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn header_and_address_buffers_alert_as_suricata() {
    let data = common::repo("crates/cli/tests/data");
    let (pcap, rules) = (
        data.join("hdr-buffers.pcap"),
        data.join("hdr-buffers.rules"),
    );
    let dir = common::tempdir("keywords-hdr");
    let got = keys(&common::osprey_eve(&dir, CONFIG, &pcap, &rules));
    let want = keys(&std::fs::read_to_string(data.join("hdr-buffers.suricata.jsonl")).unwrap());
    assert_eq!(want.len(), 254);
    common::assert_same_records(&got, &want);
    // Every rule matched somewhere (none is vacuous here).
    for sid in [
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 17, 18, 19, 20, 23, 24, 25, 30, 31, 32,
    ] {
        assert!(
            got.iter().any(|k| k.starts_with(&format!("{sid} "))),
            "sid {sid}"
        );
    }
    if common::suricata().is_none() {
        return;
    }
    let yaml = dir.join("osprey.yaml");
    let live = common::suricata_rules_eve(&yaml, &pcap, &rules, &dir.join("suricata"));
    common::assert_same_records(&got, &keys(&live));
}

/// A rule file's header buffers are evaluated, never skipped as unsupported.
#[test]
fn header_buffers_are_supported_by_the_detector() {
    let rules = common::repo("crates/cli/tests/data/hdr-buffers.rules");
    let out = common::osprey(&["rules", "check", rules.to_str().unwrap()]);
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(!text.contains("unsupported by the detector"), "{text}");
}
