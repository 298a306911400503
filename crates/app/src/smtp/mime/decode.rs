//! Streaming Content-Transfer-Encoding decoders (RFC 2045 §6.7, §6.8): base64 across
//! lines, quoted-printable one line at a time (soft line breaks join lines).

/// The value of a base64 digit (`None` for anything else).
fn b64_value(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Base64 decoding carried across lines: up to three digits wait for the rest of
/// their group.
#[derive(Clone, Debug, Default)]
pub struct Base64 {
    quad: [u8; 4],
    n: usize,
    /// A `=` pad was read: the group in progress is the last of the run.
    padded: bool,
}

impl Base64 {
    /// Decodes one encoded line into `out`. Returns whether the line held a byte that
    /// is neither a digit, padding nor white space (such bytes are skipped).
    pub fn line(&mut self, line: &[u8], out: &mut Vec<u8>) -> bool {
        let mut invalid = false;
        for &c in line {
            if let Some(v) = b64_value(c) {
                if self.padded {
                    // Digits after padding start a new run.
                    self.flush(out);
                }
                self.quad[self.n] = v;
                self.n += 1;
                if self.n == 4 {
                    self.emit(out);
                }
            } else if c == b'=' {
                self.padded = true;
            } else if !c.is_ascii_whitespace() {
                invalid = true;
            }
        }
        invalid
    }

    fn emit(&mut self, out: &mut Vec<u8>) {
        let q = self.quad;
        let bytes = [
            q[0] << 2 | q[1] >> 4,
            q[1] << 4 | q[2] >> 2,
            q[2] << 6 | q[3],
        ];
        // Two digits make one byte, three make two.
        let keep = self.n.saturating_sub(1);
        out.extend_from_slice(&bytes[..keep]);
        self.n = 0;
        self.quad = [0; 4];
    }

    /// Ends the data: a partial group gives the bytes its digits hold.
    pub fn flush(&mut self, out: &mut Vec<u8>) {
        if self.n > 1 {
            self.emit(out);
        }
        self.n = 0;
        self.quad = [0; 4];
        self.padded = false;
    }
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'A'..=b'F' => Some(c - b'A' + 10),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

/// Decodes one quoted-printable line (without its line end) into `out`. Returns
/// `(soft, invalid)`: whether it ends in a soft line break (`=` last, trailing white
/// space allowed: the next line continues it) and whether an `=` was followed by
/// anything but two hex digits (kept as it is).
pub fn qp_line(line: &[u8], out: &mut Vec<u8>) -> (bool, bool) {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b' ' | b'\t') {
        end -= 1;
    }
    let line = &line[..end];
    let (line, soft) = match line.strip_suffix(b"=") {
        Some(l) => (l, true),
        None => (line, false),
    };
    let mut invalid = false;
    let mut i = 0;
    while i < line.len() {
        let c = line[i];
        if c == b'=' {
            if let (Some(h), Some(l)) = (
                line.get(i + 1).copied().and_then(hex),
                line.get(i + 2).copied().and_then(hex),
            ) {
                out.push(h << 4 | l);
                i += 3;
                continue;
            }
            invalid = true;
        }
        out.push(c);
        i += 1;
    }
    (soft, invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(lines: &[&[u8]]) -> (Vec<u8>, bool) {
        let mut d = Base64::default();
        let mut out = Vec::new();
        let mut bad = false;
        for l in lines {
            bad |= d.line(l, &mut out);
        }
        d.flush(&mut out);
        (out, bad)
    }

    #[test]
    fn base64_across_lines_with_padding() {
        assert_eq!(
            b64(&[b"aHR0cDovL2I2", b"NC5jb20vIHg="]).0,
            b"http://b64.com/ x"
        );
        assert_eq!(b64(&[b"YQ=="]).0, b"a");
        assert_eq!(b64(&[b"YWI="]).0, b"ab");
        assert_eq!(b64(&[b"YWJj"]).0, b"abc");
        // Unpadded tail, spaces, and a second run after padding.
        assert_eq!(b64(&[b"YW Jj", b"ZA"]).0, b"abcd");
        assert_eq!(b64(&[b"YQ==YQ=="]).0, b"aa");
        let (out, bad) = b64(&[b"YW*Jj"]);
        assert_eq!((out.as_slice(), bad), (&b"abc"[..], true));
    }

    #[test]
    fn quoted_printable_lines() {
        let mut out = Vec::new();
        assert_eq!(qp_line(b"qp http://qp.com/a=3Db=", &mut out), (true, false));
        assert_eq!(qp_line(b"c end", &mut out), (false, false));
        assert_eq!(out, b"qp http://qp.com/a=bc end");
        let mut out = Vec::new();
        // sv-ether.pcap flow 192.168.1.4:1470: `-T=20` and a stray `=`.
        assert_eq!(qp_line(b"-T=20", &mut out), (false, false));
        assert_eq!(qp_line(b"a=zz b=4", &mut out), (false, true));
        assert_eq!(out, b"-T a=zz b=4");
        let mut out = Vec::new();
        assert_eq!(qp_line(b"x= \t", &mut out), (true, false));
        assert_eq!(out, b"x");
    }
}
