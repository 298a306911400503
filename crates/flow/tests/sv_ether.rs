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

/// Chi-square statistic of `hashes` spread over `buckets` workers.
fn chi_square(hashes: &[u64], buckets: u64) -> f64 {
    let mut counts = vec![0u64; buckets as usize];
    for h in hashes {
        counts[(h % buckets) as usize] += 1;
    }
    let e = hashes.len() as f64 / buckets as f64;
    counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum()
}

/// The flows of sv-ether.pcap spread evenly over 2, 4 and 16 workers under both
/// symmetric hashes (chi-square below the p = 0.001 critical value), and each flow's
/// two directions hash alike.
#[test]
fn sv_ether_flows_spread_over_workers() {
    let Some(pcap) = common::shared("pcaps/sv-ether.pcap") else {
        return;
    };
    // Distinct flow keys (both directions of a flow share one hash).
    let mut flows: std::collections::HashMap<u64, flow::FlowKey> = Default::default();
    let mut checked = 0u64;
    let _ = common::run_pcap(
        &pcap,
        Config::default(),
        |p, buf, _| {
            if let Some(k) = flow::adapter::flow_key(p, buf) {
                let r = k.reversed();
                assert_eq!(k.hash(), r.hash());
                assert_eq!(k.toeplitz(), r.toeplitz());
                checked += 1;
                flows.entry(k.hash()).or_insert(k);
            }
        },
        |_| {},
    );
    let keys: Vec<flow::FlowKey> = flows.into_values().collect();
    assert!(keys.len() > 1000, "only {} flows", keys.len());
    assert!(checked > 100_000);
    let fast: Vec<u64> = keys.iter().map(|k| k.hash()).collect();
    let rss: Vec<u64> = keys.iter().map(|k| k.toeplitz() as u64).collect();
    // Upper critical values at p = 0.001 for 1, 3 and 15 degrees of freedom.
    for (buckets, critical) in [(2, 10.83), (4, 16.27), (16, 37.70)] {
        let (f, r) = (chi_square(&fast, buckets), chi_square(&rss, buckets));
        eprintln!(
            "{} flows over {buckets}: chi2 fast {f:.2}, toeplitz {r:.2}",
            keys.len()
        );
        assert!(f < critical, "fast hash over {buckets}: chi2 {f}");
        assert!(r < critical, "toeplitz over {buckets}: chi2 {r}");
    }
}
