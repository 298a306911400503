//! `--gpu off|auto|on`: `auto` on a machine without a GPU raises exactly the alerts of
//! `off` and says why in one line; `on` without a GPU fails.

mod common;

use common::{alert_keys, osprey, shared, tempdir};
use std::path::Path;

fn run_case(case: &Path, mode: &str, out: &Path) -> std::process::Output {
    // `-l` names an existing directory (as in Suricata).
    std::fs::create_dir_all(out).expect("log dir");
    let pcap = case.join("input.pcap");
    let rules = case.join("test.rules");
    let mut args = vec![
        "-r".to_string(),
        pcap.display().to_string(),
        "-S".into(),
        rules.display().to_string(),
        "-l".into(),
        out.display().to_string(),
        "-k".into(),
        "none".into(),
        "--no-progress".into(),
        "--gpu".into(),
        mode.into(),
    ];
    if case.join("suricata.yaml").exists() {
        args.push("-c".into());
        args.push(case.join("suricata.yaml").display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    osprey(&args)
}

#[test]
fn auto_without_a_gpu_gives_the_alerts_of_off() {
    let Some(corpus) = shared("corpus/open") else {
        return;
    };
    let has_gpu = gpu::probe(0).is_ok();
    let mut compared = 0;
    let mut total_alerts = 0;
    for name in [
        "alert-max__alert-max-20",
        "detect-flowbits",
        "detect-pcre__detect-pcre-04",
        "http-protocol-inspect-v2",
        "dns__task-7018-dns-ips-stream-rule",
        "bug-7390",
    ] {
        let case = corpus.join(name);
        if !case.join("input.pcap").exists() || !case.join("test.rules").exists() {
            continue;
        }
        let off = tempdir(&format!("gpu-off-{name}"));
        let auto = tempdir(&format!("gpu-auto-{name}"));
        let r_off = run_case(&case, "off", &off);
        let r_auto = run_case(&case, "auto", &auto);
        assert_eq!(r_off.status.code(), r_auto.status.code(), "{name}");
        let a_off = alert_keys(&off);
        assert_eq!(a_off, alert_keys(&auto), "{name}: --gpu auto vs off");
        total_alerts += a_off.len();
        let err_off = String::from_utf8_lossy(&r_off.stderr);
        let err_auto = String::from_utf8_lossy(&r_auto.stderr);
        assert!(!err_off.contains("GPU:"), "off says nothing: {err_off}");
        let lines: Vec<&str> = err_auto.lines().filter(|l| l.contains("GPU:")).collect();
        assert_eq!(lines.len(), 1, "one GPU line: {err_auto}");
        if !has_gpu {
            assert!(
                lines[0].contains("GPU: none (") && lines[0].ends_with("running on the CPU"),
                "{}",
                lines[0]
            );
        }
        compared += 1;
    }
    assert!(compared >= 3, "corpus cases found");
    assert!(total_alerts > 0, "the cases raise alerts");
}

#[test]
fn on_without_a_gpu_fails_and_bad_modes_are_refused() {
    let Some(corpus) = shared("corpus/open") else {
        return;
    };
    let case = corpus.join("alert-max__alert-max-20");
    let out = tempdir("gpu-on");
    let r = run_case(&case, "on", &out);
    if gpu::probe(0).is_err() {
        assert!(!r.status.success(), "--gpu on without a GPU must fail");
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(err.contains("--gpu on: no GPU:"), "{err}");
    }
    let r = run_case(&case, "maybe", &out);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("--gpu takes off, auto, on or cpu-sim"));
}
