//! One pipeline: the stages a batch goes through, with their per-worker state.

use crate::config::{ChecksumMode, EngineConfig};
use capture::Batch;
use output::stats::StatsTree;
use wire::{flags, Decoded, Decoder, DecoderConfig, Packet, Timestamp};

/// The per-worker pipeline: owns its decoder, scratch space and counters; shares nothing.
pub struct Pipeline {
    checksum: ChecksumMode,
    decoder: Decoder,
    decoded: Decoded,
    /// Packets (outer and tunnelled) kept from the stages after decoding because of a
    /// bad checksum under `-k all`.
    checksum_invalid: u64,
    /// Packets handed to the stages after decoding.
    inspected: u64,
}

impl Pipeline {
    /// A pipeline for `config`.
    pub fn new(config: &EngineConfig) -> Self {
        let decoder_config = DecoderConfig {
            verify_checksums: config.checksum == ChecksumMode::All,
            ..DecoderConfig::default()
        };
        Pipeline {
            checksum: config.checksum,
            decoder: Decoder::new(decoder_config),
            decoded: Decoded::new(),
            checksum_invalid: 0,
            inspected: 0,
        }
    }

    /// Runs every frame of `batch` through the stages.
    pub fn process_batch(&mut self, batch: &Batch) {
        for frame in batch.iter() {
            let ts = Timestamp::from_secs_nanos(frame.ts.secs.max(0) as u64, frame.ts.nanos);
            self.decoder.decode(
                frame.link,
                frame.data,
                ts,
                frame.wire_len,
                &mut self.decoded,
            );
            for pkt in self.decoded.packets() {
                if self.checksum == ChecksumMode::All && has_bad_checksum(pkt) {
                    self.checksum_invalid += 1;
                    continue;
                }
                self.inspected += 1;
            }
        }
    }

    /// The counters of every stage, under Suricata's names where Suricata has one.
    pub fn stats(&self) -> StatsTree {
        let mut tree = StatsTree::new();
        tree.extend(self.decoder.stats().counters());
        tree.add("osprey.checksum.invalid", self.checksum_invalid);
        tree.add("osprey.packets.inspected", self.inspected);
        tree
    }
}

fn has_bad_checksum(pkt: &Packet) -> bool {
    pkt.has(flags::IP_CSUM_BAD) || pkt.has(flags::L4_CSUM_BAD)
}
