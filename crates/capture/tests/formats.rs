//! The format samples in `shared/pcaps/formats/` decode to the same frames as their source,
//! and `sv-ether.pcap` has the frame count Suricata reports.

use std::path::{Path, PathBuf};

use capture::{Batch, CaptureStats, LinkType, Source, BATCH_SIZE};
use proptest::prelude::*;

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/pcaps");

/// The shared file, or `None` (test skipped with a reason) unless OSPREY_REQUIRE_DATA=1.
fn shared(name: &str) -> Option<PathBuf> {
    let path = Path::new(SHARED).join(name);
    if path.exists() {
        return Some(path);
    }
    if std::env::var("OSPREY_REQUIRE_DATA").as_deref() == Ok("1") {
        panic!("{} is missing and OSPREY_REQUIRE_DATA=1", path.display());
    }
    eprintln!("skipped: {} not found", path.display());
    None
}

#[derive(Debug, PartialEq, Eq)]
struct Got {
    data: Vec<u8>,
    micros: i64,
    wire_len: u32,
    link: LinkType,
    interface: u32,
    index: u64,
}

fn drain(src: &mut dyn Source) -> (Vec<Got>, CaptureStats) {
    let mut batch = Batch::new();
    let mut out = Vec::new();
    while src.next_batch(&mut batch, BATCH_SIZE).unwrap() > 0 {
        out.extend(batch.iter().map(|f| Got {
            data: f.data.to_vec(),
            micros: f.ts.as_micros(),
            wire_len: f.wire_len,
            link: f.link,
            interface: f.interface,
            index: f.index,
        }));
    }
    (out, src.stats())
}

/// Reads a file mapped and streamed; both must agree and be clean.
fn read(path: &Path) -> Vec<Got> {
    let (mapped, st) = drain(&mut *capture::open(path).unwrap());
    let file = std::fs::File::open(path).unwrap();
    let (streamed, st2) = drain(&mut *capture::open_reader(path, Box::new(file)).unwrap());
    assert_eq!(mapped, streamed, "{}", path.display());
    assert_eq!(st, st2);
    assert_eq!(
        (st.truncated, st.oversize, st.bad_blocks, st.unknown_link),
        (0, 0, 0, 0),
        "{}",
        path.display()
    );
    assert_eq!(st.packets, mapped.len() as u64);
    mapped
}

#[test]
fn every_format_decodes_to_the_source_frames() {
    let Some(source) = shared("formats/ether-usec-le.pcap") else {
        return;
    };
    let want = read(&source);
    assert_eq!(want.len(), 78);
    assert!(want
        .iter()
        .all(|g| g.link == LinkType::ETHERNET && g.interface == 0));
    for name in ["ether-usec-be.pcap", "ether-nsec-le.pcap", "ether.pcapng"] {
        let Some(path) = shared(&format!("formats/{name}")) else {
            return;
        };
        assert_eq!(read(&path), want, "{name}");
    }
}

#[test]
fn two_interfaces_pcapng_holds_both_sources() {
    let (Some(eth), Some(sll), Some(two)) = (
        shared("formats/ether-usec-le.pcap"),
        shared("formats/sll-usec-le.pcap"),
        shared("formats/two-interfaces.pcapng"),
    ) else {
        return;
    };
    let eth = read(&eth);
    let sll = read(&sll);
    assert_eq!(sll.len(), 10);
    assert!(sll.iter().all(|g| g.link == LinkType::LINUX_SLL));
    let two = read(&two);
    assert_eq!(two.len(), 88);
    let key = |g: &Got| (g.data.clone(), g.micros, g.wire_len, g.link);
    let mut got_eth: Vec<_> = two
        .iter()
        .filter(|g| g.link == LinkType::ETHERNET)
        .collect();
    let got_sll: Vec<_> = two
        .iter()
        .filter(|g| g.link == LinkType::LINUX_SLL)
        .collect();
    assert_eq!(got_eth.len(), 78);
    assert_eq!(got_sll.len(), 10);
    // Each link type sits on its own interface.
    assert!(got_eth.windows(2).all(|w| w[0].interface == w[1].interface));
    assert!(got_sll.iter().all(|g| g.interface != got_eth[0].interface));
    got_eth.sort_by_key(|g| g.index);
    assert_eq!(
        got_eth.iter().map(|g| key(g)).collect::<Vec<_>>(),
        eth.iter().map(key).collect::<Vec<_>>()
    );
    assert_eq!(
        got_sll.iter().map(|g| key(g)).collect::<Vec<_>>(),
        sll.iter().map(key).collect::<Vec<_>>()
    );
    assert_eq!(
        two.iter().map(|g| g.index).collect::<Vec<_>>(),
        (1..=88).collect::<Vec<_>>()
    );
}

#[test]
fn sv_ether_frame_count() {
    let Some(path) = shared("sv-ether.pcap") else {
        return;
    };
    let mut src = capture::open(&path).unwrap();
    let mut batch = Batch::new();
    let mut frames = 0u64;
    let mut last = 0;
    while src.next_batch(&mut batch, BATCH_SIZE).unwrap() > 0 {
        assert!(batch.len() <= BATCH_SIZE);
        frames += batch.len() as u64;
        last = batch.get(batch.len() - 1).unwrap().index;
    }
    let st = src.stats();
    assert_eq!(frames, 183_315);
    assert_eq!(last, 183_315);
    assert_eq!(st.packets, 183_315);
    assert_eq!((st.truncated, st.oversize, st.bad_blocks), (0, 0, 0));
}

fn sample(name: &str) -> Vec<u8> {
    shared(&format!("formats/{name}"))
        .map(|p| std::fs::read(p).unwrap())
        .unwrap_or_default()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random byte edits and truncations of real files: never a panic, and every frame
    /// delivered lies within the limits.
    #[test]
    fn mutated_samples_never_panic(
        which in 0..3usize,
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..16),
        cut in any::<usize>(),
    ) {
        let name = ["ether-usec-be.pcap", "two-interfaces.pcapng", "ether-nsec-le.pcap"][which];
        let mut bytes = sample(name);
        if bytes.is_empty() {
            return Ok(());
        }
        for (at, v) in edits {
            let i = at % bytes.len();
            bytes[i] = v;
        }
        let keep = bytes.len() - cut % bytes.len();
        bytes.truncate(keep);
        let name = Path::new(name);
        if let Ok(mut src) = capture::open_bytes(name, bytes.clone()) {
            let (got, st) = drain(&mut *src);
            prop_assert_eq!(st.packets, got.len() as u64);
            prop_assert!(got.iter().all(|g| g.data.len() <= capture::MAX_CAPLEN as usize));
            let (streamed, _) = drain(&mut *capture::open_reader(name, Box::new(std::io::Cursor::new(bytes))).unwrap());
            prop_assert_eq!(got, streamed);
        }
    }
}
