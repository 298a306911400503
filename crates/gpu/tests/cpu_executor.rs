//! The CPU executor (the kernels' semantics over the device buffers) against the CPU
//! matchers: AC-Full of `mpm` for the Aho-Corasick kernels, regex-automata and `regex` for
//! the DFA kernel; on the shared matcher table, random batches and corpus payloads; both
//! layouts, both entry widths, small report rows (overflow → CPU rescan).

mod common;

use common::{corpus, earliest_end, pcap_frames, regex_dfa, rule_contents, Rng};
use gpu::cpu::{self, AcLayout, DfaJob, NO_MATCH};
use gpu::{merge_ac, AcMatch, AcTables, Batch, DfaSet, ReportBuffer, Width};
use mpm::{testutil, DfaTables, Kind, Limits, Matcher, Pattern};

const LAYOUTS: [AcLayout; 8] = [
    AcLayout::PacketPerThread,
    AcLayout::PacketPerBlock { threads: 1 },
    AcLayout::PacketPerBlock { threads: 7 },
    AcLayout::BLOCK_WARP,
    // Hot rows in shared memory: 1-2 rows (the root), 16-32 (matching states among them),
    // 16-bit shared rows of 4 and of every state of these small groups.
    AcLayout::SharedHot { bytes: 1024 },
    AcLayout::SharedHot { bytes: 16 * 1024 },
    AcLayout::SharedHot16 { bytes: 2048 },
    AcLayout::SharedHot16 {
        bytes: AcLayout::MAX_SHARED,
    },
];

/// `dfas` with the largest group renumbered hottest first by the lookups `batch` makes
/// in it (`gpu::hot_first`), its windows following that ranking.
fn renumbered(dfas: &[DfaTables], batch: &Batch) -> AcTables {
    let g = AcTables::with_width(dfas, Width::U32).unwrap().hot_group() as usize;
    let d = &dfas[g];
    let mut visits = vec![0u64; d.num_states as usize];
    for p in (0..batch.len()).filter(|&p| batch.group(p) as usize == g) {
        let mut s = 0usize;
        for &b in batch.payload(p) {
            visits[s] += 1;
            s = d.transitions[(s << 8) + b as usize] as usize;
        }
    }
    let h = gpu::hot_first(d, &visits);
    let mut groups = dfas.to_vec();
    groups[g] = h.tables;
    let mut t = AcTables::with_width(&groups, Width::U32).unwrap();
    t.set_hot_ranking(h.ranking);
    t
}

/// The hot-row layouts that the tests check against the thread-per-packet kernel.
const HOT: [AcLayout; 6] = [
    AcLayout::SharedHot { bytes: 1024 },
    AcLayout::SharedHot { bytes: 48 * 1024 },
    AcLayout::SharedHot {
        bytes: AcLayout::MAX_SHARED,
    },
    AcLayout::SharedHot16 { bytes: 1024 },
    AcLayout::SharedHot16 { bytes: 48 * 1024 },
    AcLayout::SharedHot16 {
        bytes: AcLayout::MAX_SHARED,
    },
];

/// The hot-row kernels read the same next states as the thread-per-packet kernel, from
/// shared or global memory: every report row, counter and overflow must be identical,
/// slot for slot.
fn same_rows_as_thread_kernel(tables: &AcTables, batch: &Batch, cap: u32, what: &str) {
    same_rows_on(tables, tables, batch, cap, what);
}

/// The hot-row kernels over `hot` give the rows of the thread kernel over `tables`.
fn same_rows_on(tables: &AcTables, hot: &AcTables, batch: &Batch, cap: u32, what: &str) {
    let mut want = ReportBuffer::new(cap);
    cpu::run_ac(tables, batch, AcLayout::PacketPerThread, &mut want);
    for layout in HOT {
        let mut got = ReportBuffer::new(cap);
        cpu::run_ac(hot, batch, layout, &mut got);
        for p in 0..batch.len() {
            assert_eq!(got.count(p), want.count(p), "{what}: {layout:?} packet {p}");
            assert_eq!(got.row(p), want.row(p), "{what}: {layout:?} packet {p}");
        }
    }
}

