//! Exception policies on the corpus's exception-policy cases: Suricata 7.0.10's release
//! build (the corpus reference) ignores the `--simulate-*` options; with
//! `--qa-simulation` Osprey forces the condition at the given packet or stream offset
//! and applies the configured policy, as Suricata's QA builds do (the suricata-verify
//! expectations of these tests: no alert).

mod common;

use common::{osprey, shared, stats, tempdir};
use std::path::Path;

/// Runs one corpus case (its own suricata.yaml, `--simulate-ips`, `extra` arguments);
/// returns the alert count and the stats.
fn run_case(case: &str, extra: &[&str], qa: bool) -> Option<(usize, serde_json::Value)> {
    let dir = shared(&format!("corpus/open/{case}"))?;
    // One directory per run: tests running in parallel use the same case.
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = tempdir(&format!("exc-{case}-{qa}-{n}"));
    let p = |f: &str| dir.join(f).to_str().unwrap().to_string();
    let (pcap, rules, yaml) = (p("input.pcap"), p("test.rules"), p("suricata.yaml"));
    let mut args = vec![
        "-r",
        &pcap,
        "-S",
        &rules,
        "-c",
        &yaml,
        "-k",
        "none",
        "--simulate-ips",
        "-l",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    if qa {
        args.push("--qa-simulation");
    }
    let r = osprey(&args);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    Some((alerts(&out), stats(&out)))
}

fn alerts(out: &Path) -> usize {
    std::fs::read_to_string(out.join("eve.json"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("\"event_type\":\"alert\""))
        .count()
}

#[test]
fn applayer_error_pass_packet_skips_detection_of_the_packet() {
    let extra = [
        "--simulate-applayer-error-at-offset-ts=0",
        "--set",
        "app-layer.error-policy=pass-packet",
    ];
    let Some((n, _)) = run_case("exception-policy-applayer-02", &extra, false) else {
        return;
    };
    assert_eq!(n, 1, "release behaviour: the option is ignored");
    let (n, s) = run_case("exception-policy-applayer-02", &extra, true).unwrap();
    assert_eq!(n, 0);
    let e = &s["app_layer"]["error"]["exception_policy"];
    assert_eq!(e["pass_packet"], 1);
    assert_eq!(e["drop_flow"], 0);
}

#[test]
fn real_parser_errors_apply_the_applayer_error_policy() {
    // sv-ether's flows whose parser fails (HTTP, TLS, SIP: 1 + 2 + 23 without a policy,
    // see eve_app_sv_ether.md; SMTP's invalid replies; DCERPC, FTP, MQTT, SNMP ...): in
    // IPS mode, drop-flow drops each such flow
    // from the packet that fed the failing bytes on (a dropped SIP flow's later
    // datagrams are no longer parsed), and the rest of the run goes on.
    let Some(pcap) = shared("pcaps/sv-ether.pcap") else {
        return;
    };
    let out = tempdir("exc-sv-ether-applayer");
    let r = osprey(&[
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "--runmode",
        "single",
        "--simulate-ips",
        "--set",
        "app-layer.error-policy=drop-flow",
        "-l",
        out.to_str().unwrap(),
        "--no-progress",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let s = stats(&out);
    let e = &s["app_layer"]["error"];
    // Every parser's failures (HTTP, TLS, SIP, SMTP, DCERPC, MQTT, SNMP, ...). FTP counts
    // an over-long command line as a parser error (as Suricata's counter does) but goes on
    // parsing the flow, so no policy applies to it.
    let parser_errors: u64 = e
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| k.as_str() != "ftp")
        .filter_map(|(_, p)| p.get("parser").and_then(serde_json::Value::as_u64))
        .sum();
    assert!(parser_errors >= 4, "{e}");
    assert_eq!(e["exception_policy"]["drop_flow"], parser_errors);
    let dropped = s["ips"]["drop_reason"]["applayer_error"].as_u64().unwrap();
    assert_eq!(
        dropped, parser_errors,
        "one packet each: the one that failed"
    );
    assert!(s["ips"]["drop_reason"]["flow_drop"].as_u64().unwrap() > 0);
}

#[test]
fn midstream_drop_flow_drops_every_packet_of_the_flow() {
    // A capture that starts mid-session, pick-up off, IPS: the flow is dropped at its
    // first packet (not bypassed, which live would forward), the rest as a dropped flow.
    let extra = [
        "--set",
        "stream.async-oneside=true",
        "--set",
        "stream.midstream-policy=drop-flow",
    ];
    let Some((n, s)) = run_case("exception-policy-midstream-02", &extra, false) else {
        return;
    };
    assert_eq!(n, 0);
    assert_eq!(s["tcp"]["midstream_exception_policy"]["drop_flow"], 1);
    let ips = &s["ips"];
    assert_eq!(ips["drop_reason"]["stream_midstream"], 1);
    let later = ips["drop_reason"]["flow_drop"].as_u64().unwrap();
    assert!(later > 0);
    assert_eq!(ips["blocked"].as_u64().unwrap(), 1 + later);
}

#[test]
fn defrag_memcap_drops_the_fragment() {
    let extra = [
        "--simulate-packet-defrag-memcap=1",
        "--set",
        "defrag.memcap-policy=drop-flow",
    ];
    let Some((n, _)) = run_case("exception-policy-defrag-01", &extra, false) else {
        return;
    };
    assert_eq!(n, 1);
    let (n, s) = run_case("exception-policy-defrag-01", &extra, true).unwrap();
    assert_eq!(n, 0);
    // A packet-only condition: drop-flow acts as drop-packet.
    assert_eq!(s["defrag"]["memcap_exception_policy"]["drop_packet"], 1);
    assert_eq!(s["ips"]["drop_reason"]["defrag_memcap"], 1);
}

#[test]
fn reassembly_memcap_policies() {
    // memcap-01/03's rules would drop the rest of the flow after a dropped ClientHello:
    // drop-packet runs with memcap-05's (pass on the SNI, an alert on packet 4).
    for (case, policy, counter) in [
        ("01", "drop-flow", "drop_flow"),
        ("03", "bypass", "bypass"),
        ("05", "drop-packet", "drop_packet"),
    ] {
        let set = format!("stream.reassembly.memcap-policy={policy}");
        let extra = ["--simulate-packet-tcp-reassembly-memcap=4", "--set", &set];
        let case = format!("exception-policy-stream-reassembly-memcap-{case}");
        let Some((n, s)) = run_case(&case, &extra, true) else {
            return;
        };
        assert_eq!(n, 0, "{policy}");
        assert_eq!(
            s["tcp"]["reassembly_exception_policy"][counter], 1,
            "{policy}"
        );
        assert_eq!(s["tcp"]["segment_memcap_drop"], 1, "{policy}");
    }
}

#[test]
fn flow_and_session_memcap_policies() {
    let extra = [
        "--simulate-packet-flow-memcap=1",
        "--set",
        "flow.memcap-policy=pass-packet",
    ];
    let Some((_, s)) = run_case("exception-policy-applayer-02", &extra, true) else {
        return;
    };
    assert_eq!(s["flow"]["memcap_exception_policy"]["pass_packet"], 1);
    let extra = [
        "--simulate-packet-tcp-ssn-memcap=1",
        "--set",
        "stream.memcap-policy=drop-flow",
    ];
    let (n, s) = run_case("exception-policy-applayer-02", &extra, true).unwrap();
    // The SYN finds no session memory: the flow is dropped, sid 3 (packet 4) cannot match.
    assert_eq!(n, 0);
    assert_eq!(s["tcp"]["ssn_memcap_exception_policy"]["drop_flow"], 1);
    assert_eq!(s["tcp"]["ssn_memcap_drop"], 1);
    assert_eq!(s["ips"]["drop_reason"]["stream_memcap"], 1);
}
