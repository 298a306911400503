//! HTTP evasion corpus (suricata-verify's http-evader cases): odd chunking, compression
//! and header tricks around an EICAR download. Suricata 7.0.10 alerts with sid 1
//! (`file_data; content:"EICAR-STANDARD-ANTIVIRUS-TEST-FILE"`) and sid 2
//! (`file_data; content:"X5O!P%@AP[4"`) when its HTTP parser recovers the body. Here the
//! same streams (extracted by `fixtures/make-fixtures.py`) go through `AppFlow`, and a
//! sid "fires" when a transaction's response body contains its pattern. The cases where
//! we and Suricata disagree are listed in `http_evader_known_differences.txt`; the test
//! fails if that list changes in either direction.

use std::collections::BTreeMap;

use app::{AppCtx, AppFlow, Direction, Transport};

const FIXTURE: &str = include_str!("fixtures/http-evader.streams");
const KNOWN: &str = include_str!("http_evader_known_differences.txt");

/// One TCP stream: client port, server port, chunks in capture order.
type Stream = (u16, u16, Vec<(Direction, Vec<u8>)>);

struct Case {
    name: String,
    sids: Vec<u32>,
    streams: Vec<Stream>,
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn cases() -> Vec<Case> {
    let mut v: Vec<Case> = Vec::new();
    for line in FIXTURE.lines() {
        let mut it = line.splitn(2, ' ');
        let (tag, rest) = (it.next().unwrap_or(""), it.next().unwrap_or(""));
        match tag {
            "case" => {
                let mut p = rest.split(' ');
                let name = p.next().unwrap().to_string();
                let sids = p
                    .nth(1)
                    .unwrap()
                    .split(',')
                    .filter(|s| *s != "-")
                    .map(|s| s.parse().unwrap())
                    .collect();
                v.push(Case {
                    name,
                    sids,
                    streams: vec![],
                });
            }
            "stream" => {
                let mut p = rest.split(' ').map(|x| x.parse::<u16>().unwrap());
                let (c, s) = (p.next().unwrap(), p.next().unwrap());
                v.last_mut().unwrap().streams.push((c, s, vec![]));
            }
            "C" | "S" => {
                let dir = if tag == "C" {
                    Direction::ToServer
                } else {
                    Direction::ToClient
                };
                let st = v.last_mut().unwrap().streams.last_mut().unwrap();
                st.2.push((dir, unhex(rest)));
            }
            _ => {}
        }
    }
    v
}

fn contains(h: &[u8], n: &[u8]) -> bool {
    h.windows(n.len()).any(|w| w == n)
}

/// Sids our parser would make fire for one case (one alert per matching transaction).
fn run_case(c: &Case, split: usize) -> Vec<u32> {
    let mut ctx = AppCtx::default();
    ctx.config.response_body_decompress_layer_limit = 3;
    let mut sids = Vec::new();
    for (cp, sp, chunks) in &c.streams {
        let mut f = AppFlow::new(Transport::Tcp, *cp, *sp);
        for (dir, data) in chunks {
            for piece in data.chunks(split) {
                f.parse(&mut ctx, *dir, piece);
            }
        }
        f.close(&mut ctx);
        if let Some(h) = f.http() {
            for tx in h.txs() {
                let body = tx.response().body();
                if contains(body, b"EICAR-STANDARD-ANTIVIRUS-TEST-FILE") {
                    sids.push(1);
                }
                if contains(body, b"X5O!P%@AP[4") {
                    sids.push(2);
                }
            }
        }
    }
    sids.sort();
    sids
}

#[test]
fn http_evader_parity() {
    let cases = cases();
    assert!(cases.len() > 200, "fixture has {} cases", cases.len());
    let mut differ = BTreeMap::new();
    for c in &cases {
        let mut want = c.sids.clone();
        want.sort();
        let got = run_case(c, usize::MAX);
        if got != want {
            differ.insert(c.name.clone(), format!("suricata {want:?} osprey {got:?}"));
        }
        // Any split of the streams gives the same result.
        for split in [1, 7, 100] {
            assert_eq!(run_case(c, split), got, "{} split {split}", c.name);
        }
    }
    let agree = cases.len() - differ.len();
    println!("http-evader parity: {agree}/{} cases agree", cases.len());
    for (n, r) in &differ {
        println!("DIFF {n} {r}");
    }
    let listed: BTreeMap<String, String> = KNOWN
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (n, r) = l.split_once(' ').unwrap_or((l, ""));
            (n.to_string(), r.to_string())
        })
        .collect();
    let now: Vec<String> = differ.iter().map(|(n, r)| format!("{n} {r}")).collect();
    let was: Vec<String> = listed.iter().map(|(n, r)| format!("{n} {r}")).collect();
    assert_eq!(
        now, was,
        "the differences changed; update http_evader_known_differences.txt"
    );
}