/// Matches of every packet of `batch` by the AC-Full matcher of its group, sorted like
/// [`merge_ac`]'s output.
fn expected(matchers: &[Matcher], batch: &Batch) -> Vec<AcMatch> {
    let mut want = Vec::new();
    for p in 0..batch.len() {
        let first = want.len();
        matchers[batch.group(p) as usize].scan(batch.payload(p), &mut |m| {
            want.push(AcMatch {
                packet: p as u32,
                end: m.end as u32,
                pattern: m.pattern,
            })
        });
        want[first..].sort_unstable();
    }
    want
}

/// Run every layout, width and row size over `batch`; all must equal the matchers.
fn check(groups: &[Vec<Pattern>], batch: &Batch, what: &str) -> usize {
    let dfas: Vec<DfaTables> = groups
        .iter()
        .map(|p| DfaTables::build(p, &Limits::default()).unwrap())
        .collect();
    let matchers: Vec<Matcher> = groups
        .iter()
        .map(|p| Matcher::new(Kind::AcFull, p).unwrap())
        .collect();
    let want = expected(&matchers, batch);
    let mut widths = vec![Width::U32];
    if dfas.iter().all(|d| d.num_states <= 65_536) {
        widths.push(Width::U16);
    }
    for width in widths {
        let tables = AcTables::with_width(&dfas, width).unwrap();
        for layout in LAYOUTS {
            for cap in [1, 3, 64] {
                let mut rows = ReportBuffer::new(cap);
                cpu::run_ac(&tables, batch, layout, &mut rows);
                let mut got = Vec::new();
                merge_ac(&tables, batch, &rows, &mut got);
                assert!(
                    got == want,
                    "{what}: {layout:?} {width:?} cap {cap}: {} matches, want {}",
                    got.len(),
                    want.len()
                );
            }
        }
    }
    want.len()
}

#[test]
fn shared_matcher_table_with_padding() {
    for case in testutil::cases() {
        if Matcher::new(Kind::AcFull, &case.patterns).is_err() {
            continue;
        }
        let mut batch = Batch::new(1 << 16, 1 << 24);
        for h in &case.haystacks {
            for pad in [0usize, 1, 15, 16, 17, 31, 33, 100, testutil::MAX_PAD] {
                let fill = testutil::pseudo_random(pad as u64 + 1, pad);
                let mut hay = fill.clone();
                hay.extend_from_slice(h);
                hay.extend_from_slice(&fill);
                batch.push(0, &hay).unwrap();
            }
        }
        check(std::slice::from_ref(&case.patterns), &batch, case.name);
    }
}

#[test]
fn random_batches_over_several_groups() {
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    for round in 0..12 {
        let ngroups = 1 + rng.below(4);
        let alphabet: &[u8] = if round % 2 == 0 {
            b"abAB"
        } else {
            b"abcdefgh\x00\xff"
        };
        let groups: Vec<Vec<Pattern>> = (0..ngroups)
            .map(|g| {
                (0..1 + rng.below(40))
                    .map(|i| {
                        let len = 1 + rng.below(6);
                        let bytes: Vec<u8> = (0..len)
                            .map(|_| alphabet[rng.below(alphabet.len())])
                            .collect();
                        let id = (g * 1000 + i) as u32;
                        if rng.below(2) == 0 {
                            Pattern::nocase(bytes, id)
                        } else {
                            Pattern::new(bytes, id)
                        }
                    })
                    .collect()
            })
            .collect();
        let mut batch = Batch::new(512, 1 << 20);
        for _ in 0..200 {
            let len = match rng.below(4) {
                0 => rng.below(16),
                1 => rng.below(100),
                _ => rng.below(1600),
            };
            let payload: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            batch.push(rng.below(ngroups) as u32, &payload).unwrap();
        }
        check(&groups, &batch, &format!("round {round}"));
        let dfas: Vec<DfaTables> = groups
            .iter()
            .map(|p| DfaTables::build(p, &Limits::default()).unwrap())
            .collect();
        let tables = AcTables::with_width(&dfas, Width::U32).unwrap();
        let hot = renumbered(&dfas, &batch);
        for cap in [2, 64] {
            same_rows_as_thread_kernel(&tables, &batch, cap, &format!("round {round}"));
            // Renumbered hottest first: the same rows, slot for slot.
            same_rows_on(
                &tables,
                &hot,
                &batch,
                cap,
                &format!("round {round}, hot first"),
            );
        }
    }
}

