//! The Internet checksum (RFC 1071) and the IPv4/IPv6 pseudo-headers of TCP, UDP and
//! ICMPv6.
//!
//! Sums are accumulated as `u64` partial sums over 32-bit big-endian words and folded at
//! the end, which is both correct (one's-complement addition is associative) and fast.

/// Adds `data` to a running one's-complement partial sum (not yet folded).
///
/// An odd trailing byte is padded with a zero byte, as RFC 1071 specifies; only the
/// last chunk of a message may have odd length.
#[inline]
pub fn accumulate(mut sum: u64, data: &[u8]) -> u64 {
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_be_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        // Add the two 32-bit halves: no overflow for any frame shorter than 2^32 words.
        sum += (w >> 32) + (w & 0xffff_ffff);
    }
    let rest = chunks.remainder();
    let mut i = 0;
    while i + 2 <= rest.len() {
        sum += u64::from(u16::from_be_bytes([rest[i], rest[i + 1]]));
        i += 2;
    }
    if i < rest.len() {
        sum += u64::from(rest[i]) << 8;
    }
    sum
}

/// Folds a partial sum to 16 bits (not complemented).
#[inline]
pub fn fold(mut sum: u64) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// The Internet checksum of `data`: the one's complement of the folded sum. Computing it
/// over data that contains a correct checksum field yields 0.
#[inline]
pub fn checksum(data: &[u8]) -> u16 {
    !fold(accumulate(0, data))
}

/// Partial sum of the IPv4 pseudo-header (source, destination, protocol, length).
#[inline]
pub fn pseudo_header_v4(src: &[u8; 4], dst: &[u8; 4], proto: u8, len: u32) -> u64 {
    let s = u64::from(u32::from_be_bytes(*src));
    let d = u64::from(u32::from_be_bytes(*dst));
    s + d + u64::from(proto) + u64::from(len)
}

/// Partial sum of the IPv6 pseudo-header (RFC 8200 §8.1).
#[inline]
pub fn pseudo_header_v6(src: &[u8; 16], dst: &[u8; 16], next_header: u8, len: u32) -> u64 {
    let s = accumulate(0, src);
    let d = accumulate(0, dst);
    s + d + u64::from(next_header) + u64::from(len)
}

/// Checks a transport-layer segment (checksum field included) against a pseudo-header
/// partial sum: true when the checksum is correct.
#[inline]
pub fn verify_with_pseudo(pseudo: u64, segment: &[u8]) -> bool {
    fold(accumulate(pseudo, segment)) == 0xffff
}

/// Computes the checksum to store in a transport segment whose checksum field is zero.
#[inline]
pub fn compute_with_pseudo(pseudo: u64, segment: &[u8]) -> u16 {
    !fold(accumulate(pseudo, segment))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(data: &[u8]) -> u16 {
        let mut sum: u32 = 0;
        for pair in data.chunks(2) {
            let hi = u32::from(pair[0]) << 8;
            let lo = pair.get(1).map_or(0, |&b| u32::from(b));
            sum += hi | lo;
            sum = (sum & 0xffff) + (sum >> 16);
        }
        !(sum as u16)
    }

    #[test]
    fn rfc1071_example() {
        // RFC 1071 §3 example bytes: sum 0xddf2.
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(fold(accumulate(0, &data)), 0xddf2);
    }

    #[test]
    fn ipv4_header_known_value() {
        // A well-known IPv4 header with checksum 0xb861.
        let hdr = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(checksum(&hdr), 0xb861);
        let mut with = hdr;
        with[10] = 0xb8;
        with[11] = 0x61;
        assert_eq!(checksum(&with), 0);
    }

    #[test]
    fn matches_naive_on_all_lengths() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7919 % 251) as u8).collect();
        for len in 0..data.len() {
            assert_eq!(checksum(&data[..len]), naive(&data[..len]), "len {len}");
        }
    }
}
