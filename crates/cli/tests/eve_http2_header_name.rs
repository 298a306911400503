//! `http2.header_name` on the five HTTP/2 connections of `data/keywords24.pcap` (cut
//! from sv-ether.pcap) with `data/http2-header-name.rules`: each request header name of
//! a stream, pseudo-headers included, is one instance of the buffer. The alerts are
//! compared with those Suricata 7.0.10 raises on the same capture (checked live when
//! `suricata` is installed), which match no response header (`:status`, `server`,
//! `date` and a `flow:to_client` rule raise nothing).

mod common;

use common::{osprey_eve, repo, tempdir};
use std::path::Path;

const CONFIG: &str = "%YAML 1.1\n---\noutputs:\n  - eve-log:\n      enabled: yes\n      \
    filetype: regular\n      filename: eve.json\n      types:\n        - alert\n";

#[test]
fn http2_header_name_alerts_as_suricata() {
    let dir = tempdir("eve-http2-header-name");
    let pcap = repo("crates/cli/tests/data/keywords24.pcap");
    let rules = repo("crates/cli/tests/data/http2-header-name.rules");
    let eve = osprey_eve(&dir, CONFIG, &pcap, &rules);
    let want = vec![
        (101, 43326, 80, 3),
        (101, 49792, 80, 2),
        (101, 49792, 80, 3),
        (101, 49792, 80, 8),
        (101, 49792, 80, 9),
        (101, 50078, 80, 4),
        (101, 52770, 80, 3),
        (101, 56238, 443, 2),
        (101, 56238, 443, 3),
        (101, 56238, 443, 8),
        (101, 56238, 443, 11),
        (103, 43326, 80, 3),
        (103, 49792, 80, 2),
        (103, 49792, 80, 3),
        (103, 49792, 80, 8),
        (103, 49792, 80, 9),
        (103, 50078, 80, 4),
        (103, 52770, 80, 3),
        (103, 56238, 443, 2),
        (103, 56238, 443, 3),
        (103, 56238, 443, 8),
        (103, 56238, 443, 11),
        (105, 56238, 443, 3),
        (107, 43326, 80, 3),
        (107, 49792, 80, 2),
        (107, 49792, 80, 3),
        (107, 49792, 80, 8),
        (107, 49792, 80, 9),
        (107, 50078, 80, 4),
        (107, 52770, 80, 3),
        (107, 56238, 443, 2),
        (107, 56238, 443, 3),
        (107, 56238, 443, 8),
        (107, 56238, 443, 11),
        (108, 56238, 443, 2),
        (108, 56238, 443, 3),
        (108, 56238, 443, 8),
        (108, 56238, 443, 11),
    ];
    assert_eq!(common::alert_txs(&eve), want);

    if common::suricata().is_none() {
        return;
    }
    let live = common::suricata_rules_eve(
        Path::new("/etc/suricata/suricata.yaml"),
        &pcap,
        &rules,
        &dir.join("suricata"),
    );
    assert_eq!(common::alert_txs(&live), want);
}
