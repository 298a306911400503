//! The flow key and the two symmetric hashes used to dispatch and look up flows.
//!
//! A flow is identified by its two endpoints (address, port), the IP protocol, the
//! address family and the VLAN ids (Suricata's `vlan.use-for-tracking = true`). Both
//! directions of a conversation must give the same hash and the same table entry, so the
//! hashes below are *symmetric*: swapping source and destination leaves them unchanged.

/// IP address family of a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[repr(u8)]
pub enum Family {
    /// IPv4: the address occupies the first 4 bytes of the 16-byte array, the rest is 0.
    #[default]
    V4 = 4,
    /// IPv6.
    V6 = 6,
}

/// Flow key as seen on one packet (source → destination).
///
/// Addresses are stored in 16 bytes for both families; IPv4 uses the first four bytes and
/// zeros after them, so two keys compare equal only when the family matches too.
/// For ICMP, `sport`/`dport` hold whatever the caller chooses (Suricata uses type and
/// code); for protocols without ports they are 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(C)]
pub struct FlowKey {
    /// Source address.
    pub src: [u8; 16],
    /// Destination address.
    pub dst: [u8; 16],
    /// Source port.
    pub sport: u16,
    /// Destination port.
    pub dport: u16,
    /// VLAN ids, outermost first, 0 where absent.
    pub vlan: [u16; 3],
    /// IP protocol number (6 TCP, 17 UDP, 1 ICMP, 58 ICMPv6, ...).
    pub proto: u8,
    /// Address family.
    pub family: Family,
    /// Tunnel depth of the packets ([`wire::Packet::depth`], Suricata's recursion
    /// level): the same addresses inside and outside a tunnel are two flows.
    pub depth: u8,
}

impl FlowKey {
    /// An IPv4 key.
    pub fn v4(src: [u8; 4], sport: u16, dst: [u8; 4], dport: u16, proto: u8) -> FlowKey {
        let mut s = [0u8; 16];
        let mut d = [0u8; 16];
        s[..4].copy_from_slice(&src);
        d[..4].copy_from_slice(&dst);
        FlowKey {
            src: s,
            dst: d,
            sport,
            dport,
            vlan: [0; 3],
            proto,
            family: Family::V4,
            depth: 0,
        }
    }

    /// An IPv6 key.
    pub fn v6(src: [u8; 16], sport: u16, dst: [u8; 16], dport: u16, proto: u8) -> FlowKey {
        FlowKey {
            src,
            dst,
            sport,
            dport,
            vlan: [0; 3],
            proto,
            family: Family::V6,
            depth: 0,
        }
    }

    /// The same key seen from the other direction.
    pub fn reversed(&self) -> FlowKey {
        FlowKey {
            src: self.dst,
            dst: self.src,
            sport: self.dport,
            dport: self.sport,
            ..*self
        }
    }

    /// The address bytes that matter for this family (4 or 16).
    pub fn addr_len(&self) -> usize {
        match self.family {
            Family::V4 => 4,
            Family::V6 => 16,
        }
    }

    /// True when (src, sport) sorts after (dst, dport): the key is in "high → low" order.
    #[inline]
    fn src_is_high(&self) -> bool {
        (self.src, self.sport) > (self.dst, self.dport)
    }

    /// The canonical (direction-free) form of the key, and whether `self` had to be
    /// swapped to obtain it. Both directions of a flow give the same canonical key.
    #[inline]
    pub fn canonical(&self) -> (FlowKey, bool) {
        if self.src_is_high() {
            (self.reversed(), true)
        } else {
            (*self, false)
        }
    }