#[test]
fn corpus_payloads_against_their_rules() {
    let Some(dir) = corpus() else { return };
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    cases.sort();
    let (mut frames_seen, mut matches, mut used) = (0usize, 0usize, 0usize);
    // One group per case (its rules' contents), a batch of every case's frames.
    let mut groups = Vec::new();
    let mut batch = Batch::new(1 << 16, 1 << 26);
    for case in &cases {
        let Ok(rules) = std::fs::read_to_string(case.join("test.rules")) else {
            continue;
        };
        let pats = rule_contents(&rules, 0);
        let Ok(pcap) = std::fs::read(case.join("input.pcap")) else {
            continue;
        };
        if pats.is_empty() {
            continue;
        }
        let frames = pcap_frames(&pcap);
        let g = groups.len() as u32;
        groups.push(pats);
        used += 1;
        for f in frames.iter().take(400) {
            if batch.push(g, f).is_err() {
                break;
            }
            frames_seen += 1;
        }
    }
    // Checking every layout/width/cap on all of it is slow in debug: the thread layout and
    // one block layout at two row sizes.
    let dfas: Vec<DfaTables> = groups
        .iter()
        .map(|p| DfaTables::build(p, &Limits::default()).unwrap())
        .collect();
    let matchers: Vec<Matcher> = groups
        .iter()
        .map(|p| Matcher::new(Kind::AcFull, p).unwrap())
        .collect();
    let want = expected(&matchers, &batch);
    let tables = AcTables::new(&dfas).unwrap();
    for layout in [
        AcLayout::PacketPerThread,
        AcLayout::BLOCK_WARP,
        AcLayout::SharedHot { bytes: 48 * 1024 },
        AcLayout::SharedHot16 { bytes: 100 * 1024 },
    ] {
        for cap in [4, 64] {
            let mut rows = ReportBuffer::new(cap);
            cpu::run_ac(&tables, &batch, layout, &mut rows);
            let mut got = Vec::new();
            merge_ac(&tables, &batch, &rows, &mut got);
            assert!(got == want, "corpus: {layout:?} cap {cap}");
        }
    }
    // The largest group's shallowest states are shared: the hot kernels' rows equal the
    // thread kernel's, slot for slot.
    let w =
        tables.hot_windows(AcLayout::SharedHot16 { bytes: 100 * 1024 }.hot_rows(tables.width()));
    assert!(w.rows() > 2, "{w:?}");
    same_rows_as_thread_kernel(&tables, &batch, 16, "corpus");
    matches += want.len();
    eprintln!("corpus: {used} cases, {frames_seen} frames, {matches} matches, all equal");
    assert!(
        used > 100 && matches > 1000,
        "the corpus exercises the matcher"
    );
}

const REGEXES: &[&str] = &[
    r"abc",
    r"(?i)user-agent:\s*curl",
    r"GET /[a-z]+\.php\?id=\d+",
    r"^\x16\x03[\x00-\x03]",
    r"\d{3,}-\d{2}",
    r"(a|b)*abb",
    r"(?s)x.{4}y",
    r"foo$",
    r"(?m)^bar",
    r"\bword\b",
    r"[^\x00-\x7f]{2}",
    r"a?",
    r"(?i)(select|union)\s+(all\s+)?from",
    r"[a-f0-9]{32}",
    r"\x00\x00\x00[\x01-\x05]",
];

