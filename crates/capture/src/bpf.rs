//! Classic BPF programs for live capture filters, in the decimal form printed by
//! `tcpdump -ddd EXPRESSION` (first line: instruction count; then `code jt jf k` per line).

/// One classic BPF instruction (`struct sock_filter`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BpfInstruction {
    /// Opcode.
    pub code: u16,
    /// Jump offset if true.
    pub jt: u8,
    /// Jump offset if false.
    pub jf: u8,
    /// Operand.
    pub k: u32,
}

/// Longest program the kernel accepts (`BPF_MAXINSNS`).
pub const MAX_BPF_INSTRUCTIONS: usize = 4096;

/// Parses `tcpdump -ddd` output into instructions. Errors name the offending line.
pub fn parse_bpf_program(text: &str) -> Result<Vec<BpfInstruction>, String> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let count: usize = lines
        .next()
        .ok_or("empty BPF program")?
        .parse()
        .map_err(|_| "first line must be the instruction count".to_string())?;
    if count == 0 || count > MAX_BPF_INSTRUCTIONS {
        return Err(format!(
            "instruction count {count} outside 1..={MAX_BPF_INSTRUCTIONS}"
        ));
    }
    let mut prog = Vec::with_capacity(count);
    for (i, line) in lines.enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let parsed = match f[..] {
            [code, jt, jf, k] => (|| {
                Some(BpfInstruction {
                    code: code.parse().ok()?,
                    jt: jt.parse().ok()?,
                    jf: jf.parse().ok()?,
                    k: k.parse().ok()?,
                })
            })(),
            _ => None,
        };
        let insn = parsed.ok_or_else(|| format!("line {}: expected `code jt jf k`", i + 2))?;
        if prog.len() == count {
            return Err(format!("more than the {count} instructions announced"));
        }
        prog.push(insn);
    }
    if prog.len() != count {
        return Err(format!(
            "{} instructions where {count} were announced",
            prog.len()
        ));
    }
    Ok(prog)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_tcpdump_ddd_output() {
        // tcpdump -ddd 'ether proto 0x88b5'
        let prog =
            parse_bpf_program("4\n40 0 0 12\n21 0 1 34997\n6 0 0 262144\n6 0 0 0\n").unwrap();
        assert_eq!(prog.len(), 4);
        assert_eq!(
            prog[1],
            BpfInstruction {
                code: 21,
                jt: 0,
                jf: 1,
                k: 34997
            }
        );
        for bad in [
            "",
            "x",
            "0",
            "2\n6 0 0 1",
            "1\n6 0 0",
            "1\n6 0 0 1\n6 0 0 1",
            "1\n6 0 300 1",
        ] {
            assert!(parse_bpf_program(bad).is_err(), "{bad:?}");
        }
    }
}
