//! The IPv4 options `ipopts` sees, as Suricata 7's decoder records them: it walks the
//! options until EOL, the end of the header or a byte too short to hold a length; an
//! option whose length is below 2 or runs past the header makes the packet invalid (no
//! option counts then). A known option counts only when it is well formed:
//!
//! - record route, loose and strict source route: length ≥ 3, pointer ≥ 4, a multiple
//!   of 4 and at most length + 1;
//! - timestamp: length ≥ 5, pointer ≥ 5 and at most length + 1, on a record boundary
//!   (records of 8 bytes with flag 1 or 3, else 4);
//! - security and extended security: length ≥ 3; stream id: length 4.
//!
//! A repeated option keeps counting (the first well-formed copy sets it). EOL and NOP
//! count wherever they are met. `ipopts:any` asks for every option bit at once, as
//! Suricata 7 compares `(set & wanted) == wanted` with all 16 bits wanted: no packet
//! has them all, so it never matches (Suricata 7.0.10 behaves so).

/// End of the option list.
pub(crate) const EOL: u16 = 1 << 0;
/// No operation.
pub(crate) const NOP: u16 = 1 << 1;
/// Record route.
pub(crate) const RR: u16 = 1 << 2;
/// Timestamp.
pub(crate) const TS: u16 = 1 << 3;
/// Security.
pub(crate) const SEC: u16 = 1 << 4;
/// Extended security.
pub(crate) const ESEC: u16 = 1 << 5;
/// Loose source route.
pub(crate) const LSRR: u16 = 1 << 6;
/// Strict source route.
pub(crate) const SSRR: u16 = 1 << 7;
/// Stream id.
pub(crate) const SATID: u16 = 1 << 8;
/// `any`: every bit (see the module's doc).
pub(crate) const ANY: u16 = u16::MAX;

/// The `ipopts` names Suricata 7.0.10 accepts and their bits (`lsrre`, listed in older
/// documentation, is refused).
const NAMES: [(&str, u16); 10] = [
    ("eol", EOL),
    ("nop", NOP),
    ("rr", RR),
    ("ts", TS),
    ("sec", SEC),
    ("esec", ESEC),
    ("lsrr", LSRR),
    ("ssrr", SSRR),
    ("satid", SATID),
    ("any", ANY),
];

/// The bit of an `ipopts` name; `None` for a name Suricata refuses.
pub(crate) fn bit(name: &str) -> Option<u16> {
    NAMES.iter().find(|n| n.0 == name).map(|n| n.1)
}

/// Whether the options `set` hold every bit of `want`.
pub(crate) fn has(set: u16, want: u16) -> bool {
    set & want == want
}

/// The option bits of the IPv4 header `h` (with its options; at least 20 bytes).
pub(crate) fn flags(h: &[u8]) -> u16 {
    let mut o = h.get(20..).unwrap_or(&[]);
    let mut set = 0u16;
    while let Some(&t) = o.first() {
        match t {
            0 => return set | EOL,
            1 => {
                set |= NOP;
                o = &o[1..];
            }
            _ => {
                let Some(&len) = o.get(1) else {
                    // No room for a length: the list ends (the packet stays valid).
                    return set;
                };
                let len = len as usize;
                if len < 2 || len > o.len() {
                    // The decoder rejects the packet: no option is recorded.
                    return 0;
                }
                set |= valid_bit(t, &o[..len]);
                o = &o[len..];
            }
        }
    }
    set
}

