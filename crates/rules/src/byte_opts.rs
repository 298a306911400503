//! `byte_test` and `byte_jump` options given more than once, as Suricata 7.0.10 reads
//! them (its C parsers for these two keywords accept repeats; `byte_extract` refuses
//! them): `big` and `little` override each other, so the last one wins (`little,big` is
//! big-endian); a second string base is OR-ed into the first, as Suricata keeps bases as
//! their radixes in one field (`string,dec,hex` reads the text in base 10|16 = 26,
//! `oct,hex` in 24, `oct,dec` in 10). Checked with Suricata on
//! tests/parity/cases/byte-endian-base-twice.

use crate::ast::{ByteCommon, Endian, NumBase};

/// Handles `word` when it repeats an endianness or a base already given; false when it
/// is not such a repeat (the caller's other options then apply).
pub(crate) fn repeated(c: &mut ByteCommon, word: &str) -> bool {
    match (word, c.endian, c.string) {
        ("big", Endian::Big | Endian::Little, _) => c.endian = Endian::Big,
        ("little", Endian::Big | Endian::Little, _) => c.endian = Endian::Little,
        ("hex" | "dec" | "oct", _, Some(b)) => {
            let r = radix(b) | radix(base(word));
            c.string = Some(match r {
                16 => NumBase::Hex,
                10 => NumBase::Dec,
                8 => NumBase::Oct,
                r => NumBase::Radix(r),
            });
        }
        _ => return false,
    }
    true
}

fn base(word: &str) -> NumBase {
    match word {
        "hex" => NumBase::Hex,
        "oct" => NumBase::Oct,
        _ => NumBase::Dec,
    }
}

/// The radix a base reads text in.
pub fn radix(b: NumBase) -> u8 {
    match b {
        NumBase::Hex => 16,
        NumBase::Dec => 10,
        NumBase::Oct => 8,
        NumBase::Radix(r) => r,
    }
}

#[cfg(test)]
mod tests {
    use crate::ast::{Endian, NumBase};
    use crate::values::{byte_extract, byte_jump, byte_test};

    #[test]
    fn last_endianness_wins_and_bases_combine() {
        let t = byte_test("4,=,2,0,little,big").unwrap();
        assert_eq!(t.common.endian, Endian::Big);
        let t = byte_test("4,=,2,0,big,little").unwrap();
        assert_eq!(t.common.endian, Endian::Little);
        let j = byte_jump("4,0,big,little,big").unwrap();
        assert_eq!(j.common.endian, Endian::Big);
        let t = byte_test("2,=,2,0,string,dec,hex").unwrap();
        assert_eq!(t.common.string, Some(NumBase::Radix(26)));
        let j = byte_jump("2,0,string,oct,hex").unwrap();
        assert_eq!(j.common.string, Some(NumBase::Radix(24)));
        let j = byte_jump("2,0,string,oct,dec").unwrap();
        assert_eq!(j.common.string, Some(NumBase::Dec));
        let j = byte_jump("2,0,string,hex,little").unwrap();
        assert_eq!(
            (j.common.string, j.common.endian),
            (Some(NumBase::Hex), Endian::Little)
        );
        // Suricata refuses these.
        assert!(byte_jump("4,0,dce,little").is_err());
        assert!(byte_jump("4,0,big,dce").is_err());
        assert!(byte_extract("4,0,v,little,big").is_err());
        assert!(byte_extract("4,0,v,string,dec,hex").is_err());
        assert!(byte_test("2,=,2,0,hex").is_err());
    }
}
