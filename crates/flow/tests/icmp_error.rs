//! An ICMPv4 destination-unreachable joins the flow of the connection it quotes
//! (Suricata hashes it by the quoted tuple), on the corpus capture flow-drop-iponly-02:
//! a DNS query/answer over UDP, then a port-unreachable quoting one of the answers.

mod common;

use common::{counter, run_pcap, shared};
use flow::{Config, Direction};

#[test]
fn port_unreachable_joins_the_quoted_udp_flow() {
    let Some(pcap) = shared("corpus/open/flow-drop-iponly-02/input.pcap") else {
        return;
    };
    let mut icmp = Vec::new();
    let t = run_pcap(
        &pcap,
        Config::default(),
        |p, _, u| {
            if p.proto == 1 {
                icmp.push((u.dir, u.flow.pkts));
            }
        },
        |_| {},
    );
    assert_eq!(counter(&t, "flow.total"), 1);
    assert_eq!(counter(&t, "flow.udp"), 1);
    assert_eq!(counter(&t, "flow.icmpv4"), 0);
    // Sent by the client (the quoted answer went to it): to-server, fourth packet
    // from the client's side.
    assert_eq!(icmp, vec![(Direction::ToServer, [4, 3])]);
}
