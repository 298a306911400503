//! `app-layer-event` rules of SMB, SMTP, MQTT and NFS alert as Suricata 7.0.10 makes
//! them alert: each event belongs to one transaction (not to the flow, so later
//! transactions do not alert again), and alerts once per transaction and direction on
//! the packet Suricata picks (SMB, NFS: the next packet each way; SMTP: to the client
//! only once a server line was parsed for the mail; MQTT: only the transaction's own
//! direction). The rules (`data/app-events-tx.rules`) name every event of the four
//! protocols, both directions each. Captures:
//!
//! - `data/app-events-tx.pcap`: the flows of sv-ether.pcap whose events Suricata alerts
//!   and Osprey's parsers raise alike (five MQTT sessions, sixteen SMTP sessions and an
//!   SMB session), cut with their packets in order; Suricata's alerts are
//!   `data/app-events-tx.suricata.jsonl`.
//! - `data/smb.pcap` (a non-DCERPC write to a named pipe: one `WRITE_ANDX`
//!   transaction with the event), `data/smtp-no-welcome.pcap` and `data/nfs_tftp.pcap`
//!   (an NFSv4 callback call to the client: no event), Suricata's alerts hard-coded.
//!
//! Each is compared with a live Suricata run too when `suricata` is installed.

mod common;

use common::repo;
use std::path::Path;

/// An alert as (pcap_cnt, 0 at the flow's end; source port; destination port; sid;
/// tx_id).
type Alert = (u64, u64, u64, u64, u64);

/// The alerts of an EVE file's text, sorted.
fn alerts(eve: &str) -> Vec<Alert> {
    let mut v: Vec<Alert> = eve
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("EVE lines are JSON"))
        .filter(|r| r["event_type"] == "alert")
        .map(|r| {
            let n = |v: &serde_json::Value| v.as_u64().unwrap_or(0);
            (
                n(&r["pcap_cnt"]),
                n(&r["src_port"]),
                n(&r["dest_port"]),
                n(&r["alert"]["signature_id"]),
                n(&r["tx_id"]),
            )
        })
        .collect();
    v.sort_unstable();
    v
}

/// Osprey's alerts on `pcap` with the event rules and the stock configuration.
fn osprey(name: &str, pcap: &Path) -> Vec<Alert> {
    let dir = common::tempdir(name);
    let r = common::osprey_single(
        Path::new("/etc/suricata/suricata.yaml"),
        &repo("crates/cli/tests/data/app-events-tx.rules"),
        pcap,
        &dir,
    );
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    alerts(&std::fs::read_to_string(dir.join("eve.json")).expect("eve.json"))
}

/// Checks Osprey's alerts on capture `file` against `want` (Suricata 7.0.10's, saved)
/// and, when it is installed, against a live Suricata run.
fn check(file: &str, want: &[Alert]) {
    if !Path::new("/etc/suricata/suricata.yaml").exists() {
        if std::env::var("OSPREY_REQUIRE_SURICATA").as_deref() == Ok("1") {
            panic!("OSPREY_REQUIRE_SURICATA=1 but /etc/suricata/suricata.yaml is missing");
        }
        eprintln!("skipped: no /etc/suricata/suricata.yaml (Suricata's stock config)");
        return;
    }
    let pcap = repo(&format!("crates/cli/tests/data/{file}"));
    let got = osprey(&format!("app-events-tx-{file}"), &pcap);
    assert_eq!(
        got, want,
        "{file}: Osprey against Suricata 7.0.10's saved alerts"
    );
    if common::suricata().is_some() {
        let out = common::tempdir(&format!("app-events-tx-{file}-suricata"));
        let live = alerts(&common::suricata_rules_eve(
            Path::new("/etc/suricata/suricata.yaml"),
            &pcap,
            &repo("crates/cli/tests/data/app-events-tx.rules"),
            &out,
        ));
        assert_eq!(got, live, "{file}: Osprey against a live Suricata run");
    }
}

#[test]
fn sv_ether_events_alert_once_per_transaction_and_direction() {
    let saved = std::fs::read_to_string(repo("crates/cli/tests/data/app-events-tx.suricata.jsonl"))
        .unwrap();
    let want = alerts(&saved);
    assert_eq!(want.len(), 37);
    // MQTT: one alert each, on the transaction's own direction (sids 101-110).
    let mqtt: Vec<_> = want.iter().filter(|a| (100..111).contains(&a.3)).collect();
    assert_eq!(mqtt.len(), 5);
    check("app-events-tx.pcap", &want);
}

#[test]
fn an_smb_pipe_write_that_is_not_dcerpc_is_its_own_transaction() {
    // `smb.malformed_data` (sid 115) on the WRITE_ANDX transaction (id 16), on the
    // response's packet and the next request.
    check(
        "smb.pcap",
        &[(141, 445, 49193, 115, 16), (142, 49193, 445, 115, 16)],
    );
}

#[test]
fn smtp_events_reach_the_client_side_once_the_server_answered() {
    // `smtp.no_server_welcome_message` (sid 148): the EHLO's event (parsed on packet
    // 21's acknowledgement) alerts to the server on 23 and to the client on 25, after
    // the server's reply; the second mail's alerts to the client at the flow's end.
    check(
        "smtp-no-welcome.pcap",
        &[
            (0, 25, 5555, 148, 1),
            (0, 58121, 21, 148, 0),
            (0, 58121, 25, 148, 0),
            (23, 5555, 25, 148, 0),
            (25, 25, 5555, 148, 0),
            (79, 5555, 25, 148, 1),
        ],
    );
}

#[test]
fn an_nfs_callback_to_the_client_raises_no_event() {
    check("nfs_tftp.pcap", &[]);
}
