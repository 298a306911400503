//! The haystacks: each TCP/UDP payload of a capture, separately (as an IDS scans them), and
//! random bytes.

use std::path::Path;

/// TCP and UDP payloads of `pcap`, innermost packet of each frame, in capture order.
pub(crate) fn pcap_payloads(pcap: &Path) -> Result<Vec<Vec<u8>>, String> {
    let mut source = capture::open(pcap).map_err(|e| format!("{}: {e}", pcap.display()))?;
    let mut batch = capture::Batch::new();
    let mut decoder = wire::Decoder::new(wire::DecoderConfig::default());
    let mut decoded = wire::Decoded::new();
    let mut out = Vec::new();
    loop {
        let n = source
            .next_batch(&mut batch, capture::BATCH_SIZE)
            .map_err(|e| format!("{}: {e}", pcap.display()))?;
        if n == 0 {
            break;
        }
        for frame in batch.iter() {
            // Time plays no part in payload extraction.
            let ts = wire::Timestamp(0);
            decoder.decode(frame.link, frame.data, ts, frame.wire_len, &mut decoded);
            let Some(p) = decoded.packets().last() else {
                continue;
            };
            if p.is_tcp() || p.is_udp() {
                let payload = p.payload(frame.data);
                if !payload.is_empty() {
                    out.push(payload.to_vec());
                }
            }
        }
    }
    Ok(out)
}

/// `len` pseudo-random bytes from `seed` (xorshift64*), the same on every run.
pub(crate) fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        out.extend_from_slice(&x.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes());
    }
    out.truncate(len);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_is_deterministic_and_spread() {
        let a = random_bytes(1, 1 << 16);
        assert_eq!(a, random_bytes(1, 1 << 16));
        assert_ne!(a, random_bytes(2, 1 << 16));
        let mut seen = [0usize; 256];
        a.iter().for_each(|&b| seen[b as usize] += 1);
        assert!(seen.iter().all(|&n| n > 150 && n < 370), "{seen:?}");
    }

    #[test]
    fn missing_pcap_is_an_error() {
        assert!(pcap_payloads(Path::new("/nonexistent.pcap")).is_err());
    }
}
