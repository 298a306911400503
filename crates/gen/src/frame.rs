//! Building Ethernet/IPv4/TCP and UDP frames with correct checksums, and writing them to a
//! classic pcap file (microsecond timestamps, link type Ethernet).

use std::io::{self, Write};
use std::net::Ipv4Addr;
use wire::checksum;

/// Ethernet + IPv4 + TCP header bytes (no options).
pub const TCP_HEADERS: usize = 14 + 20 + 20;
/// Ethernet + IPv4 + UDP header bytes.
pub const UDP_HEADERS: usize = 14 + 20 + 8;
/// The largest frame written (1500-byte IP MTU plus the Ethernet header).
pub const MAX_FRAME: usize = 1514;

/// TCP flag bits (declared once, in `wire`).
pub use wire::tcp_flags as flags;

/// One end of a conversation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Endpoint {
    /// IPv4 address.
    pub ip: Ipv4Addr,
    /// Port.
    pub port: u16,
}

/// A TCP segment to encode.
#[derive(Clone, Copy, Debug)]
pub struct TcpSeg<'a> {
    /// Sender.
    pub src: Endpoint,
    /// Receiver.
    pub dst: Endpoint,
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgement number.
    pub ack: u32,
    /// Flag bits ([`flags`]).
    pub flags: u8,
    /// Payload.
    pub payload: &'a [u8],
}

fn mac(ip: Ipv4Addr) -> [u8; 6] {
    let o = ip.octets();
    [0x02, 0x00, o[0], o[1], o[2], o[3]]
}

fn ipv4_header(
    out: &mut Vec<u8>,
    src: Ipv4Addr,
    dst: Ipv4Addr,
    proto: u8,
    payload_len: usize,
    id: u16,
) {
    let start = out.len();
    let total = (20 + payload_len) as u16;
    out.extend_from_slice(&[0x45, 0]);
    out.extend_from_slice(&total.to_be_bytes());
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(&[0x40, 0, 64, proto, 0, 0]);
    out.extend_from_slice(&src.octets());
    out.extend_from_slice(&dst.octets());
    let sum = checksum::checksum(&out[start..start + 20]);
    out[start + 10..start + 12].copy_from_slice(&sum.to_be_bytes());
}

fn ethernet(out: &mut Vec<u8>, src: Ipv4Addr, dst: Ipv4Addr) {
    out.extend_from_slice(&mac(dst));
    out.extend_from_slice(&mac(src));
    out.extend_from_slice(&[0x08, 0x00]);
}

