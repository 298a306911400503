//! Alert records carry the context fields Suricata writes (`direction`, `pkt_src`,
//! `flow{}`, `tx_id`, `icmp_type`/`icmp_code`, `app_proto`, `alert.metadata`,
//! `alert.source`/`alert.target`): real alerts on `samples/sample.pcap`, checked against
//! the values Suricata 7.0.10 writes for the same rules on the same capture
//! (`suricata -c /etc/suricata/suricata.yaml -S RULES -r samples/sample.pcap -k none
//! --runmode single`).

mod common;

use common::{osprey, repo, tempdir};
use serde_json::{json, Value};

/// Rules beside the sample's own: `target:` both ways, a `metadata` key with several
/// values, and flowbits set on the request and on the response.
const EXTRA_RULES: &str = r#"
alert http $HOME_NET any -> $EXTERNAL_NET any (msg:"OSPREY TEST target and metadata"; flow:established,to_server; http.method; content:"POST"; target:dest_ip; metadata: deployment Perimeter, created_at 2026_11_26, deployment Internal; classtype:policy-violation; sid:1000102; rev:1;)
alert http $EXTERNAL_NET any -> $HOME_NET any (msg:"OSPREY TEST target src"; flow:established,to_client; http.header; content:"Content-Encoding|3a 20|gzip"; target:src_ip; sid:1000104; rev:1;)
alert http $EXTERNAL_NET any -> $HOME_NET any (msg:"OSPREY TEST flowbits second"; flow:established,to_client; flowbits:isset,zz.first; flowbits:set,aa.second; flowbits:noalert; sid:1000202; rev:1;)
alert http $HOME_NET any -> $EXTERNAL_NET any (msg:"OSPREY TEST flowbits first"; flow:established,to_server; http.method; content:"POST"; flowbits:set,zz.first; flowbits:noalert; sid:1000201; rev:1;)
alert http $EXTERNAL_NET any -> $HOME_NET any (msg:"OSPREY TEST flowbits isset"; flow:established,to_client; flowbits:isset,aa.second; sid:1000203; rev:1;)
"#;

/// The alert records of one run (made once, shared by the tests).
fn alerts() -> &'static [Value] {
    static ALERTS: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    ALERTS.get_or_init(run)
}

