//! Property tests: hostile rule text never panics, stays fast, and whatever parses
//! round-trips through its canonical text.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use rules::{parse_rule, LoadOptions, RuleSet, Vars};

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("content:\"a|41 4".to_string()),
        Just("content:\"abc\";".to_string()),
        Just("content:!\"x\\;y\";".to_string()),
        Just("nocase;".to_string()),
        Just("depth:3;".to_string()),
        Just("distance:0;".to_string()),
        Just("within:10;".to_string()),
        Just("http_uri;".to_string()),
        Just("http.uri;".to_string()),
        Just("dotprefix;".to_string()),
        Just("pkt_data;".to_string()),
        Just("pcre:\"/a(b/\";".to_string()),
        Just("pcre:\"/ab/Ri\";".to_string()),
        Just("byte_test:1,>,2,0,relative;".to_string()),
        Just("byte_extract:1,0,v;".to_string()),
        Just("isdataat:v,relative;".to_string()),
        Just("flow:established,to_server;".to_string()),
        Just("fast_pattern;".to_string()),
        Just("bsize:<5;".to_string()),
        Just("sid:1;".to_string()),
        Just("msg:\"m\\\"\";".to_string()),
        "[ -~]{0,12}",
    ]
}

fn header() -> impl Strategy<Value = String> {
    let addr = prop_oneof![
        Just("any".to_string()),
        Just("$HOME_NET".to_string()),
        Just("[1.2.3.4,!$EXTERNAL_NET]".to_string()),
        Just("!any".to_string()),
        "[\\[\\]!,0-9a-f:./$A-Z]{0,20}",
    ];
    let port = prop_oneof![
        Just("any".to_string()),
        Just("[80,!81,1:]".to_string()),
        "[\\[\\]!,0-9:$]{0,10}"
    ];
    (addr.clone(), port.clone(), addr, port)
        .prop_map(|(a, p, b, q)| format!("alert tcp {a} {p} -> {b} {q}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn rules_never_panic_and_round_trip(h in header(), parts in prop::collection::vec(piece(), 0..12)) {
        let text = format!("{h} ({})", parts.join(" "));
        if let Ok(rule) = parse_rule(&text) {
            let printed = rule.to_string();
            let again = parse_rule(&printed).unwrap_or_else(|d| panic!("{printed}\n{d:?}"));
            prop_assert_eq!(again, rule);
        }
        let _ = RuleSet::load_str(&text, None, &Vars::suricata_default(), &LoadOptions::default());
    }

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,300}") {
        let _ = RuleSet::load_str(&s, None, &Vars::suricata_default(), &LoadOptions { include_commented: true, ..Default::default() });
    }
}

#[test]
fn deep_nesting_is_bounded() {
    for depth in [10usize, 100, 10_000, 100_000] {
        let addr = format!("{}1.2.3.4{}", "[".repeat(depth), "]".repeat(depth));
        let neg = "!".repeat(depth) + "80";
        let text = format!("alert tcp {addr} {neg} -> any any (sid:1;)");
        let t = Instant::now();
        let _ = parse_rule(&text);
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "depth {depth}: {:?}",
            t.elapsed()
        );
    }
    // Self-referencing and exponentially growing variables.
    let mut vars = Vars::default();
    vars.set_address("A0", "1.2.3.4");
    for i in 1..40 {
        vars.set_address(&format!("A{i}"), &format!("[$A{},$A{}]", i - 1, i - 1));
    }
    vars.set_address("LOOP", "[$LOOP]");
    for v in ["$A39", "$LOOP"] {
        let t = Instant::now();
        let (set, diags) = RuleSet::load_str(
            &format!("alert tcp {v} any -> any any (sid:1;)"),
            None,
            &vars,
            &LoadOptions::default(),
        );
        assert!(set.is_empty());
        assert!(!diags.is_empty());
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "{v}: {:?}",
            t.elapsed()
        );
    }
    // A huge option list stays linear.
    let text = format!(
        "alert tcp any any -> any any ({} sid:1;)",
        "content:\"a\"; ".repeat(4000)
    );
    let t = Instant::now();
    assert!(parse_rule(&text).is_ok());
    assert!(t.elapsed() < Duration::from_secs(2));
}