    /// Fast symmetric hash for software dispatch and table lookup.
    ///
    /// The two endpoints are ordered, then the 40-odd key bytes are folded as 64-bit
    /// words with a multiply-xorshift mixer (the shape of wyhash/FxHash folding), and
    /// finished with a full avalanche so the low bits spread well for `hash % workers`.
    #[inline]
    pub fn hash(&self) -> u64 {
        let (lo, hi, lport, hport) = if self.src_is_high() {
            (&self.dst, &self.src, self.dport, self.sport)
        } else {
            (&self.src, &self.dst, self.sport, self.dport)
        };
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let w = |b: &[u8; 16], i: usize| -> u64 {
            u64::from_le_bytes([
                b[i],
                b[i + 1],
                b[i + 2],
                b[i + 3],
                b[i + 4],
                b[i + 5],
                b[i + 6],
                b[i + 7],
            ])
        };
        let mix = |h: u64, v: u64| -> u64 {
            let m = (h ^ v) as u128 * K as u128;
            (m as u64) ^ ((m >> 64) as u64)
        };
        let mut h = 0x243f_6a88_85a3_08d3u64;
        h = mix(h, w(lo, 0));
        h = mix(h, w(lo, 8));
        h = mix(h, w(hi, 0));
        h = mix(h, w(hi, 8));
        let tail = (lport as u64)
            | (hport as u64) << 16
            | (self.proto as u64) << 32
            | (self.family as u64) << 40
            | (self.depth as u64) << 48;
        h = mix(h, tail);
        let vl = self.vlan[0] as u64 | (self.vlan[1] as u64) << 16 | (self.vlan[2] as u64) << 32;
        if vl != 0 {
            h = mix(h, vl);
        }
        fmix64(h)
    }

    /// Toeplitz hash (what RSS computes on a NIC) with the symmetric key
    /// [`SYMMETRIC_RSS_KEY`] over the 4-tuple, as in Kargus §4.2: source address,
    /// destination address, source port, destination port in network byte order.
    /// Symmetric because the key repeats every 16 bits (Woo & Park, 2012).
    #[inline]
    pub fn toeplitz(&self) -> u32 {
        let n = self.addr_len();
        let mut input = [0u8; 36];
        input[..n].copy_from_slice(&self.src[..n]);
        input[n..2 * n].copy_from_slice(&self.dst[..n]);
        input[2 * n..2 * n + 2].copy_from_slice(&self.sport.to_be_bytes());
        input[2 * n + 2..2 * n + 4].copy_from_slice(&self.dport.to_be_bytes());
        toeplitz_hash(&SYMMETRIC_RSS_KEY, &input[..2 * n + 4])
    }
}

/// MurmurHash3's 64-bit finalizer: every input bit affects every output bit.
#[inline]
fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// The symmetric RSS key: `0x6d5a` repeated (Woo & Park, "Scalable TCP session
/// monitoring with symmetric receive-side scaling", 2012). 52 bytes, enough for IPv6.
pub const SYMMETRIC_RSS_KEY: [u8; 52] = {
    let mut k = [0u8; 52];
    let mut i = 0;
    while i < 52 {
        k[i] = if i % 2 == 0 { 0x6d } else { 0x5a };
        i += 1;
    }
    k
};

