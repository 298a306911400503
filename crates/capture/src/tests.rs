//! Reader tests over handcrafted files, each run on mapped bytes and on a chunked stream.

use proptest::prelude::*;

use crate::testutil::{drain, open_mode, pcap, read_all, Got, Ng, MODES};
use crate::{Batch, CaptureError, FileFormat, LinkType, Source, Timestamp};

fn pkt(n: u8, len: usize) -> Vec<u8> {
    (0..len).map(|i| n.wrapping_add(i as u8)).collect()
}

#[test]
fn pcap_both_orders_micro_and_nano() {
    let (a, b, c) = (pkt(1, 60), pkt(2, 1514), pkt(3, 0));
    for big in [false, true] {
        for nanos in [false, true] {
            let frac = if nanos { 123_456_789 } else { 123_456 };
            let recs: [(u32, u32, &[u8], u32); 3] = [
                (100, frac, &a, 60),
                (101, 0, &b, 1514),
                (4_000_000_000, 999, &c, 64),
            ];
            let file = pcap(big, nanos, 65535, 1, &recs);
            let (got, st) = read_all(&file);
            assert_eq!(got.len(), 3, "big={big} nanos={nanos}");
            let ns0 = if nanos { 123_456_789 } else { 123_456_000 };
            assert_eq!(got[0].ts, Timestamp::new(100, ns0));
            assert_eq!(got[0].data, a);
            assert_eq!(got[1].data, b);
            assert_eq!(got[1].wire_len, 1514);
            assert!(got[2].data.is_empty());
            assert_eq!(got[2].wire_len, 64);
            assert_eq!(got[2].ts.secs, 4_000_000_000);
            assert_eq!(got.iter().map(|g| g.index).collect::<Vec<_>>(), [1, 2, 3]);
            assert!(got
                .iter()
                .all(|g| g.link == LinkType::ETHERNET && g.interface == 0));
            assert_eq!(st.packets, 3);
            assert_eq!(st.bytes, 1574);
            assert_eq!((st.truncated, st.oversize, st.bad_blocks), (0, 0, 0));
        }
    }
}

