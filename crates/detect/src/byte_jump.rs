//! Where `byte_jump` lands, computed as Suricata 7 does it: the value read is multiplied
//! and aligned modulo 2^64, then added as a signed 64-bit number to the base (the end of
//! the number read — for `string` the characters `strtoull` consumed, not `nbytes` —, the
//! buffer start with `from_beginning`, its end with `from_end`) with `post_offset`. A
//! landing point before the buffer start moves to the start; one past the end does not
//! match; the end itself does (nothing is left to inspect there).
//!
//! Suricata adds these to a pointer: a landing point so far before the buffer that the
//! pointer wraps around the address space ends up past the end instead. Where that
//! happens depends on the buffer's address; this module takes any point more than
//! [`WRAP`] bytes before the start as wrapped (user-space addresses on x86-64 and arm64
//! are below 2^47 and heap ones above 2^44), so an 8-byte value with its top bit set
//! does not match, while a small negative value (`-3` read as text) clamps to the start.

/// How far before the buffer start a landing point is taken as a wrapped pointer.
pub(crate) const WRAP: i128 = 1 << 46;

/// The options of one `byte_jump` that act after the read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct JumpC {
    /// `multiplier` (1 without).
    pub multiplier: u64,
    /// `align`: round the value up to a multiple of 4.
    pub align: bool,
    /// `from_beginning`.
    pub from_beginning: bool,
    /// `from_end`.
    pub from_end: bool,
    /// `post_offset` (0 without).
    pub post_offset: i64,
}

impl JumpC {
    /// The options of a parsed `byte_jump`.
    pub(crate) fn of(j: &rules::ByteJump) -> JumpC {
        JumpC {
            multiplier: j.multiplier.unwrap_or(1) as u64,
            align: j.align,
            from_beginning: j.from_beginning,
            from_end: j.from_end,
            post_offset: j.post_offset.unwrap_or(0),
        }
    }

    /// The cursor after jumping by `value`, read from bytes that ended at `after_read`,
    /// in a buffer of `len` bytes; `None` when the jump does not match.
    pub(crate) fn land(&self, value: u64, after_read: usize, len: usize) -> Option<usize> {
        let mut v = value.wrapping_mul(self.multiplier);
        if self.align && !v.is_multiple_of(4) {
            v = v.wrapping_add(4 - v % 4);
        }
        let base = if self.from_beginning {
            0
        } else if self.from_end {
            len
        } else {
            after_read
        };
        let target = base as i128 + v as i64 as i128 + self.post_offset as i128;
        if target < -WRAP || target > len as i128 {
            None
        } else {
            Some(target.max(0) as usize)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(multiplier: u64, align: bool, begin: bool, end: bool, post: i64) -> JumpC {
        JumpC {
            multiplier,
            align,
            from_beginning: begin,
            from_end: end,
            post_offset: post,
        }
    }

    #[test]
    fn lands_after_the_value_read() {
        let plain = j(1, false, false, false, 0);
        assert_eq!(plain.land(4, 3, 23), Some(7));
        // The end itself matches; one past it does not.
        assert_eq!(plain.land(2, 3, 5), Some(5));
        assert_eq!(plain.land(3, 3, 5), None);
        assert_eq!(j(2, false, false, false, 0).land(4, 3, 23), Some(11));
        assert_eq!(j(3, true, false, false, 0).land(4, 3, 23), Some(15));
        assert_eq!(j(1, true, false, false, 0).land(5, 3, 23), Some(11));
    }

    #[test]
    fn before_the_start_clamps_unless_the_pointer_wraps() {
        assert_eq!(j(1, false, false, false, -100).land(4, 3, 23), Some(0));
        // "-3" read as text: 2^64 - 3, i.e. three bytes back.
        let minus3 = 3u64.wrapping_neg();
        assert_eq!(j(1, false, false, false, 0).land(minus3, 3, 25), Some(0));
        assert_eq!(j(1, false, true, false, 0).land(minus3, 5, 25), Some(0));
        // -3 aligned: 2^64 - 3 rounds up to 2^64, which is 0.
        assert_eq!(j(1, true, false, false, 0).land(minus3, 3, 25), Some(3));
        // An 8-byte value with its top bit set goes nowhere.
        assert_eq!(
            j(1, false, false, false, 0).land(0xffff_6162_6364_6566, 9, 23),
            None
        );
    }

    #[test]
    fn from_the_beginning_and_the_end() {
        assert_eq!(j(1, false, true, false, 0).land(4, 3, 23), Some(4));
        assert_eq!(j(1, false, true, false, -1).land(0, 3, 23), Some(0));
        assert_eq!(j(1, false, false, true, 0).land(0, 2, 23), Some(23));
        assert_eq!(j(1, false, false, true, -10).land(4, 3, 23), Some(17));
        assert_eq!(j(1, false, false, true, -3).land(4, 3, 23), None);
        assert_eq!(j(1, false, false, true, -3).land(0, 0, 2), Some(0));
    }
}