/// The Toeplitz hash of `input` under `key` (Microsoft RSS specification): for every set
/// bit of the input, XOR in the 32-bit window of the key starting at that bit.
/// `key` must be at least `input.len() + 4` bytes long; missing key bytes read as zero.
pub fn toeplitz_hash(key: &[u8], input: &[u8]) -> u32 {
    let kb = |i: usize| -> u32 { key.get(i).copied().unwrap_or(0) as u32 };
    let mut result = 0u32;
    // The 32-bit key window, advanced one bit per input bit.
    let mut window = kb(0) << 24 | kb(1) << 16 | kb(2) << 8 | kb(3);
    for (i, &byte) in input.iter().enumerate() {
        let next = kb(i + 4);
        for bit in 0..8 {
            if byte & (0x80 >> bit) != 0 {
                result ^= window;
            }
            window = window << 1 | (next >> (7 - bit)) & 1;
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The verification suite of the Microsoft RSS specification (standard key).
    const MS_KEY: [u8; 40] = [
        0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f,
        0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
        0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
    ];

    fn ms_input(src: [u8; 4], dst: [u8; 4], sp: u16, dp: u16) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&src);
        v.extend_from_slice(&dst);
        v.extend_from_slice(&sp.to_be_bytes());
        v.extend_from_slice(&dp.to_be_bytes());
        v
    }

    #[test]
    fn toeplitz_matches_microsoft_vectors() {
        // (destination, port, source, port, IPv4-only hash, IPv4 with TCP hash)
        let cases = [
            (
                [161, 142, 100, 80],
                1766,
                [66, 9, 149, 187],
                2794,
                0x323e8fc2,
                0x51ccc178,
            ),
            (
                [65, 69, 140, 83],
                4739,
                [199, 92, 111, 2],
                14230,
                0xd718262a,
                0xc626b0ea,
            ),
            (
                [12, 22, 207, 184],
                38024,
                [24, 19, 198, 95],
                12898,
                0xd2d0a5de,
                0x5c2b394a,
            ),
            (
                [209, 142, 163, 6],
                2217,
                [38, 27, 205, 30],
                48228,
                0x82989176,
                0xafc7327f,
            ),
            (
                [202, 188, 127, 2],
                1303,
                [153, 39, 163, 191],
                44251,
                0x5d1809c5,
                0x10e828a2,
            ),
        ];
        for (dst, dp, src, sp, h_ip, h_tcp) in cases {
            let tcp = ms_input(src, dst, sp, dp);
            assert_eq!(toeplitz_hash(&MS_KEY, &tcp[..8]), h_ip);
            assert_eq!(toeplitz_hash(&MS_KEY, &tcp), h_tcp);
        }
    }

    fn pseudo_random_keys(n: usize) -> Vec<FlowKey> {
        let mut s = 0x1234_5678_9abc_def0u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        (0..n)
            .map(|i| {
                let a = next();
                let b = next();
                if i % 3 == 0 {
                    let mut src = [0u8; 16];
                    let mut dst = [0u8; 16];
                    src[..8].copy_from_slice(&a.to_le_bytes());
                    src[8..].copy_from_slice(&b.to_le_bytes());
                    dst[..8].copy_from_slice(&next().to_le_bytes());
                    dst[8..].copy_from_slice(&next().to_le_bytes());
                    FlowKey::v6(src, a as u16, dst, b as u16, 6)
                } else {
                    let sa = (a as u32).to_be_bytes();
                    let da = ((a >> 32) as u32).to_be_bytes();
                    FlowKey::v4(sa, b as u16, da, (b >> 16) as u16, [6, 17][i % 2])
                }
            })
            .collect()
    }

    #[test]
    fn hashes_are_symmetric() {
        for k in pseudo_random_keys(5000) {
            let r = k.reversed();
            assert_eq!(k.hash(), r.hash());
            assert_eq!(k.toeplitz(), r.toeplitz());
            assert_eq!(k.canonical().0, r.canonical().0);
            assert_ne!(k.canonical().1, r.canonical().1, "{k:?}");
        }
    }

    #[test]
    fn hash_distinguishes_fields() {
        let k = FlowKey::v4([10, 0, 0, 1], 1234, [10, 0, 0, 2], 80, 6);
        let mut u = k;
        u.proto = 17;
        assert_ne!(k.hash(), u.hash());
        let mut v = k;
        v.vlan[0] = 5;
        assert_ne!(k.hash(), v.hash());
        let mut p = k;
        p.sport = 1235;
        assert_ne!(k.hash(), p.hash());
    }

    /// Chi-square statistic of `n` keys spread over `buckets`.
    pub(crate) fn chi_square(hashes: impl Iterator<Item = u64>, buckets: usize) -> (f64, usize) {
        let mut counts = vec![0usize; buckets];
        let mut n = 0;
        for h in hashes {
            counts[(h % buckets as u64) as usize] += 1;
            n += 1;
        }
        let e = n as f64 / buckets as f64;
        (counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum(), n)
    }

    /// Upper critical values of chi-square at p = 0.001 for 1, 3 and 15 degrees of freedom.
    pub(crate) fn critical(buckets: usize) -> f64 {
        match buckets {
            2 => 10.83,
            4 => 16.27,
            16 => 37.70,
            _ => unreachable!(),
        }
    }

    #[test]
    fn hashes_spread_over_workers() {
        // Sequential client ports towards one server: the hard case for weak hashes.
        let keys: Vec<FlowKey> = (0..4000u16)
            .map(|p| FlowKey::v4([192, 168, 1, 10], 30000 + p, [93, 184, 216, 34], 443, 6))
            .chain(pseudo_random_keys(4000))
            .collect();
        for buckets in [2, 4, 16] {
            let (fast, _) = chi_square(keys.iter().map(|k| k.hash()), buckets);
            assert!(
                fast < critical(buckets),
                "fast hash over {buckets}: chi2 {fast}"
            );
            let (rss, _) = chi_square(keys.iter().map(|k| k.toeplitz() as u64), buckets);
            assert!(
                rss < critical(buckets),
                "toeplitz over {buckets}: chi2 {rss}"
            );
        }
    }

    #[test]
    fn symmetric_key_shape() {
        assert_eq!(&SYMMETRIC_RSS_KEY[..4], &[0x6d, 0x5a, 0x6d, 0x5a]);
    }
}
