//! Scanning one large buffer with several threads (V-PATCH paper §4.2, "Scaling across
//! multiple threads"): the buffer is cut into equal chunks, one per thread, and the scans
//! of neighbouring chunks overlap by the longest pattern length minus one, so an occurrence
//! that straddles a border is seen whole. Here each thread also scans the
//! `max_pattern_len - 1` bytes *before* its chunk (the paper lets each thread run on into
//! the next chunk: the same overlap, seen from the other side) and keeps only the matches
//! that end inside its own chunk, so none is lost or doubled.
//!
//! The filter-then-verify matchers (DFC, S-PATCH, V-PATCH) and the Aho-Corasick automata
//! alike start from any offset, so every [`Matcher`] kind can be split this way.

use crate::{Match, Matcher};

/// The byte range one thread scans and the offset from which it keeps matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// First byte scanned (the overlap before the chunk included).
    pub scan_from: usize,
    /// First byte of the chunk: matches ending after it are the chunk's.
    pub start: usize,
    /// One past the chunk's last byte (and the scan's).
    pub end: usize,
}

/// The chunks of a `len`-byte buffer for `threads` threads (at least one, at most one per
/// byte) with an overlap of `max_pattern_len - 1` bytes.
pub fn chunks(len: usize, threads: usize, max_pattern_len: usize) -> Vec<Chunk> {
    let threads = threads.clamp(1, len.max(1));
    let size = len.div_ceil(threads);
    let overlap = max_pattern_len.saturating_sub(1);
    (0..threads)
        .map(|t| {
            let (start, end) = ((t * size).min(len), ((t + 1) * size).min(len));
            Chunk {
                scan_from: start.saturating_sub(overlap),
                start,
                end,
            }
        })
        .collect()
}

/// Run `per_chunk(matcher, chunk, on_match)` on one scoped thread per chunk of `haystack`
/// (the calling thread takes the first chunk); `on_match` gets the matches that end inside
/// the chunk, with offsets into `haystack`. Returns each chunk's result, in order.
fn run_chunks<R: Send>(
    matcher: &Matcher,
    haystack: &[u8],
    threads: usize,
    per_chunk: impl Fn(&mut dyn FnMut(&mut dyn FnMut(Match))) -> R + Sync,
) -> Vec<R> {
    let one = |c: Chunk| {
        per_chunk(&mut |on_match: &mut dyn FnMut(Match)| {
            matcher.scan(&haystack[c.scan_from..c.end], &mut |m: Match| {
                let end = c.scan_from + m.end;
                if end > c.start {
                    on_match(Match { end, ..m });
                }
            })
        })
    };
    let all = chunks(haystack.len(), threads, matcher.max_pattern_len());
    let (first, rest) = all.split_first().expect("at least one chunk");
    std::thread::scope(|s| {
        let handles: Vec<_> = rest
            .iter()
            .map(|&c| {
                let one = &one;
                s.spawn(move || one(c))
            })
            .collect();
        let mut out = vec![one(*first)];
        out.extend(
            handles
                .into_iter()
                .map(|h| h.join().expect("scan thread panicked")),
        );
        out
    })
}

/// Every match of `matcher` in `haystack`, found by `threads` threads (at least one): the
/// multiset [`Matcher::find_all`] gives, sorted by end offset and pattern id.
pub fn scan_parallel(matcher: &Matcher, haystack: &[u8], threads: usize) -> Vec<Match> {
    let mut parts = run_chunks(matcher, haystack, threads, |scan| {
        let mut out = Vec::new();
        scan(&mut |m| out.push(m));
        out
    });
    let mut all = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for p in &mut parts {
        all.append(p);
    }
    all.sort_unstable_by_key(|m| (m.end, m.pattern));
    all
}

