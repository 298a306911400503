//! `lua` / `luajit` detection scripts end to end: scripts written as Suricata's
//! documentation shows (tests/data/lua/: a payload script, a packet script using
//! `SCPacketTuple`, a flow script using `SCFlowTuple`, `SCFlowAppLayerProto` and
//! `SCPacketTimestamp`), run by rules over tests/data/http-files.pcap, raise the
//! alerts Suricata 7.0.10 (built with LuaJIT) raises: counts hard-coded from its run,
//! and compared alert by alert (sid, pcap_cnt) with a live run when `suricata` is
//! installed. Without `security.lua.allow-rules` both refuse the rules.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

const RULES: &str = r#"alert tcp any any -> any any (msg:"lua payload"; flow:to_server; lua:payload.lua; sid:1;)
alert tcp any any -> any any (msg:"lua packet"; lua:packet.lua; sid:2;)
alert tcp any any -> any any (msg:"lua flow"; flow:to_client; luajit:flow.lua; sid:3;)
alert tcp any any -> any any (msg:"lua negated"; flow:to_server; dsize:>0; lua:!payload.lua; sid:4;)
alert tcp any any -> any any (msg:"lua after content"; content:"HTTP/1.1 200"; lua:packet.lua; sid:5;)
"#;

/// Alerts per sid as Suricata 7.0.10 raises them on the capture.
const WANT: &[(u64, usize)] = &[(1, 6), (2, 6), (3, 15), (4, 1), (5, 1)];

fn config(scripts: &Path, allow: bool) -> String {
    format!(
        "%YAML 1.1\n---\ndefault-rule-path: {}\nsecurity:\n  lua:\n    allow-rules: {}\n\
         outputs:\n  - eve-log:\n      enabled: yes\n      filetype: regular\n      \
         filename: eve.json\n      types:\n        - alert\n",
        scripts.display(),
        if allow { "yes" } else { "no" }
    )
}

/// `sid -> sorted pcap_cnt` of every alert in `dir/eve.json`.
fn alerts(dir: &Path) -> BTreeMap<u64, Vec<u64>> {
    let text = std::fs::read_to_string(dir.join("eve.json")).expect("eve.json");
    let mut m: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for l in text.lines() {
        let v: serde_json::Value = serde_json::from_str(l).expect("EVE lines are JSON");
        if v["event_type"] == "alert" {
            let sid = v["alert"]["signature_id"].as_u64().unwrap();
            m.entry(sid)
                .or_default()
                .push(v["pcap_cnt"].as_u64().unwrap_or(0));
        }
    }
    m.values_mut().for_each(|v| v.sort_unstable());
    m
}

fn run_osprey(dir: &Path, yaml: &Path, pcap: &Path, name: &str) -> std::process::Output {
    let out = dir.join(name);
    std::fs::create_dir_all(&out).unwrap();
    let rules = dir.join("lua.rules");
    common::osprey(&[
        "-c",
        yaml.to_str().unwrap(),
        "-S",
        rules.to_str().unwrap(),
        "-r",
        pcap.to_str().unwrap(),
        "-k",
        "none",
        "--runmode",
        "single",
        "-l",
        out.to_str().unwrap(),
    ])
}

#[test]
fn lua_scripts_alert_as_suricata() {
    let dir = common::tempdir("keywords-lua");
    let pcap = common::repo("crates/cli/tests/data/http-files.pcap");
    let scripts = common::repo("crates/cli/tests/data/lua");
    let yaml = dir.join("lua.yaml");
    std::fs::write(&yaml, config(&scripts, true)).unwrap();
    std::fs::write(dir.join("lua.rules"), RULES).unwrap();
    let r = run_osprey(&dir, &yaml, &pcap, "osprey");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let got = alerts(&dir.join("osprey"));
    let counts: Vec<(u64, usize)> = got.iter().map(|(s, v)| (*s, v.len())).collect();
    assert_eq!(counts, WANT.to_vec());

    // Refused without security.lua.allow-rules, with Suricata's reason.
    let off = dir.join("off.yaml");
    std::fs::write(&off, config(&scripts, false)).unwrap();
    let r = run_osprey(&dir, &off, &pcap, "off");
    let text = String::from_utf8_lossy(&r.stderr).to_string() + &String::from_utf8_lossy(&r.stdout);
    assert!(text.contains("security.lua.allow-rules"), "{text}");
    assert!(alerts(&dir.join("off")).is_empty());

    if common::suricata().is_none() {
        return;
    }
    let sdir = dir.join("suricata");
    std::fs::create_dir_all(&sdir).unwrap();
    assert!(common::run_suricata(
        &yaml,
        &pcap,
        &dir.join("lua.rules"),
        &sdir
    ));
    assert_eq!(got, alerts(&sdir), "alerts differ from Suricata's");
}

/// A script that never ends is stopped on every packet it runs on, never alerts, and
/// the stops are counted in stats.json (`detect.lua.*`, Suricata 8's names).
#[test]
fn runaway_script_is_stopped_and_counted() {
    let dir = common::tempdir("keywords-lua-limits");
    let pcap = common::repo("crates/cli/tests/data/http-files.pcap");
    std::fs::write(
        dir.join("loop.lua"),
        "function init(args)\n  local needs = {}\n  needs[\"payload\"] = tostring(true)\n  \
         return needs\nend\n\nfunction match(args)\n  while true do end\nend\n",
    )
    .unwrap();
    let yaml = dir.join("lua.yaml");
    std::fs::write(&yaml, config(&dir, true)).unwrap();
    std::fs::write(
        dir.join("lua.rules"),
        "alert tcp any any -> any any (msg:\"loop\"; lua:loop.lua; sid:1;)\n",
    )
    .unwrap();
    let r = run_osprey(&dir, &yaml, &pcap, "osprey");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(alerts(&dir.join("osprey")).is_empty());
    let s = common::stats(&dir.join("osprey"));
    let lua = &s["detect"]["lua"];
    // Every packet with a payload ran the script once (the capture has more than 20).
    let stops = lua["instruction_limit_errors"].as_u64().unwrap_or(0);
    assert!(stops >= 20, "{lua}");
    assert_eq!(lua["errors"].as_u64(), Some(stops), "{lua}");
    assert_eq!(lua["memory_limit_errors"].as_u64(), Some(0), "{lua}");
}
