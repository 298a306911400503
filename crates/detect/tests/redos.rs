//! Catastrophic regexes (issue 30, point 8): classic exponential-backtracking patterns
//! and relative chains over hostile payloads stay within a time budget set against a
//! baseline measured in the same run (a cheap regex over the same bytes), because every
//! `pcre` runs under the match and depth limits.

mod common;
use common::*;

use std::time::{Duration, Instant};

/// Time to inspect `payload` with the single rule `opts`, best of three.
fn time(opts: &str, payload: &[u8]) -> Duration {
    let det = detector(&format!("alert tcp any any -> any any ({opts} sid:1;)"));
    let p = tcp(payload);
    (0..3)
        .map(|_| {
            let t = Instant::now();
            let _ = sids(&det, &p);
            t.elapsed()
        })
        .min()
        .unwrap()
}

#[test]
fn hostile_regexes_stay_within_budget() {
    let mut a1400 = vec![b'a'; 1400];
    a1400.push(b'b');
    let mut a30k = vec![b'a'; 30_000];
    a30k.push(b'!');
    let mut xs = b"x".repeat(5_000);
    xs.extend_from_slice(b"y");
    let cases: &[(&str, &[u8])] = &[
        (r#"content:"a"; pcre:"/(a+)+$/R";"#, &a1400),
        (r#"content:"a"; pcre:!"/(a+)+$/R";"#, &a1400),
        (r#"pcre:"/(a|a)*c/";"#, &a1400),
        (r#"pcre:"/(a*)*c/";"#, &a30k),
        (r#"pcre:"/(.*a){12}c/";"#, &a1400),
        (r#"pcre:"/^(\w+\s?)*$/";"#, &a30k),
        (
            r#"content:"x"; pcre:"/(x+x+)+z/R"; content:"y"; distance:0;"#,
            &xs,
        ),
    ];
    // The baseline: a regex that scans the same bytes once.
    let baseline = cases
        .iter()
        .map(|(_, p)| time(r#"pcre:"/a+b|x+y/";"#, p))
        .max()
        .unwrap()
        .max(Duration::from_micros(200));
    for (opts, payload) in cases {
        let t = time(opts, payload);
        // Unbounded, these take seconds to minutes per packet; bounded, a few hundred
        // regex steps per start position.
        assert!(
            t < baseline * 2_000 && t < Duration::from_secs(5),
            "{opts}: {t:?} (baseline {baseline:?})"
        );
    }
}
