//! One flow-hash bucket of an input (`--flow-hash-bucket b/B`): the frames whose
//! dispatch key hashes to bucket `b` of `B`, so that `B` runs over the same input, one
//! per bucket, together see every frame once and each see whole flows.
//!
//! The key is the one the offline reader dispatches frames to workers with
//! ([`flow::dispatch::dispatch_hash`]): the symmetric address pair of the packet that
//! gets a flow, so both directions of a conversation, the fragments of a datagram,
//! tunnelled packets and ICMP errors quoting a connection fall in the bucket that holds
//! that connection. A retro-hunt splits a link's files by bucket rather than by time,
//! so a flow that continues from one file into the next stays in one run.
//!
//! Kept frames keep their index (`pcap_cnt`) in the whole input; the frames left out
//! are counted as filtered (`osprey.capture.filtered`).

use capture::{Batch, CaptureError, CaptureStats, Source};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use wire::{Decoded, Decoder, DecoderConfig};

/// Bucket `index` of `count` (`0 <= index < count`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowBucket {
    /// This bucket, from 0.
    pub index: u64,
    /// Number of buckets the input is split into.
    pub count: u64,
}

impl FlowBucket {
    /// Parses `b/B` (e.g. `3/16`).
    pub fn parse(text: &str) -> Result<FlowBucket, String> {
        let bad = || format!("`{text}`: expected b/B with 0 <= b < B, e.g. 3/16");
        let (b, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let index: u64 = b.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(FlowBucket { index, count })
    }

    /// The bucket of a dispatch hash. The hash's high half chooses it, so that the
    /// workers of a run over one bucket (chosen by the hash modulo their number) still
    /// share its flows out evenly.
    pub fn of_hash(hash: u64, count: u64) -> u64 {
        hash.rotate_right(32) % count.max(1)
    }

    /// Whether a frame with this dispatch hash belongs to this bucket.
    pub fn holds(&self, hash: u64) -> bool {
        FlowBucket::of_hash(hash, self.count) == self.index
    }
}

/// A [`Source`] yielding the frames of another source that fall in one [`FlowBucket`],
/// with their indexes unchanged.
pub struct BucketSource<'a> {
    inner: Box<dyn Source + 'a>,
    bucket: FlowBucket,
    decoder: Decoder,
    decoded: Decoded,
    filtered: u64,
}

impl<'a> BucketSource<'a> {
    /// The frames of `inner` in `bucket`.
    pub fn new(inner: Box<dyn Source + 'a>, bucket: FlowBucket) -> BucketSource<'a> {
        BucketSource {
            inner,
            bucket,
            decoder: Decoder::new(DecoderConfig {
                verify_checksums: false,
                ..DecoderConfig::default()
            }),
            decoded: Decoded::new(),
            filtered: 0,
        }
    }
}

impl Source for BucketSource<'_> {
    fn next_batch(&mut self, batch: &mut Batch, max: usize) -> Result<usize, CaptureError> {
        // Refill until something is kept or the input ends: an empty batch is the end.
        loop {
            if self.inner.next_batch(batch, max)? == 0 {
                return Ok(0);
            }
            let (decoder, decoded, bucket) = (&mut self.decoder, &mut self.decoded, self.bucket);
            let removed = batch.retain(|frame| {
                bucket.holds(flow::dispatch::dispatch_hash(
                    decoder, decoded, frame.link, frame.data,
                ))
            });
            self.filtered += removed as u64;
            if !batch.is_empty() {
                return Ok(batch.len());
            }
        }
    }

    fn stats(&self) -> CaptureStats {
        let mut stats = self.inner.stats();
        stats.filtered += self.filtered;
        stats
    }

    fn stop_on(&mut self, flag: Arc<AtomicBool>) {
        self.inner.stop_on(flag);
    }

    fn may_wait(&self) -> bool {
        self.inner.may_wait()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bucket_of_count() {
        assert_eq!(
            FlowBucket::parse("3/16"),
            Ok(FlowBucket {
                index: 3,
                count: 16
            })
        );
        assert_eq!(
            FlowBucket::parse(" 0 / 1 "),
            Ok(FlowBucket { index: 0, count: 1 })
        );
        for bad in ["", "3", "16/16", "1/0", "a/2", "-1/2", "1/2/3"] {
            assert!(FlowBucket::parse(bad).is_err(), "{bad}");
        }
    }

    /// An Ethernet/IPv4/TCP frame from `a`:`sp` to `b`:`dp`.
    fn frame(a: [u8; 4], sp: u16, b: [u8; 4], dp: u16) -> Vec<u8> {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&[0x08, 0x00, 0x45, 0, 0, 40, 0, 0, 0x40, 0, 64, 6, 0, 0]);
        f.extend_from_slice(&a);
        f.extend_from_slice(&b);
        f.extend_from_slice(&sp.to_be_bytes());
        f.extend_from_slice(&dp.to_be_bytes());
        f.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x10, 0xff, 0xff, 0, 0, 0, 0]);
        f
    }

    /// A little-endian pcap file (Ethernet) of `frames`.
    fn pcap(frames: &[Vec<u8>]) -> Vec<u8> {
        let mut out = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0];
        out.extend_from_slice(&[0; 8]);
        out.extend_from_slice(&65535u32.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        for (k, f) in frames.iter().enumerate() {
            out.extend_from_slice(&(k as u32 + 1).to_le_bytes());
            out.extend_from_slice(&0u32.to_le_bytes());
            out.extend_from_slice(&(f.len() as u32).to_le_bytes());
            out.extend_from_slice(&(f.len() as u32).to_le_bytes());
            out.extend_from_slice(f);
        }
        out
    }

    #[test]
    fn buckets_partition_the_input_and_keep_both_directions_together() {
        let mut frames = Vec::new();
        for k in 0..200u8 {
            let (a, b) = ([10, 0, k, 1], [192, 168, 1, k / 3]);
            frames.push(frame(a, 40000 + k as u16, b, 80));
            frames.push(frame(b, 80, a, 40000 + k as u16));
        }
        let count = 4;
        let mut seen = Vec::new();
        for index in 0..count {
            let inner = capture::open_bytes("t.pcap".as_ref(), pcap(&frames)).unwrap();
            let mut src = BucketSource::new(inner, FlowBucket { index, count });
            let mut batch = Batch::new();
            let mut kept = Vec::new();
            while src.next_batch(&mut batch, 7).unwrap() > 0 {
                kept.extend(batch.iter().map(|f| f.index));
            }
            assert!(!kept.is_empty(), "bucket {index} is empty");
            assert_eq!(
                src.stats().filtered + kept.len() as u64,
                frames.len() as u64
            );
            // Both directions of each conversation (frames 2k+1, 2k+2) stay together.
            for i in &kept {
                let pair = if i % 2 == 1 { i + 1 } else { i - 1 };
                assert!(kept.contains(&pair), "frame {i} without {pair}");
            }
            seen.extend(kept);
        }
        seen.sort_unstable();
        assert_eq!(seen, (1..=frames.len() as u64).collect::<Vec<_>>());
    }
}
