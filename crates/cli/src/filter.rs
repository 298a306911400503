//! Capture filters for live capture: `--bpf FILE` (`tcpdump -ddd` text), or the filter
//! expression (after the options, or `-F FILE`) compiled in-process by libpcap for the
//! interface's link type and attached to the AF_PACKET sockets.

use crate::args::RunArgs;

/// The BPF program for live capture on `iface`, if `args` give a filter.
pub fn bpf_filter(
    args: &RunArgs,
    iface: &str,
) -> Result<Option<Vec<capture::BpfInstruction>>, String> {
    let expr = crate::inputs::filter_expression(args)?;
    match (&args.bpf, expr) {
        (Some(_), Some(_)) => Err("give either --bpf FILE or a filter expression".into()),
        (None, None) => Ok(None),
        (Some(f), None) => {
            let text =
                std::fs::read_to_string(f).map_err(|e| format!("--bpf {}: {e}", f.display()))?;
            capture::parse_bpf_program(&text)
                .map(Some)
                .map_err(|e| format!("--bpf {}: {e}", f.display()))
        }
        (None, Some(expr)) => {
            let link = capture::interface_link(iface);
            capture::compile_filter(&expr, link)
                .map(Some)
                .map_err(|e| format!("{e}; interface {iface}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse(args: &[&str]) -> RunArgs {
        crate::args::Cli::try_parse_from(args).unwrap().run
    }

    #[test]
    fn bpf_file_and_expression_exclude_each_other() {
        assert!(bpf_filter(&parse(&["osprey", "-i", "lo"]), "lo")
            .unwrap()
            .is_none());
        let e = bpf_filter(&parse(&["osprey", "-i", "lo", "--bpf", "x", "tcp"]), "lo").unwrap_err();
        assert!(e.contains("either"));
    }

    #[test]
    fn expressions_compile_in_process() {
        let prog = bpf_filter(&parse(&["osprey", "-i", "lo", "udp", "port", "53"]), "lo")
            .unwrap()
            .unwrap();
        assert!(prog.len() > 4);
        let e = bpf_filter(&parse(&["osprey", "-i", "lo", "udp", "and", "and"]), "lo").unwrap_err();
        assert!(
            e.contains("`udp and and`") && e.contains("syntax error"),
            "{e}"
        );
    }
}
