"""A two-way IPv4 UDP flow (request, reply, request): address-only rules with a negated
address ($EXTERNAL_NET, !x, [x,!y]) are not IP-only in Suricata 7.0.10 and match every
packet; the others match the first packet of each direction; a `<>` rule whose sides
differ alerts twice on a packet that matches both ways."""
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "../../tools"))
from pcapgen import eth, ipv4_udp, write_pcap

write_pcap(os.path.join(here, "input.pcap"), [
    eth(ipv4_udp("192.0.2.1", "198.51.100.9", 5000, 9000, b"a", ident=1)),
    eth(ipv4_udp("198.51.100.9", "192.0.2.1", 9000, 5000, b"b", ident=2)),
    eth(ipv4_udp("192.0.2.1", "198.51.100.9", 5000, 9000, b"c", ident=3)),
])
