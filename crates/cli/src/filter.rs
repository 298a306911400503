//! Capture filters: BPF programs for live capture.

use std::path::Path;

/// The BPF program for live capture: `--bpf FILE` (`tcpdump -ddd` output), or the
/// trailing filter expression compiled with `tcpdump -ddd` for `iface`.
pub fn bpf_filter(
    file: Option<&Path>,
    expr: &[String],
    iface: &str,
) -> Result<Option<Vec<capture::BpfInstruction>>, String> {
    let text = match (file, expr.is_empty()) {
        (Some(f), true) => {
            std::fs::read_to_string(f).map_err(|e| format!("--bpf {}: {e}", f.display()))?
        }
        (Some(_), false) => return Err("give either --bpf FILE or a filter expression".into()),
        (None, true) => return Ok(None),
        (None, false) => {
            let out = std::process::Command::new("tcpdump")
                .args(["-i", iface, "-ddd"])
                .args(expr)
                .output()
                .map_err(|e| format!("compiling the filter needs tcpdump (or use --bpf): {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "filter `{}`: {}",
                    expr.join(" "),
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
            String::from_utf8_lossy(&out.stdout).into_owned()
        }
    };
    capture::parse_bpf_program(&text).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bpf_file_and_expression_exclude_each_other() {
        assert!(bpf_filter(None, &[], "lo").unwrap().is_none());
        let e = bpf_filter(Some(Path::new("x")), &["tcp".into()], "lo").unwrap_err();
        assert!(e.contains("either"));
    }
}
