//! Fuzzing support shared by the workspace: the frame driver of the cargo-fuzz target
//! `fuzz/fuzz_targets/frame.rs`, and [`replay`], which the crates' corpus-replay tests
//! use to run a checked-in corpus and deterministic mutations of it under a watchdog.

use std::path::Path;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use crate::{Decoded, Decoder, DecoderConfig, LinkType, Timestamp};

/// The link types byte 0 of a [`decode_frame`] input chooses from.
const LINK_TYPES: &[LinkType] = &[
    LinkType::ETHERNET,
    LinkType::RAW,
    LinkType::NULL,
    LinkType::PPP,
    LinkType::LINUX_SLL,
    LinkType::LINUX_SLL2,
    LinkType::IPV4,
    LinkType::IPV6,
    LinkType::C_HDLC,
    LinkType::LOOP,
];

/// Decodes `data[2..]` as one frame: byte 0 picks the link type, byte 1 bit 0 turns
/// checksum verification on and bit 1 IPv4-in-IPv4 decoding. Then decodes the outer IP
/// layer again, as the defragmenter's rebuilt datagrams are. Never panics on any input.
pub fn decode_frame(data: &[u8]) {
    let [link, flags, frame @ ..] = data else {
        return;
    };
    let link = LINK_TYPES[usize::from(*link) % LINK_TYPES.len()];
    let mut dec = Decoder::new(DecoderConfig {
        verify_checksums: flags & 1 != 0,
        ipv4_in_ipv4: flags & 2 != 0,
        ..DecoderConfig::default()
    });
    let mut out = Decoded::new();
    dec.decode(link, frame, Timestamp(1), frame.len() as u32, &mut out);
    for p in out.packets() {
        let _ = (p.ipv4(frame), p.ipv6(frame), p.tcp(frame), p.udp(frame));
        std::hint::black_box(p.payload(frame));
    }
    let outer = *out.outer();
    dec.decode_ip(frame, &outer, &mut out);
}

/// The files of a corpus folder, sorted by name, with their bytes.
pub fn corpus(dir: &Path) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut seeds = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        let name = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        seeds.push((name, std::fs::read(&p)?));
    }
    seeds.sort();
    Ok(seeds)
}

/// `n` mutations of `data`: four bytes after the first `keep` (the selector bytes of a
/// driver's layout) xored with pseudo-random values each time (xorshift, fixed seed).
pub fn mutations(data: &[u8], keep: usize, n: usize) -> impl Iterator<Item = Vec<u8>> + '_ {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..n).map(move |_| {
        let mut m = data.to_vec();
        for _ in 0..4 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if m.len() > keep {
                let i = keep + (x as usize) % (m.len() - keep);
                m[i] ^= (x >> 32) as u8 | 1;
            }
        }
        m
    })
}

/// Runs `drive` on every seed and on `per_seed` [`mutations`] of each, on a thread
/// watched for `budget`. Panics (naming the seed and mutation still running) when the
/// budget runs out: a parser that loops must fail the test, not hang CI. A panic in
/// `drive` is passed on.
pub fn replay(
    seeds: Vec<(String, Vec<u8>)>,
    keep: usize,
    per_seed: usize,
    budget: Duration,
    drive: fn(&[u8]),
) {
    let current = Arc::new(Mutex::new(String::new()));
    let (done, finished) = mpsc::channel();
    let now = Arc::clone(&current);
    let worker = std::thread::spawn(move || {
        for (name, data) in &seeds {
            *now.lock().unwrap() = name.clone();
            drive(data);
            for (i, m) in mutations(data, keep, per_seed).enumerate() {
                *now.lock().unwrap() = format!("{name} mutation {i}");
                drive(&m);
            }
        }
        let _ = done.send(());
    });
    match finished.recv_timeout(budget) {
        Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => {
            if let Err(panic) = worker.join() {
                std::panic::resume_unwind(panic);
            }
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!(
            "replay still running after {budget:?}, on {}",
            current.lock().unwrap()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_deterministic_and_keep_the_selector() {
        let data = [7u8, 1, 10, 20, 30, 40];
        let a: Vec<_> = mutations(&data, 2, 5).collect();
        let b: Vec<_> = mutations(&data, 2, 5).collect();
        assert_eq!(a, b);
        assert!(a.iter().all(|m| m[..2] == data[..2] && m[2..] != data[2..]));
    }

    #[test]
    #[should_panic(expected = "replay still running")]
    fn a_looping_driver_fails_within_the_budget() {
        fn spin(_: &[u8]) {
            std::thread::sleep(Duration::from_secs(5));
        }
        replay(
            vec![("slow".into(), vec![0, 0])],
            2,
            0,
            Duration::from_millis(50),
            spin,
        );
    }
}
