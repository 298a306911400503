//! Stage (a), decode and defragment: a frame's bytes into packets (tunnels included),
//! the checksum policy, and the datagrams IP defragmentation rebuilds, decoded again
//! to continue like captured packets. (Fragments are held by the flow tracker's
//! defragmenter: the flows stage inserts them.)

use crate::config::{ChecksumMode, EngineConfig};
use capture::Frame;
use wire::{flags, Decoded, Decoder, DecoderConfig, Packet, Timestamp};

/// The decoder, its scratch space and the checksum counter of one pipeline.
pub(super) struct DecodeStage {
    checksum: ChecksumMode,
    pub(super) decoder: Decoder,
    /// The packets of a frame processed alone ([`super::Pipeline::process_frame`]).
    pub(super) decoded: Decoded,
    /// The batch's frames decoded (the decode stage runs over a whole batch before the
    /// later stages, Kargus §4.3); reused from batch to batch.
    pub(super) batch: Vec<Decoded>,
    /// Reassembled datagram being decoded again, and its packets.
    datagram: Vec<u8>,
    datagram_decoded: Decoded,
    /// Packets (outer and tunnelled) kept from the stages after decoding because of a
    /// bad checksum under `-k all`.
    pub(super) checksum_invalid: u64,
}

impl DecodeStage {
    /// The decode stage `config` asks for, decoding with `decoder_config`.
    pub(super) fn new(config: &EngineConfig, decoder_config: DecoderConfig) -> Self {
        DecodeStage {
            checksum: config.checksum,
            decoder: Decoder::new(decoder_config),
            decoded: Decoded::new(),
            batch: Vec::new(),
            datagram: Vec::new(),
            datagram_decoded: Decoded::new(),
            checksum_invalid: 0,
        }
    }

    /// Decodes `frame` into `out`.
    pub(super) fn decode(&mut self, frame: &Frame<'_>, out: &mut Decoded) {
        let ts = Timestamp::from_secs_nanos(frame.ts.secs.max(0) as u64, frame.ts.nanos);
        self.decoder
            .decode(frame.link, frame.data, ts, frame.wire_len, out);
    }

    /// Whether `p` stops here because of a bad checksum under `-k all` (counted).
    pub(super) fn checksum_rejects(&mut self, p: &Packet) -> bool {
        if self.checksum == ChecksumMode::All
            && (p.has(flags::IP_CSUM_BAD) || p.has(flags::L4_CSUM_BAD))
        {
            self.checksum_invalid += 1;
            return true;
        }
        false
    }

    /// Keeps a copy of the datagram defragmentation just rebuilt.
    pub(super) fn keep_datagram(&mut self, datagram: &[u8]) {
        self.datagram.clear();
        self.datagram.extend_from_slice(datagram);
    }

    /// Decodes the datagram kept by [`keep_datagram`](Self::keep_datagram) (`outer`: the
    /// fragment that completed it): its bytes and its packets.
    pub(super) fn decode_datagram(&mut self, outer: &Packet) -> (&[u8], &Decoded) {
        self.decoder
            .decode_ip(&self.datagram, outer, &mut self.datagram_decoded);
        (&self.datagram, &self.datagram_decoded)
    }
}
