//! Flow, session, gap and defragmentation counters on sv-ether.pcap against
//! Suricata 7.0.10's stats for the same capture (`-k none`).

mod common;

use flow::Config;

/// Suricata's value of a dotted counter in its stats JSON.
fn suricata(json: &serde_json::Value, name: &str) -> u64 {
    name.split('.')
        .try_fold(json, |v, k| v.get(k))
        .and_then(|v| v.as_u64())
        .unwrap_or_else(|| panic!("{name} not in stats"))
}

#[test]
fn sv_ether_counters_match_suricata() {
    let (Some(pcap), Some(stats)) = (
        common::shared("pcaps/sv-ether.pcap"),
        common::shared("pcaps/sv-ether.suricata-stats.json"),
    ) else {
        return;
    };
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(stats).unwrap()).unwrap();
    let t = common::run_pcap(&pcap, Config::default(), |_, _, _| {}, |_| {});
    let names = [
        "flow.total",
        "flow.tcp",
        "flow.udp",
        "flow.icmpv4",
        "flow.icmpv6",
        "flow.tcp_reuse",
        "flow.end.state.new",
        "flow.end.state.established",
        "flow.end.state.closed",
        "tcp.sessions",
        "tcp.syn",
        "tcp.synack",
        "tcp.rst",
        "tcp.reassembly_gap",
        "tcp.overlap",
        "tcp.stream_depth_reached",
        "tcp.pseudo",
        "tcp.ack_unseen_data",
        "defrag.ipv4.fragments",
        "defrag.ipv4.reassembled",
        "defrag.ipv6.fragments",
        "defrag.ipv6.reassembled",
        "flow.end.tcp_state.syn_sent",
        "flow.end.tcp_state.established",
        "flow.end.tcp_state.closed",
    ];
    eprintln!("{:<34} {:>8} {:>8}", "counter", "osprey", "suricata");
    for n in names {
        eprintln!(
            "{:<34} {:>8} {:>8}",
            n,
            common::counter(&t, n),
            suricata(&json, n)
        );
    }
    let within = |n: &str, ours: u64, pct: f64| {
        let theirs = suricata(&json, n) as f64;
        assert!(
            (ours as f64 - theirs).abs() <= theirs * pct / 100.0,
            "{n}: osprey {ours}, suricata {theirs}"
        );
    };
    within("tcp.sessions", common::counter(&t, "tcp.sessions"), 2.0);
    let dr = common::counter(&t, "defrag.ipv4.reassembled")
        + common::counter(&t, "defrag.ipv6.reassembled");
    let sr =
        suricata(&json, "defrag.ipv4.reassembled") + suricata(&json, "defrag.ipv6.reassembled");
    assert!(
        (dr as f64 - sr as f64).abs() <= sr as f64 * 0.02,
        "defrag reassembled: osprey {dr}, suricata {sr}"
    );
}