#[test]
fn pcapng_two_interfaces_sections_and_block_kinds() {
    for big in [false, true] {
        let mut ng = Ng::new(big);
        ng.idb(1, 0, None) // Ethernet, microseconds
            .idb(113, 0, Some(9)) // SLL, nanoseconds
            .epb(0, 1_000_000_500, &pkt(1, 60), 60)
            .block(0x0bad_0001, b"unknown block body") // skipped
            .epb(1, 2_000_000_000_007, &pkt(2, 41), 41)
            .block(5, &[0; 20]) // interface statistics: skipped
            .spb(&pkt(3, 30), 30)
            .opb(1, 3_000_000_000_000, &pkt(4, 10), 99);
        // A second section in the other byte order, with its own interfaces.
        ng.order(!big)
            .shb()
            .idb(101, 0, Some(0x80 | 1))
            .epb(0, 7, &pkt(5, 20), 20);
        let (got, st) = read_all(&ng.bytes());
        let summary: Vec<_> = got
            .iter()
            .map(|g| {
                (
                    g.link.0,
                    g.interface,
                    g.ts,
                    g.data.len(),
                    g.wire_len,
                    g.index,
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                (1, 0, Timestamp::new(1000, 500_000), 60, 60, 1),
                (113, 1, Timestamp::new(2000, 7), 41, 41, 2),
                (1, 0, Timestamp::default(), 30, 30, 3),
                (113, 1, Timestamp::new(3000, 0), 10, 99, 4),
                (101, 0, Timestamp::new(3, 500_000_000), 20, 20, 5),
            ],
            "big={big}"
        );
        assert_eq!(got[0].data, pkt(1, 60));
        assert_eq!(got[1].data, pkt(2, 41));
        assert_eq!(got[4].data, pkt(5, 20));
        assert_eq!(
            (st.packets, st.truncated, st.oversize, st.bad_blocks),
            (5, 0, 0, 0)
        );
    }
}

#[test]
fn format_is_detected() {
    let p = open_mode(MODES[0], pcap(true, true, 0, 1, &[])).unwrap();
    assert_eq!(p.format(), FileFormat::Pcap);
    assert!(p.is_mapped());
    let ng = open_mode(MODES[1], Ng::new(false).bytes()).unwrap();
    assert_eq!(ng.format(), FileFormat::Pcapng);
    assert!(!ng.is_mapped());
}

#[test]
fn truncated_last_record_is_counted() {
    let a = pkt(1, 100);
    let file = pcap(false, false, 0, 1, &[(1, 0, &a, 100), (2, 0, &a, 100)]);
    for cut in [file.len() - 1, file.len() - 100, file.len() - 110] {
        let (got, st) = read_all(&file[..cut]);
        assert_eq!(got.len(), 1, "cut at {cut}");
        assert_eq!(st.truncated, 1);
    }
    // Cut exactly at a record boundary: a clean end.
    let (got, st) = read_all(&file[..file.len() - 116]);
    assert_eq!((got.len(), st.truncated), (1, 0));

    let mut ng = Ng::new(false);
    ng.idb(1, 0, None).epb(0, 0, &a, 100).epb(0, 0, &a, 100);
    let bytes = ng.bytes();
    for cut in [bytes.len() - 1, bytes.len() - 60, bytes.len() - 125] {
        let (got, st) = read_all(&bytes[..cut]);
        assert_eq!((got.len(), st.truncated), (1, 1), "cut at {cut}");
    }
}

#[test]
fn unreadable_inputs_are_one_line_errors() {
    let cases: [(&[u8], &str); 7] = [
        (b"", "empty file"),
        (b"\x1f\x8b\x08\x00rest of a gzip file", "gzip"),
        (
            b"GET / HTTP/1.1\r\n\r\n",
            "not a pcap or pcapng file (magic 0x47455420)",
        ),
        (b"\xd4\xc3", "shorter than a magic number"),
        (b"\xd4\xc3\xb2\xa1\x02\x00", "bad pcap header"),
        (
            b"\x0a\x0d\x0d\x0a\x1c\x00\x00\x00\x01\x02\x03\x04",
            "byte-order magic",
        ),
        (
            b"\x0a\x0d\x0d\x0a\x1c\x00\x00\x00\x4d\x3c\x2b\x1a",
            "shorter than",
        ),
    ];
    for (bytes, want) in cases {
        for mode in MODES {
            let err = open_mode(mode, bytes.to_vec()).err().expect("must fail");
            let msg = err.to_string();
            assert!(msg.contains(want), "{mode:?}: {msg:?} lacks {want:?}");
            assert!(!msg.contains('\n'));
        }
    }
    // Section header with a major version we do not know.
    let mut ng = Ng::new(false).bytes();
    ng[12] = 2;
    assert!(matches!(
        open_mode(MODES[0], ng),
        Err(CaptureError::BadHeader { .. })
    ));
    let missing = crate::open(std::path::Path::new("/nonexistent/osprey.pcap"));
    let msg = missing.err().expect("must fail").to_string();
    assert!(msg.starts_with("/nonexistent/osprey.pcap: "), "{msg}");
}

#[test]
fn oversize_records() {
    let big = vec![0xab; 300];
    // Snapshot length 100: frames are cut to it and counted, reading goes on.
    let file = pcap(
        false,
        false,
        100,
        1,
        &[(1, 0, &big, 300), (2, 0, &big[..50], 50)],
    );
    let (got, st) = read_all(&file);
    assert_eq!(
        got.iter().map(|g| g.data.len()).collect::<Vec<_>>(),
        [100, 50]
    );
    assert_eq!(got[0].wire_len, 300);
    assert_eq!(st.oversize, 1);
    // A caplen above 256 KiB: the record header is garbage, reading stops.
    let mut file = pcap(false, false, 0, 1, &[(1, 0, &big, 300), (2, 0, &big, 300)]);
    let second = 24 + 16 + 300;
    file[second + 8..second + 12].copy_from_slice(&(1u32 << 30).to_le_bytes());
    let (got, st) = read_all(&file);
    assert_eq!((got.len(), st.oversize, st.truncated), (1, 1, 0));
    // pcapng: an EPB claiming more than 256 KiB is skipped, the next block is read.
    let mut ng = Ng::new(false);
    ng.idb(1, 64, None);
    let first_epb = ng.bytes().len();
    ng.epb(0, 0, &big, 300).epb(0, 0, &big[..8], 8);
    let mut bytes = ng.bytes();
    assert_eq!(bytes[first_epb], 6);
    let (got, st) = read_all(&bytes);
    assert_eq!(
        got.iter().map(|g| g.data.len()).collect::<Vec<_>>(),
        [64, 8]
    );
    assert_eq!(st.oversize, 1);
    bytes[first_epb + 20..first_epb + 24].copy_from_slice(&(1u32 << 20).to_le_bytes());
    let (got, st) = read_all(&bytes);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].data.len(), 8);
    assert_eq!(st.oversize, 1);
}