fn run() -> Vec<Value> {
    let dir = tempdir("eve_alert_fields");
    let mut rules = std::fs::read_to_string(repo("samples/sample.rules")).expect("sample rules");
    rules.push_str(EXTRA_RULES);
    let rules_path = dir.join("t.rules");
    std::fs::write(&rules_path, rules).expect("write rules");
    let pcap = repo("samples/sample.pcap");
    let out = osprey(&[
        "-S",
        rules_path.to_str().unwrap(),
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "-l",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "osprey failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let eve = std::fs::read_to_string(dir.join("eve.json")).expect("eve.json written");
    eve.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("each line is JSON"))
        .filter(|r| r["event_type"] == "alert")
        .collect()
}

fn by_sid(alerts: &[Value], sid: u64) -> &Value {
    let found: Vec<&Value> = alerts
        .iter()
        .filter(|r| r["alert"]["signature_id"] == sid)
        .collect();
    assert_eq!(found.len(), 1, "one alert of sid {sid}: {found:?}");
    found[0]
}

/// The first flow's `flow{}` when its POST (pcap_cnt 19) is alerted, as Suricata has it.
fn flow_1578() -> Value {
    json!({"pkts_toserver": 5, "pkts_toclient": 4, "bytes_toserver": 1068,
        "bytes_toclient": 391, "start": "2008-05-16T15:50:57.834454+0000",
        "src_ip": "192.168.2.16", "dest_ip": "75.126.203.78", "src_port": 1578,
        "dest_port": 80})
}

#[test]
fn alert_context_fields_match_suricata() {
    let alerts = alerts();
    for sid in [1000001, 1000002, 1000102] {
        let a = by_sid(alerts, sid);
        assert_eq!(a["pcap_cnt"], 19, "sid {sid}");
        assert_eq!(a["pkt_src"], "wire/pcap", "sid {sid}");
        assert_eq!(a["tx_id"], 0, "sid {sid}");
        assert_eq!(a["app_proto"], "http", "sid {sid}");
        assert_eq!(a["direction"], "to_server", "sid {sid}");
        assert_eq!(a["flow"], flow_1578(), "sid {sid}");
        assert!(a.get("icmp_type").is_none());
        assert!(a.get("tx_guessed").is_none());
        // The flow's records share one id.
        assert_eq!(a["flow_id"], by_sid(alerts, 1000001)["flow_id"]);
    }
    // A stream match: attributed to the request being inspected, as Suricata guesses
    // it, with that transaction's object; the flow's counters at that packet.
    let a = by_sid(alerts, 1000003);
    assert_eq!(a["pcap_cnt"], 70);
    assert_eq!((&a["tx_id"], &a["tx_guessed"]), (&json!(0), &json!(true)));
    assert_eq!(a["http"]["hostname"], "www.wireshark.org");
    assert_eq!(a["direction"], "to_server");
    assert_eq!(
        (&a["flow"]["pkts_toserver"], &a["flow"]["pkts_toclient"]),
        (&json!(4), &json!(3))
    );
    assert_eq!(
        (&a["flow"]["bytes_toserver"], &a["flow"]["bytes_toclient"]),
        (&json!(693), &json!(1622))
    );
    // A response: to_client, the flow written from its client's side.
    for sid in [1000004, 1000104] {
        let a = by_sid(alerts, sid);
        assert_eq!(a["pcap_cnt"], 71);
        assert_eq!(a["src_ip"], "67.228.110.120");
        assert_eq!(a["tx_id"], 0);
        assert_eq!(a["direction"], "to_client");
        assert_eq!(
            a["flow"],
            json!({"pkts_toserver": 4, "pkts_toclient": 4, "bytes_toserver": 693,
                "bytes_toclient": 3128, "start": "2008-05-16T15:51:14.570439+0000",
                "src_ip": "192.168.2.16", "dest_ip": "67.228.110.120", "src_port": 1580,
                "dest_port": 80})
        );
    }
}

#[test]
fn rule_metadata_and_target_as_suricata_writes_them() {
    let alerts = alerts();
    let a = &by_sid(alerts, 1000102)["alert"];
    assert_eq!(a["source"], json!({"ip": "192.168.2.16", "port": 1578}));
    assert_eq!(a["target"], json!({"ip": "75.126.203.78", "port": 80}));
    assert_eq!(
        a["metadata"],
        json!({"created_at": ["2026_11_26"], "deployment": ["Internal", "Perimeter"]})
    );
    // `target:src_ip` on a response: the target is the packet's source.
    let a = &by_sid(alerts, 1000104)["alert"];
    assert_eq!(a["source"], json!({"ip": "192.168.2.16", "port": 1580}));
    assert_eq!(a["target"], json!({"ip": "67.228.110.120", "port": 80}));
    assert!(a.get("metadata").is_none());
    assert!(by_sid(alerts, 1000001)["alert"].get("target").is_none());
}

#[test]
fn flowbits_set_on_the_flow_are_listed() {
    let alerts = alerts();
    // The request's packet set `zz.first` (its rules run before the alerts are written).
    let a = by_sid(alerts, 1000102);
    assert_eq!(a["metadata"], json!({"flowbits": ["zz.first"]}));
    // On the response, in the order they were set.
    let a = by_sid(alerts, 1000203);
    assert_eq!(a["pcap_cnt"], 78);
    assert_eq!(
        a["metadata"],
        json!({"flowbits": ["zz.first", "aa.second"]})
    );
    assert!(a.get("tx_id").is_none());
    // A flow without flowbits: none listed.
    assert!(by_sid(alerts, 1000004).get("metadata").is_none());
}

#[test]
fn tunnelled_icmp_alert_has_type_code_and_source() {
    let alerts = alerts();
    let a = by_sid(alerts, 1000005);
    assert_eq!(a["proto"], "IPv6-ICMP");
    assert_eq!((&a["icmp_type"], &a["icmp_code"]), (&json!(128), &json!(0)));
    assert_eq!(a["pkt_src"], "teredo tunnel");
    assert_eq!(a["direction"], "to_server");
    assert!(a.get("src_port").is_none());
    let f = &a["flow"];
    assert_eq!(
        (&f["pkts_toserver"], &f["pkts_toclient"]),
        (&json!(1), &json!(0))
    );
    // Suricata's count for a tunnelled packet: the decapsulated bytes, the outer
    // Ethernet/IPv4/UDP/Teredo headers left out.
    assert_eq!(f["bytes_toserver"], 52);
    assert!(f.get("src_port").is_none());
}
