//! `osprey rules check` reports parse errors and, for the rules that parse, the ones the
//! detector will skip, with file and line: what a run really loads.

mod common;

const OK: &str = r#"alert tcp any any -> any 80 (msg:"ok"; content:"GET"; sid:1;)"#;
// `stream_reassemble` (a Snort keyword Suricata 7.0.10 has not) is not evaluated: the
// rule is skipped.
const UNSUPPORTED: &str =
    r#"alert tcp any any -> any any (msg:"snort"; stream_reassemble:disable,server; sid:2;)"#;
const BAD_PCRE: &str = r#"alert tcp any any -> any any (msg:"bad"; pcre:"/(?<=a+)b/"; sid:3;)"#;

fn check(name: &str, rules: &[&str], json: bool) -> (i32, String) {
    let dir = common::tempdir(name);
    let file = dir.join("r.rules");
    std::fs::write(&file, rules.join("\n") + "\n").unwrap();
    let mut args = vec!["rules", "check"];
    if json {
        args.push("--json");
    }
    args.push(file.to_str().unwrap());
    let out = common::osprey(&args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn unsupported_rules_are_reported_with_their_line() {
    let (code, text) = check("rules-check-text", &[OK, UNSUPPORTED], false);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("r.rules:2: sid 2: unsupported by the detector: stream_reassemble"),
        "{text}"
    );
    assert!(
        text.contains("rules the detector skips: 1 unsupported, 0 failed"),
        "{text}"
    );
    let (code, text) = check("rules-check-json", &[OK, UNSUPPORTED, BAD_PCRE], true);
    assert_eq!(code, 1, "a rule that does not parse fails the check");
    let v: serde_json::Value = serde_json::from_str(text.trim()).expect("json");
    assert_eq!(v["loaded"], 2);
    assert_eq!(v["failed"], 1);
    assert_eq!(v["detector"]["unsupported"], 1);
    assert_eq!(v["detector"]["failed"], 0);
    assert_eq!(v["detector"]["by_keyword"]["stream_reassemble"], 1);
    assert_eq!(v["detector"]["rules"][0]["line"], 2);
    assert_eq!(v["detector"]["rules"][0]["sid"], 2);
}

/// ET Open: the check lists exactly the rules a run over it skips (its
/// `osprey.rules.unsupported`).
#[test]
fn et_open_check_matches_what_a_run_skips() {
    let out_dir = common::tempdir("rules-check-et");
    let (Some(all), Some(pcap)) = (
        common::et_open_rules(&out_dir),
        common::shared("corpus/open/http-evader__http-evader-164/input.pcap"),
    ) else {
        return;
    };
    let all = all.to_str().unwrap();
    let out = common::osprey(&["rules", "check", "--json", all]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let unsupported = v["detector"]["unsupported"].as_u64().unwrap();
    assert_eq!(v["detector"]["failed"], 0);
    let listed = v["detector"]["rules"].as_array().unwrap().len() as u64;
    assert_eq!(listed, unsupported);
    let log = out_dir.join("log");
    std::fs::create_dir_all(&log).unwrap();
    let run = common::osprey(&[
        "-r",
        pcap.to_str().unwrap(),
        "-S",
        all,
        "-k",
        "none",
        "-l",
        log.to_str().unwrap(),
        "--no-progress",
    ]);
    assert!(run.status.success());
    let stats = common::stats(&log);
    assert_eq!(stats["osprey"]["rules"]["unsupported"], unsupported);
    assert_eq!(unsupported, 0, "the count of et_open_rules_load below");
}

/// `osprey -T -S FILE` (Suricata's configuration test): 0 when every rule loads, rules
/// the detector cannot inspect yet being reported only; 1 for a rule that does not parse.
#[test]
fn test_mode_fails_only_on_rules_that_do_not_load() {
    let dir = common::tempdir("test-mode");
    let good = dir.join("good.rules");
    std::fs::write(&good, format!("{OK}\n{UNSUPPORTED}\n")).unwrap();
    let r = common::osprey(&["-T", "-S", good.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{stderr}");
    assert!(
        stderr.contains("1 rules loaded, 0 failed, 1 unsupported"),
        "{stderr}"
    );
    assert!(r.stdout.is_empty());

    let bad = dir.join("bad.rules");
    let unknown = r#"alert tcp any any -> any any (msg:"x"; no_such_keyword; sid:9;)"#;
    std::fs::write(&bad, format!("{OK}\n{unknown}\n")).unwrap();
    let r = common::osprey(&["-T", "-S", bad.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no_such_keyword"), "{stderr}");
    assert!(stderr.contains("configuration test failed"), "{stderr}");

    // All of ET Open's emerging-*.rules: every rule loads (none unsupported; 4 before
    // app-layer-event, 151 before base64_decode, asn1, http.start, `tls.version`, `tls.cert_serial`,
    // SMTP's file.data, xbits, stream_size and flowint,
    // 308 before the ja3/ja3s buffers, 201 before the FTP, SSH, DCERPC, NFS, SMB and
    // other protocols of issues 23 and 24).
    let Some(et) = common::et_open_rules(&dir) else {
        return;
    };
    let r = common::osprey(&["-T", "-S", et.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{stderr}");
    assert!(stderr.contains(" 0 failed, 0 unsupported"), "{stderr}");
}