#[test]
fn pcapng_bad_blocks() {
    let a = pkt(7, 12);
    let mut ng = Ng::new(false);
    ng.idb(1, 0, None).epb(0, 0, &a, 12);
    let good = ng.bytes();
    let idb_end = good.len() - (28 + 12 + 4);
    let with_tail = |tail: &[u8]| {
        let mut b = good.clone();
        b.extend_from_slice(tail);
        b.extend_from_slice(&good[idb_end..]);
        b
    };
    // Zero-length block, length not a multiple of 4, trailing length mismatch: stop.
    // (Unknown blocks are skipped by their leading length without reading them whole.)
    for tail in [
        &[6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0][..],
        &[0xff, 0, 0, 0, 13, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0][..],
        &[6, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 17, 0, 0, 0][..],
    ] {
        let (got, st) = read_all(&with_tail(tail));
        assert_eq!((got.len(), st.bad_blocks), (1, 1), "{tail:?}");
    }
    // A packet for an interface that was never declared is skipped.
    let mut ng = Ng::new(true);
    ng.idb(1, 0, None).epb(3, 0, &a, 12).epb(0, 0, &a, 12);
    let (got, st) = read_all(&ng.bytes());
    assert_eq!((got.len(), st.bad_blocks), (1, 1));
    assert_eq!(got[0].index, 1);
    // A captured length running past the block is skipped.
    let mut ng = Ng::new(false);
    ng.idb(1, 0, None).epb(0, 0, &a, 12);
    let mut b = ng.bytes();
    let caplen_at = b.len() - 4 - 12 - 8;
    b[caplen_at..caplen_at + 4].copy_from_slice(&13u32.to_le_bytes());
    let (got, st) = read_all(&b);
    assert_eq!((got.len(), st.bad_blocks), (0, 1));
}

#[test]
fn unknown_link_types_are_delivered_and_counted() {
    let a = pkt(0, 20);
    let (got, st) = read_all(&pcap(false, false, 0, 0x1234, &[(0, 0, &a, 20)]));
    assert_eq!(got[0].link, LinkType(0x1234));
    assert_eq!(st.unknown_link, 1);
}

#[test]
fn batches_are_bounded_and_numbered() {
    let a = pkt(9, 64);
    let recs: Vec<(u32, u32, &[u8], u32)> = (0..300).map(|i| (i, 0, &a[..], 64)).collect();
    let file = pcap(false, false, 0, 1, &recs);
    for mode in MODES {
        let mut src = open_mode(mode, file.clone()).unwrap();
        let mut batch = Batch::new();
        let mut sizes = Vec::new();
        let mut next = 1;
        while src.next_batch(&mut batch, 128).unwrap() > 0 {
            sizes.push(batch.len());
            for f in batch.iter() {
                assert_eq!(f.index, next);
                assert_eq!(f.ts.secs, next as i64 - 1);
                next += 1;
            }
        }
        assert_eq!(sizes, [128, 128, 44], "{mode:?}");
        // max = 0 still makes progress.
        let mut src = open_mode(mode, file.clone()).unwrap();
        assert_eq!(src.next_batch(&mut batch, 0).unwrap(), 1);
        assert_eq!(drain(&mut src, 1000).0.len(), 299);
    }
}

#[test]
fn batches_outlive_the_source_and_cross_threads() {
    let a = pkt(5, 64);
    let file = pcap(false, false, 0, 1, &[(0, 0, &a, 64), (1, 0, &a, 64)]);
    for mode in MODES {
        let mut src = open_mode(mode, file.clone()).unwrap();
        let mut batch = Batch::new();
        src.next_batch(&mut batch, 128).unwrap();
        drop(src);
        let handle =
            std::thread::spawn(move || batch.iter().map(|f| f.data.to_vec()).collect::<Vec<_>>());
        assert_eq!(handle.join().unwrap(), [a.clone(), a.clone()]);
    }
}

