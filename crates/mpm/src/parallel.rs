//! Scanning one large buffer with several threads (V-PATCH paper §4.2, "Scaling across
//! multiple threads"): the buffer is cut into equal chunks, one per thread, and each thread
//! also scans the `max_pattern_len - 1` bytes before its chunk, so an occurrence that
//! straddles a border is seen whole by the thread whose chunk holds its last byte. A thread
//! keeps only the matches that end inside its own chunk, so none is lost or doubled.

use crate::{Match, Matcher};

/// Every match of `matcher` in `haystack`, found by `threads` threads (at least one);
/// `max_pattern_len` must be at least the longest pattern the matcher was built from.
/// The result is the multiset [`Matcher::find_all`] gives, sorted by end offset and id.
pub fn scan_parallel(
    matcher: &Matcher,
    max_pattern_len: usize,
    haystack: &[u8],
    threads: usize,
) -> Vec<Match> {
    let n = haystack.len();
    let threads = threads.clamp(1, n.max(1));
    let chunk = n.div_ceil(threads);
    let overlap = max_pattern_len.saturating_sub(1);
    let mut parts: Vec<Vec<Match>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (a, b) = ((t * chunk).min(n), ((t + 1) * chunk).min(n));
                s.spawn(move || {
                    let from = a.saturating_sub(overlap);
                    let mut out = Vec::new();
                    matcher.scan(&haystack[from..b], &mut |m| {
                        let end = from + m.end;
                        if end > a {
                            out.push(Match { end, ..m });
                        }
                    });
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("scan thread panicked"))
            .collect()
    });
    let mut all = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for p in &mut parts {
        all.append(p);
    }
    all.sort_unstable_by_key(|m| (m.end, m.pattern));
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{pseudo_random, sorted};
    use crate::{Kind, Pattern};

    #[test]
    fn chunk_borders_lose_and_double_nothing() {
        // Zero runs and text cut at every border, for every thread count.
        let mut hay = pseudo_random(3, 5000);
        for at in (0..5000).step_by(97) {
            let end = (at + 13).min(5000);
            hay[at..end].fill(0);
        }
        for at in (50..5000).step_by(211) {
            hay[at..at + 6].copy_from_slice(b"needle");
        }
        let pats: Vec<Pattern> = (1..=12u32)
            .map(|n| Pattern::new(vec![0u8; n as usize], n))
            .chain([
                Pattern::nocase(&b"NEEDLE"[..], 100),
                Pattern::new(&b"e"[..], 101),
            ])
            .collect();
        for kind in [Kind::AcFull, Kind::Spatch, Kind::Vpatch, Kind::Dfc] {
            let m = Matcher::new(kind, &pats).unwrap();
            let want = sorted(m.find_all(&hay));
            assert!(!want.is_empty());
            for threads in [1, 2, 3, 7, 16, 5000, 6000] {
                let got = sorted(scan_parallel(&m, 12, &hay, threads));
                assert_eq!(got, want, "{kind} with {threads} threads");
            }
        }
        let m = Matcher::new(Kind::Spatch, &pats).unwrap();
        assert!(scan_parallel(&m, 12, b"", 4).is_empty());
    }
}