/// Encodes a TCP segment as an Ethernet frame into `out` (cleared first).
pub fn tcp_frame(out: &mut Vec<u8>, seg: &TcpSeg<'_>, ip_id: u16) {
    out.clear();
    ethernet(out, seg.src.ip, seg.dst.ip);
    ipv4_header(
        out,
        seg.src.ip,
        seg.dst.ip,
        6,
        20 + seg.payload.len(),
        ip_id,
    );
    let t = out.len();
    out.extend_from_slice(&seg.src.port.to_be_bytes());
    out.extend_from_slice(&seg.dst.port.to_be_bytes());
    out.extend_from_slice(&seg.seq.to_be_bytes());
    out.extend_from_slice(&seg.ack.to_be_bytes());
    out.extend_from_slice(&[0x50, seg.flags]);
    out.extend_from_slice(&64240u16.to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(seg.payload);
    let len = (out.len() - t) as u32;
    let pseudo = checksum::pseudo_header_v4(&seg.src.ip.octets(), &seg.dst.ip.octets(), 6, len);
    let sum = checksum::compute_with_pseudo(pseudo, &out[t..]);
    out[t + 16..t + 18].copy_from_slice(&sum.to_be_bytes());
}

/// Encodes a UDP datagram as an Ethernet frame into `out` (cleared first).
pub fn udp_frame(out: &mut Vec<u8>, src: Endpoint, dst: Endpoint, payload: &[u8], ip_id: u16) {
    out.clear();
    ethernet(out, src.ip, dst.ip);
    ipv4_header(out, src.ip, dst.ip, 17, 8 + payload.len(), ip_id);
    let u = out.len();
    let len = (8 + payload.len()) as u16;
    out.extend_from_slice(&src.port.to_be_bytes());
    out.extend_from_slice(&dst.port.to_be_bytes());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(payload);
    let pseudo = checksum::pseudo_header_v4(&src.ip.octets(), &dst.ip.octets(), 17, len as u32);
    let mut sum = checksum::compute_with_pseudo(pseudo, &out[u..]);
    if sum == 0 {
        sum = 0xffff;
    }
    out[u + 6..u + 8].copy_from_slice(&sum.to_be_bytes());
}

/// Writes a classic pcap file (little-endian, microseconds, Ethernet).
pub struct PcapWriter<W: Write> {
    out: W,
    /// Frames written so far.
    pub frames: u64,
    /// Frame bytes written so far (excluding pcap record headers).
    pub bytes: u64,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the file header.
    pub fn new(mut out: W) -> io::Result<Self> {
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes());
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&0i32.to_le_bytes());
        h.extend_from_slice(&0u32.to_le_bytes());
        h.extend_from_slice(&65535u32.to_le_bytes());
        h.extend_from_slice(&1u32.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter {
            out,
            frames: 0,
            bytes: 0,
        })
    }

    /// Appends one frame with a timestamp in microseconds since the epoch.
    pub fn write(&mut self, ts_us: u64, frame: &[u8]) -> io::Result<()> {
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&((ts_us / 1_000_000) as u32).to_le_bytes());
        h[4..8].copy_from_slice(&((ts_us % 1_000_000) as u32).to_le_bytes());
        h[8..12].copy_from_slice(&(frame.len() as u32).to_le_bytes());
        h[12..16].copy_from_slice(&(frame.len() as u32).to_le_bytes());
        self.out.write_all(&h)?;
        self.out.write_all(frame)?;
        self.frames += 1;
        self.bytes += frame.len() as u64;
        Ok(())
    }

    /// Flushes and returns the sink.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep(a: u8, port: u16) -> Endpoint {
        Endpoint {
            ip: Ipv4Addr::new(10, 0, 0, a),
            port,
        }
    }

    #[test]
    fn tcp_frame_checksums_verify() {
        let mut f = Vec::new();
        let seg = TcpSeg {
            src: ep(1, 1234),
            dst: ep(2, 80),
            seq: 1,
            ack: 2,
            flags: flags::ACK | flags::PSH,
            payload: b"GET / HTTP/1.1\r\n\r\n",
        };
        tcp_frame(&mut f, &seg, 9);
        assert_eq!(f.len(), TCP_HEADERS + seg.payload.len());
        assert_eq!(checksum::checksum(&f[14..34]), 0);
        let pseudo =
            checksum::pseudo_header_v4(&[10, 0, 0, 1], &[10, 0, 0, 2], 6, (f.len() - 34) as u32);
        assert!(checksum::verify_with_pseudo(pseudo, &f[34..]));
    }

    #[test]
    fn udp_frame_checksums_verify() {
        let mut f = Vec::new();
        udp_frame(&mut f, ep(1, 5353), ep(2, 53), b"abc", 1);
        assert_eq!(f.len(), UDP_HEADERS + 3);
        let pseudo = checksum::pseudo_header_v4(&[10, 0, 0, 1], &[10, 0, 0, 2], 17, 11);
        assert!(checksum::verify_with_pseudo(pseudo, &f[34..]));
    }

    #[test]
    fn pcap_layout() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        w.write(1_500_000, &[1, 2, 3]).unwrap();
        let v = w.finish().unwrap();
        assert_eq!(v.len(), 24 + 16 + 3);
        assert_eq!(&v[0..4], &0xa1b2_c3d4u32.to_le_bytes());
        assert_eq!(&v[24..28], &1u32.to_le_bytes());
        assert_eq!(&v[28..32], &500_000u32.to_le_bytes());
    }
}