/// The bit a multi-byte option `opt` (type, length, data) sets: 0 when malformed or not
/// one `ipopts` names.
fn valid_bit(t: u8, opt: &[u8]) -> u16 {
    let len = opt.len();
    let ptr = opt.get(2).copied().unwrap_or(0) as usize;
    let route = |bit| {
        let ok = len >= 3 && ptr >= 4 && ptr.is_multiple_of(4) && ptr <= len + 1;
        if ok {
            bit
        } else {
            0
        }
    };
    match t {
        7 => route(RR),
        131 => route(LSRR),
        137 => route(SSRR),
        68 => {
            let rec = match opt.get(3).map(|f| f & 0x0f) {
                Some(1 | 3) => 8,
                _ => 4,
            };
            let ok = len >= 5 && ptr >= 5 && (ptr - 5).is_multiple_of(rec) && ptr <= len + 1;
            if ok {
                TS
            } else {
                0
            }
        }
        130 if len >= 3 => SEC,
        133 if len >= 3 => ESEC,
        136 if len == 4 => SATID,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hdr(opts: &[u8]) -> Vec<u8> {
        let mut h = vec![0u8; 20];
        h.extend_from_slice(opts);
        h
    }

    #[test]
    fn names() {
        assert_eq!(bit("rr"), Some(RR));
        assert_eq!(bit("any"), Some(ANY));
        assert_eq!(bit("lsrre"), None);
        assert_eq!(bit("RR"), None);
    }

    #[test]
    fn well_formed_options_count() {
        let a = [10, 0, 0, 9];
        let f = |o: &[u8]| flags(&hdr(o));
        assert_eq!(f(&[&[7, 7, 4][..], &a, &[0]].concat()), RR | EOL);
        assert_eq!(f(&[68, 8, 5, 0, 0, 0, 0, 0]), TS);
        assert_eq!(f(&[130, 4, 0, 0]), SEC);
        assert_eq!(f(&[133, 3, 1, 0]), ESEC | EOL);
        assert_eq!(f(&[131, 3, 4, 1]), LSRR | NOP);
        assert_eq!(f(&[136, 4, 0, 1]), SATID);
        assert_eq!(f(&[0, 7, 7, 4]), EOL);
        assert_eq!(f(&[]), 0);
    }

    #[test]
    fn malformed_options_do_not_count() {
        let a = [10, 0, 0, 9];
        let f = |o: &[u8]| flags(&hdr(o));
        // Route pointers: not on an address, past the option, too small.
        assert_eq!(f(&[&[7, 7, 5][..], &a].concat()), 0);
        assert_eq!(f(&[&[7, 7, 8][..], &a].concat()), RR);
        assert_eq!(f(&[&[7, 7, 12][..], &a].concat()), 0);
        assert_eq!(f(&[&[137, 7, 3][..], &a].concat()), 0);
        assert_eq!(f(&[7, 2, 1, 1]), NOP);
        // Timestamps: records of 8 with flag 1, pointer past the option.
        assert_eq!(f(&[&[68, 12, 9, 1][..], &[0; 8]].concat()), 0);
        assert_eq!(f(&[&[68, 12, 9, 0][..], &[0; 8]].concat()), TS);
        assert_eq!(f(&[&[68, 12, 13, 3][..], &[0; 8]].concat()), TS);
        assert_eq!(f(&[&[68, 12, 14, 0][..], &[0; 8]].concat()), 0);
        assert_eq!(f(&[68, 4, 5, 0]), 0);
        assert_eq!(f(&[130, 2, 1, 1]), NOP);
        assert_eq!(f(&[136, 5, 0, 1, 1, 0]), EOL);
        // A bad copy then a good one; unknown types are skipped.
        assert_eq!(f(&[&[7, 7, 2][..], &a, &[7, 7, 4], &a].concat()), RR);
        assert_eq!(f(&[153, 4, 0, 0, 1]), NOP);
        // A trailing type byte with no length ends the list; bad lengths void it all.
        assert_eq!(f(&[1, 1, 1, 7]), NOP);
        assert_eq!(f(&[1, 7, 40, 4]), 0);
        assert_eq!(f(&[1, 7, 1, 4]), 0);
    }

    #[test]
    fn any_wants_every_bit() {
        let all = RR | TS | SATID | NOP | EOL;
        assert!(has(all, RR | TS));
        assert!(!has(all, ANY));
        assert!(!has(0, RR));
    }
}