#[test]
fn files_and_fifos() {
    let dir = std::env::temp_dir().join(format!("osprey-capture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = pkt(1, 70);
    let file = pcap(true, true, 0, 1, &[(5, 6, &a, 70)]);
    let path = dir.join("x.pcap");
    std::fs::write(&path, &file).unwrap();
    let src = crate::FileSource::open(&path).unwrap();
    assert!(src.is_mapped());
    let mut src: Box<dyn Source> = Box::new(src);
    let (got, _) = drain(&mut *src, 128);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].data, a);

    let empty = dir.join("empty.pcap");
    std::fs::write(&empty, b"").unwrap();
    assert!(matches!(
        crate::open(&empty),
        Err(CaptureError::Empty { .. })
    ));

    // A named pipe cannot be mapped: it is streamed.
    let fifo = dir.join("fifo.pcap");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } == 0 {
        let writer_path = fifo.clone();
        let data = file.clone();
        let w = std::thread::spawn(move || std::fs::write(writer_path, data).unwrap());
        let src = crate::FileSource::open(&fifo).unwrap();
        assert!(!src.is_mapped());
        let mut src: Box<dyn Source> = Box::new(src);
        let (got2, _) = drain(&mut *src, 128);
        w.join().unwrap();
        assert_eq!(got2, got);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn read_errors_are_reported() {
    struct Failing(usize);
    impl std::io::Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let hdr = crate::testutil::pcap(false, false, 0, 1, &[(0, 0, &[1; 10], 10)]);
            if self.0 >= hdr.len() {
                return Err(std::io::Error::other("disk on fire"));
            }
            let n = buf.len().min(hdr.len() - self.0);
            buf[..n].copy_from_slice(&hdr[self.0..self.0 + n]);
            self.0 += n;
            Ok(n)
        }
    }
    let mut src = crate::open_reader(std::path::Path::new("f"), Box::new(Failing(0))).unwrap();
    let mut batch = Batch::new();
    // The frame read before the failure is delivered, then the error.
    assert_eq!(src.next_batch(&mut batch, 128).unwrap(), 1);
    let err = src.next_batch(&mut batch, 128).unwrap_err().to_string();
    assert_eq!(err, "f: disk on fire");
    assert_eq!(src.next_batch(&mut batch, 128).unwrap(), 0);
}

/// A small valid file of each format, for mutation.
fn seeds() -> Vec<Vec<u8>> {
    let a = pkt(3, 40);
    let mut ng = Ng::new(false);
    ng.idb(1, 0, Some(9))
        .idb(113, 30, None)
        .epb(0, 5, &a, 40)
        .spb(&a, 40);
    ng.epb(1, 9, &a, 40).opb(0, 1, &a, 40);
    ng.order(true).shb().idb(1, 0, None).epb(0, 77, &a, 40);
    vec![
        pcap(false, false, 0, 1, &[(1, 2, &a, 40), (3, 4, &a, 40)]),
        pcap(true, true, 20, 113, &[(1, 2, &a, 40), (3, 4, &a, 40)]),
        ng.bytes(),
    ]
}

fn no_panic(bytes: &[u8]) -> Vec<Got> {
    let mut all = Vec::new();
    for mode in MODES {
        if let Ok(mut src) = open_mode(mode, bytes.to_vec()) {
            let (got, st) = drain(&mut src, 7);
            assert_eq!(st.packets, got.len() as u64);
            assert!(got
                .iter()
                .all(|g| g.data.len() <= crate::MAX_CAPLEN as usize));
            all.push(got);
        }
    }
    if let [a, b] = &all[..] {
        assert_eq!(a, b, "memory and stream modes disagree");
    }
    all.pop().unwrap_or_default()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic(mut bytes in proptest::collection::vec(any::<u8>(), 0..600), kind in 0..3u8) {
        // Give a third of the inputs a valid magic so the record parsers are reached.
        match kind {
            0 if bytes.len() >= 4 => bytes[..4].copy_from_slice(&[0xd4, 0xc3, 0xb2, 0xa1]),
            1 if bytes.len() >= 12 => {
                bytes[..4].copy_from_slice(&[0x0a, 0x0d, 0x0d, 0x0a]);
                bytes[8..12].copy_from_slice(&[0x4d, 0x3c, 0x2b, 0x1a]);
            }
            _ => {}
        }
        no_panic(&bytes);
    }

    #[test]
    fn mutated_files_never_panic(
        seed in 0..3usize,
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
        cut in any::<usize>(),
    ) {
        let mut bytes = seeds().swap_remove(seed);
        for (at, v) in edits {
            let i = at % bytes.len();
            bytes[i] = v;
        }
        let keep = bytes.len() - cut % (bytes.len() / 4 + 1);
        bytes.truncate(keep);
        no_panic(&bytes);
    }
}

