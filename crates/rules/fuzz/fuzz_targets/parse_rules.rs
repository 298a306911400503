//! Any bytes as a rule file: parse, resolve, print and re-parse must never panic.
//! Run: `cd crates/rules/fuzz && cargo +nightly fuzz run parse_rules -- -max_len=65536`
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let opts = rules::LoadOptions { include_commented: true, ..Default::default() };
    let (set, _) = rules::RuleSet::load_str(&text, None, &rules::Vars::suricata_default(), &opts);
    for r in &set.rules {
        let printed = r.rule.to_string();
        let again = rules::parse_rule(&printed).expect("canonical text must parse");
        assert_eq!(again, r.rule);
    }
    let _ = config::Config::parse(&text, None);
    let _ = rules::threshold::ThresholdConfig::parse(&text);
});
