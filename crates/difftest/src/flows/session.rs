//! A session of whole application messages written as TCP segments or UDP datagrams,
//! for the ICS, NFS and FTP families: the handshake, each message in one segment, cut in
//! two now and then, or sharing its segment with the next message of the same side, the
//! peer's acknowledgements, and the FIN exchange.

use super::Flow;
use crate::rulegen::Gen;
use wire::tcp_flags::{ACK, PSH};

/// The client's and the server's initial sequence numbers.
pub(super) const ISN: (u32, u32) = (10_000, 50_000);

/// A TCP connection being written message by message: the next sequence number of the
/// client (`.0[0]`) and of the server (`.0[1]`).
pub(super) struct Tcp(pub(super) [u32; 2]);

impl Tcp {
    /// The handshake on `f`.
    pub(super) fn open(f: &mut Flow) -> Tcp {
        let (ci, si) = ISN;
        f.handshake(ci, si);
        Tcp([ci + 1, si + 1])
    }

    /// One side's data: in one segment or cut in two, then the peer's acknowledgement.
    pub(super) fn send(&mut self, g: &mut Gen<'_>, f: &mut Flow, client: bool, data: &[u8]) {
        let cut = if data.len() > 2 && g.chance(0.2) {
            g.size(1, data.len() - 1)
        } else {
            data.len()
        };
        let (me, peer) = if client { (0, 1) } else { (1, 0) };
        for part in [&data[..cut], &data[cut..]] {
            if !part.is_empty() {
                f.tcp(client, self.0[me], self.0[peer], PSH | ACK, &[], part);
                self.0[me] += part.len() as u32;
            }
        }
        f.tcp(!client, self.0[peer], self.0[me], ACK, &[], &[]);
    }

    /// The FIN exchange.
    pub(super) fn close(&self, f: &mut Flow) {
        f.close(self.0[0], self.0[1]);
    }
}

/// Writes `msgs` (client?, bytes) over TCP on `f`: handshake, messages, close. Returns
/// the next sequence numbers of the client and the server.
pub(super) fn tcp(g: &mut Gen<'_>, f: &mut Flow, msgs: &[(bool, Vec<u8>)]) -> (u32, u32) {
    let mut t = Tcp::open(f);
    let mut i = 0;
    while i < msgs.len() {
        let (client, ref m) = msgs[i];
        let mut data = m.clone();
        // Two messages of one side in one segment now and then.
        while i + 1 < msgs.len() && msgs[i + 1].0 == client && g.chance(0.15) {
            i += 1;
            data.extend_from_slice(&msgs[i].1);
        }
        t.send(g, f, client, &data);
        i += 1;
    }
    t.close(f);
    (t.0[0] + 1, t.0[1] + 1)
}

/// Writes `msgs` (client?, bytes) as UDP datagrams on `f`.
pub(super) fn udp(f: &mut Flow, msgs: &[(bool, Vec<u8>)]) {
    for (client, m) in msgs {
        f.udp(*client, m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_byte_is_sent_once_in_order() {
        let mut rng = gen::rng::Rng::new(2);
        let mut g = Gen {
            rng: &mut rng,
            index: 4,
        };
        for _ in 0..40 {
            let mut f = Flow::new(4, false, 502);
            let msgs = vec![
                (true, b"abcdef".to_vec()),
                (true, b"gh".to_vec()),
                (false, b"ijklmnop".to_vec()),
            ];
            let (c, s) = tcp(&mut g, &mut f, &msgs);
            assert_eq!(c, ISN.0 + 1 + 8 + 1);
            assert_eq!(s, ISN.1 + 1 + 8 + 1);
            // 3 handshake + 3 close + data segments and acks.
            assert!(f.frames.len() >= 3 + 3 + 2 + 2);
        }
    }
}