#[test]
fn dfa_kernel_agrees_with_regex_engines() {
    let mut dfas = Vec::new();
    let mut refs = Vec::new();
    let mut res = Vec::new();
    for r in REGEXES {
        let (plain, dfa) = regex_dfa(r, 5_000).unwrap_or_else(|| panic!("{r} fits a DFA"));
        assert!(plain.num_states() <= 5_000);
        dfas.push(plain);
        refs.push(dfa);
        res.push(regex::bytes::Regex::new(&format!("(?-u){r}")).unwrap());
    }
    let set = DfaSet::new(&dfas, DfaSet::DEFAULT_MAX_STATES).unwrap();
    let mut rng = Rng(0xdfa0_dfa0_1234_5678);
    let mut batch = Batch::new(4096, 1 << 24);
    let seeds: [&[u8]; 10] = [
        b"xxabcxx",
        b"USER-AGENT:   curl/7",
        b"GET /index.php?id=42 HTTP/1.1",
        b"\x16\x03\x01\x02\x00",
        b"call 555-12 now",
        b"ababb",
        b"x1234y foo",
        b"line\nbar\nfoo",
        b"a word here",
        b"union all from",
    ];
    for s in seeds {
        batch.push(0, s).unwrap();
    }
    let alphabet = b"abxy01 \n-/.?=:\x00\x16\x03\xc3";
    for _ in 0..300 {
        let len = rng.below(300);
        let mut p: Vec<u8> = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        if rng.below(2) == 0 && !p.is_empty() {
            let s = seeds[rng.below(seeds.len())];
            let at = rng.below(p.len());
            p.splice(at..at, s.iter().copied());
        }
        batch.push(0, &p).unwrap();
    }
    if let Some(dir) = corpus() {
        'cases: for case in std::fs::read_dir(dir).unwrap().flatten().take(60) {
            if let Ok(pcap) = std::fs::read(case.path().join("input.pcap")) {
                for f in pcap_frames(&pcap).iter().take(50) {
                    if batch.push(0, f).is_err() {
                        break 'cases;
                    }
                }
            }
        }
    }
    let jobs: Vec<DfaJob> = (0..batch.len() as u32)
        .flat_map(|p| (0..dfas.len() as u32).map(move |d| DfaJob { packet: p, dfa: d }))
        .collect();
    let mut out = Vec::new();
    cpu::run_dfa(&set, &batch, &jobs, &mut out);
    let mut hits = 0;
    for (job, &got) in jobs.iter().zip(&out) {
        let hay = batch.payload(job.packet as usize);
        let d = job.dfa as usize;
        let want = earliest_end(&refs[d], hay);
        assert_eq!(
            (got != NO_MATCH).then_some(got as usize),
            want,
            "{} on {:?}",
            REGEXES[d],
            String::from_utf8_lossy(hay)
        );
        assert_eq!(dfas[d].find_end(hay), want, "PlainDfa::find_end");
        assert_eq!(
            got != NO_MATCH,
            res[d].is_match(hay),
            "regex {}",
            REGEXES[d]
        );
        hits += (got != NO_MATCH) as usize;
    }
    assert!(hits > 100, "{hits} matches");
    // Out-of-range jobs report nothing.
    cpu::run_dfa(
        &set,
        &batch,
        &[DfaJob {
            packet: u32::MAX,
            dfa: 0,
        }],
        &mut out,
    );
    assert_eq!(out, vec![NO_MATCH]);
}

#[test]
fn too_large_regex_dfas_stay_on_the_cpu() {
    // (a|b)*a(a|b){12}: the DFA needs 2^13 states, over Kargus's 5,000.
    assert!(regex_dfa(r"[ab]*a[ab]{12}", 5_000).is_none());
    let (d, _) = regex_dfa(r"[ab]*a[ab]{12}", 100_000).unwrap();
    assert!(DfaSet::new(&[d], DfaSet::DEFAULT_MAX_STATES).is_err());
}
