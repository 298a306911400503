//! `copytruncate` rotation of a file output while it is written: with `append: yes`
//! (Suricata's default, `O_APPEND`) the next write lands at the file's new end, so the
//! file never holds NUL bytes; without it the writes go on at the old offset and leave
//! a hole of NULs (the control, which shows the check can fail).

mod common;

use std::path::Path;

use common::{temp_dir, wait_for};
use output::{LineWriter, SinkSpec};

/// A line of about 100 bytes.
fn line(i: usize) -> Vec<u8> {
    format!("{{\"n\":{i},\"pad\":\"{}\"}}", "x".repeat(80)).into_bytes()
}

/// Writes 2000 lines (several buffer flushes), copies and truncates the file as
/// logrotate's `copytruncate` does, writes 2000 more; returns (copy, file).
fn rotate(path: &Path, append: bool) -> (Vec<u8>, Vec<u8>) {
    let spec = SinkSpec::File {
        path: path.to_owned(),
        append,
    };
    let w = LineWriter::open(&spec, None).unwrap();
    for i in 0..2000 {
        w.write_line(line(i)).unwrap();
    }
    wait_for("lines on disk", || {
        std::fs::metadata(path).map_or(0, |m| m.len()) > 100_000
    });
    let copy = std::fs::read(path).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(0)
        .unwrap();
    for i in 2000..4000 {
        w.write_line(line(i)).unwrap();
    }
    assert_eq!(w.finish().unwrap(), 4000);
    (copy, std::fs::read(path).unwrap())
}

#[test]
fn copytruncate_leaves_no_nul_bytes_with_append() {
    let dir = temp_dir("copytruncate");
    let path = dir.join("eve.json");
    // Appending to what an earlier run left, as Suricata does.
    std::fs::write(&path, b"{\"earlier\":true}\n").unwrap();
    let (copy, after) = rotate(&path, true);
    assert!(copy.starts_with(b"{\"earlier\":true}\n"));
    assert!(!after.contains(&0), "NUL bytes after copytruncate");
    assert!(!after.is_empty());
    let text = String::from_utf8(after).unwrap();
    assert!(text.ends_with('\n'));
    // Whole lines, consecutive, up to the last one written; only the first may be the
    // tail of a line cut by the truncation (copytruncate's own race).
    let nums: Vec<usize> = text
        .lines()
        .skip(1)
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["n"].as_u64().unwrap() as usize
        })
        .collect();
    assert_eq!(nums.last(), Some(&3999));
    assert!(nums.windows(2).all(|p| p[1] == p[0] + 1));
    assert!(
        nums[0] <= 2000,
        "lines written after the truncation are missing"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn copytruncate_without_append_leaves_a_hole_of_nuls() {
    let dir = temp_dir("copytruncate-noappend");
    let path = dir.join("eve.json");
    let (_, after) = rotate(&path, false);
    assert!(after.starts_with(&[0; 4096]), "the control found no hole");
    std::fs::remove_dir_all(&dir).unwrap();
}