/// A capture of `n` 1,500-byte frames written to a fresh temporary folder named after
/// `tag`: the frames, the file's bytes, the folder and the file's path.
fn big_capture(
    n: u32,
    tag: &str,
) -> (
    Vec<Vec<u8>>,
    Vec<u8>,
    std::path::PathBuf,
    std::path::PathBuf,
) {
    let frames: Vec<Vec<u8>> = (0..n).map(|i| pkt(i as u8, 1500)).collect();
    let recs: Vec<(u32, u32, &[u8], u32)> = frames
        .iter()
        .enumerate()
        .map(|(i, f)| (i as u32, 0, &f[..], 1500))
        .collect();
    let file = pcap(false, false, 65535, 1, &recs);
    let dir = std::env::temp_dir().join(format!("osprey-capture-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.pcap");
    std::fs::write(&path, &file).unwrap();
    (frames, file, dir, path)
}

#[test]
fn a_mapped_file_read_once_is_not_kept_resident() {
    // 40 MB of frames: the pages behind the reader are released, the frames of a batch
    // still held read back right, and the file's resident share stays small.
    let (frames, file, dir, path) = big_capture(27_000, "rss");
    let mut src = crate::FileSource::open(&path).unwrap();
    assert!(src.is_mapped());
    let mut first = Batch::new();
    assert_eq!(src.next_batch(&mut first, 128).unwrap(), 128);
    let mut b = Batch::new();
    let mut n = 128;
    let mut max_resident = 0;
    loop {
        let got = src.next_batch(&mut b, 128).unwrap();
        if got == 0 {
            break;
        }
        for (k, f) in b.iter().enumerate() {
            assert_eq!(f.data, &frames[n + k][..]);
        }
        n += got;
        if let Some(r) = src.mapped_resident() {
            max_resident = max_resident.max(r);
        }
    }
    assert_eq!(n, frames.len());
    // The first batch's pages were released long ago: reading them maps them again.
    for (k, f) in first.iter().enumerate() {
        assert_eq!(f.data, &frames[k][..]);
    }
    if src.mapped_resident().is_some() {
        // At most the lag behind the reader and a step or two of pages.
        assert!(
            max_resident <= 24 << 20 && max_resident < file.len() * 2 / 3,
            "{max_resident} of {} resident",
            file.len()
        );
    } else {
        println!("skipped the residency check: /proc/self/smaps unreadable");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_caller_releases_a_mapped_file_where_its_consumers_are() {
    // 12 MB of frames read by a caller whose consumers lag: nothing is released on the
    // source's own (the lag of a batch still held could be anything), then exactly up
    // to the position the caller names.
    let (frames, file, dir, path) = big_capture(8_000, "rel");
    let mut src = crate::FileSource::open(&path).unwrap();
    src.release_by_caller();
    let mut b = Batch::new();
    let mut half = 0;
    let mut n = 0;
    loop {
        let got = src.next_batch(&mut b, 128).unwrap();
        if got == 0 {
            break;
        }
        n += got;
        if n <= frames.len() / 2 {
            half = src.position();
        }
    }
    assert_eq!(n, frames.len());
    assert_eq!(src.position(), file.len() as u64);
    let Some(all) = src.mapped_resident() else {
        std::fs::remove_dir_all(&dir).ok();
        eprintln!("skipped: /proc/self/smaps not readable");
        return;
    };
    assert!(
        all >= file.len() * 9 / 10,
        "{all} of {} resident",
        file.len()
    );
    src.release_before(half);
    let left = src.mapped_resident().unwrap();
    let released = all - left;
    assert!(
        released >= half as usize - (4 << 20) && released <= half as usize + 4096,
        "released {released}, asked for {half}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