/// The number of matches of `matcher` in `haystack` ([`Matcher::count`]), found by
/// `threads` threads: the scan alone, without collecting the matches.
pub fn count_parallel(matcher: &Matcher, haystack: &[u8], threads: usize) -> usize {
    run_chunks(matcher, haystack, threads, |scan| {
        let mut n = 0usize;
        scan(&mut |_| n += 1);
        n
    })
    .into_iter()
    .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{pseudo_random, sorted};
    use crate::{Kind, Pattern};

    #[test]
    fn chunks_cover_the_buffer_once() {
        for (len, threads, max) in [(0, 3, 5), (1, 4, 1), (10, 3, 4), (1000, 7, 50), (5, 9, 0)] {
            let cs = chunks(len, threads, max);
            assert!(!cs.is_empty() && cs.len() <= threads.max(1));
            assert_eq!(cs[0].start, 0);
            assert_eq!(cs.last().unwrap().end, len);
            for w in cs.windows(2) {
                assert_eq!(w[0].end, w[1].start);
            }
            for c in &cs {
                assert!(c.scan_from <= c.start && c.start <= c.end);
                assert_eq!(c.start - c.scan_from, c.start.min(max.saturating_sub(1)));
            }
        }
    }

    /// A haystack with zero runs and text cut at every border of many chunkings, and
    /// patterns up to 12 bytes (the overlap), short, long, nocase and run-class.
    fn border_case() -> (Vec<u8>, Vec<Pattern>) {
        let mut hay = pseudo_random(3, 5000);
        for at in (0..5000).step_by(97) {
            let end = (at + 13).min(5000);
            hay[at..end].fill(0);
        }
        for at in (50..4990).step_by(211) {
            hay[at..at + 6].copy_from_slice(b"needle");
        }
        for at in (20..4980).step_by(149) {
            hay[at..at + 12].copy_from_slice(b"Long-Pattern");
        }
        let pats = (1..=12u32)
            .map(|n| Pattern::new(vec![0u8; n as usize], n))
            .chain([
                Pattern::nocase(&b"NEEDLE"[..], 100),
                Pattern::new(&b"e"[..], 101),
                Pattern::new(&b"ed"[..], 102),
                Pattern::nocase(&b"long-pattern"[..], 103),
                Pattern::new(&b"g-Pat"[..], 104),
                Pattern::new(&b"Pattern"[..], 105),
            ])
            .collect();
        (hay, pats)
    }

    #[test]
    fn chunk_borders_lose_and_double_nothing() {
        // Every kind this CPU runs, the forced V-PATCH paths included.
        let (hay, pats) = border_case();
        let want = sorted(crate::naive::find_all(&pats, &hay));
        assert!(!want.is_empty());
        for kind in Kind::available() {
            let m = Matcher::new(kind, &pats).unwrap();
            assert_eq!(m.max_pattern_len(), 12);
            for threads in [1, 2, 3, 7, 16, 64, 5000, 6000] {
                let got = sorted(scan_parallel(&m, &hay, threads));
                assert_eq!(got, want, "{kind} with {threads} threads");
                assert_eq!(count_parallel(&m, &hay, threads), want.len(), "{kind}");
            }
        }
        let m = Matcher::new(Kind::Spatch, &pats).unwrap();
        assert!(scan_parallel(&m, b"", 4).is_empty());
        assert_eq!(count_parallel(&m, b"", 4), 0);
    }

    #[test]
    fn every_border_position() {
        // Two threads with the border at each offset of an occurrence of the longest
        // pattern, for the scalar and the vector filtering rounds.
        let pats = [
            Pattern::new(&b"abcdefghij"[..], 1),
            Pattern::new(&b"cde"[..], 2),
            Pattern::new(&b"j"[..], 3),
        ];
        for kind in Kind::available() {
            let m = Matcher::new(kind, &pats).unwrap();
            for at in 0..=20 {
                let mut hay = vec![b'.'; 40];
                hay[at..at + 10].copy_from_slice(b"abcdefghij");
                // 2 threads over 40 bytes: the border is at 20.
                let got = sorted(scan_parallel(&m, &hay, 2));
                assert_eq!(
                    got,
                    sorted(crate::naive::find_all(&pats, &hay)),
                    "{kind} at {at}"
                );
            }
        }
    }
}
