//! The `tunnel{}` object of an alert on a packet found inside a tunnel: what the
//! captured frame's outermost packet says, found through the decoder's parent links.

use output::eve::AlertTunnel;
use wire::{ip_addr, Packet, Tunnel};

/// The tunnel context of `packets[i]` (a frame's decoded packets, outermost first)
/// captured as frame `pcap_cnt`; `None` unless that packet came out of a tunnel
/// (a datagram rebuilt from fragments is not a tunnel packet).
pub(crate) fn outer(packets: &[Packet], i: usize, pcap_cnt: u64) -> Option<AlertTunnel> {
    let p = packets.get(i)?;
    if matches!(p.tunnel, Tunnel::None | Tunnel::Reassembled) {
        return None;
    }
    // Walk up to the root, counting the tunnel layers on the way (bounded: a
    // malformed parent chain cannot loop).
    let (mut k, mut depth) = (i, 0u8);
    for _ in 0..packets.len() {
        let q = &packets[k];
        let parent = usize::from(q.parent);
        if parent == k || parent >= packets.len() {
            break;
        }
        if !matches!(q.tunnel, Tunnel::None | Tunnel::Reassembled) {
            depth = depth.saturating_add(1);
        }
        k = parent;
    }
    let root = &packets[k];
    let ports = wire::has_ports(root.proto);
    let v4 = root.ip_version == 4;
    Some(AlertTunnel {
        src_ip: ip_addr(v4, &root.src),
        dest_ip: ip_addr(v4, &root.dst),
        src_port: if ports { root.sport } else { 0 },
        dest_port: if ports { root.dport } else { 0 },
        proto: root.proto,
        depth: depth.max(1),
        pcap_cnt: Some(pcap_cnt),
        pkt_src: "wire/pcap",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outer_packet_of_a_gre_tunnel() {
        let mut gre = Packet {
            ip_version: 4,
            proto: 47,
            ..Default::default()
        };
        gre.src[..4].copy_from_slice(&[172, 27, 1, 66]);
        gre.dst[..4].copy_from_slice(&[66, 59, 109, 137]);
        let inner = Packet {
            ip_version: 4,
            proto: 1,
            tunnel: Tunnel::Gre,
            parent: 0,
            ..Default::default()
        };
        let nested = Packet {
            ip_version: 4,
            proto: 17,
            tunnel: Tunnel::Vxlan,
            parent: 1,
            ..Default::default()
        };
        let pkts = [gre, inner, nested];
        assert!(outer_is_none(&pkts, 0));
        let t = outer(&pkts, 1, 7559).unwrap();
        assert_eq!(
            t.to_eve().to_string(),
            r#"{"src_ip":"172.27.1.66","src_port":0,"dest_ip":"66.59.109.137","dest_port":0,"proto":"GRE","depth":1,"pcap_cnt":7559,"pkt_src":"wire/pcap"}"#
        );
        assert_eq!(outer(&pkts, 2, 7559).unwrap().depth, 2);
        assert!(outer(&pkts, 3, 1).is_none());
        // A parent link pointing forward (malformed) does not loop.
        let looped = [inner, Packet { parent: 0, ..inner }];
        assert!(outer(&looped, 1, 1).is_some());
    }

    fn outer_is_none(p: &[Packet], i: usize) -> bool {
        outer(p, i, 1).is_none()
    }
}
