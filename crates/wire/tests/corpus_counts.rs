//! Decodes every pcap of the shared corpus plus sv-ether.pcap: no panic, and per-file
//! frame counts by outer protocol equal to tshark's (fixtures/tshark_counts.json; the
//! definition and the regeneration command are in fixtures/tshark_counts.py).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use wire::{flags, Decoded, Decoder, DecoderConfig, Packet, Timestamp};

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared");
const FIXTURE: &str = include_str!("fixtures/tshark_counts.json");

type Counts = BTreeMap<String, u64>;

/// Where tshark and we differ on purpose, as (file, counter, ours - tshark). Checked
/// exactly, so any change in either direction fails the test.
/// - sv-ether.pcap, 16 frames: 11 IPv4 packets that Suricata classifies invalid
///   (`ipv4.trunc_pkt`: total length beyond the captured bytes, and header-length errors)
///   are still dissected as IP (and 7 as TCP, 2 as ICMP, 1 as UDP) by tshark, while our
///   decoder, like Suricata, records no IP layer for them; 4 frames are the other way
///   round: tshark stops at an IPv4 header it finds malformed where Suricata and we
///   decode the transport header (net: udp +1). And 4 IPv6 frames whose fragment header
///   (offset 0, no more fragments) is followed by under two bytes: tshark counts 2 as
///   TCP and 2 as ICMPv6, Suricata and we stop at `ipv6.trunc_exthdr` (our
///   `decoder.tcp` is Suricata's 71,557 with them left out).
/// - bug-6875-01: a damaged file (second record claims 16 MB); tshark lists the damaged
///   record as a frame and shows the first one as Ethernet type 0x4000, we stop at the
///   damaged record and read the first frame per the file's link type.
const KNOWN_DELTAS: &[(&str, &str, i64)] = &[
    ("pcaps/sv-ether.pcap", "ip", -12),
    ("pcaps/sv-ether.pcap", "tcp", -9),
    ("pcaps/sv-ether.pcap", "icmp", -2),
    ("pcaps/sv-ether.pcap", "icmpv6", -2),
    ("pcaps/sv-ether.pcap", "udp", 1),
    ("corpus/open/bug-6875-01/input.pcap", "frames", -1),
    ("corpus/open/bug-6875-01/input.pcap", "ip", 1),
    ("corpus/open/bug-6875-01/input.pcap", "tcp", 1),
];

/// The fixture's definition, from our outer packet.
fn classify(p: &Packet, c: &mut Counts) {
    *c.entry("frames".into()).or_default() += 1;
    let ip = match p.ip_version {
        4 => "ip",
        6 => "ipv6",
        _ => return,
    };
    *c.entry(ip.into()).or_default() += 1;
    if p.has(flags::FRAGMENT) {
        return;
    }
    let l4 = match (p.proto, p.ip_version) {
        (6, _) => "tcp",
        (17, _) => "udp",
        (1, 4) => "icmp",
        (58, 6) => "icmpv6",
        (132, _) => "sctp",
        (47, _) => "gre",
        _ => return,
    };
    *c.entry(l4.into()).or_default() += 1;
}

fn decode_file(path: &Path) -> Counts {
    let mut counts = Counts::new();
    let mut src = capture::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut batch = capture::Batch::new();
    let mut dec = Decoder::new(DecoderConfig::default());
    let mut out = Decoded::new();
    // A damaged file (one corpus pcap has a record over 256 KiB) ends where the reader
    // stops, as tshark stops there too.
    while src.next_batch(&mut batch, capture::BATCH_SIZE).unwrap_or(0) > 0 {
        for f in batch.iter() {
            let ts = Timestamp::from_secs_nanos(f.ts.secs.max(0) as u64, f.ts.nanos);
            dec.decode(f.link, f.data, ts, f.wire_len, &mut out);
            classify(out.outer(), &mut counts);
        }
    }
    counts
}

#[test]
fn corpus_counts_match_tshark() {
    if !Path::new(SHARED).join("pcaps/sv-ether.pcap").exists() {
        assert!(
            std::env::var("OSPREY_REQUIRE_DATA").as_deref() != Ok("1"),
            "{SHARED} missing and OSPREY_REQUIRE_DATA=1"
        );
        eprintln!("skipping: {SHARED} not found");
        return;
    }
    let fixture: BTreeMap<String, Counts> = serde_json::from_str(FIXTURE).expect("fixture");
    assert!(fixture.len() > 500, "fixture lists {} pcaps", fixture.len());
    let mut mismatches = Vec::new();
    for (rel, want) in &fixture {
        let path: PathBuf = Path::new(SHARED).join(rel);
        let mut got = decode_file(&path);
        for k in want.keys() {
            got.entry(k.clone()).or_default();
        }
        let want: Counts = want
            .iter()
            .map(|(k, v)| {
                let delta = KNOWN_DELTAS
                    .iter()
                    .find(|(f, c, _)| f == rel && c == k)
                    .map_or(0, |d| d.2);
                (k.clone(), v.saturating_add_signed(delta))
            })
            .collect();
        if got != want {
            let diff: Vec<String> = want
                .iter()
                .filter(|(k, v)| got.get(*k) != Some(v))
                .map(|(k, v)| format!("{k}: expected {v} ours {}", got[k]))
                .collect();
            mismatches.push(format!("{rel}: {}", diff.join(", ")));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} files differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
