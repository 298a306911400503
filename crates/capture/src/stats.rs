//! Counters kept by every packet source.

/// Counters of a [`Source`](crate::Source): what was read and what had to be skipped.
///
/// Malformed records never stop a run with a panic: they are counted here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CaptureStats {
    /// Frames delivered in batches.
    pub packets: u64,
    /// Captured bytes delivered (sum of `Frame::data` lengths).
    pub bytes: u64,
    /// Records cut short by the end of the input (e.g. the truncated last record of a file
    /// that was still being written); reading stops there.
    pub truncated: u64,
    /// Records whose captured length exceeds the snapshot length or the 256 KiB hard limit.
    /// Above the snapshot length the frame is cut to it (as libpcap does); above the hard
    /// limit a pcap record cannot be trusted and reading stops, a pcapng block is skipped.
    pub oversize: u64,
    /// Malformed blocks or records (bad block length, packet for an undeclared interface,
    /// length fields inconsistent with the block). Skipped where the format allows
    /// resynchronising (pcapng with a sane block length), otherwise reading stops.
    pub bad_blocks: u64,
    /// Frames whose link type has no decoder in `wire` (still delivered).
    pub unknown_link: u64,
    /// Live capture: packets the kernel saw for this socket after filtering, dropped ones
    /// included, as PACKET_STATISTICS reports them (`capture.kernel_packets`).
    pub kernel_packets: u64,
    /// Live capture: packets the kernel dropped because the ring was full
    /// (`capture.kernel_drops`).
    pub kernel_drops: u64,
    /// Inline bridge: frames sent out of the other interface.
    pub forwarded: u64,
    /// Inline bridge: frames the kernel refused to send (e.g. larger than the outgoing
    /// interface's MTU, interface down); they are lost.
    pub forward_errors: u64,
    /// Frames a capture filter (BPF expression) left out of a file run: they are not
    /// packets of the run (no decoder counter, no `pcap_cnt`), as in Suricata, where
    /// libpcap drops them before the engine sees them (`osprey.capture.filtered`).
    pub filtered: u64,
    /// Capture files read to their end (`-r` with a file or a directory).
    pub files: u64,
    /// Files of a directory run that could not be opened or read; each one is reported
    /// and the run goes on with the next file (`osprey.capture.file_errors`).
    pub file_errors: u64,
    /// Live capture: errors the kernel reported on a capture socket (the interface went
    /// down: `ENETDOWN`); each one is read, which clears it, and capture goes on when
    /// the link comes back (`osprey.capture.link_errors`).
    pub link_errors: u64,
}

impl CaptureStats {
    /// Adds another source's counters into these (e.g. per-worker live sources).
    pub fn merge(&mut self, other: &CaptureStats) {
        self.packets += other.packets;
        self.bytes += other.bytes;
        self.truncated += other.truncated;
        self.oversize += other.oversize;
        self.bad_blocks += other.bad_blocks;
        self.unknown_link += other.unknown_link;
        self.kernel_packets += other.kernel_packets;
        self.kernel_drops += other.kernel_drops;
        self.forwarded += other.forwarded;
        self.forward_errors += other.forward_errors;
        self.filtered += other.filtered;
        self.files += other.files;
        self.file_errors += other.file_errors;
        self.link_errors += other.link_errors;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_adds_every_counter() {
        let one = CaptureStats {
            packets: 1,
            bytes: 2,
            truncated: 3,
            oversize: 4,
            bad_blocks: 5,
            unknown_link: 6,
            kernel_packets: 7,
            kernel_drops: 8,
            forwarded: 9,
            forward_errors: 10,
            filtered: 11,
            files: 12,
            file_errors: 13,
            link_errors: 14,
        };
        let mut sum = one;
        sum.merge(&one);
        assert_eq!(
            sum,
            CaptureStats {
                packets: 2,
                bytes: 4,
                truncated: 6,
                oversize: 8,
                bad_blocks: 10,
                unknown_link: 12,
                kernel_packets: 14,
                kernel_drops: 16,
                forwarded: 18,
                forward_errors: 20,
                filtered: 22,
                files: 24,
                file_errors: 26,
                link_errors: 28,
            }
        );
    }
}
